"""CONTRIBUTING.md's walk-throughs, run as written: a new task added to the UD family and a new
toy source family (a TSV loader, one task, a recipe on the shared build), each built through
the public spine and loaded with ``datasets.load_dataset``."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from polyprobe.cards.validate import validate

GUIDE = Path(__file__).resolve().parent.parent / "CONTRIBUTING.md"


def _python_blocks() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _module(name: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A fresh module's namespace for the guide's code, as if it were a file of the package."""
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    return module.__dict__


def _run(block: str, title: str, ns: dict[str, Any]) -> None:
    exec(compile(block, f"CONTRIBUTING.md: {title}", "exec", dont_inherit=True), ns)


def test_the_guide_has_the_walk_throughs() -> None:
    blocks = _python_blocks()
    assert len(blocks) == 6, "the test runs six python blocks; update it with the guide"
    assert "class RootUpos(Task[Sentence])" in blocks[0]
    assert "class ToyRecipe" in blocks[4]


def test_adding_a_task(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hf_offline: None
) -> None:
    from polyprobe.builders import registry

    blocks = _python_blocks()
    ns = _module("contributing_root_upos", monkeypatch)
    _run(blocks[0], "root_upos", ns)
    task = ns["RootUpos"]
    monkeypatch.setitem(registry.FAMILIES["ud"], "root_upos", task)  # step 1: register it
    ns.update(treebank=ud_dir / "UD_English-EWT", out=tmp_path)
    _run(blocks[1], "build root_upos", ns)
    result = ns["result"]
    assert validate(result.out).ok
    assert [s.task for s in result.tasks] == ["root_upos"]
    # its options are validated like every task's
    from polyprobe.builders.task import TaskContext
    from polyprobe.errors import UsageError

    with pytest.raises(UsageError, match="valid options: top"):
        task.configure({"tpo": 3}, TaskContext())


def test_adding_a_source_family(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hf_offline: None
) -> None:
    blocks = _python_blocks()
    ns = _module("contributing_toy", monkeypatch)
    ns["out"] = tmp_path
    for i, title in zip(range(2, 6), ("loader", "task", "recipe", "build"), strict=True):
        _run(blocks[i], f"toy {title}", ns)
    result = ns["result"]
    assert validate(result.out).ok
    assert [s.task for s in result.tasks] == ["toy_sentiment"]
    card = (result.out / "README.md").read_text(encoding="utf-8")
    assert "toy-tsv" in card and "CC0-1.0" in card  # the source, as its info says
    # the shared skip policy reaches the new loader: a bad line is counted, not fatal
    bad = tmp_path / "toy.tsv"
    bad.write_text(bad.read_text(encoding="utf-8") + "oops\n", encoding="utf-8")
    skipped = ns["build_toy"](
        bad, lang="en", out=tmp_path / "skip", min_per_class=(1, 1, 1), on_invalid="skip"
    )
    assert skipped.skipped_invalid == {"bad-line": 1}
    from polyprobe.errors import InputError

    with pytest.raises(InputError, match=r"toy.tsv:19: expected id, split"):
        ns["build_toy"](bad, lang="en", out=tmp_path / "raise", min_per_class=(1, 1, 1))
    assert not (tmp_path / "raise").exists()
