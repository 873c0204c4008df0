"""``polyprobe build <family>`` and ``polyprobe profile ud``: the build options every family
shares are defined here once, and each source family contributes its subcommand as one
:class:`FamilyCommand` (its own arguments, its defaults, how it runs).

Only argparse is imported at module level: ``polyprobe --help`` builds every parser, so a
family's build is imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXIT_OK = 0


@dataclass(frozen=True)
class FamilyCommand:
    """One ``build <family>`` subcommand: its help, its own arguments, the shared options'
    defaults it changes, and how it builds (``run(args, options) -> BuildResult`` where
    ``options`` are :meth:`~polyprobe.builders.build.BuildOptions.make`'s keyword
    arguments, read from the shared flags)."""

    name: str
    help: str
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, dict[str, Any]], Any]
    defaults: dict[str, Any] = field(default_factory=dict)
    lang_required: bool = True


# ------------------------------------------------------------------------- shared options


def add_shared_options(p: argparse.ArgumentParser, command: FamilyCommand) -> None:
    """The options every family's build takes (see docs: README "Building")."""
    d = {
        "balances": "natural,balanced",
        "min_per_class": "50,20,20",
        **{k: v for k, v in command.defaults.items() if k in ("balances", "min_per_class")},
    }
    p.add_argument(
        "--lang",
        required=command.lang_required,
        default=command.defaults.get("lang"),
        help="ISO 639-1 or 639-3 code (e.g. en, eng)",
    )
    p.add_argument("--out", required=True, type=Path, help="dataset folder to write")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out atomically")
    p.add_argument("--tasks", default="", help="comma-separated task names (default: the suite)")
    p.add_argument(
        "--sizes",
        default="",
        help="extra train sizes besides full: absolute (10k, 5000) or fractions (0.25,0.5)",
    )
    p.add_argument(
        "--balances", default=d["balances"], help=f"variants to build (default {d['balances']})"
    )
    p.add_argument(
        "--min-per-class",
        default=d["min_per_class"],
        help="class floor per split: one number for all, or TRAIN,VALIDATION,TEST "
        f"(default {d['min_per_class']}; 0 = no floor, yet a class with no row is dropped "
        "and no balanced config is built when a class is missing from a split)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every sampling and perturbation")
    p.add_argument(
        "--on-invalid",
        choices=["raise", "skip"],
        default="raise",
        help="malformed input: stop with an error naming file and line (default), or skip it "
        "and count it by reason in the card",
    )
    p.add_argument(
        "--license",
        action="append",
        default=[],
        metavar="SRC=ID",
        help="override a source's licence (e.g. UD_English-EWT=CC-BY-SA-4.0)",
    )
    p.add_argument(
        "--source-version", default=None, help="version of sources that are not git checkouts"
    )
    p.add_argument(
        "--allow-license-mix",
        action="store_true",
        help="allow merging NonCommercial and ShareAlike sources (recorded in the card)",
    )
    p.add_argument(
        "--allow-language-mismatch",
        action="store_true",
        help="build although a source declares another language than --lang (UD file "
        "names, README, UniMorph file names) or the sources mix languages (recorded in the "
        "card)",
    )
    p.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="TOML/JSON file of derived choices and task options ([language], [tasks.<name>])",
    )
    p.add_argument(
        "--release",
        default=None,
        metavar="X.Y.Z",
        help="the dataset's semantic version (default 0.1.0; with --previous, the version the "
        "changes require)",
    )
    p.add_argument(
        "--previous",
        type=Path,
        default=None,
        metavar="DIR",
        help="the previous release's folder: diff against it, check the --release bump "
        "(patch: same rows; minor: rows changed or config added; major: config removed or "
        "renamed, schema or label-set change) and extend its changelog",
    )
    p.add_argument(
        "--allow-bump-mismatch",
        action="store_true",
        help="accept a --release that does not fit the changes (recorded in the card)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes sharing the tasks (default: one per core, at most 4, when the "
        "input and the tasks are large enough to pay for a process); the output is identical "
        "for any N",
    )
    p.add_argument(
        "--quiet",
        "--no-progress",
        dest="quiet",
        action="store_true",
        help="no progress output (nothing on stderr unless the build fails)",
    )


def shared_options(args: argparse.Namespace) -> dict[str, Any]:
    """``BuildOptions.make`` keyword arguments from the shared flags."""
    return {
        "lang": args.lang,
        "out": args.out,
        "overwrite": args.overwrite,
        "tasks": split_list(args.tasks) or None,
        "sizes": args.sizes,
        "balances": split_list(args.balances),
        "min_per_class": parse_min_per_class(args.min_per_class),
        "seed": args.seed,
        "on_invalid": args.on_invalid,
        "license_overrides": parse_licenses(args.license),
        "source_version": args.source_version,
        "allow_license_mix": args.allow_license_mix,
        "allow_language_mismatch": args.allow_language_mismatch,
        "profile": args.profile,
        "release": args.release,
        "previous": args.previous,
        "allow_bump_mismatch": args.allow_bump_mismatch,
        "jobs": args.jobs,
    }


