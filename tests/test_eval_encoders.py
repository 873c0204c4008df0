"""Encoder specs and the no-download baselines."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from polyprobe.errors import UsageError
from polyprobe.evaluation.api import pair_features
from polyprobe.evaluation.encoders import Item, build_encoder, parse_spec


def test_parse_hf_spec_parts() -> None:
    p = parse_spec("hf:org/model@abc123:cls#all")
    assert (p.kind, p.target, p.revision, p.pooling, p.layer) == (
        "hf",
        "org/model",
        "abc123",
        "cls",
        "all",
    )
    p = parse_spec("hf:/some/path:first#-2")
    assert (p.target, p.revision, p.pooling, p.layer) == ("/some/path", None, "first", "-2")
    p = parse_spec("borep:mean?dim=16")
    assert p.options == {"dim": "16", "pool": "mean"}


@pytest.mark.parametrize("bad", ["", "nope", "hf:", "st:model#3", "w2v:"])
def test_bad_specs_are_usage_errors(bad: str) -> None:
    with pytest.raises(UsageError):
        parse_spec(bad)


def test_spec_parsing_imports_nothing_heavy() -> None:
    code = (
        "import sys; from polyprobe.evaluation.encoders import parse_spec; import polyprobe.evaluation.cli;"
        "parse_spec('hf:x#all'); bad=[m for m in ('torch','datasets','transformers') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_random_vectors_are_per_type_and_process_independent() -> None:
    enc = build_encoder("random?dim=8")
    a = enc.encode([Item("a b", ("a", "b")), Item("b a", ("b", "a")), Item("a", ("a",))])[None]
    assert np.allclose(a[0], a[1])  # bag of types
    assert a.shape == (3, 8)
    code = (
        "from polyprobe.evaluation.encoders import build_encoder, Item;"
        "print(build_encoder('random?dim=8').encode([Item('a',('a',))])[None][0].tolist())"
    )
    out = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": s, "PATH": ""},
        ).stdout
        for s in ("1", "2")
    ]
    assert out[0] == out[1] and out[0].strip()
    assert np.allclose(eval(out[0]), a[2], atol=1e-6)


def test_borep_max_pooling_and_dims() -> None:
    enc = build_encoder("borep?dim=32&in_dim=10")
    v = enc.encode([Item("x y z"), Item("z y x"), Item("x")])[None]
    assert v.shape == (3, 32)
    assert np.allclose(v[0], v[1])
    assert (v[0] >= v[2] - 1e-7).all()  # max over a superset of tokens
    assert build_encoder("borep:mean?dim=32&in_dim=10").encode([Item("x y z")])[None].shape == (
        1,
        32,
    )


def test_char_ngrams_and_word_in_context_targets() -> None:
    enc = build_encoder("char-ngrams?dim=64")
    v = enc.encode([Item("cats sleep", ("cats", "sleep"), 0), Item("cats", ("cats",))])[None]
    assert v.shape == (2, 64) and np.allclose(v[0], v[1])
    rnd = build_encoder("random?dim=4")
    w = rnd.encode([Item("the dog", ("the", "dog"), 1), Item("dog", ("dog",))])[None]
    assert np.allclose(w[0], w[1])


def test_callable_encoder_and_pair_features() -> None:
    def fn(texts: list[str]) -> np.ndarray:
        return np.array([[len(t), 1.0] for t in texts])

    enc = build_encoder(fn)
    assert not enc.cacheable
    v = enc.encode([Item("abc"), Item("de")])[None]
    assert v.tolist() == [[3, 1], [2, 1]]
    f = pair_features(v[:1], v[1:])
    assert f.tolist() == [[3, 1, 2, 1, 1, 0, 6, 1]]


def test_vec_file_encoder(tmp_path) -> None:
    path = tmp_path / "tiny.vec"
    path.write_text("2 3\nhello 1 0 0\nworld 0 1 0\n", encoding="utf-8")
    enc = build_encoder(f"vec:{path}")
    assert enc.revision.startswith("sha-")
    v = enc.encode([Item("Hello world"), Item("unknown")])[None]
    assert np.allclose(v[0], [0.5, 0.5, 0]) and np.allclose(v[1], 0)


def _item_by_item(enc, items: list[Item]) -> np.ndarray:
    """The pooling's definition: each item's token vectors stacked and pooled alone."""
    out = np.zeros((len(items), enc.dim), np.float32)
    for i, item in enumerate(items):
        tokens = item.token_list()
        if item.target is not None:
            tokens = (tokens[item.target],) if 0 <= item.target < len(tokens) else ()
        if tokens:
            out[i] = enc.pooled(np.stack([enc._vec(t) for t in tokens]))
    return out


@pytest.mark.parametrize(
    "spec", ["random", "borep?dim=64", "borep?dim=32&pool=mean", "random?dim=65536"]
)
def test_batched_pooling_is_bit_identical_to_item_by_item(spec: str) -> None:
    """The token encoders pool a chunk of items at a time (items of one token count together);
    the vectors must be the item-by-item ones to the last bit, through empty items, word-in-
    context targets (one out of range) and, at 65,536 dimensions (256 token vectors a chunk),
    chunk boundaries."""
    rng = np.random.default_rng(3)
    words = [f"w{j}" for j in range(40)] + ["Ünïcode", "ß", "?"]
    items = [Item(" ".join(rng.choice(words, size=rng.integers(1, 30)))) for _ in range(300)]
    items += [Item(""), Item("a b c", tokens=("a", "b", "c"), target=1)]
    items += [Item("a b", tokens=("a", "b"), target=5)]
    enc = build_encoder(spec).for_seed(2)
    got = enc.encode(items)[None]
    want = _item_by_item(enc, items)
    assert got.dtype == np.float32 and got.shape == (len(items), enc.dim)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert not got[-3].any() and not got[-1].any()  # no tokens / target out of range: zeros
    assert np.array_equal(got[-2], enc._vec("b"))


@pytest.mark.parametrize(
    ("spec", "pooling", "layer"),
    [("minilm#3", None, "3"), ("minilm:first#2", "first", "2"), ("minilm#all", None, "all"),
     ("minilm:last", "last", None)],
)  # fmt: skip
def test_minilm_takes_a_pooling_and_a_layer(
    spec: str, pooling: str | None, layer: str | None
) -> None:
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.pooling, parsed.layer) == ("minilm", pooling, layer)


@pytest.mark.parametrize("spec", ["minilm#x", "minilm:foo#3", "minilm:some/path"])
def test_minilm_rejects_anything_else(spec: str) -> None:
    with pytest.raises(UsageError, match="minilm takes no path"):
        parse_spec(spec)


def test_minilm_with_a_layer_is_hf_on_the_bundled_folder() -> None:
    """``minilm#3`` is ``hf:<bundled folder>#3``: the same id (shared cache and results)."""
    from polyprobe.evaluation.pretrained import bundled_minilm

    short, long = build_encoder("minilm#3"), build_encoder(f"hf:{bundled_minilm()}#3")
    short.resolve()
    long.resolve()
    assert short.id == long.id and short.id.startswith("hf:") and short.layers == [3]
    assert short.model_name == "all-MiniLM-L6-v2"
