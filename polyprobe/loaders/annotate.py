"""``--annotate spacy:MODEL|stanza:LANG``: raw sentences parsed by an installed model into full
UD-style records (lemma, UPOS, FEATS, HEAD, DEPREL), so that every sentence task of ``build
ud`` can run on raw text. The card records the model and that the annotation is machine-made.

Models are never downloaded (these machines are offline, and a build must not fetch code):
when the model is absent the build stops at once with one line saying how to provide it.
The text keeps polyprobe's own tokens: the model sees them pre-tokenised, so the rows'
tokens are the same with and without annotation.

Label sets: stanza's pipelines are trained on UD and give UD labels. spaCy's trained
pipelines give UD UPOS and morphology (``token.pos_``, ``token.morph``) but most use their
own dependency labels (English: ClearNLP ``nsubj``/``dobj``/...), which the card notes; tasks
that read relations (subject number, tree depth) then follow the model's scheme.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from polyprobe.errors import UsageError
from polyprobe.loaders.records import Sentence, SourceFile, Word

__all__ = ["Annotator", "parse_annotate"]

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


@dataclass
class Annotator:
    """An installed spaCy pipeline or stanza pipeline, loaded once per process."""

    tool: str
    name: str

    def __post_init__(self) -> None:
        self._nlp: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"tool": self.tool, "name": self.name, "_nlp": None}

    def check(self) -> None:
        """Load the model now, so an absent one stops the build before anything is read."""
        self._load()

    def describe(self) -> dict[str, Any]:
        from importlib import metadata

        package = "spacy" if self.tool == "spacy" else "stanza"
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = None
        out: dict[str, Any] = {"tool": self.tool, "model": self.name, "version": version}
        if self.tool == "spacy":
            meta = getattr(self._load(), "meta", {}) or {}
            out["model_version"] = meta.get("version")
            out["note"] = "machine-annotated; dependency labels are the pipeline's own scheme"
        else:
            out["note"] = "machine-annotated (UD labels)"
        return out

    def _load(self) -> Any:
        if self._nlp is not None:
            return self._nlp
        if self.tool == "spacy":
            from polyprobe.loaders.segmentation import load_spacy_pipeline

            self._nlp = load_spacy_pipeline(self.name)
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
        nlp = self._load()
        forms = [f for f, _ in tokens]
        rows: list[tuple[str, str, dict[str, str], int, str]] = []
        if self.tool == "spacy":
            from spacy.tokens import Doc

            doc = Doc(nlp.vocab, words=forms, spaces=[s for _, s in tokens])
            for _, proc in nlp.pipeline:
                doc = proc(doc)
            for tok in doc:
                head = 0 if tok.head.i == tok.i else tok.head.i + 1
                feats = dict(kv.split("=", 1) for kv in str(tok.morph).split("|") if "=" in kv)
                rows.append((tok.lemma_ or "_", tok.pos_ or "X", feats, head, tok.dep_ or "dep"))
        else:
            parsed = nlp([forms]).sentences[0]
            for w in parsed.words:
                feats = dict(kv.split("=", 1) for kv in (w.feats or "").split("|") if "=" in kv)
                rows.append((w.lemma or "_", w.upos or "X", feats, int(w.head), w.deprel or "dep"))
        words = [
            Word(
                i,
                form,
                lemma,
                upos,
                "_",
                feats,
                head,
                deprel,
                "_",
                {} if space else dict(_NO_SPACE),
            )
            for i, ((form, space), (lemma, upos, feats, head, deprel)) in enumerate(
                zip(tokens, rows, strict=True), 1
            )
        ]
        return Sentence(
            sent_id=sent_id, text=text, doc_id=doc_id, source=source, line=line, words=words
        )