def split_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def parse_min_per_class(text: str) -> tuple[int, int, int]:
    from polyprobe.errors import UsageError

    parts = split_list(text)
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise UsageError(f"--min-per-class {text!r}: expected N or TRAIN,VALIDATION,TEST") from None
    if len(values) == 1:
        values = values * 3
    if len(values) != 3 or any(v < 0 for v in values):
        raise UsageError(f"--min-per-class {text!r}: expected one or three whole numbers >= 0")
    return values[0], values[1], values[2]


def parse_licenses(items: Sequence[str]) -> dict[str, str]:
    from polyprobe.errors import UsageError

    out: dict[str, str] = {}
    for item in items:
        name, sep, lic = item.partition("=")
        if not sep or not name or not lic:
            raise UsageError(
                f"--license {item!r}: expected SRC=ID, e.g. UD_English-EWT=CC-BY-SA-4.0"
            )
        out[name] = lic
    return out


def progress_bar(
    args: argparse.Namespace, inputs: Callable[[], Sequence[Path]] | None = None
) -> Callable[[Any], Any] | None:
    """The build's progress on stderr, one bar per pass over the records (``None`` under
    ``--quiet``). A pass that knows its number of records beforehand (the candidate pass,
    counted by the first) shows records against that total; a pass that does not (the first)
    shows the bytes of the input files ``inputs()`` read so far. Only the build's own process
    gets a bar (``polyprobe.runtime.parallel``): worker processes share no terminal."""
    if args.quiet:
        return None

    def progress(it: Any) -> Any:
        from tqdm import tqdm

        desc = getattr(it, "desc", "reading")
        try:
            total: int | None = len(it)
        except TypeError:
            total = None
        if total is None and inputs is not None:
            try:
                files = inputs()
            except Exception:  # noqa: BLE001 - the build, not its bar, reports a bad input
                files = []
            if files:
                return _bytes_progress(it, files, desc)
        return tqdm(it, total=total, unit=" rec", desc=desc, file=sys.stderr, mininterval=0.5)

    return progress


def _text_profile(path: Path) -> tuple[int, float]:
    """A file's size as text and its bytes per line in its first 64 KiB: where a progress bar
    places a record from its line number. A ``.gz`` gives its text size in its trailer
    (modulo 4 GiB). Never raises: a file the reader will refuse gets its size on disk and no
    bytes per line, and the reader then says what is wrong with it."""
    import gzip

    try:
        size = path.stat().st_size
        if path.name.endswith(".gz"):
            with open(path, "rb") as raw:
                raw.seek(-4, 2)
                size = int.from_bytes(raw.read(4), "little")
            with gzip.open(path, "rb") as text:
                head = text.read(1 << 16)
        else:
            with open(path, "rb") as text:
                head = text.read(1 << 16)
    except Exception:  # noqa: BLE001 - an estimate for a bar must never fail a build
        try:
            return path.stat().st_size, 0.0
        except OSError:
            return 0, 0.0
    return max(size, len(head)), len(head) / max(1, head.count(b"\n"))


def _bytes_progress(records: Any, files: Sequence[Path], desc: str) -> Any:
    """Yield ``records`` while a bar shows the bytes of ``files`` read: the files before the
    current record's in full, and of its file the share its line number has reached (records
    carry their file and line; an estimate within a file, exact at each file's end)."""
    import os

    from tqdm import tqdm

    profiles: dict[str, tuple[int, float]] = {}
    for f in files:
        profiles[os.path.realpath(f)] = _text_profile(Path(f))
    total = sum(size for size, _ in profiles.values())
    bar = tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=desc,
        file=sys.stderr,
        mininterval=0.5,
    )
    done, size, per_line, current = 0, 0, 0.0, None
    try:
        for record in records:
            path = getattr(getattr(record, "source", None), "path", None)
            if path != current:
                done += size
                current = path
                known = profiles.get(os.path.realpath(path)) if path else None
                size, per_line = known or (0, 0.0)
            position = min(total, done + min(size, int(getattr(record, "line", 0) * per_line)))
            if position > bar.n:
                bar.update(position - bar.n)
            yield record
        bar.update(total - bar.n)
    finally:
        bar.close()


# ------------------------------------------------------------------------------- families


