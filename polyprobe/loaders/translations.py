"""Translation files: the translated text of each item of a source, found by the item's id or
by its line, with what made the translation (for the card).

Formats, chosen by the file:

* ``.jsonl``: one object per line with ``id``, ``text`` and optionally ``source``;
* a TSV whose first line is a header naming ``id`` and ``text`` columns, and optionally
  ``source`` (``polyprobe translate`` writes ``id<TAB>source<TAB>text``);

An item is found by its id, else (when the file gives sources) by its text: a translation
of a dataset's rows covers the source items the dataset dropped or renamed.
* otherwise a plain text file, one translation per line, aligned by line with the ids the
  caller gives in source order (TREC: the training file's questions, then the test file's).

Files are UTF-8 (plain or gzip), read through the input layer (:mod:`polyprobe.loaders.inputs`):
a bad byte is its line's problem, never a reason to decode the file in another encoding (it
used to be decoded as Latin-1 line by line, silently). Every problem is an
:class:`InputError` naming file and line (an empty translation, an id given twice, a control
character, a line count that is not the source's), handed to the build's
:class:`InvalidPolicy`; an empty file is a fatal ``empty``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import BadLine, bad_encoding, no_entries, numbered_lines, text_problem
from polyprobe.loaders.source import InvalidPolicy
from polyprobe.metadata import SAMPLE_CREATION

# How a translation was made: the translated values of the published sample_creation column.
TRANSLATED: tuple[str, ...] = tuple(v for v in SAMPLE_CREATION if v.endswith("-translated"))


@dataclass(frozen=True)
class Translation:
    text: str
    line: int
    source: str | None = None  # the text translated, when the file says (matched by text)


@dataclass(frozen=True)
class TranslationProvenance:
    """What the card says about a translation: how the rows were made (``sample_creation``)
    and by what (system, its version, when), with the languages."""

    sample_creation: str = "machine-translated"
    system: str = "unknown"
    version: str = "unknown"
    date: str = "unknown"
    source_language: str = "en"
    target_language: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.sample_creation not in TRANSLATED:
            raise ValueError(
                f"sample_creation must be one of {', '.join(TRANSLATED)}, "
                f"not {self.sample_creation!r}"
            )

    def card_entry(self) -> dict[str, Any]:
        return {
            "sample_creation": self.sample_creation,
            "system": self.system,
            "version": self.version,
            "date": self.date,
            "source_language": self.source_language,
            "target_language": self.target_language,
            **self.extra,
        }


def _lines(path: Path, policy: InvalidPolicy) -> list[tuple[int, str | None]]:
    """Every line with its number; a refused one (bad byte, control character, over-long) is
    handed to ``policy`` and kept as ``None``, so that line-aligned files stay aligned."""
    out: list[tuple[int, str | None]] = []
    for number, line in numbered_lines(path):
        if isinstance(line, BadLine):
            policy.reject(bad_encoding(path, number, line))
            out.append((number, None))
        else:
            out.append((number, line))
    if not any(line and line.strip() for _, line in out) and not any(
        line is None for _, line in out
    ):
        raise no_entries(path)
    return out


def read_translations(
    path: str | Path, policy: InvalidPolicy, order: Sequence[str] | None = None
) -> dict[str, Translation]:
    """id -> translation. ``order``: the source's ids in order, for line-aligned files (a
    file without an ``id`` column); without it such a file is refused."""
    path = Path(path)
    lines = _lines(path, policy)
    out: dict[str, Translation] = {}

    def add(item_id: str, value: str, line: int, source: str | None = None) -> None:
        if not value.strip():
            policy.reject(InputError(path, line, f"empty translation for {item_id}", "empty"))
        elif item_id in out:
            policy.reject(
                InputError(
                    path,
                    line,
                    f"{item_id} translated twice (first at line {out[item_id].line})",
                    "duplicate-id",
                )
            )
        else:
            out[item_id] = Translation(value.strip(), line, source)

    if path.suffix.lower() == ".jsonl":
        for no, raw in lines:
            if raw is None or not raw.strip():
                continue
            try:
                obj = json.loads(raw)
                item_id, value = str(obj["id"]), obj["text"]
                if not isinstance(value, str):
                    raise TypeError("text is not a string")
            except (ValueError, KeyError, TypeError) as exc:
                problem = f"expected a JSON object with id and text ({exc})"
                policy.reject(InputError(path, no, problem, "bad-line"))
                continue
            source = obj.get("source")
            source = source if isinstance(source, str) else None
            problem = next(
                (
                    found
                    for found in (
                        text_problem(item_id, "the id"),
                        text_problem(value, "the text"),
                        text_problem(source or "", "the source"),
                    )
                    if found
                ),
                None,
            )
            if problem is not None:  # JSON spells them as \u0000 or \n
                policy.reject(InputError(path, no, problem, "control-character"))
                continue
            add(item_id, value, no, source)
        return out
    first = lines[0][1] if lines else None
    header = first.split("\t") if first else []
    if "id" in header and "text" in header:
        id_col, text_col = header.index("id"), header.index("text")
        source_col = header.index("source") if "source" in header else None
        for no, raw in lines[1:]:
            if raw is None or not raw:
                continue
            fields = raw.split("\t")
            if len(fields) != len(header):
                problem = f"{len(fields)} fields, the header has {len(header)}"
                policy.reject(InputError(path, no, problem, "bad-line"))
                continue
            source = fields[source_col] if source_col is not None else None
            add(fields[id_col], fields[text_col], no, source)
        return out
    if order is None:
        raise InputError(
            path,
            1,
            "no header naming id and text columns, and no order to align lines by",
            "no-ids",
        )
    if len(lines) != len(order):
        raise InputError(
            path,
            None,
            f"{len(lines)} lines, but the source has {len(order)} items to align them with "
            "(one translation per line, in source order)",
            "line-count",
        )
    for (no, value), item_id in zip(lines, order, strict=True):
        if value is not None:
            add(item_id, value, no)
    return out
