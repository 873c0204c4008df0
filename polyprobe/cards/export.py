"""``polyprobe export DIR --format senteval|linspector|mteb --out DIR``: polyprobe datasets in
the formats older tools read unchanged.

* ``senteval``: SentEval's probing format, one file per sentence-level config
  (``<config>.txt``), lines ``tr|va|te TAB label TAB tokens`` with the label *name*; train,
  validation and test rows in that order, each in the parquet's row order. SentEval reads the
  third field as space-separated tokens (``line.split()``), so it is the ``tokens`` column
  joined by single spaces, not the raw ``sentence`` (whose spacing follows the source text:
  ``don't`` and ``.`` glued to words, which SentEval would take as one token). Whitespace inside
  a token (UD allows it in a few languages, e.g. Vietnamese ``sinh viên``) becomes ``_`` and an
  empty token is written ``_``, so the line has exactly as many tokens as the row. A config
  without a ``tokens`` column gets its sentence with whitespace runs collapsed.
* ``linspector``: LINSPECTOR's format, one folder per word-level config with ``train.txt``,
  ``dev.txt``, ``test.txt``, lines ``word TAB label`` (pairs: ``word1 TAB word2 TAB label``).
* ``mteb``: MTEB-style task metadata, one JSON per config (``<config>.json``) plus
  ``tasks.json`` listing them: name, description, dataset path + revision, eval splits,
  languages as ISO 639-3 + the script of the majority of letters in the data (``eng-Latn``,
  ``kat-Geor``), main score ``accuracy``, licence, ``sample_creation`` (``created`` for
  perturbed or constructed items, else ``found``; configs with polyprobe's per-row
  ``sample_creation`` column: ``human-translated`` / ``machine-translated`` when every row
  is that kind of translation of a found item, ``multiple`` for a mix), ``bibtex_citation``,
  ``date`` and
  ``domains``. Decisions:

  - ``dataset.revision`` is what MTEB passes to ``datasets.load_dataset(path, revision=...)``:
    a Hub revision. With ``dataset_path`` (the Hub id of the published copy) it is the release
    tag ``v<release>`` (the card's ``polyprobe.release``), the tag ``polyprobe publish`` creates
    for exactly these rows and never moves. Without it the path is the local folder, which has
    no revision: ``null``. The build fingerprint (not a revision) is kept under
    ``polyprobe.fingerprint``.
  - ``bibtex_citation``: the citations the card gives (its sources' ``citation`` fields, then
    the blocks of its "Citations" section), blank-line separated, ``""`` when there are none.
    The card does not tie a citation to a config, so every config carries the dataset's.
  - ``date`` is, for MTEB, when the texts were written or collected. The card does not record
    that (UD treebanks rarely state it) and a build date is not it — cards carry no timestamp
    on purpose, so that rebuilds are byte-identical — so it is ``null`` rather than a guess.
  - ``domains`` (MTEB's genre list: News, Web, Fiction, ...) are not in the card either; they
    are ``null`` unless given (``--domains``, checked against MTEB's list).

Configs a format cannot express are skipped and listed in the returned summary.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from polyprobe import progress
from polyprobe.cards.card import README, CardFormatError, config_descriptions, read_readme
from polyprobe.cards.diff import FolderView, read_folder
from polyprobe.cards.exports.mteb_names import MTEB_DOMAINS
from polyprobe.cards.release import DEFAULT_RELEASE
from polyprobe.errors import PolyprobeError, UsageError
from polyprobe.metadata import SAMPLE_CREATION_COLUMN

FORMATS = ("senteval", "linspector", "mteb")
SENTEVAL_SPLITS = {"train": "tr", "validation": "va", "test": "te"}
LINSPECTOR_FILES = {"train": "train.txt", "validation": "dev.txt", "test": "test.txt"}

# Tasks whose items are perturbed or constructed (not found as such in a corpus).
CREATED_TASKS = frozenset(
    {
        "bigram_shift",
        "odd_man_out",
        "coordination_inversion",
        "subject_verb_agreement",
        "word_order",
        "word_order_permuted",
        "end_of_sentence",
        "pseudo",
    }
)

# First word of a letter's Unicode name -> ISO 15924 code (fallback: the title-cased word).
_SCRIPTS = {
    "LATIN": "Latn",
    "CYRILLIC": "Cyrl",
    "GREEK": "Grek",
    "GEORGIAN": "Geor",
    "ARMENIAN": "Armn",
    "ARABIC": "Arab",
    "HEBREW": "Hebr",
    "DEVANAGARI": "Deva",
    "BENGALI": "Beng",
    "GURMUKHI": "Guru",
    "GUJARATI": "Gujr",
    "TAMIL": "Taml",
    "TELUGU": "Telu",
    "KANNADA": "Knda",
    "MALAYALAM": "Mlym",
    "SINHALA": "Sinh",
    "THAI": "Thai",
    "LAO": "Laoo",
    "TIBETAN": "Tibt",
    "MYANMAR": "Mymr",
    "KHMER": "Khmr",
    "ETHIOPIC": "Ethi",
    "HANGUL": "Hang",
    "HIRAGANA": "Hira",
    "KATAKANA": "Kana",
    "CJK": "Hani",
    "THAANA": "Thaa",
    "SYRIAC": "Syrc",
    "MONGOLIAN": "Mong",
    "CHEROKEE": "Cher",
    "COPTIC": "Copt",
    "GOTHIC": "Goth",
    "OL": "Olck",
}
SCRIPT_SAMPLE_ROWS = 2000

_CITATIONS_HEADING = re.compile(r"^##\s+(citations?|how to cite)\b", re.IGNORECASE)
_FENCE = re.compile(r"^```[^\n]*\n(.*?)\n```[ \t]*$", re.DOTALL | re.MULTILINE)


class ExportError(PolyprobeError):
    """The folder cannot be exported as asked."""


def _clean(text: Any) -> str:
    return " ".join(str(text).replace("\t", " ").splitlines()).strip()


def senteval_text(tokens: list[Any] | None, sentence: Any) -> str:
    """SentEval's third field: the tokens joined by single spaces (see the module doc)."""
    if tokens is None:
        return " ".join(str(sentence).split())
    return " ".join("_".join(str(tok).split()) or "_" for tok in tokens)