def _add_ud(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path, help="treebank folders or CoNLL-U files")
    p.add_argument(
        "--split",
        default=None,
        help="'ud' (the treebanks' own splits; default when every treebank has train/dev/test) "
        "or 'ratio:80/10/10'",
    )
    p.add_argument(
        "--unimorph",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="UniMorph lexicon(s) adding replacement forms for subject_verb_agreement",
    )
    p.add_argument(
        "--assume-file-order-documents",
        action="store_true",
        help="end_of_sentence: treat each file as one document when there is no # newdoc markup",
    )
    p.add_argument(
        "--top-up",
        nargs="+",
        type=Path,
        default=None,
        metavar="DUMP",
        help="Wikipedia dump(s) whose sentences top up the text-only tasks (sentence_length, "
        "word_content, bigram_shift, word_order, end_of_sentence); sentences equal to a "
        "treebank sentence are dropped; the card gives the rows per source",
    )
    p.add_argument(
        "--top-up-sentences",
        type=int,
        default=None,
        metavar="N",
        help="at most N Wikipedia sentences (default: every kept sentence of the dumps)",
    )


def _run_ud(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.ud import build_ud

    task_options: dict[str, dict[str, Any]] = {}
    if args.unimorph:
        task_options["subject_verb_agreement"] = {"unimorph": [str(p) for p in args.unimorph]}
    if args.assume_file_order_documents:
        task_options["end_of_sentence"] = {"assume_file_order_documents": True}
    from polyprobe.loaders.sources import input_files

    return build_ud(
        args.paths,
        split=args.split,
        task_options=task_options,
        top_up=args.top_up,
        top_up_sentences=args.top_up_sentences,
        progress=progress_bar(args, lambda: input_files(args.paths)),
        **options,
    )


def _add_unimorph(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths", nargs="+", type=Path, help="UniMorph files or folders (one lexicon, merged)"
    )
    p.add_argument(
        "--layout",
        default=None,
        help="column order of every file: lemma-form-feats (UniMorph 2-4, SIGMORPHON 2018) or "
        "lemma-feats-form (SIGMORPHON 2023); default: detected per file",
    )
    p.add_argument(
        "--frequencies",
        nargs="+",
        default=None,
        type=Path,
        metavar="FILE|UD_PATH",
        help="word lists (word per line, or word TAB count) and/or UD treebanks: sample 80%% "
        "frequent / 20%% rare forms",
    )
    wuggy = p.add_mutually_exclusive_group()
    wuggy.add_argument(
        "--wuggy-lexicon",
        type=Path,
        default=None,
        help="syllabified lexicon (word TAB syl-la-bles TAB freq): generate pseudowords offline",
    )
    wuggy.add_argument(
        "--wuggy-output", type=Path, default=None, help="an existing Wuggy output table"
    )
    p.add_argument(
        "--wuggy-max-seeds",
        type=int,
        default=10_000,
        help="seed words for generation (~0.34 s each; default 10000)",
    )
    p.add_argument(
        "--min-forms",
        type=int,
        default=None,
        help="forms a task needs and takes (default 10000, LINSPECTOR); with --scale, the "
        "floor of the derived size (default 1000)",
    )
    p.add_argument(
        "--split-sizes",
        default="7000,2000,1000",
        help="train,validation,test rows (default 7000,2000,1000); with --scale, proportions",
    )
    p.add_argument(
        "--scale",
        action="store_true",
        help="derive sizes from the data: 50%% of the forms carrying a feature (floor "
        "--min-forms or 1000), split in the --split-sizes proportions",
    )


def parse_split_sizes(text: str) -> tuple[int, int, int]:
    """``7000,2000,1000`` -> (7000, 2000, 1000); ``10k`` style suffixes allowed."""
    from polyprobe.errors import UsageError

    values = []
    for part in (t.strip().lower() for t in text.split(",")):
        scale = 1000 if part.endswith("k") else 1
        digits = part[:-1] if part.endswith("k") else part
        if not digits.isdigit():
            values = []
            break
        values.append(int(digits) * scale)
    if len(values) != 3 or values[0] == 0:
        raise UsageError(
            f"--split-sizes {text!r}: expected three whole numbers TRAIN,VALIDATION,TEST "
            "with train > 0, e.g. 7000,2000,1000"
        )
    return values[0], values[1], values[2]


def _run_unimorph(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.unimorph import build_unimorph

    def log(message: str) -> None:
        print(f"polyprobe: {message}", file=sys.stderr)

    return build_unimorph(
        args.paths,
        layout=args.layout,
        frequencies=args.frequencies,
        wuggy_lexicon=args.wuggy_lexicon,
        wuggy_output=args.wuggy_output,
        wuggy_max_seeds=args.wuggy_max_seeds,
        min_forms=args.min_forms,
        split_sizes=parse_split_sizes(args.split_sizes),
        scale=args.scale,
        log=None if args.quiet else log,
        **options,
    )


def _add_trec(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", type=Path, metavar="DIR", help="folder with the TREC .label files")
    t = p.add_argument_group("translated TREC (the English build's labels, splits and drops)")
    t.add_argument(
        "--translation",
        type=Path,
        metavar="FILE",
        help="translations of the questions: .jsonl {id, text}, a TSV with id and text "
        "columns (polyprobe translate's output), or one line per question (train file, then "
        "test file); ids are train/<line>, test/<line>. --lang is the translation's language",
    )
    t.add_argument(
        "--sample-creation",
        choices=("machine-translated", "human-translated"),
        default="machine-translated",
        help="how the translation was made (default machine-translated); in the card",
    )
    t.add_argument(
        "--translator",
        default="unknown",
        help="translation system, for the card (default: FILE.json written by polyprobe "
        "translate, else unknown)",
    )
    t.add_argument("--translator-version", default="unknown", help="its version, for the card")
    t.add_argument("--translation-date", default="unknown", help="when it was made, for the card")


def _run_trec(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.trec import build_trec
    from polyprobe.loaders.trec import find_trec_files

    progress = progress_bar(args, lambda: list(find_trec_files(args.path).values()))
    if args.translation is None:
        return build_trec(args.path, progress=progress, **options)
    from polyprobe.loaders.translations import TranslationProvenance

    given = (args.translator, args.translator_version, args.translation_date) != ("unknown",) * 3
    provenance = (
        TranslationProvenance(
            sample_creation=args.sample_creation,
            system=args.translator,
            version=args.translator_version,
            date=args.translation_date,
        )
        if given or args.sample_creation != "machine-translated"
        else None  # polyprobe translate's FILE.json, if any
    )
    return build_trec(
        args.path,
        progress=progress,
        translation=args.translation,
        provenance=provenance,
        **options,
    )


def _add_parallel(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="INPUT",
        help="parallel treebank folders aligned by sent_id, one per language (e.g. UD_*-PUD); "
        "or parallel text files, [LANG=]FILE (the language from LANG= or the file name: "
        "corpus.de, de.txt): line-aligned text (one file per language, line i of each file "
        "is one item), id-aligned TSV (id<TAB>text, or a header naming id, text and "
        "optionally document and original_language), or one wide TSV (header: id, a column "
        "per language, optionally document and original_language)",
    )
    t = p.add_argument_group(
        "parallel text files (--original-language, --sample-creation and --translator* also "
        "for parallel treebanks whose sent_ids are not PUD's)"
    )
    t.add_argument(
        "--line-ids",
        type=Path,
        metavar="FILE",
        help="ids of the line-aligned files: line i is id, id<TAB>document or id<TAB>document<TAB>original_language (WMT docids, FLORES metadata); "
        "default: ids are line numbers and every line is its own document",
    )
    t.add_argument(
        "--original-language",
        metavar="LANG",
        help="the language the texts were written in (its rows are native, the others "
        "translations); a TSV's original_language column says it per item. Default: unknown",
    )
    t.add_argument(
        "--sample-creation",
        choices=("human-translated", "machine-translated"),
        default="human-translated",
        help="how the translations were made (default human-translated); each row's "
        "sample_creation column and the card say it",
    )
    t.add_argument("--translator", default="unknown", help="translation system, for the card")
    t.add_argument("--translator-version", default="unknown", help="its version, for the card")
    t.add_argument("--translation-date", default="unknown", help="when it was made, for the card")
    t.add_argument(
        "--tokenizer",
        default="auto",
        help="how texts are tokenised: auto (spaCy's blank tokenizer if installed, else "
        "segtok), spacy, segtok, or an installed spaCy pipeline (name or folder)",
    )


def _run_parallel(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.parallel import build_parallel
    from polyprobe.builders.recipes.parallel_text import split_inputs
    from polyprobe.loaders.sources import input_files

    folders, files = split_inputs(args.paths)
    translation = {
        key: value
        for key, value in (
            ("system", args.translator),
            ("version", args.translator_version),
            ("date", args.translation_date),
        )
        if value != "unknown"
    }

    def inputs() -> list[Path]:
        return input_files(folders) if folders else [path for _, path in files]

    return build_parallel(
        args.paths,
        progress=progress_bar(args, inputs),
        line_ids=args.line_ids,
        original_language=args.original_language,
        sample_creation=args.sample_creation,
        translation=translation,
        tokenizer=args.tokenizer,
        **options,
    )


def _add_tabular(p: argparse.ArgumentParser) -> None:
    from polyprobe.loaders.tabular import PRESETS

    p.add_argument(
        "files",
        nargs="+",
        metavar="[SPLIT=]FILE",
        help="CSV, TSV or JSONL files (encoding detected); train=FILE dev=FILE test=FILE "
        "give one file per split",
    )
    p.add_argument(
        "--columns",
        default=None,
        help="ROLE=COLUMN,... mapping file columns to text (classification) or sentence1, "
        "sentence2 (pairs), label, split, id; overrides a preset's mapping",
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help="a published format: "
        + "; ".join(f"{k} ({v.kind})" for k, v in sorted(PRESETS.items())),
    )
    p.add_argument("--format", choices=("csv", "tsv", "jsonl", "trec-lines"), default=None)
    p.add_argument("--name", default=None, help="the config's name (default: preset or family)")
    t = p.add_argument_group("translated files (a benchmark machine- or human-translated)")
    t.add_argument(
        "--sample-creation",
        choices=("human-translated", "machine-translated"),
        default=None,
        help="the texts are translations: every row's sample_creation column and the card say "
        "so (default: native text, no column)",
    )
    t.add_argument(
        "--source-language", default="en", help="the language translated from (default en)"
    )
    t.add_argument("--translator", default="unknown", help="translation system, for the card")
    t.add_argument("--translator-version", default="unknown", help="its version, for the card")
    t.add_argument("--translation-date", default="unknown", help="when it was made, for the card")


def _run_tabular(family: str) -> Callable[[argparse.Namespace, dict[str, Any]], Any]:
    def run(args: argparse.Namespace, options: dict[str, Any]) -> Any:
        from polyprobe.builders.recipes import tabular
        from polyprobe.loaders.tabular import parse_columns

        fn = getattr(tabular, f"build_{family}")
        options.pop("tasks", None)
        translation = None
        if args.sample_creation is not None:
            from polyprobe.languages import resolve_language
            from polyprobe.loaders.translations import TranslationProvenance

            translation = TranslationProvenance(
                sample_creation=args.sample_creation,
                system=args.translator,
                version=args.translator_version,
                date=args.translation_date,
                source_language=resolve_language(args.source_language).code,
            )
        elif (args.translator, args.translator_version, args.translation_date) != ("unknown",) * 3:
            from polyprobe.errors import UsageError

            raise UsageError("--translator and its details need --sample-creation")
        return fn(
            args.files,
            columns=parse_columns(args.columns),
            preset=args.preset,
            format=args.format,
            name=args.name,
            translation=translation,
            **options,
        )

    return run


def _add_rst(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths", nargs="+", type=Path, metavar="FILE", help=".rs3 / .dis files or folders of them"
    )
    p.add_argument(
        "--relation-map",
        type=Path,
        default=None,
        metavar="FILE",
        help="relation -> coarse class: TSV lines 'relation<TAB>class' or a JSON object "
        "(default: every relation its own class; relations it does not name are dropped "
        "and counted)",
    )
    p.add_argument(
        "--name", default=None, help="the source's name in ids (default: the files' folder)"
    )


def _run_rst(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.rst import build_rst

    return build_rst(args.paths, relation_map=args.relation_map, name=args.name, **options)


def _add_similarity(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="similarity files: vecto CSV (,word1,word2,similarity; language from the folder "
        "name), FinnSim semicolon CSV, Multi-SimLex's Concepticon TSV, or word1<TAB>word2<TAB>"
        "score",
    )
    p.add_argument(
        "--cross-lingual",
        default=None,
        help="Multi-SimLex: comma-separated partner languages of --lang for cross-lingual "
        "sets (default: all eleven others; '' for none)",
    )


def _run_similarity(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.lexical import build_similarity

    cross = None if args.cross_lingual is None else split_list(args.cross_lingual)
    return build_similarity(args.paths, cross_lingual=cross, **options)


def _add_analogies(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="analogy files forming one set: Google ': category' text, vecto CSV "
        "(,type,word1,word2,word3,target), or four words a line (category = file name, "
        "e.g. ANA_capital-country.txt)",
    )
    p.add_argument("--name", default="", help="the set's name (default: from the files)")
    p.add_argument("--semantic", default="", help="comma-separated categories to mark semantic")
    p.add_argument(
        "--morphological",
        default="",
        help="comma-separated categories to mark morphological (default: gram* ones)",
    )
    p.add_argument(
        "--source-license", default="unknown", help="licence of the analogy files (card)"
    )
    p.add_argument(
        "--unimorph",
        action="append",
        type=Path,
        default=None,
        metavar="LEXICON",
        help="generate morphological analogies from this UniMorph lexicon (files or folder; "
        "repeatable) instead of reading analogy FILES",
    )
    p.add_argument(
        "--frequencies",
        action="append",
        type=Path,
        default=None,
        help="with --unimorph: UD treebank, CoNLL-U file or word list ranking the lemmas "
        "(repeatable; listed as reference sources)",
    )
    p.add_argument(
        "--cross-unimorph",
        action="append",
        type=Path,
        default=None,
        metavar="LEXICON",
        help="with --unimorph: another language's lexicon; adds cross-lingual analogies "
        "(a : b in --lang, c : d in it) for the categories both share",
    )
    p.add_argument("--cross-lang", default="", help="the --cross-unimorph lexicon's language")
    p.add_argument("--max-categories", type=int, default=15, help="with --unimorph (default 15)")
    p.add_argument(
        "--pairs-per-category", type=int, default=40, help="with --unimorph (default 40)"
    )
    p.add_argument(
        "--max-questions", type=int, default=500, help="with --unimorph, per category (500)"
    )
    p.add_argument(
        "--min-pairs",
        type=int,
        default=5,
        help="with --unimorph: fewest usable lemmas a category needs (default 5)",
    )


def _run_analogies(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.lexical import build_analogies, build_generated_analogies
    from polyprobe.errors import UsageError

    if args.unimorph:
        if args.paths:
            raise UsageError("build analogies: give analogy FILES or --unimorph, not both")
        return build_generated_analogies(
            args.unimorph,
            frequencies=args.frequencies or (),
            cross_lexicon=args.cross_unimorph or (),
            cross_lang=args.cross_lang,
            name=args.name,
            max_categories=args.max_categories,
            pairs_per_category=args.pairs_per_category,
            max_questions=args.max_questions,
            min_pairs=args.min_pairs,
            **options,
        )
    if not args.paths:
        raise UsageError("build analogies: give analogy FILES (or --unimorph LEXICON)")
    return build_analogies(
        args.paths,
        name=args.name,
        semantic=split_list(args.semantic),
        morphological=split_list(args.morphological),
        source_license=args.source_license,
        **options,
    )


def _add_dictionary(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        type=Path,
        metavar="FILE",
        help="src<TAB>tgt lines, or Multi-SimLex's Concepticon TSV with --multisimlex",
    )
    p.add_argument("--target-lang", required=True, help="the translations' language")
    p.add_argument(
        "--multisimlex",
        action="store_true",
        help="FILE is Multi-SimLex's Concepticon TSV: its concepts in --lang and --target-lang",
    )
    p.add_argument(
        "--test-share", type=int, default=20, help="percent of source words in test (20)"
    )
    p.add_argument("--source-license", default="", help="licence of a user's dictionary (card)")


def _run_dictionary(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.lexical import build_dictionary

    return build_dictionary(
        args.path,
        source_lang=options["lang"],
        target_lang=args.target_lang,
        multisimlex=args.multisimlex,
        test_share=args.test_share,
        source_license=args.source_license,
        **options,
    )


def _add_costra(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", type=Path, metavar="PATH", help="COSTRA folder or its data.tsv")


def _run_costra(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    from polyprobe.builders.recipes.costra import build_costra

    return build_costra(args.path, **options)


def _text_cli() -> Any:
    from polyprobe.builders import cli_text

    return cli_text


def _run_wiki(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    progress = progress_bar(args, lambda: list(args.dumps))
    return _text_cli().run_wiki(args, options, progress)


def _run_text(args: argparse.Namespace, options: dict[str, Any]) -> Any:
    return _text_cli().run_text(args, options, progress_bar(args))


FAMILIES: tuple[FamilyCommand, ...] = (
    FamilyCommand(
        "ud",
        help="probing tasks from Universal Dependencies treebanks",
        description="Build sentence-level probing tasks from UD treebank folders or "
        "CoNLL-U files (.conllu or .conllu.gz). Several treebanks of one language merge. The "
        "discourse tasks (group 'discourse': sentence_position, binary_sentence_ordering, "
        "discourse_coherence, sentence_section) read the treebanks' '# newdoc id' documents "
        "and are reported infeasible when a treebank marks none.",
        add_arguments=_add_ud,
        run=_run_ud,
    ),
    FamilyCommand(
        "unimorph",
        help="word-level probing tasks (LINSPECTOR's suite) from a UniMorph lexicon",
        description="Build LINSPECTOR's type-level word tasks (case, gender, mood, number, "
        "person, polarity, possession, tense, voice, pos, tag_count, character_bin, pseudo, "
        "same_feature, odd_feature) for one language from UniMorph files. Several files form "
        "one lexicon (SIGMORPHON's train/dev/test are merged and re-split). Word forms never "
        "occur in two splits; '-lemma-disjoint' configs keep every lemma in one split.",
        add_arguments=_add_unimorph,
        run=_run_unimorph,
    ),
    FamilyCommand(
        "trec",
        help="downstream dataset: TREC question classification",
        description="Build a dataset folder (configs coarse, the default, and fine; splits "
        "train/test) from a folder holding the original TREC files train_5500.label and "
        "TREC_10.label. Encodings are detected per file. Train copies of test questions are "
        "dropped (the card says how many). No class floor and only the natural variant by "
        "default: the benchmark's own label sets and training set.",
        add_arguments=_add_trec,
        run=_run_trec,
        defaults={"lang": "en", "balances": "natural", "min_per_class": "0"},
        lang_required=False,
    ),
    FamilyCommand(
        "rst",
        help="discourse relations from RST treebanks (.rs3, .dis)",
        description="Build the discourse_relations task (DiscoEval's DR) from RST trees in "
        ".rs3 (RSTTool/rstWeb) or .dis (RST-DT) files: every node of the binarised trees is a "
        "row (left and right units as EDU lists, label <nuclearity>-<relation>). The "
        "treebank's own splits are kept when its folders name them (train/dev/test, "
        "TRAINING/TEST); documents never straddle splits.",
        add_arguments=_add_rst,
        run=_run_rst,
    ),
    FamilyCommand(
        "parallel",
        help="parallel probing set from treebanks aligned by sent_id (PUD) or parallel text",
        description="Build per-language configs <task>-<lang> of the UD sentence tasks "
        "(default: sentence_length, tree_depth, bigram_shift, tense, subject_number, "
        "object_number, voice; --tasks takes any UD task) and the wide 'parallel' config (one "
        "row per sent_id: text, English reference, sample_creation and labels per language, "
        "null where missing; label: PUD genre news/wiki) from one treebank per language. "
        "Splits by document (80/10/10 of the documents by hash), identical in every language. "
        "--lang names the pivot language (default en) whose sentence fills the wide config's "
        "input columns; the card gives each label's agreement with the pivot's. From parallel "
        "text files (line- or id-aligned, or a wide TSV) the per-language configs are the text "
        "tasks' (default: sentence_length, bigram_shift; --tasks takes any task of build text), "
        "texts tokenised as build text does, and the wide config's label is each item's "
        "original language. Every per-language row has a sample_creation column (native, "
        "human-translated, machine-translated or unknown).",
        add_arguments=_add_parallel,
        run=_run_parallel,
        defaults={"lang": "en", "balances": "natural", "min_per_class": "20,5,5"},
        lang_required=False,
    ),
    FamilyCommand(
        "classification",
        help="downstream dataset: sentence classification from CSV/TSV/JSONL files",
        description="Build a sentence-classification dataset (one config) from user files: "
        "text and label columns mapped with --columns or a --preset (sentiment-tsv, sqc). "
        "Splits from a split column or train=/dev=/test= files, else ratio 80/10/10. Natural "
        "variant and no class floor by default.",
        add_arguments=_add_tabular,
        run=_run_tabular("classification"),
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "pairs",
        help="downstream dataset: sentence-pair classification (NLI, PAWS, SICK-E, ArgMin)",
        description="Build a sentence-pair classification dataset (one config) from user "
        "files: sentence1, sentence2 and label columns mapped with --columns or a --preset "
        "(nli, paws, sick-e, ukp-argmin: the topic is sentence2 and evaluation uses the "
        "topic vector). Splits as for build classification.",
        add_arguments=_add_tabular,
        run=_run_tabular("pairs"),
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "regression",
        help="downstream dataset: scored sentence pairs (STS, SICK-R)",
        description="Build a scored sentence-pair dataset (one config; the label is the "
        "score, float32) from user files: sentence1, sentence2 and score columns mapped with "
        "--columns or a --preset (sts-b, sick-r). Splits as for build classification. "
        "Evaluated by cosine STS (Pearson, Spearman) and, with a train split, SICK-R's "
        "regression head.",
        add_arguments=_add_tabular,
        run=_run_tabular("regression"),
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "similarity",
        help="lexical: graded word-similarity sets (SimLex, SemEval-17, FinnSim, Multi-SimLex)",
        description="Build one config per similarity set in the files (a Multi-SimLex file "
        "gives --lang's pairs, one subset per POS, and cross-lingual sets). Scored rows: the "
        "label is the set's similarity score (float32); every pair is a test row; natural "
        "variant only.",
        add_arguments=_add_similarity,
        run=_run_similarity,
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "analogies",
        help="lexical: word analogy sets (Google, vecto CSV, FinSemEvl; generated from UniMorph)",
        description="Build one analogy set: a config with every question (label = its "
        "category) and one per category, every question a test row; each category marked "
        "semantic or morphological.",
        add_arguments=_add_analogies,
        run=_run_analogies,
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "dictionary",
        help="lexical: a bilingual dictionary (src TAB tgt, or Multi-SimLex concepts)",
        description="Build a bilingual dictionary for cross-lingual mapping evaluation: "
        "--lang is the source language; train and test split by source word (no source word "
        "in both).",
        add_arguments=_add_dictionary,
        run=_run_dictionary,
        defaults={"balances": "natural", "min_per_class": "0"},
    ),
    FamilyCommand(
        "costra",
        help="lexical: COSTRA's Czech sentence transformations and their orderings",
        description="Build COSTRA (a folder with data.tsv and README, or data.tsv): "
        "'transformations' (seed, transformed sentence, string similarity; label = type), a "
        "config per transformation type, and 'comparisons' (the orderings the dataset "
        "asserts). Every row is a test row.",
        add_arguments=_add_costra,
        run=_run_costra,
        defaults={"lang": "cs", "balances": "natural", "min_per_class": "0"},
        lang_required=False,
    ),
    FamilyCommand(
        "wiki",
        help="text-only sentence tasks and discourse tasks from Wikipedia (MediaWiki XML) dumps",
        description="Build the text-only sentence tasks (sentence_length, word_content, "
        "bigram_shift, word_order, end_of_sentence, ...) and the discourse tasks "
        "(sentence_position, binary_sentence_ordering, discourse_coherence, sentence_section: "
        "group 'discourse') from MediaWiki XML dumps: articles "
        "are cleaned (footnotes, tables, file and category links dropped; a sentence with a "
        "template or formula left in it is dropped and counted, and no discourse window spans "
        "it), split with segtok and tokenised with spaCy's blank tokenizer; split by ratio.",
        add_arguments=_text_cli().add_wiki,
        run=_run_wiki,
    ),
    FamilyCommand(
        "text",
        help="text-only sentence tasks from plain text files or folders",
        description="Build the text-only sentence tasks from UTF-8 text: one sentence per "
        "line (--layout lines) or documents separated by blank lines (--layout documents; "
        "then also the discourse tasks, group 'discourse'); "
        "tokenised as in build wiki; split by ratio.",
        add_arguments=_text_cli().add_text,
        run=_run_text,
    ),
)


# ------------------------------------------------------------------------------- commands


def add_build_parser(sub: Any) -> None:
    """``build`` with one subcommand per family, and ``profile ud``."""
    build = sub.add_parser("build", help="build a dataset folder from a source")
    build_sub = build.add_subparsers(dest="source", metavar="SOURCE", parser_class=type(build))
    for command in FAMILIES:
        p = build_sub.add_parser(command.name, help=command.help, description=command.description)
        command.add_arguments(p)
        add_shared_options(p, command)
        p.set_defaults(func=_runner(command))

    prof = sub.add_parser("profile", help="show the language choices a build would derive")
    prof_sub = prof.add_subparsers(dest="source", metavar="SOURCE", parser_class=type(prof))
    prof_ud = prof_sub.add_parser(
        "ud",
        help="profile UD treebanks",
        description="Print every language-specific choice `build ud` would derive from these "
        "treebanks (capitalisation, targets, windows, bins, signals, label sets) and the "
        "annotation they offer. Edit the output and pass it back with --profile.",
    )
    prof_ud.add_argument("paths", nargs="+", type=Path)
    prof_ud.add_argument("--lang", required=True)
    prof_ud.add_argument("--tasks", default="")
    prof_ud.add_argument("--split", default=None)
    prof_ud.add_argument("--min-per-class", default="50,20,20")
    prof_ud.add_argument("--profile", type=Path, default=None)
    prof_ud.add_argument("--format", choices=["toml", "json"], default="toml")
    prof_ud.set_defaults(func=run_profile_ud)


def _runner(command: FamilyCommand) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        result = command.run(args, shared_options(args))
        print_summary(result)
        return EXIT_OK

    return run


def print_summary(result: Any) -> None:
    """The closing lines of a build: one per task, then skips, splits, release, folder."""
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


def task_table(tasks: Any) -> list[str]:
    """The closing table of a build: one line per task, built (with sizes) or why not."""
    rows = [("task", "candidates", "configs", "train", "validation", "test", "status")]
    for s in tasks:
        status = "built" if s.configs else f"infeasible: {s.infeasible}"
        if s.configs and s.infeasible:  # built, but some variant family was not
            status += f" (not built: {s.infeasible})"
        if s.configs and s.not_built:
            status += f" ({'; '.join(s.not_built)})"
        rows.append(
            (
                s.task,
                str(s.candidates),
                str(len(s.configs)),
                str(s.rows.get("train", 0)),
                str(s.rows.get("validation", 0)),
                str(s.rows.get("test", 0)),
                status,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(c.ljust(w) for c, w in zip(r[:-1], widths, strict=False)) + "  " + r[-1]
        for r in rows
    ]


def run_profile_ud(args: argparse.Namespace) -> int:
    import json

    from polyprobe.builders.recipes.ud import profile_ud

    profile = profile_ud(
        args.paths,
        lang=args.lang,
        tasks=split_list(args.tasks) or None,
        profile_path=args.profile,
        split=args.split,
        min_per_class=parse_min_per_class(args.min_per_class),
    )
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
