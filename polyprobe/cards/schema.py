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
    "head_index": _INT32,
    "index1": _INT32,
    "index2": _INT32,
    "group": _STRING,
    "lexical_key": _STRING,
    "sentences": _STRING_LIST,
    "left": _STRING_LIST,
    "right": _STRING_LIST,
}


# A scored config's label (TaskMetadata.scored): a graded score, not a class.
SCORE_LABEL = (pa.float32(), {"dtype": "float32", "_type": "Value"})


# The value types an extra column (or a struct member) may have: HF dtype -> Arrow type.
_VALUE_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float32": pa.float32(),
    "float64": pa.float64(),
    "bool": pa.bool_(),
}


def extra_arrow_type(feature: dict[str, Any]) -> pa.DataType:
    """The Arrow type of an extra column's HF feature dict: a ``Value`` of a
    :data:`_VALUE_TYPES` dtype, a ``List`` of one, or a struct (a plain dict of such values,
    as ``datasets`` writes ``{"en": Value("string"), ...}``). Anything else is refused: the
    card's YAML form must round-trip it."""
    kind = feature.get("_type")
    if kind == "Value" and feature.get("dtype") in _VALUE_TYPES:
        return _VALUE_TYPES[feature["dtype"]]
    if kind == "List":
        return pa.list_(extra_arrow_type(feature["feature"]))
    if kind is None and feature:
        return pa.struct([pa.field(k, extra_arrow_type(v)) for k, v in feature.items()])
    raise ValueError(f"unsupported extra column feature {feature!r}")


def features_dict(
    level: Level | str,
    label_names: list[str] | tuple[str, ...],
    extra: dict[str, Any] | None = None,
    *,
    scored: bool = False,
) -> dict[str, Any]:
    """The ``datasets.Features.to_dict()`` form of a config's features: the level's columns,
    then ``extra`` (name -> HF feature dict), the columns a family adds after the published
    ones (the parallel config's per-language texts and labels); ``scored``: the label is a
    ``Value("float32")`` score instead of a ``ClassLabel``."""
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
    for name, feature in (extra or {}).items():
        if name in out:
            raise ValueError(f"extra column {name!r} is a published column")
        out[name] = feature
    return out


def is_score_feature(feature: Any) -> bool:
    """Whether a ``label`` feature (dict form) is a scored config's float score."""
    return isinstance(feature, dict) and feature == SCORE_LABEL[1]


def arrow_schema(
    level: Level | str,
    label_names: list[str] | tuple[str, ...],
    extra: dict[str, Any] | None = None,
    *,
    scored: bool = False,
) -> pa.Schema:
    fields = []
    for name in column_names(level):
        if name == "label":
            typ = SCORE_LABEL[0] if scored else pa.int64()
        else:
            typ = _COLUMN_TYPES[name][0]
        fields.append(pa.field(name, typ))
    for name, feature in (extra or {}).items():
        fields.append(pa.field(name, extra_arrow_type(feature)))
    meta = {"info": {"features": features_dict(level, label_names, extra, scored=scored)}}
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
        t = feat.get("_type")
        if t is None:  # a struct: its members, in order
            out.append({"name": name, "struct": yaml_features(feat)})
        elif t == "ClassLabel":
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
        if "struct" in item:
            out[name] = features_from_yaml(item["struct"])
        elif "list" in item:
            out[name] = {"feature": {"dtype": item["list"], "_type": "Value"}, "_type": "List"}
        elif isinstance(item.get("dtype"), dict) and "class_label" in item["dtype"]:
            names = item["dtype"]["class_label"]["names"]
            ordered = [names[k] for k in sorted(names, key=lambda k: int(k))]
            out[name] = {"names": ordered, "_type": "ClassLabel"}
        else:
            out[name] = {"dtype": item["dtype"], "_type": "Value"}
    return out
