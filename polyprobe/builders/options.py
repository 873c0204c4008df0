"""A family's options: one frozen dataclass per family (its ``Config``), every option
declared once with its type, default, help and parser (:func:`option`), over the options
every build shares (:class:`BuildConfig`). The command line (:mod:`polyprobe.builders.cli`)
is generated from the fields, the Python function takes them as keywords, a profile's
``[family]`` section may set the family's own (:func:`make_config`), and the card records
them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from polyprobe.builders.ratios import parse_balance
from polyprobe.builders.variants import MinPerClass, SizeSpec, parse_sizes
from polyprobe.errors import InputError, UsageError
from polyprobe.languages import Language, resolve_language


@dataclass(frozen=True)
class Option:
    """How one config field is presented: its help text, and for the command line its flag
    (``--x-y`` from the field name unless given), metavar, choices, whether it is positional
    and whether it repeats (``action=append``-style lists); ``parse`` turns what a user types
    (or a profile holds) into the field's type and must accept the typed value as it is."""

    help: str
    flag: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    positional: bool = False
    parse: Callable[[Any], Any] | None = None
    repeat: bool = False  # a list given as repeated flags / several values (nargs="+")
    cli: bool = True  # False: Python-only (per-task option tables)
    profile: bool = True  # may a profile's [family] section set it?


def option(
    default: Any = dataclasses.MISSING,
    *,
    help: str,  # noqa: A002 - argparse's word
    default_factory: Callable[[], Any] | None = None,
    **presentation: Any,
) -> Any:
    """A config field with its presentation (:class:`Option`)."""
    meta = {"option": Option(help=help, **presentation)}
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=meta)
    return field(default=default, metadata=meta)


def paths_option(
    help: str,  # noqa: A002 - argparse's word
    *,
    required: bool | None = None,
    **presentation: Any,
) -> Any:
    """A field holding input paths (``--x A B`` or ``--x A --x B``; positional with
    ``positional=True``): a tuple of paths, empty by default, required when positional
    unless ``required=False``."""
    positional = presentation.get("positional", False)
    presentation.setdefault("repeat", not positional)
    needed = positional if required is None else required
    return option(dataclasses.MISSING if needed else (), help=help, parse=as_paths, **presentation)


