"""The manifest's text, written atomically, and what init prints."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

from polyprobe.builders.discover.language import plan_language
from polyprobe.builders.discover.parallel import plan_parallel
from polyprobe.builders.discover.plan import SEARCHED, Plan
from polyprobe.builders.discover.scan import Resource, scan
from polyprobe.errors import UsageError
from polyprobe.languages import Language, resolve_language


def render(plan: Plan, command: str, searched: Sequence[str], relative: bool) -> str:
    """The manifest's text: a head saying how it was made, how to build it and what is
    missing; ``[suite]``; each member with its comments."""
    import tomli_w

    lang = plan.lang
    lines = [
        f"# polyprobe suite manifest: {plan.title}, written by",
        f"#     {command}",
        f"# searched: {', '.join(searched)}" + (" (relative to the data root)" if relative else ""),
        "# Paths are relative to the data root: pass it to `polyprobe suite build --data DIR`."
        if relative
        else "# Paths are absolute (no --data was given to suite init).",
    ]
    if plan.missing:
        lines.append("# Missing (what each would add):")
        lines += [c for family, text in plan.missing for c in _comment(f"{family}: {text}", 1)]
    if plan.unused:
        lines.append("# Found, not used:")
        lines += [c for family, text in plan.unused for c in _comment(f"{family}: {text}", 1)]
    lines += ["", "[suite]", tomli_w.dumps({"name": plan.name, "lang": lang.code}).rstrip()]
    for member in plan.members:
        lines.append("")
        lines += [c for text in member.comments for c in _comment(text)]
        lines.append(f"[members.{member.name}]")
        options = dict(member.options)
        if member.family != member.name:
            options = {"family": member.family, **options}
        lines.append(tomli_w.dumps(options).rstrip())
    return "\n".join(lines) + "\n"


def _comment(text: str, indent: int = 0) -> list[str]:
    """``text`` as ``#`` lines of at most 100 characters (continuations indented)."""
    lead = "# " + "  " * indent
    return textwrap.wrap(
        text,
        width=100,
        initial_indent=lead,
        subsequent_indent=lead + "    ",
        break_on_hyphens=False,
        break_long_words=False,
    )


def _shown(data: Path | None) -> Callable[[Path], str]:
    """How a path is written: relative to ``data`` when under it, else absolute (POSIX).
    Under it as given or as resolved: a data root reached through a symbolic link
    (``../shared/data`` -> elsewhere) holds the paths found through the link and their
    targets alike."""
    bases = [] if data is None else [Path(os.path.abspath(data)), data.resolve()]

    def show(path: Path) -> str:
        full = Path(os.path.abspath(path))
        for base, candidate in ((b, c) for b in bases for c in (full, full.resolve())):
            try:
                return candidate.relative_to(base).as_posix() or "."
            except ValueError:
                continue
        return full.as_posix()

    return show


def init_manifest(
    lang: str,
    search: Sequence[str | Path],
    out: str | Path | None = None,
    data: str | Path | None = None,
    overwrite: bool = False,
    *,
    parallel: bool = False,
    echo: Callable[[str], None] = print,
) -> Path:
    """Find ``lang``'s resources under the ``search`` folders and write its suite manifest to
    ``out`` (default ``<lang>.toml``, or ``pud.toml`` with ``parallel``, in the current
    folder), atomically; refuse an existing file unless ``overwrite``. With ``data``, paths
    are written relative to it. ``parallel``: the parallel suite of every PUD treebank found,
    ``lang`` its pivot. Says per family what was found and what is missing through ``echo``,
    then the command that builds the manifest. Nothing found: a ``UsageError``."""
    language = resolve_language(lang)
    target = Path(out) if out is not None else Path(f"{'pud' if parallel else language.code}.toml")
    if target.exists() and not overwrite:
        raise UsageError(f"{target} exists; pass --overwrite to replace it (or --out elsewhere)")
    root = Path(data) if data is not None else None
    if root is not None and not root.is_dir():
        raise UsageError(f"--data {root}: not a folder")
    show = _shown(root)
    resources = scan(search)
    planner = plan_parallel if parallel else plan_language
    plan = planner(language, resources, show)
    searched = [show(Path(s)) for s in search]
    if not plan.members:
        raise UsageError(_nothing_found(language, resources, searched, parallel))
    command = f"polyprobe suite init --lang {language.code}" + (" --parallel" if parallel else "")
    text = render(plan, command, searched, root is not None)
    _write(target, text, root)
    for line in report(plan, target, searched, root):
        echo(line)
    return target


def _nothing_found(
    lang: Language, resources: Sequence[Resource], searched: Sequence[str], parallel: bool
) -> str:
    where = ", ".join(searched)
    if parallel:
        return f"no PUD treebank (UD_*-PUD) under {where}: nothing to build a parallel suite of"
    others = sorted({resolve_language(c).code for r in resources for c in r.languages})
    seen = f"; found resources of {', '.join(others)} only" if others else ""
    return (
        f"no resource of {lang.name} ({lang.code}) under {where}{seen}: looked for UD treebanks, "
        "UniMorph/SIGMORPHON lexicons, Wuggy files, Wikipedia dumps, similarity, analogy and "
        "dictionary files, TREC and COSTRA by their standard names"
    )


def _write(target: Path, text: str, data: Path | None) -> None:
    """Write ``text`` to ``target`` atomically, after checking that it reads back as a suite
    (a manifest init writes must build as it is)."""
    from polyprobe.builders.manifest import read_manifest

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        read_manifest(tmp, data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def report(plan: Plan, target: Path, searched: Sequence[str], data: Path | None) -> list[str]:
    """What init prints: per family what was found, found but not used, and missing (with
    the tasks it would add); then the next command."""
    out = [f"{plan.title}: searched {', '.join(searched)}", ""]
    sections = (("found", plan.found), ("not used", plan.unused), ("missing", plan.missing))
    width = max(len(family) for _, entries in sections for family, _ in entries)
    for title, entries in sections:
        if not entries:
            continue
        out.append(f"{title}:")
        for family, text in entries:
            wrapped = textwrap.wrap(
                text, 96 - width, break_on_hyphens=False, break_long_words=False
            ) or [""]
            out.append(f"  {family:<{width}}  {wrapped[0]}")
            out += [f"  {'':<{width}}    {w}" for w in wrapped[1:]]
        out.append("")
    from polyprobe.builders.families import families

    others = sorted(set(families()) - {*SEARCHED, "parallel"})
    out.append(f"not searched (no standard file names; add members by hand): {', '.join(others)}")
    members = ", ".join(m.name for m in plan.members)
    count = f"{len(plan.members)} member{'s' if len(plan.members) != 1 else ''}"
    out += ["", f"wrote {target} ({count}: {members})", "", "Next:"]
    data_flag = f" --data {data}" if data is not None else ""
    out.append(f"    polyprobe suite build {target}{data_flag} --out {plan.name}")
    return out
