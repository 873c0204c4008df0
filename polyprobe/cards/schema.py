"""The published schema: the columns every polyprobe dataset promises, as Arrow schemas that
carry the Hugging Face ``features`` metadata (so ``load_dataset`` sees ``ClassLabel`` names
straight from the parquet files, with no loading script and without importing ``datasets``
at build time: that import alone costs about a second)."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from polyprobe.metadata import Level, column_names

# Arrow type and HF feature dict for every column name that may appear.
_STRING = (pa.string(), {"dtype": "string", "_type": "Value"})
_STRING_LIST = (
    pa.list_(pa.string()),
    {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"},
)
_INT32 = (pa.int32(), {"dtype": "int32", "_type": "Value"})

_COLUMN_TYPES: dict[str, tuple[pa.DataType, dict[str, Any]]] = {
    "id": _STRING,
    "sentence": _STRING,
    "tokens": _STRING_LIST,
    "word": _STRING,
    "word1": _STRING,
    "word2": _STRING,
    "word3": _STRING,
    "word4": _STRING,
    "sentence1": _STRING,
    "sentence2": _STRING,
    "sentence3": _STRING,
    "sentence4": _STRING,
    "string_similarity": (pa.float32(), {"dtype": "float32", "_type": "Value"}),
    "target_index": _INT32,
    "group": _STRING,
    "lexical_key": _STRING,
    "sentences": _STRING_LIST,
    "left": _STRING_LIST,
    "right": _STRING_LIST,
}


# A scored config's label (TaskMetadata.scored): a graded score, not a class.
SCORE_LABEL = (pa.float32(), {"dtype": "float32", "_type": "Value"})


def features_dict(
    level: Level | str, label_names: list[str] | tuple[str, ...], *, scored: bool = False
) -> dict[str, Any]:
    """The ``datasets.Features.to_dict()`` form of a config's features; ``scored``: the label
    is a ``Value("float32")`` score instead of a ``ClassLabel``."""
    out: dict[str, Any] = {}
    for name in column_names(level):
        if name == "label":
            out[name] = (
                dict(SCORE_LABEL[1])
                if scored
                else {"names": list(label_names), "_type": "ClassLabel"}
            )
        else:
            out[name] = _COLUMN_TYPES[name][1]
    return out


def is_score_feature(feature: Any) -> bool:
    """Whether a ``label`` feature (dict form) is a scored config's float score."""
    return isinstance(feature, dict) and feature == SCORE_LABEL[1]


def arrow_schema(
    level: Level | str, label_names: list[str] | tuple[str, ...], *, scored: bool = False
) -> pa.Schema:
    fields = []
    for name in column_names(level):
        if name == "label":
            typ = SCORE_LABEL[0] if scored else pa.int64()
        else:
            typ = _COLUMN_TYPES[name][0]
        fields.append(pa.field(name, typ))
    meta = {"info": {"features": features_dict(level, label_names, scored=scored)}}
    return pa.schema(fields, metadata={b"huggingface": json.dumps(meta).encode("utf-8")})


def features_from_schema(schema: pa.Schema) -> dict[str, Any] | None:
    """The features a parquet file embeds (what ``datasets`` would read), or None."""
    raw = (schema.metadata or {}).get(b"huggingface")
    if raw is None:
        return None
    try:
        return json.loads(raw)["info"]["features"]
    except (ValueError, KeyError, TypeError):
        return None


def yaml_features(features: dict[str, Any]) -> list[dict[str, Any]]:
    """Features in the README ``dataset_info`` YAML form (``datasets``' ``_to_yaml_dict``)."""
    out: list[dict[str, Any]] = []
    for name, feat in features.items():
        t = feat["_type"]
        if t == "ClassLabel":
            names = {str(i): n for i, n in enumerate(feat["names"])}
            out.append({"name": name, "dtype": {"class_label": {"names": names}}})
        elif t == "List":
            out.append({"name": name, "list": feat["feature"]["dtype"]})
        else:
            out.append({"name": name, "dtype": feat["dtype"]})
    return out


def features_from_yaml(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Inverse of :func:`yaml_features` for the shapes polyprobe writes."""
    out: dict[str, Any] = {}
    for item in items:
        name = item["name"]
        if "list" in item:
            out[name] = {"feature": {"dtype": item["list"], "_type": "Value"}, "_type": "List"}
        elif isinstance(item.get("dtype"), dict) and "class_label" in item["dtype"]:
            names = item["dtype"]["class_label"]["names"]
            ordered = [names[k] for k in sorted(names, key=lambda k: int(k))]
            out[name] = {"names": ordered, "_type": "ClassLabel"}
        else:
            out[name] = {"dtype": item["dtype"], "_type": "Value"}
    return out
