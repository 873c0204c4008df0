"""What ``polyprobe report`` and ``correlate`` read: results JSON files, given one by one or
found in folders — and, for anything else, what it is and why it is not a result.

Why: folders of results sit next to other JSON that polyprobe writes (a dataset folder's
``report.json``, an earlier report's ``report.json`` or ``correlation.json``). Given such a
file, the commands said "not a polyprobe results file", and given a folder holding only such
files, "no results JSON found" — true, and no help: the user had usually given the dataset
folder, or the report's folder, where the results folder was meant. :func:`describe` names
what a JSON file is from its shape, and the one-line error says it.

A results file is a probing or scored-pairs result (``schema_version`` and ``metrics``,
``evaluation/results.py``) or a lexical result (``lexical_schema_version`` and ``scores``,
``evaluation/lexical/run.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError
from polyprobe.evaluation.correlate import is_results, load_results, read_json
from polyprobe.evaluation.lexical.report import is_lexical_result

WHAT_A_RESULT_IS = (
    "a result (written by `polyprobe evaluate --out`) has schema_version and metrics, or "
    "lexical_schema_version and scores"
)
MADE_FROM_RESULTS = "give the results folder it was made from"
FROM_EVALUATE = "results come from `polyprobe evaluate DATASET --out RESULTS`: give RESULTS"
_KINDS = {
    "polyprobe-report": "the report.json `polyprobe report` writes",
    "polyprobe-correlation": "the correlation.json `polyprobe correlate` writes",
    "polyprobe-scored-report": "the scored-report.json `polyprobe report` writes",
}


def _keys(obj: dict[str, Any], k: int = 4) -> str:
    names = [str(key) for key in list(obj)[:k]]
    more = f", … ({len(obj)} keys)" if len(obj) > k else ""
    return ", ".join(names) + more


def _build_report(obj: dict[str, Any], path: Path) -> bool:
    """A dataset folder's report.json: per config, what the build counted."""
    entries = [v for v in obj.values() if isinstance(v, dict)]
    looks = bool(entries) and all("candidates" in v or "built" in v for v in entries)
    return looks or (path.name == "report.json" and (path.parent / "README.md").is_file())


def describe(path: Path, obj: Any) -> tuple[str, str]:
    """What the JSON ``obj`` read from ``path`` is (the part of a sentence after "is"), and
    what to give instead."""
    if isinstance(obj, dict):
        kind = obj.get("kind")
        if isinstance(kind, str) and kind in _KINDS:
            return _KINDS[kind], MADE_FROM_RESULTS
        if _build_report(obj, path):
            return "a dataset folder's build report (what each config counted)", FROM_EVALUATE
        if "schema_version" in obj:
            what = f"a JSON object with schema_version {obj['schema_version']!r} but no metrics"
        elif "metrics" in obj:
            what = "a JSON object with metrics but no schema_version"
        elif "lexical_schema_version" in obj:
            what = "a JSON object with lexical_schema_version but no scores"
        else:
            what = f"a JSON object with other keys ({_keys(obj)})" if obj else "an empty object"
        return what, WHAT_A_RESULT_IS
    if isinstance(obj, list):
        if obj and all(is_lexical_result(x) for x in obj):
            return "the lexical-report.json `polyprobe report` writes", MADE_FROM_RESULTS
        return f"a JSON array of {len(obj)} item(s), not an object", WHAT_A_RESULT_IS
    name = {bool: "boolean", int: "number", float: "number", str: "string"}.get(type(obj), "null")
    return f"a JSON {name}, not an object", WHAT_A_RESULT_IS


def not_results(path: Path, obj: Any) -> InputError:
    what, instead = describe(path, obj)
    return InputError(path, None, f"not a results JSON: it is {what}; {instead}", "not-results")


def read_inputs(paths: Iterable[str | Path]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(probing and scored results, lexical results) of ``paths``. A file named must be a
    results file; a folder is searched recursively and must hold at least one. Either way
    the error says what was found instead."""
    results: list[dict[str, Any]] = []
    lexical: list[dict[str, Any]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files = sorted(p.rglob("*.json"))
            found = 0
            others: list[tuple[Path, Any]] = []
            for f in files:
                obj = read_json(f)
                if is_results(obj):
                    results += load_results([f])
                    found += 1
                elif is_lexical_result(obj):
                    lexical.append(obj)
                    found += 1
                else:
                    others.append((f, obj))
            if not found:
                raise InputError(p, None, _empty_folder(p, files, others), "no-results")
        elif p.is_file():
            obj = read_json(p)
            if is_results(obj):
                results += load_results([p])
            elif is_lexical_result(obj):
                lexical.append(obj)
            else:
                raise not_results(p, obj)
        else:
            raise InputError(p, None, "no such file or directory", "missing-file")
    return results, lexical


def _empty_folder(folder: Path, files: list[Path], others: list[tuple[Path, Any]]) -> str:
    if not files:
        return f"no results JSON found: the folder holds no .json file; {WHAT_A_RESULT_IS}"
    if (folder / "README.md").is_file() and (folder / "report.json").is_file():
        return f"no results JSON found: it is a dataset folder (README.md, report.json); {FROM_EVALUATE}"
    first, obj = others[0]
    what, instead = describe(first, obj)
    more = (
        f" (and {len(others) - 1} other file(s) are not results either)" if len(others) > 1 else ""
    )
    rel = first.relative_to(folder)
    return f"no results JSON found: {rel} is {what}{more}; {instead}"