def split_list(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"a, b"`` -> ``("a", "b")``; a sequence as it is; empty -> None."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    found = tuple(dict.fromkeys(str(i).strip() for i in items if str(i).strip()))
    return found or None


def as_paths(value: Any) -> tuple[Path, ...]:
    """One path or several, as a tuple of paths."""
    if value is None:
        return ()
    if isinstance(value, str | Path):
        return (Path(value),)
    return tuple(Path(v) for v in value)


def optional_path(value: Any) -> Path | None:
    return None if value is None else Path(value)


def parse_min_per_class(value: Any) -> MinPerClass:
    """``"50,20,20"``, ``"0"``, ``0``, ``(50, 20, 20)`` -> :class:`MinPerClass`."""
    if isinstance(value, MinPerClass):
        return value
    if isinstance(value, int):
        value = (value,)
    parts = value.split(",") if isinstance(value, str) else tuple(value)
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise UsageError(
            f"--min-per-class {value!r}: expected N or TRAIN,VALIDATION,TEST"
        ) from None
    if len(numbers) == 1:
        numbers *= 3
    if len(numbers) != 3 or any(n < 0 for n in numbers):
        raise UsageError(f"--min-per-class {value!r}: expected one or three whole numbers >= 0")
    return MinPerClass(*numbers)


def key_values(what: str, example: str) -> Callable[[Any], dict[str, str]]:
    """A parser of ``KEY=VALUE`` items (repeated flags, or one comma-separated string) into a
    dict; a mapping is taken as it is."""

    def parse(value: Any) -> dict[str, str]:
        if value is None:
            return {}
        if isinstance(value, Mapping):
            return {str(k): v for k, v in value.items()}
        items = split_list(value) if isinstance(value, str) else value
        out: dict[str, str] = {}
        for item in items or ():
            key, sep, val = str(item).partition("=")
            if not sep or not key.strip() or not val.strip():
                raise UsageError(f"{what} {item!r}: expected {example}")
            out[key.strip()] = val.strip()
        return out

    return parse


def _sizes(value: Any) -> tuple[SizeSpec, ...]:
    if value is None or isinstance(value, str):
        return parse_sizes(value or None)
    return tuple(value)


def _balances(value: Any) -> tuple[str, ...]:
    """``natural,balanced,1:5`` → canonical names (``1:R`` is ``ratio1toR``, see
    :mod:`polyprobe.builders.ratios`), each once, in the order given."""
    found = split_list(value)
    if not found:
        raise UsageError("--balances: give natural, balanced and/or 1:R (e.g. 1:5)")
    return tuple(dict.fromkeys(parse_balance(balance) for balance in found))


BALANCES = ("natural", "balanced")


@dataclass(frozen=True, kw_only=True)
class BuildConfig:
    """The options every family's build takes; a family's Config subclasses it with its own
    (and may give a shared option another default, ``lang: str = "en"``). Values are parsed
    and checked here, before any input is read: a :class:`UsageError` names the first bad
    one."""

    lang: str = option(help="ISO 639-1 or 639-3 code (e.g. en, eng)")
    out: Path = option(help="dataset folder to write", parse=Path, profile=False)
    overwrite: bool = option(False, help="replace an existing --out atomically", profile=False)
    tasks: tuple[str, ...] | None = option(
        None, help="comma-separated task names or groups (default: the suite)", parse=split_list
    )
    sizes: tuple[SizeSpec, ...] = option(
        (SizeSpec("full"),),
        help="extra train sizes besides full: absolute (10k, 5000) or fractions (0.25,0.5)",
        parse=_sizes,
        metavar="SIZES",
    )
    balances: tuple[str, ...] = option(
        BALANCES,
        help="variants to build: natural, balanced and/or class ratios 1:R (e.g. 1:5, 1:10: "
        "the rarest class m rows, the most frequent R·m; configs <task>.ratio1toR-<size>)",
        parse=_balances,
    )
    min_per_class: MinPerClass = option(
        default_factory=MinPerClass,
        help="class floor per split: one number for all, or TRAIN,VALIDATION,TEST (0 = no "
        "floor, yet a class with no row is dropped and no balanced config is built when a "
        "class is missing from a split)",
        parse=parse_min_per_class,
        metavar="N|TRAIN,VALIDATION,TEST",
    )
    seed: int = option(0, help="seed of every sampling and perturbation", parse=int)
    on_invalid: str = option(
        "raise",
        help="malformed input: stop with an error naming file and line, or skip it and count "
        "it by reason in the card",
        choices=("raise", "skip"),
    )
    license_overrides: dict[str, str] = option(
        default_factory=dict,
        help="override a source's licence (e.g. UD_English-EWT=CC-BY-SA-4.0)",
        flag="--license",
        metavar="SRC=ID",
        repeat=True,
        parse=key_values("--license", "SRC=ID, e.g. UD_English-EWT=CC-BY-SA-4.0"),
    )
    source_version: str | None = option(None, help="version of sources that are not git checkouts")
    allow_license_mix: bool = option(
        False, help="allow merging NonCommercial and ShareAlike sources (recorded in the card)"
    )
    allow_language_mismatch: bool = option(
        False,
        help="build although a source declares another language than --lang or the sources "
        "mix languages (recorded in the card)",
    )
    profile: Path | None = option(
        None,
        help="TOML/JSON file of derived choices and options ([language], [family], "
        "[tasks.<name>]; an unknown key is an error listing the valid ones)",
        parse=optional_path,
        profile=False,
    )
    release: str | None = option(
        None,
        help="the dataset's semantic version (default 0.1.0; with --previous, the version the "
        "changes require)",
        metavar="X.Y.Z",
        profile=False,
    )
    previous: Path | None = option(
        None,
        help="the previous release's folder: diff against it, check the --release bump "
        "(patch: same rows; minor: rows changed or config added; major: config removed or "
        "renamed, schema or label-set change) and extend its changelog",
        parse=optional_path,
        metavar="DIR",
        profile=False,
    )
    allow_bump_mismatch: bool = option(
        False,
        help="accept a --release that does not fit the changes (recorded in the card)",
        profile=False,
    )
    jobs: int | None = option(
        None,
        help="worker processes sharing the work (default: one per core, at most 4, when the "
        "input and the tasks are large enough to pay for a process); the output is identical "
        "for any N",
        metavar="N",
        profile=False,
    )
    task_options: dict[str, dict[str, Any]] = option(
        default_factory=dict,
        help="per-task options, as a profile's [tasks.<name>] tables (they win over the profile's)",
        cli=False,
        profile=False,
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            spec = option_of(type(self), f.name)
            value = getattr(self, f.name)
            if spec is None:
                continue
            if spec.parse is not None and value is not None:
                object.__setattr__(self, f.name, spec.parse(value))
            if spec.choices is not None and getattr(self, f.name) not in spec.choices:
                raise UsageError(
                    f"{flag_of(f.name, spec)} must be one of {', '.join(spec.choices)}, not "
                    f"{getattr(self, f.name)!r}"
                )
        if self.jobs is not None and self.jobs < 1:
            raise UsageError(f"--jobs must be a positive integer, not {self.jobs}")
        resolve_language(self.lang)  # an unknown code is a UsageError naming it

    @property
    def language(self) -> Language:
        return resolve_language(self.lang)

    def family_options(self) -> dict[str, Any]:
        """This config's own options (those its family adds to the shared ones), by name."""
        shared = {f.name for f in dataclasses.fields(BuildConfig)}
        return {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in shared
        }


def option_of(config: type, name: str) -> Option | None:
    """The presentation of field ``name``: its own, else the one a base class gave it (a
    Config that only changes a shared option's default keeps its help)."""
    for cls in type.mro(config):
        fields = getattr(cls, "__dataclass_fields__", {})
        if name in fields and "option" in fields[name].metadata:
            return fields[name].metadata["option"]  # type: ignore[no-any-return]
    return None


def flag_of(name: str, spec: Option) -> str:
    return spec.flag or "--" + name.replace("_", "-")


C = TypeVar("C", bound=BuildConfig)

# Shared options a profile's ``[family]`` may set too: a study's class ratios
# (``balances = ["natural", "1:5", "1:10"]``) belong with its other fixed choices.
PROFILE_SHARED = ("balances",)


def make_config(config: type[C], given: Mapping[str, Any]) -> C:
    """``config`` from the options a caller gave, over a profile's ``[family]`` section (when
    ``given`` names a profile: it may set the family's own options, not the shared build
    options). An unknown option is a :class:`UsageError` listing the valid ones."""
    from polyprobe.builders.profile import family_section

    names = [f.name for f in dataclasses.fields(config)]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise UsageError(f"unknown option(s) {', '.join(unknown)}; valid: {', '.join(names)}")
    shared = {f.name for f in dataclasses.fields(BuildConfig)} - set(PROFILE_SHARED)
    settable = [
        n
        for n in names
        if n not in shared and (s := option_of(config, n)) is not None and s.profile
    ]
    from_profile = family_section(given["profile"], settable) if given.get("profile") else {}
    if "balances" in from_profile:  # a bad ratio there names the profile, not a flag
        try:
            from_profile["balances"] = _balances(from_profile["balances"])
        except UsageError as exc:
            raise InputError(
                given["profile"], None, f"[family] balances: {exc}", "bad-profile"
            ) from None
    values = {**from_profile, **given}
    missing = [
        flag_of(f.name, option_of(config, f.name) or Option(help=""))
        for f in dataclasses.fields(config)
        if f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and f.name not in values
    ]
    if missing:
        raise UsageError(f"missing option(s): {', '.join(missing)}")
    return config(**values)