def _config_tables(view: FolderView, config: str) -> Iterable[tuple[str, Any, list[str]]]:
    """(split, table, label names) in train/validation/test order."""
    from polyprobe.cards.stats import ordered_splits

    labels = view.features(config).get("label", {}).get("names", [])
    for split in ordered_splits(view.files[config]):
        tables = [pq.read_table(p) for p in view.files[config][split]]
        for t in tables:
            yield split, t, [str(n) for n in labels]


def _safe_name(config: str) -> str:
    if "/" in config or config in ("", ".", ".."):
        raise ExportError(f"config name {config!r} cannot be a file name")
    return config


def _config_task(view: FolderView, config: str) -> str | None:
    """The task a config publishes, as its card block names it (a suite member's task keeps
    its own name as ``identity``)."""
    block = ((view.card or {}).get("polyprobe") or {}).get("configs", {}).get(config) or {}
    task = block.get("identity") or block.get("task")
    return str(task) if task else None


def export_senteval(folder: str | Path, out: str | Path) -> dict[str, Any]:
    """SentEval's layout: ``OUT/data/probing/<file>.txt`` (SentEval's ``task_path`` is
    ``OUT/data``), SentEval's file names for its ten tasks, the config's own name otherwise
    (``exports/senteval_names.py``)."""
    from polyprobe.cards.exports.senteval_names import PROBING_DIR, senteval_file

    view = read_folder(folder)
    out = Path(out)
    probing = out.joinpath(*PROBING_DIR)
    written, skipped = {}, {}
    for config in progress.track(list(view.files), "exporting configs", unit=" config"):
        cols = list(view.features(config))
        if "sentence" not in cols or "sentence1" in cols:
            skipped[config] = "not a single-sentence config"
            continue
        extra = [s for s in view.files[config] if s not in SENTEVAL_SPLITS]
        if extra:
            skipped[config] = f"splits {extra} have no SentEval code"
            continue
        name, se_task = senteval_file(config, _config_task(view, config))
        probing.mkdir(parents=True, exist_ok=True)
        path = probing / name
        n = 0
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            for split, table, labels in _config_tables(view, config):
                code = SENTEVAL_SPLITS[split]
                sentences = table.column("sentence").to_pylist()
                has_tokens = "tokens" in table.column_names
                tokens = (
                    table.column("tokens").to_pylist() if has_tokens else [None] * len(sentences)
                )
                for label, toks, sentence in zip(
                    table.column("label").to_pylist(), tokens, sentences, strict=True
                ):
                    text = senteval_text(toks, sentence)
                    fh.write(f"{code}\t{_clean(labels[label])}\t{text}\n")
                    n += 1
        entry: dict[str, Any] = {"path": path.relative_to(out).as_posix(), "rows": n}
        if se_task:
            entry["senteval_task"] = se_task
        written[config] = entry
    return {"format": "senteval", "out": str(out), "written": written, "skipped": skipped}


