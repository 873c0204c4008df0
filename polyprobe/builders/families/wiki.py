"""``build wiki``: MediaWiki XML dumps (Wikipedia ``pages-articles``; bz2, gzip, xz or plain;
any encoding the XML declares) → the text-only sentence tasks and the discourse tasks.

The recipe: each dump is a source (name = file name without its suffixes; language from the
dump's ``xml:lang``, checked against ``--lang``); articles are cleaned, split and tokenised
(:mod:`polyprobe.loaders.wikisource`), then go through the raw-text recipe
(:mod:`.rawtext`). The dumps are first cut into input shards (every n-th block of 100 pages,
``--shards`` per file), each cleaned and tokenised once into a table on the chosen executor
(:class:`~polyprobe.builders.family.Prepare`, :mod:`polyprobe.builders.records.shards`);
the streams then read the tables, so the output is the same bytes for any number of shards,
workers or executor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from polyprobe.builders.families.rawtext import RawTextConfig, RawTextFamily, RawTexts
from polyprobe.builders.family import EXECUTORS, CardText, Outcome, Plan, Prepare
from polyprobe.builders.options import option, optional_path, paths_option
from polyprobe.errors import UsageError
from polyprobe.languages import Language
from polyprobe.version import __version__


def executor_options(value: Any) -> dict[str, Any]:
    """``KEY=VALUE`` items for datatrove's executor (typed from its signature when the
    executor starts: :func:`polyprobe.runtime.cluster.typed_options`)."""
    if isinstance(value, Mapping):
        return dict(value)
    out: dict[str, Any] = {}
    for item in [value] if isinstance(value, str) else value:
        key, sep, given = str(item).partition("=")
        if not sep or not key:
            raise UsageError(f"--executor-option {item!r}: expected KEY=VALUE")
        out[key] = given
    return out


@dataclass(frozen=True, kw_only=True)
class WikiConfig(RawTextConfig):
    dumps: tuple[Path, ...] = paths_option(
        help="MediaWiki XML dumps (pages-articles), bz2/gzip/xz/plain, any encoding",
        positional=True,
        metavar="DUMP",
        profile=False,
    )
    executor: str = option(
        "local",
        help="what runs the input shards (clean + tokenise): local processes (--jobs of them) "
        "or datatrove's executors (pip install 'polyprobe[cluster]'); the output is the same "
        "bytes for every executor",
        choices=EXECUTORS,
        profile=False,
    )
    shards: int | None = option(
        None,
        help="input shards per dump file: every N-th block of 100 pages (default: enough for "
        "the workers)",
        metavar="N",
        parse=int,
        profile=False,
    )
    shard_cache: Path | None = option(
        None,
        help="keep the shards' tokenised tables here: a rerun (after an interruption, or a "
        "Slurm job array) reuses finished shards; on a cluster, a folder every node sees",
        parse=optional_path,
        metavar="DIR",
        profile=False,
    )
    executor_options: dict[str, Any] = option(
        default_factory=dict,
        help="passed to datatrove's executor, typed by its signature: e.g. partition=cpu "
        "time=04:00:00 cpus_per_task=1 for datatrove-slurm (its jobs run with this "
        "interpreter's bin on their PATH unless env_command, venv_path or condaenv is given)",
        flag="--executor-option",
        metavar="KEY=VALUE",
        repeat=True,
        parse=executor_options,
        profile=False,
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.shards is not None and self.shards < 1:
            raise UsageError(f"--shards must be at least 1, not {self.shards}")
        if self.executor == "datatrove-slurm" and self.shard_cache is None:
            raise UsageError(
                "--executor datatrove-slurm needs --shard-cache DIR, a folder every node "
                "sees: the jobs write the shards there and a rerun assembles the dataset"
            )



class WikiFamily(RawTextFamily[WikiConfig]):
    name = "wiki"
    help = "text-only sentence tasks and discourse tasks from Wikipedia (MediaWiki XML) dumps"
    description = (
        "Build the text-only sentence tasks (sentence_length, word_content, bigram_shift, "
        "word_order, end_of_sentence, ...) and the discourse tasks (sentence_position, "
        "binary_sentence_ordering, discourse_coherence, sentence_section: group 'discourse') "
        "from MediaWiki XML dumps: articles are cleaned (footnotes, tables, file and category "
        "links dropped; a sentence with a template or formula left in it is dropped and "
        "counted, and no discourse window spans it), split with segtok and tokenised with "
        "spaCy's blank tokenizer; split by ratio."
    )
    Config = WikiConfig

    def texts(self, config: WikiConfig) -> list[Any]:
        from polyprobe.loaders.wikisource import WikiDumpSource

        segmenter = config.segmenter()
        return [WikiDumpSource(p, segmenter, version=config.source_version) for p in config.dumps]

    def plan(self, config: WikiConfig, sources: RawTexts, names: Sequence[str]) -> Plan:
        """The dumps' input shards first; the streams read their tables."""
        from polyprobe.builders.records.shards import read_back, shard_tasks, tokenize_shard

        dumps = sources.texts
        return Plan(
            split=config.text_split(),
            prepare=Prepare(
                shards=partial(shard_tasks, dumps, config.shards, config.on_invalid),
                function=tokenize_shard,
                ready=lambda tasks: self.plan_on(config, sources, read_back(dumps, tasks), names),
                executor=config.executor,
                executor_options=config.executor_options,
                cache=config.shard_cache,
            ),
            inputs=tuple(d.path for d in dumps),
        )

    def card(
        self, config: WikiConfig, sources: RawTexts, language: Language, outcome: Outcome
    ) -> CardText:
        names = ", ".join(s.name for s in sources.texts)
        return CardText(
            pretty_name=f"polyprobe Wikipedia probing tasks ({language.name})",
            summary=(
                f"Text-only sentence probing tasks for {language.name} built by polyprobe "
                f"{__version__} from the Wikipedia dump(s) {names}. Sentences are machine-"
                "segmented and tokenised (see the card's segmentation parameters); some "
                "encoders were trained on Wikipedia text."
            ),
            source_datasets=("wikipedia",),
            tags=("probing", "polyprobe", "wikipedia"),
        )


WIKI = WikiFamily()
