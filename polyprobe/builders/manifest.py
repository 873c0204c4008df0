"""A suite manifest: one language's resources, per family, in a TOML file.

```toml
[suite]
name = "fi-probing"             # the dataset's name (default: the file's stem)
lang = "fi"                     # every member's --lang, unless a member gives its own

[members.ud]                    # a member: one family's build; the family is the table's name
paths = ["ud/UD_Finnish-TDT"]   # ... or ``family = "ud"`` when the name is another
sizes = "10k"                   # any option of the family (``polyprobe build ud --help``)

[members.pud]
family = "ud"
paths = ["ud/UD_Finnish-PUD"]
```

Paths are relative to the data root: ``--data DIR`` on the command line, else the manifest's
own folder; an absolute path is taken as it is.

polyprobe ships a manifest per language the shared data covers, and ``pud`` for the parallel
treebanks (``polyprobe/suites/<name>.toml``, written by ``polyprobe suite init --data DIR``
over that data): ``polyprobe suite build fi --data DIR --out X`` builds the shipped suite
``fi`` when no file ``fi`` exists (:func:`shipped_manifest`). Their paths are relative to the
data root, so ``--data`` is required. A member's options are its family's Config
fields, checked as the command line checks them (an unknown one is refused, listing the
valid ones); ``out``, ``release`` and ``previous`` are the suite's, not a member's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from polyprobe.builders.options import make_config, option_of
from polyprobe.builders.suite import Member, Suite
from polyprobe.errors import InputError, UsageError

# What a member may not set: the suite's folder and release are one for all its members.
SUITE_ONLY = ("out", "overwrite", "release", "previous", "allow_bump_mismatch")
# The manifests polyprobe ships (package data: pyproject's package-data).
SHIPPED = Path(__file__).resolve().parent.parent / "suites"


def shipped_manifest(name: str) -> Path | None:
    """The manifest of the shipped suite ``name`` (``fi``, ``pud``), or None when there is
    none of that name (the caller then reads ``name`` as a path, and says it is missing)."""
    if not name or any(ch in name for ch in "/\\.") or name.startswith("-"):
        return None
    path = SHIPPED / f"{name}.toml"
    return path if path.is_file() else None


def shipped_names() -> list[str]:
    """The shipped suites' names, sorted."""
    return sorted(p.stem for p in SHIPPED.glob("*.toml"))


def read_manifest(path: str | Path, data: str | Path | None = None) -> Suite:
    """The suite a manifest describes, its paths resolved against ``data`` (default: the
    manifest's folder). Every error names the manifest (and the member)."""
    from polyprobe.builders.families import family_named
    from polyprobe.loaders.inputs import read_text

    p = Path(path)
    if not p.exists() and not p.suffix and shipped_names():
        shipped = ", ".join(shipped_names())
        raise InputError(p, None, f"no such file, nor a shipped suite ({shipped})", "missing-file")
    text = read_text(p, "suite manifest")
    try:
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        table = tomllib.loads(text)
    except ValueError as exc:
        raise InputError(
            p, getattr(exc, "lineno", None), f"not TOML: {exc}", "bad-manifest"
        ) from None
    unknown = sorted(set(table) - {"suite", "members"})
    if unknown:
        raise InputError(
            p,
            None,
            f"unknown section(s) {unknown}: use [suite] and [members.<name>]",
            "bad-manifest",
        )
    head = table.get("suite") or {}
    extra = sorted(set(head) - {"name", "lang"})
    if extra:
        raise InputError(
            p, None, f"[suite]: unknown key(s) {extra}; valid: name, lang", "bad-manifest"
        )
    if "lang" not in head:
        raise InputError(p, None, "[suite] needs lang (the suite's language)", "bad-manifest")
    if data is None and p.resolve().parent == SHIPPED:
        raise UsageError(
            f"the shipped suite {p.stem!r} names its files relative to a data root: pass "
            "--data DIR (the folder holding ud/, unimorph/, word_similarity/, ...)"
        )
    root = Path(data) if data is not None else p.parent
    members = []
    for name, options in (table.get("members") or {}).items():
        if not isinstance(options, dict):
            raise InputError(
                p, None, f"[members.{name}] must be a table of options", "bad-manifest"
            )
        options = dict(options)
        try:
            family = family_named(str(options.pop("family", name)))
        except UsageError as exc:
            raise InputError(p, None, f"[members.{name}]: {exc}", "bad-manifest") from None
        given = sorted(set(options) & set(SUITE_ONLY))
        if given:
            raise InputError(
                p, None, f"[members.{name}]: {', '.join(given)} belong to the suite", "bad-manifest"
            )
        try:
            values = {"lang": head["lang"], **resolved(family.Config, options, root), "out": "."}
            config = make_config(family.Config, values)
        except UsageError as exc:
            raise InputError(
                p, None, f"[members.{name}] ({family.name}): {exc}", "bad-manifest"
            ) from None
        members.append(Member(name, family, config))
    try:
        return Suite(str(head.get("name") or p.stem), str(head["lang"]), tuple(members), p.name)
    except UsageError as exc:
        raise InputError(p, None, str(exc), "bad-manifest") from None


def resolved(config: type, options: dict[str, Any], root: Path) -> dict[str, Any]:
    """``options`` with every input path made absolute against ``root`` (fields typed
    ``Path``, and inputs that may carry a ``NAME=`` prefix: ``de=corpus.de``,
    ``train=sst.tsv``)."""
    out = dict(options)
    for f in dataclasses.fields(config):
        if f.name not in out:
            continue
        spec = option_of(config, f.name)
        if "Path" not in str(f.type) and not (spec is not None and spec.positional):
            continue
        value = out[f.name]
        if isinstance(value, list):
            out[f.name] = [p for v in value for p in _paths(v, root, f.name)]
        else:
            out[f.name] = _path(value, root)
    return out


def _paths(value: Any, root: Path, field: str) -> list[Any]:
    """One list entry: a path, or a glob pattern (``analogy/ANA_*.txt``) expanded in sorted
    order; a pattern that matches nothing is an error (a manifest must not build less than
    it says without saying so)."""
    if not isinstance(value, str) or not any(ch in value for ch in "*?["):
        return [_path(value, root)]
    head, eq, tail = value.partition("=")
    prefix = f"{head}=" if eq and head and "/" not in head else ""
    pattern = tail if prefix else value
    base = Path(pattern) if Path(pattern).is_absolute() else root / pattern
    found = sorted(str(p) for p in Path(base.anchor).glob(str(base.relative_to(base.anchor))))
    if not found:
        raise UsageError(f"{field}: the pattern {pattern!r} matches no file under {root}")
    return [f"{prefix}{p}" for p in found]


def _path(value: Any, root: Path) -> Any:
    if not isinstance(value, str):
        return value
    head, eq, tail = value.partition("=")
    if eq and head and "/" not in head:  # NAME=PATH
        return f"{head}={_path(tail, root)}"
    return str(value if Path(value).is_absolute() else root / value)
