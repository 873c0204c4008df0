"""``--annotate spacy:MODEL|stanza:LANG``: raw sentences parsed by an installed model into full
UD-style records (lemma, UPOS, FEATS, HEAD, DEPREL), so that every sentence task of ``build
ud`` can run on raw text. The card records the model and that the annotation is machine-made.

Models are never downloaded (these machines are offline, and a build must not fetch code):
when the model is absent the build stops at once with one line saying how to provide it.
The text keeps polyprobe's own tokens: the model sees them pre-tokenised, so the rows'
tokens are the same with and without annotation.

Label sets: stanza's pipelines are trained on UD and give UD labels. spaCy's trained
pipelines give UD UPOS and morphology (``token.pos_``, ``token.morph``); the English ones
parse in the ClearNLP-style scheme (``nsubj``/``dobj``/``prep``/``pobj``), which
:mod:`polyprobe.loaders.spacy_ud` converts to UD relations and heads (a parser whose labels
are UD passes through). The card records the model's name, version and licence and the
labels left unmapped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, SourceFile, Word

__all__ = ["Annotator", "parse_annotate", "sentence_of"]

_NO_SPACE = {"SpaceAfter": "No"}


def parse_annotate(value: str) -> tuple[str, str]:
    """``spacy:MODEL`` or ``stanza:LANG`` → (tool, name); a one-line error otherwise."""
    tool, sep, name = value.partition(":")
    if not sep or tool not in ("spacy", "stanza") or not name:
        raise UsageError(
            f"--annotate {value!r}: expected spacy:MODEL (an installed spaCy pipeline, by "
            "name or folder) or stanza:LANG (installed stanza models)"
        )
    return tool, name


# Sentences whose parses one process keeps, so the build's later passes (and the capitals
# prefix) do not parse them again; beyond this, later passes parse again (same output).
CACHE_SENTENCES = 50_000
BATCH = 256  # sentences handed to spaCy's nlp.pipe at a time

Rows = tuple[tuple[str, str, str, int, str], ...]  # lemma, upos, feats, head, deprel


@dataclass
class Annotator:
    """An installed spaCy pipeline or stanza pipeline, loaded once per process."""

    tool: str
    name: str

    def __post_init__(self) -> None:
        self._nlp: Any = None
        self._clear: bool = False
        self._cache: dict[tuple[tuple[str, bool], ...], tuple[Rows, tuple[str, ...]]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"tool": self.tool, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.tool, self.name = state["tool"], state["name"]
        self.__post_init__()

    def check(self) -> None:
        """Load the model now, so an absent one stops the build before anything is read."""
        self._load()

    def describe(self) -> dict[str, Any]:
        """The card's machine-annotation entry: the tool and model, their versions and
        licence, and which dependency scheme the rows carry."""
        from importlib import metadata

        package = "spacy" if self.tool == "spacy" else "stanza"
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = None
        out: dict[str, Any] = {"tool": self.tool, "model": self.name, "tool_version": version}
        if self.tool == "spacy":
            nlp = self._load()
            meta = getattr(nlp, "meta", {}) or {}
            out["model_name"] = f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_")
            out["model_version"] = meta.get("version")
            out["model_license"] = meta.get("license")
            out["pipeline"] = list(nlp.pipe_names)
            if self._clear:
                out["dependency_labels"] = (
                    "spaCy English (ClearNLP-style) labels converted to UD relations and "
                    "heads (polyprobe.loaders.spacy_ud; table in docs/raw-text.md)"
                )
            else:
                out["dependency_labels"] = "the pipeline's own labels (UD: passed through)"
        else:
            out["model_license"] = "stanza models: see the model's own card"
            out["dependency_labels"] = "UD (stanza), passed through"
        out["note"] = (
            "machine-annotated: lemma, UPOS, FEATS, HEAD and DEPREL of every row come from "
            "this model, not from human annotators"
        )
        return out

    def _load(self) -> Any:
        if self._nlp is not None:
            return self._nlp
        if self.tool == "spacy":
            from polyprobe.loaders.segmentation import load_spacy_pipeline
            from polyprobe.loaders.spacy_ud import is_clear_scheme

            nlp = load_spacy_pipeline(self.name)
            # named entities feed no task: not run (the card lists the pipes that ran)
            nlp.select_pipes(disable=[p for p in ("ner",) if p in nlp.pipe_names])
            labels: tuple[str, ...] = ()
            if "parser" in nlp.pipe_names:
                labels = tuple(nlp.get_pipe("parser").labels)
            self._clear = is_clear_scheme(labels)
            self._nlp = nlp
            return self._nlp
        try:
            import stanza
        except ImportError:
            raise UsageError(
                "--annotate stanza:... needs stanza (pip install stanza, with torch) and its "
                f"models for {self.name!r}; polyprobe never downloads them"
            ) from None
        try:
            self._nlp = stanza.Pipeline(
                self.name,
                processors="tokenize,pos,lemma,depparse",
                tokenize_pretokenized=True,
                download_method=None,
                verbose=False,
            )
        except Exception as exc:  # noqa: BLE001 - stanza raises many kinds for a missing model
            raise UsageError(
                f"stanza models for {self.name!r} are not installed ({type(exc).__name__}); "
                f"polyprobe never downloads: run stanza.download({self.name!r}) where you have "
                "network access, or set STANZA_RESOURCES_DIR to a folder holding them"
            ) from None
        return self._nlp

    def _parse(
        self, batch: Sequence[Sequence[tuple[str, bool]]]
    ) -> list[tuple[Rows, tuple[str, ...]]]:
        """Each tokenised sentence's rows and the labels left unmapped in it."""
        nlp = self._load()
        out: list[tuple[Rows, tuple[str, ...]]] = []
        if self.tool == "spacy":
            from spacy.tokens import Doc

            from polyprobe.loaders.spacy_ud import ParsedToken, to_ud

            docs = [
                Doc(nlp.vocab, words=[f for f, _ in t], spaces=[s for _, s in t]) for t in batch
            ]
            for doc in nlp.pipe(docs, batch_size=BATCH):
                lemmas = [tok.lemma_ or "_" for tok in doc]
                upos = [tok.pos_ or "X" for tok in doc]
                feats = [str(tok.morph) for tok in doc]
                unmapped: Counter[str] = Counter()
                if self._clear:
                    parsed = [
                        ParsedToken(t.text, t.lemma_, t.pos_, t.tag_, t.head.i, t.dep_) for t in doc
                    ]
                    arcs = to_ud(parsed, unmapped)
                else:
                    arcs = [(0 if t.head.i == t.i else t.head.i + 1, t.dep_ or "dep") for t in doc]
                rows = tuple(
                    (lem, u, f, h, d)
                    for lem, u, f, (h, d) in zip(lemmas, upos, feats, arcs, strict=True)
                )
                out.append((rows, tuple(sorted(unmapped.elements()))))
            return out
        parsed_doc = nlp([[f for f, _ in t] for t in batch])
        for sentence in parsed_doc.sentences:
            rows = tuple(
                (w.lemma or "_", w.upos or "X", w.feats or "", int(w.head), w.deprel or "dep")
                for w in sentence.words
            )
            out.append((rows, ()))
        return out

    def annotate_many(
        self,
        items: Sequence[tuple[Sequence[tuple[str, bool]], str, str, str | None, SourceFile, int]],
        unmapped: Counter[str] | None = None,
    ) -> list[Sentence]:
        """The UD-style records of tokenised sentences (tokens, text, sent_id, doc_id,
        source, line), parsed in batches; ``unmapped`` counts the labels left unmapped."""
        keys = [tuple(tokens) for tokens, *_ in items]
        missing = [k for k in dict.fromkeys(keys) if k not in self._cache]
        parsed = dict(zip(missing, self._parse(missing), strict=True)) if missing else {}
        if len(self._cache) + len(parsed) <= CACHE_SENTENCES:
            self._cache.update(parsed)
        out = []
        for key, (_, text, sent_id, doc_id, source, line) in zip(keys, items, strict=True):
            rows, left = parsed[key] if key in parsed else self._cache[key]
            if unmapped is not None:
                unmapped.update(left)
            out.append(sentence_of(key, rows, text, sent_id, doc_id, source, line))
        return out

    def annotate(
        self,
        tokens: Sequence[tuple[str, bool]],
        text: str,
        sent_id: str,
        doc_id: str | None,
        source: SourceFile,
        line: int,
    ) -> Sentence:
        """The UD-style record of one tokenised sentence."""
        return self.annotate_many([(tokens, text, sent_id, doc_id, source, line)])[0]


def _feats(value: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in value.split("|") if "=" in kv)


def sentence_of(
    tokens: Sequence[tuple[str, bool]],
    rows: Rows,
    text: str,
    sent_id: str,
    doc_id: str | None,
    source: SourceFile,
    line: int,
) -> Sentence:
    """A record from a sentence's tokens and its parse rows."""
    feats_of: dict[str, dict[str, str]] = {}
    words = []
    for i, ((form, space), (lemma, upos, feats, head, deprel)) in enumerate(
        zip(tokens, rows, strict=True), 1
    ):
        parsed = feats_of.get(feats)
        if parsed is None:
            parsed = feats_of[feats] = _feats(feats)
        words.append(
            Word(
                i,
                form,
                lemma,
                upos,
                "_",
                parsed,
                head,
                deprel,
                "_",
                {} if space else dict(_NO_SPACE),
            )
        )
    return Sentence(
        sent_id=sent_id, text=text, doc_id=doc_id, source=source, line=line, words=words
    )
