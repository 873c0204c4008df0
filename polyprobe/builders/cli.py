"""``polyprobe build <family>`` and ``polyprobe profile ud``, generated from the families'
Config classes (:mod:`polyprobe.builders.family`): every field is a flag (or a positional
argument) with its type, default and help, so an option is declared once, in its Config.

Only the value given on the command line reaches the config (argparse's defaults are
suppressed): the Config's own default, or a profile's ``[family]`` value, fills the rest.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

EXIT_OK = 0
_TYPES: dict[str, Any] = {"int": int, "float": float}


def add_build_parser(sub: Any, families: bool = True) -> None:
    """``build`` with one subcommand per family, and ``profile ud`` (``families`` False: the
    two commands' names only, for the other commands' start-up)."""
    build = sub.add_parser("build", help="build a dataset folder from a source")
    if not families:
        sub.add_parser("profile", help="show the language choices a build would derive")
        return
    from polyprobe.builders.families import families as found

    build_sub = build.add_subparsers(dest="source", metavar="SOURCE", parser_class=type(build))
    for family in found().values():
        p = build_sub.add_parser(
            family.name,
            help=family.help,
            description=family.description,
            epilog=_tasks_text(family),
        )
        add_config_arguments(p, family.Config)
        p.add_argument(
            "--quiet",
            "--no-progress",
            dest="quiet",
            action="store_true",
            help="no progress output (nothing on stderr unless the build fails)",
        )
        p.set_defaults(func=_runner(family))
    add_profile_parser(sub)


def add_config_arguments(
    p: argparse.ArgumentParser, config: type, only: frozenset[str] | None = None
) -> None:
    """One argument per field of ``config`` (the family's own first, positional first;
    ``only``: just those fields)."""
    from polyprobe.builders.options import BuildConfig, flag_of, option_of

    shared = {f.name for f in dataclasses.fields(BuildConfig)}
    fields = [
        f
        for f in dataclasses.fields(config)
        if (s := option_of(config, f.name)) and s.cli and (only is None or f.name in only)
    ]
    fields.sort(key=lambda f: (f.name in shared, not option_of(config, f.name).positional))  # type: ignore[union-attr]
    for f in fields:
        spec = option_of(config, f.name)
        assert spec is not None
        kind = str(f.type)
        default = _default(f)
        shown = _shown(default)
        help_text = spec.help + (f" (default: {shown})" if shown else "")
        kwargs: dict[str, Any] = {"help": help_text, "default": argparse.SUPPRESS}
        if spec.metavar:
            kwargs["metavar"] = spec.metavar
        if spec.choices:
            kwargs["choices"] = [c for c in spec.choices if c is not None]
        if spec.positional:
            if default is dataclasses.MISSING:
                del kwargs["default"]
            if kind.startswith("tuple"):  # a positional with a default may be left out
                kwargs["nargs"] = "+" if default is dataclasses.MISSING else "*"
            elif default is not dataclasses.MISSING:
                kwargs["nargs"] = "?"
            p.add_argument(f.name, **kwargs)
            continue
        if kind == "bool":
            kwargs["action"] = "store_false" if default is True else "store_true"
        elif spec.repeat:
            kwargs["action"] = "append" if kind.startswith("dict") else "extend"
            if not kind.startswith("dict"):
                kwargs["nargs"] = "+"
        else:
            kwargs["type"] = _TYPES.get(kind.replace(" | None", ""), str)
        if default is dataclasses.MISSING:
            kwargs["required"] = True
        p.add_argument(flag_of(f.name, spec), dest=f.name, **kwargs)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _shown(value: Any) -> str:
    """A default as a user would type it; empty when there is nothing to say."""
    from polyprobe.builders.variants import MinPerClass

    if value is dataclasses.MISSING or value in (None, False, (), {}, ""):
        return ""
    if isinstance(value, MinPerClass):
        return ",".join(map(str, value.as_tuple()))
    if isinstance(value, tuple):
        labels = [getattr(v, "label", v) for v in value]
        return "" if labels == ["full"] else ",".join(map(str, labels))
    return "" if value is True else str(value)


def _tasks_text(family: Any) -> str:
    """The family's tasks for its ``--help``: default ones marked ``*``, then its groups."""
    tasks = family.tasks
    if tasks is None:
        return "tasks: the sets the inputs hold, by config name (--tasks selects some)"
    default = set(tasks.default if tasks.default is not None else tasks.by_name)
    names = [n + ("*" if n in default else "") for n in tasks.by_name]
    text = f"tasks (* = built when --tasks is not given): {', '.join(names)}"
    if tasks.groups:
        text += "; groups: " + "; ".join(f"{g} ({', '.join(ts)})" for g, ts in tasks.groups.items())
    if tasks.maker is not None:
        text += "; and tasks named by a pattern (see docs/tasks.md)"
    return text


