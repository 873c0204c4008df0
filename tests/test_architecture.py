"""The package's import graph: data flows one way (source → records → tasks → assembly →
folder → evaluation), so no module may import against that flow and no modules may import
each other in a loop. Every ``import`` counts, also those inside functions (a lazy import is
still a dependency)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "polyprobe"

# What a task may not know: splits, variants, assembly, how records are read or run, the
# families, files, cards.
_NOT_FOR_TASKS = (
    "polyprobe.builders.variants",
    "polyprobe.builders.assemble",
    "polyprobe.builders.execution",
    "polyprobe.builders.build",
    "polyprobe.builders.configure",
    "polyprobe.builders.outcomes",
    "polyprobe.builders.family",
    "polyprobe.builders.families",
    "polyprobe.builders.records",
    "polyprobe.builders.profiling",
    "polyprobe.builders.suites",
    "polyprobe.cards",
    "polyprobe.runtime",
    "polyprobe.evaluation",
)
TASK_PACKAGES = (
    "polyprobe.builders.sentence",
    "polyprobe.builders.downstream",
    "polyprobe.builders.discourse",
    "polyprobe.builders.lexical",
    "polyprobe.builders.word",
)

# (importer prefix, forbidden prefixes): what a part of the house must never import.
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    # the ground floor imports nothing of the package but errors
    ("polyprobe.metadata", ("polyprobe.",)),
    ("polyprobe.errors", ("polyprobe.",)),
    ("polyprobe.hashing", ("polyprobe.builders", "polyprobe.cards", "polyprobe.loaders")),
    # loaders know nothing of tasks, cards, evaluation or the machinery
    (
        "polyprobe.loaders",
        ("polyprobe.builders", "polyprobe.cards", "polyprobe.evaluation", "polyprobe.runtime"),
    ),
    # cards only describe what the build produced
    ("polyprobe.cards", ("polyprobe.builders", "polyprobe.evaluation", "polyprobe.runtime")),
    # evaluation reads published datasets as a user would
    ("polyprobe.evaluation", ("polyprobe.builders", "polyprobe.runtime")),
    # the machinery sits under the domain and knows no task
    (
        "polyprobe.runtime",
        ("polyprobe.builders", "polyprobe.cards", "polyprobe.evaluation", "polyprobe.loaders"),
    ),
    # a family is a declaration: it never runs anything itself
    (
        "polyprobe.builders.families",
        ("polyprobe.builders.execution", "polyprobe.runtime", "polyprobe.builders.build"),
    ),
    # how records are read and named knows no run and no family
    (
        "polyprobe.builders.records",
        ("polyprobe.builders.execution", "polyprobe.runtime", "polyprobe.builders.families"),
    ),
    # the declaration API knows no family, no records, no run
    (
        "polyprobe.builders.family",
        (
            "polyprobe.builders.families",
            "polyprobe.builders.records",
            "polyprobe.builders.execution",
            "polyprobe.runtime",
        ),
    ),
    # tasks know nothing of variants, assembly, records, families, files, cards or the
    # machinery
    *[(tasks, _NOT_FOR_TASKS) for tasks in TASK_PACKAGES],
]

# Only the spine runs the execution machinery.
SPINE = ("polyprobe.builders.build", "polyprobe.builders.profiling", "polyprobe.builders.execution")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Every polyprobe module ``path`` imports (absolute or relative, anywhere in the file).
    ``from package import submodule`` imports the submodule (the package's ``__init__`` runs
    first, as for every ``import a.b``, and is not counted)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in modules else module)
    return {m for m in found if m == "polyprobe" or m.startswith("polyprobe.")}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path, set(modules)):
            # keep the longest prefix that is a module of the package
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts and ".".join(parts) != name:
                targets.add(".".join(parts))
        edges[name] = targets
    return edges


def test_no_import_runs_against_the_flow(graph: dict[str, set[str]]) -> None:
    wrong = []
    for importer, targets in graph.items():
        for prefix, forbidden in FORBIDDEN:
            if importer == prefix or importer.startswith(prefix + "."):
                wrong += [
                    f"{importer} -> {t}"
                    for t in sorted(targets)
                    if any(
                        t == f.rstrip(".") or t.startswith(f.rstrip(".") + ".") for f in forbidden
                    )
                    and not (prefix == "polyprobe.metadata" and t == "polyprobe.errors")
                ]
    assert not wrong, "imports against the flow:\n" + "\n".join(wrong)


def test_only_the_spine_runs_the_machinery(graph: dict[str, set[str]]) -> None:
    """``polyprobe.builders.execution`` is imported by the spine and by nothing else (the
    configuration step names its stream type, and nothing of how it runs)."""
    allowed = (*SPINE, "polyprobe.builders.configure")
    wrong = [
        f"{importer} -> {t}"
        for importer, targets in graph.items()
        for t in sorted(targets)
        if t.startswith("polyprobe.builders.execution")
        and not any(importer == a or importer.startswith(a + ".") for a in allowed)
    ]
    assert not wrong, "imports of the execution machinery outside the spine:\n" + "\n".join(wrong)


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    """Tarjan's strongly connected components: any component of two or more modules (or a
    module importing itself) is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_graph_is_read(graph: dict[str, set[str]]) -> None:
    """The walk sees real edges (a test of the test): the build imports the engine, the
    card imports the ground floor."""
    assert "polyprobe.builders.variants" in graph["polyprobe.builders.assemble"]
    assert "polyprobe.builders.execution.run" in graph["polyprobe.builders.build"]
    assert "polyprobe.builders.family" in graph["polyprobe.builders.families.ud"]
    assert "polyprobe.metadata" in graph["polyprobe.cards.card"]
    assert "polyprobe.loaders.conllu" in graph["polyprobe.loaders.sources"]
