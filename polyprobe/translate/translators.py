"""Translators: anything that maps a list of texts to a list of translations.

Two kinds, named by one spec string:

* ``module:function`` — a Python callable ``list[str] -> list[str]`` (an API client, a
  rule-based transform in a test). Its id is the spec.
* a local folder holding a ``transformers`` sequence-to-sequence model (MarianMT, NLLB, M2M):
  loaded from disk only (nothing is downloaded); its id is the folder name and a hash of its
  config, so a changed model never reuses another's cache. NLLB-style models need
  ``source_lang``/``target_lang`` codes (``eng_Latn``), which are passed to the tokenizer.

Why a spec string: the cache, the card and the resumption all key on one stable id.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyprobe.errors import PolyprobeError, UsageError
from polyprobe.hashing import stable_u64

Translate = Callable[[list[str]], list[str]]


class TranslatorError(PolyprobeError, RuntimeError):
    """The translator raised: one line naming it and its error (exit 2), not its traceback."""


@dataclass
class Translator:
    """A named translation function with what the card says about it."""

    id: str
    fn: Translate
    system: str
    version: str
    details: dict[str, Any] = field(default_factory=dict)

    def __call__(self, texts: list[str]) -> list[str]:
        try:
            out = self.fn(list(texts))
        except PolyprobeError:
            raise
        except Exception as exc:  # noqa: BLE001 - a user's callable or a model: any class
            text = str(exc).strip()
            first = text.splitlines()[0] if text else ""
            raise TranslatorError(
                f"translator {self.id} raised {type(exc).__name__}"
                + (f": {first}" if first else "")
                + f" on a batch of {len(texts)} text(s); the batches translated before it "
                "are cached, so running the command again resumes there"
            ) from exc
        if not isinstance(out, list | tuple) or len(out) != len(texts):
            got = len(out) if isinstance(out, list | tuple) else type(out).__name__
            raise UsageError(
                f"translator {self.id} returned {got} results for {len(texts)} texts "
                "(it must map a list of texts to a list of the same length)"
            )
        return [str(t) for t in out]


def load_translator(
    spec: str,
    *,
    source_lang: str | None = None,
    target_lang: str | None = None,
    device: str | None = None,
    max_length: int = 512,
) -> Translator:
    """The translator a spec names: an existing folder is a local model, ``module:function``
    a callable; anything else is a UsageError saying which forms exist."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return _local_model(path, source_lang, target_lang, device, max_length)
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise UsageError(
            f"--translator {spec!r}: give a Python callable as module:function, or the folder "
            "of a local transformers translation model (MarianMT, NLLB)"
        )
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"--translator {spec!r}: cannot import it ({exc})") from None
    if not callable(fn):
        raise UsageError(f"--translator {spec!r} is not callable")
    version = getattr(fn, "__version__", None) or getattr(
        importlib.import_module(module), "__version__", "unknown"
    )
    return Translator(id=f"callable:{spec}", fn=fn, system=spec, version=str(version))


def _local_model(
    path: Path,
    source_lang: str | None,
    target_lang: str | None,
    device: str | None,
    max_length: int,
) -> Translator:
    config = path / "config.json"
    if not config.is_file():
        raise UsageError(f"--translator {path}: no config.json (not a transformers model folder)")
    from polyprobe.loaders.inputs import read_text

    # line ends as text mode reads them, as the digest always has been computed
    text = read_text(config, "translator model's config.json")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = f"{stable_u64('translator', text):016x}"[:12]
    state: dict[str, Any] = {}

    def load() -> tuple[Any, Any, Any]:
        if not state:
            try:
                from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
            except ImportError as exc:
                raise UsageError(f"a local model needs transformers ({exc})") from None
            kwargs = {"src_lang": source_lang} if source_lang else {}
            tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True, **kwargs)
            model = AutoModelForSeq2SeqLM.from_pretrained(str(path), local_files_only=True)
            model.eval()
            dev = device or "cpu"
            state.update(tok=tok, model=model.to(dev), device=dev)
        return state["tok"], state["model"], state["device"]

    def translate(texts: list[str]) -> list[str]:
        import torch

        tok, model, dev = load()
        enc = tok(
            texts,
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=min(
                max_length,
                int(getattr(model.config, "max_position_embeddings", None) or max_length),
            ),
        )
        limit = getattr(model.config, "max_position_embeddings", None) or max_length
        gen: dict[str, Any] = {"max_length": min(max_length, int(limit))}
        if target_lang:  # NLLB/M2M: the target language is the forced first token
            lang_id = tok.convert_tokens_to_ids(target_lang)
            if lang_id is None or lang_id == tok.unk_token_id:
                raise UsageError(f"{path.name}: unknown target language code {target_lang!r}")
            gen["forced_bos_token_id"] = lang_id
        with torch.inference_mode():
            out = model.generate(**{k: v.to(dev) for k, v in enc.items()}, **gen)
        return tok.batch_decode(out, skip_special_tokens=True)

    return Translator(
        id=f"model:{path.name}@{digest}",
        fn=translate,
        system=path.name,
        version=digest,
        details={
            "kind": "transformers seq2seq",
            "source_lang": source_lang,
            "target_lang": target_lang,
        },
    )


def check_texts(texts: Sequence[str]) -> None:
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"text {i} is {type(t).__name__}, not str")