def _runner(family: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from polyprobe.builders.build import build_family

        names = {f.name for f in dataclasses.fields(family.Config)}
        given = {k: v for k, v in vars(args).items() if k in names}
        print_summary(build_family(family, **given))
        return EXIT_OK

    return run


def print_summary(result: Any) -> None:
    """The closing lines of a build: the built tasks' sizes, then the tasks not built (a
    count and one line each: the full reasons are in ``report.json``), skips, splits,
    release, folder."""
    print("\n".join(task_table(result.tasks)))
    lexicon = result.facts.get("lexicon")
    if lexicon:
        print(
            f"lexicon: {lexicon['entries']} entries, {lexicon['forms']} forms, "
            f"{lexicon['lemmas']} lemmas; {lexicon['entries_with_unknown_tags']} entries with "
            "unknown tags"
        )
    if result.skipped_invalid:
        skipped = ", ".join(f"{k}: {v}" for k, v in result.skipped_invalid.items())
        print(f"skipped invalid input: {skipped}")
    print(f"split: {result.split}")
    print(f"wrote {result.out} (fingerprint {result.fingerprint})")
    check = result.bump_check
    line = f"release {result.release}"
    if check:
        line += f" ({check.get('required')} bump from {check.get('previous')}"
        line += ", mismatch allowed)" if check.get("mismatch_allowed") else ")"
    print(line)


# A reason longer than this is cut (with "…"): the closing lines are read on a terminal; the
# card and report.json keep every reason whole.
REASON_CHARS = 100


def one_line(text: str, width: int = REASON_CHARS) -> str:
    first = " ".join(str(text).split())
    return first if len(first) <= width else first[: width - 1].rstrip() + "…"


def task_table(tasks: Any) -> list[str]:
    """The built tasks, one line each with their sizes (a mark where some variants were not
    built), then how many tasks were not built and why, one line each."""
    rows = [("task", "candidates", "configs", "train", "validation", "test")]
    built = [s for s in tasks if s.configs]
    partly = 0
    for s in built:
        mark = "*" if s.infeasible or s.not_built else ""
        partly += bool(mark)
        rows.append(
            (
                s.task + mark,
                str(s.candidates),
                str(len(s.configs)),
                str(s.rows.get("train", 0)),
                str(s.rows.get("validation", 0)),
                str(s.rows.get("test", 0)),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    if partly:
        lines.append(f"* {partly} task(s) with some variants not built (sizes, balances)")
    missing = [s for s in tasks if not s.configs]
    if missing:
        lines.append(
            f"not built: {len(missing)} of {len(tasks)} tasks (full reasons in report.json)"
        )
        width = max(len(s.task) for s in missing)
        lines += [f"  {s.task.ljust(width)}  {one_line(s.infeasible or '')}" for s in missing]
    return lines


def add_profile_parser(sub: Any) -> None:
    """``polyprobe profile ud PATH... --lang xx``: every choice a build would derive."""
    from polyprobe.builders.families.ud import UdConfig

    prof = sub.add_parser("profile", help="show the language choices a build would derive")
    prof_sub = prof.add_subparsers(dest="source", metavar="SOURCE", parser_class=type(prof))
    p = prof_sub.add_parser(
        "ud",
        help="profile UD treebanks",
        description="Print every language-specific choice `build ud` would derive from these "
        "treebanks (capitalisation, targets, windows, bins, signals, label sets) and the "
        "annotation they offer. Edit the output and pass it back with --profile.",
    )
    add_config_arguments(p, UdConfig, PROFILE_OPTIONS)
    p.add_argument("--format", choices=["toml", "json"], default="toml")
    p.set_defaults(func=run_profile_ud)


# What ``profile ud`` reads: a profile writes no folder and builds no variant.
PROFILE_OPTIONS = frozenset(
    {"paths", "lang", "tasks", "split", "min_per_class", "profile", "on_invalid", "unimorph"}
)


def run_profile_ud(args: argparse.Namespace) -> int:
    import json

    from polyprobe.builders.families.ud import UdConfig
    from polyprobe.builders.options import make_config
    from polyprobe.builders.profiling import profile_ud

    names = {f.name for f in dataclasses.fields(UdConfig)}
    given = {k: v for k, v in vars(args).items() if k in names}
    profile = profile_ud(make_config(UdConfig, {"out": ".", **given}))
    if args.format == "json":
        print(json.dumps(profile, indent=2, ensure_ascii=False))
    else:
        import tomli_w

        print(tomli_w.dumps(_toml_safe(profile)), end="")
    return EXIT_OK


def _toml_safe(value: Any) -> Any:
    """TOML has no null and only string keys: drop Nones, stringify keys."""
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_toml_safe(v) for v in value if v is not None]
    return value