def read_senteval(path: str | Path) -> list[tuple[str, str, str]]:
    """A SentEval probing file as (split, label, sentence), split named train/validation/test."""
    back = {v: k for k, v in SENTEVAL_SPLITS.items()}
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 3 or parts[0] not in back:
                raise ExportError(f"{path}:{lineno}: not a SentEval probing line: {line!r}")
            rows.append((back[parts[0]], parts[1], parts[2]))
    return rows


def export_linspector(folder: str | Path, out: str | Path) -> dict[str, Any]:
    """LINSPECTOR's layout ``OUT/<Task>/<language>/{train,dev,test}.txt`` with its task names
    and label conventions (``exports/linspector_names.py``)."""
    from polyprobe.cards.exports.linspector_names import (
        language_folder,
        linspector_label,
        linspector_task,
    )

    view = read_folder(folder)
    out = Path(out)
    language = language_folder([str(c) for c in (view.card or {}).get("language") or []])
    written, skipped = {}, {}
    for config in progress.track(list(view.files), "exporting configs", unit=" config"):
        cols = list(view.features(config))
        inputs = ["word"] if "word" in cols else ["word1", "word2"]
        if not all(c in cols for c in inputs):
            skipped[config] = "not a word-level config"
            continue
        extra = [s for s in view.files[config] if s not in LINSPECTOR_FILES]
        if extra:
            skipped[config] = f"splits {extra} have no LINSPECTOR file"
            continue
        task = _config_task(view, config)
        cdir = out / _safe_name(linspector_task(config, task)) / language
        cdir.mkdir(parents=True, exist_ok=True)
        files: dict[str, int] = {}
        handles: dict[str, Any] = {}
        try:
            for split, table, labels in _config_tables(view, config):
                name = LINSPECTOR_FILES[split]
                if name not in handles:
                    handles[name] = open(cdir / name, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
                    files[name] = 0
                values = [table.column(c).to_pylist() for c in inputs]
                for *words, label in zip(*values, table.column("label").to_pylist(), strict=True):
                    tag = linspector_label(task, _clean(labels[label]))
                    fields = [_clean(w) for w in words] + [tag]
                    handles[name].write("\t".join(fields) + "\n")
                    files[name] += 1
        finally:
            for fh in handles.values():
                fh.close()
        written[config] = {"path": cdir.relative_to(out).as_posix(), "files": files}
    return {"format": "linspector", "out": str(out), "written": written, "skipped": skipped}


def read_linspector(path: str | Path) -> list[tuple[str, ...]]:
    """One LINSPECTOR file as tuples (word[, word2], label)."""
    with open(path, encoding="utf-8") as fh:
        return [tuple(line.rstrip("\n").split("\t")) for line in fh if line.strip()]


def script_of(texts: Iterable[str]) -> str:
    """ISO 15924 code of the script most letters in ``texts`` belong to (``Zyyy`` if none)."""
    counts: Counter[str] = Counter()
    for text in texts:
        for ch in str(text):
            if not unicodedata.category(ch).startswith("L"):
                continue
            name = unicodedata.name(ch, "")
            if name:
                counts[name.split(" ", 1)[0]] += 1
    if not counts:
        return "Zyyy"
    word = max(sorted(counts), key=lambda k: counts[k])
    return _SCRIPTS.get(word, word[:4].title())


def _sample_texts(view: FolderView, config: str, limit: int = SCRIPT_SAMPLE_ROWS) -> list[str]:
    cols = [
        c
        for c in view.features(config)
        if c in ("sentence", "word", "word1", "word2", "sentence1", "sentence2")
    ]
    texts: list[str] = []
    for paths in view.files[config].values():
        for p in paths:
            pf = pq.ParquetFile(p)
            table = pf.read_row_group(0, columns=cols) if pf.num_row_groups else None
            if table is None:
                continue
            for c in cols:
                texts.extend(str(v) for v in table.column(c).to_pylist()[:limit])
            if len(texts) >= limit:
                return texts
    return texts


def _sample_creation(view: FolderView, config: str, block: dict[str, Any]) -> str:
    made = _how_made(view, config, block)
    translated = _translations(view, config)
    if not translated:
        return made
    # polyprobe's per-row column (native / human- / machine-translated / unknown): one
    # translation kind on every row of found items is MTEB's value of that name; a mix of
    # kinds, or translated rows of created (perturbed) items, is MTEB's "multiple".
    if made == "found" and len(translated) == 1 and "native" not in translated:
        return translated.pop()
    return "multiple"


def _translations(view: FolderView, config: str) -> set[str]:
    """The values of the config's per-row ``sample_creation`` column other than ``unknown``,
    if any row says it is a translation; else the empty set."""
    values: set[str] = set()
    for paths in view.files[config].values():
        for p in paths:
            pf = pq.ParquetFile(p)
            field = (
                pf.schema_arrow.field(SAMPLE_CREATION_COLUMN)
                if (SAMPLE_CREATION_COLUMN in pf.schema_arrow.names)
                else None
            )
            if field is None or not pa.types.is_string(field.type):
                return set()
            column = pq.read_table(p, columns=[SAMPLE_CREATION_COLUMN]).column(0)
            values.update(v for v in column.to_pylist() if v is not None)
    values.discard("unknown")
    return values if any(v.endswith("-translated") for v in values) else set()


def _how_made(view: FolderView, config: str, block: dict[str, Any]) -> str:
    if block.get("task") in CREATED_TASKS:
        return "created"
    # Rows made from one record in several copies (original/perturbed) are created items.
    for paths in view.files[config].values():
        ids = pq.read_table(paths[0], columns=["id"]).column("id").to_pylist()[:200]
        if any(str(i).rsplit("/", 1)[-1] not in ("0", "original") for i in ids if "/" in str(i)):
            return "created" if block.get("level", "sentence") == "sentence" else "found"
        break
    return "found"


def _description(
    cblock: dict[str, Any], config: str, level: str, descriptions: dict[str, str]
) -> str:
    """The task description the card shows for ``config``; a generic line if it has none."""
    task = str(cblock.get("task", config))
    return descriptions.get(config) or f"polyprobe probing task {task} ({level} level)"


def _card_body(folder: Path) -> str:
    try:
        _, body = read_readme(folder / README)
    except (OSError, UnicodeDecodeError, CardFormatError):
        return ""
    return body


def card_citations(card: dict[str, Any], body: str) -> list[str]:
    """The citations a card gives, in order, each once: its sources' ``citation`` fields,
    then the fenced blocks of its "Citations" section (up to the next ``## `` heading)."""
    found: list[str] = []
    for src in (card.get("polyprobe") or {}).get("sources") or []:
        if isinstance(src, dict) and str(src.get("citation") or "").strip():
            found.append(str(src["citation"]).strip())
    section: list[str] = []
    inside = False
    for line in body.splitlines():
        if line.startswith("## "):
            inside = bool(_CITATIONS_HEADING.match(line))
            continue
        if inside:
            section.append(line)
    found += [block.strip() for block in _FENCE.findall("\n".join(section)) if block.strip()]
    return list(dict.fromkeys(found))


def check_domains(domains: Iterable[str] | None) -> list[str] | None:
    """MTEB domain names as MTEB spells them (case-insensitive input), or a UsageError."""
    if domains is None:
        return None
    by_lower = {d.lower(): d for d in MTEB_DOMAINS}
    out = []
    for name in domains:
        key = str(name).strip().lower()
        if key not in by_lower:
            raise UsageError(
                f"--domains: {name!r} is not an MTEB domain (one of: {', '.join(MTEB_DOMAINS)})"
            )
        out.append(by_lower[key])
    return list(dict.fromkeys(out)) or None


def mteb_revision(card: dict[str, Any], dataset_path: str | None = None) -> str:
    """The revision MTEB passes to ``load_dataset``: the release tag ``v<release>`` (the tag
    ``polyprobe publish`` creates for exactly these rows; a local folder ignores it)."""
    release = str((card.get("polyprobe") or {}).get("release") or DEFAULT_RELEASE)
    return release if release.startswith("v") else f"v{release}"


def mteb_input(view: FolderView, config: str) -> str | None:
    """The one text column MTEB's Classification embeds (``sentence`` or ``word``), or None
    when the config has two inputs, a list input or scored labels."""
    feats = view.features(config)
    label = feats.get("label") or {}
    if "names" not in label:
        return None
    singles = [c for c in ("sentence", "word") if c in feats]
    pairs = [c for c in ("sentence1", "sentence2", "word1", "word2") if c in feats]
    if len(singles) != 1 or pairs:
        return None
    column = feats[singles[0]]
    if not (isinstance(column, dict) and column.get("dtype") in ("string", "large_string")):
        return None
    return singles[0]


def mteb_metadata(
    folder: str | Path,
    *,
    dataset_path: str | None = None,
    domains: Iterable[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """mteb 2.x ``TaskMetadata`` per exportable config, with no key mteb does not know
    (``exports/mteb_names.py`` says why each value is what it is). ``dataset_path`` defaults
    to the folder's absolute path; ``domains`` are MTEB domain names."""
    from polyprobe.cards.exports.mteb_names import (
        CATEGORY,
        SUBTYPES,
        TASK_TYPE,
        bibtex_only,
        mteb_license,
    )
    from polyprobe.languages import resolve_language

    domain_list = check_domains(domains)
    view = read_folder(folder)
    card = view.card or {}
    block = card.get("polyprobe") or {}
    pconfigs = block.get("configs") or {}
    body = _card_body(Path(folder))
    descriptions = config_descriptions(body) if body else {}
    citation = bibtex_only(card_citations(card, body))
    revision = mteb_revision(card, dataset_path)
    license_id = mteb_license(card.get("license"))
    path = dataset_path or str(Path(folder).resolve())
    langs = []
    for code in card.get("language") or []:
        try:
            langs.append(resolve_language(str(code)).iso639_3)
        except PolyprobeError:
            langs.append(str(code))
    out: dict[str, dict[str, Any]] = {}
    for config in progress.track(list(view.files), "exporting configs", unit=" config"):
        if mteb_input(view, config) is None:
            continue
        cblock = pconfigs.get(config) or {}
        script = script_of(_sample_texts(view, config))
        splits = list(view.files[config])
        eval_splits = [s for s in ("test",) if s in splits] or splits[-1:]
        level = str(cblock.get("level", ""))
        task = str(cblock.get("identity") or cblock.get("task") or config)
        out[config] = {
            "name": f"polyprobe.{'-'.join(langs) or 'und'}.{config}",
            "description": _description(cblock, config, level, descriptions),
            "reference": None,
            "dataset": {"path": path, "revision": revision, "name": config},
            "type": TASK_TYPE,
            "category": CATEGORY,
            "modalities": ["text"],
            "eval_splits": eval_splits,
            "eval_langs": [f"{lang}-{script}" for lang in langs],
            "main_score": "accuracy",
            "license": license_id,
            "annotations_creators": "derived",
            "sample_creation": _sample_creation(view, config, cblock),
            "task_subtypes": list(SUBTYPES.get(task, [])),
            "domains": domain_list,
            "date": None,
            "bibtex_citation": citation,
        }
    return out


def mteb_provenance(folder: str | Path, configs: Iterable[str]) -> dict[str, Any]:
    """polyprobe's facts about the exported configs, which mteb's metadata has no field for."""
    view_card = read_folder(folder).card or {}
    block = view_card.get("polyprobe") or {}
    pconfigs = block.get("configs") or {}
    return {
        "release": block.get("release"),
        "fingerprint": block.get("fingerprint"),
        "polyprobe_version": block.get("version"),
        "configs": {
            c: {
                "task": (pconfigs.get(c) or {}).get("task"),
                "labels": (pconfigs.get(c) or {}).get("labels"),
                "recipe_version": (pconfigs.get(c) or {}).get("recipe_version"),
            }
            for c in configs
        },
    }


def export_mteb(
    folder: str | Path,
    out: str | Path,
    *,
    dataset_path: str | None = None,
    domains: Iterable[str] | None = None,
) -> dict[str, Any]:
    """``<config>.json`` (mteb's ``TaskMetadata``), ``tasks.json`` (all of them),
    ``provenance.json`` and ``polyprobe_mteb.py``, the task module mteb runs."""
    from polyprobe.cards.exports.mteb_names import MODULE

    view = read_folder(folder)
    meta = mteb_metadata(folder, dataset_path=dataset_path, domains=domains)
    skipped = {
        c: "not one text per row with a class label (mteb's Classification)"
        for c in view.files
        if c not in meta
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written, columns = {}, {}
    for config, entry in meta.items():
        path = out / f"{_safe_name(config)}.json"
        path.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written[config] = {"path": path.name}
        columns[config] = mteb_input(view, config)
    (out / "tasks.json").write_text(
        json.dumps(list(meta.values()), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    provenance = mteb_provenance(folder, meta)
    (out / "provenance.json").write_text(
        json.dumps(provenance, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    if meta:
        module = MODULE.replace("{text_columns}", repr(columns))
        (out / "polyprobe_mteb.py").write_text(module, encoding="utf-8")
    return {"format": "mteb", "out": str(out), "written": written, "skipped": skipped}


def export(
    folder: str | Path,
    fmt: str,
    out: str | Path,
    *,
    dataset_path: str | None = None,
    domains: Iterable[str] | None = None,
) -> dict[str, Any]:
    if fmt != "mteb" and (dataset_path or domains):
        raise UsageError("--dataset-path and --domains apply to --format mteb only")
    if fmt == "senteval":
        result = export_senteval(folder, out)
    elif fmt == "linspector":
        result = export_linspector(folder, out)
    elif fmt == "mteb":
        result = export_mteb(folder, out, dataset_path=dataset_path, domains=domains)
    else:
        raise UsageError(f"unknown export format {fmt!r}: use one of {', '.join(FORMATS)}")
    if not result["written"]:
        raise ExportError(
            f"{folder}: no config can be exported as {fmt}: "
            + "; ".join(f"{c}: {why}" for c, why in result["skipped"].items())
        )
    return result
