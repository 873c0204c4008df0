"""What mteb 2.x's ``TaskMetadata`` accepts (pydantic, ``extra="forbid"``), and the task module
that lets mteb evaluate an exported folder offline.

Facts of mteb 2 used here (checked against mteb 2.26 by ``tests/test_export_mteb.py``, which
validates every exported task with ``mteb.TaskMetadata`` and runs one):

* ``category`` is mteb 2's modality pair: ``t2c`` (text to class) for a classification task;
  mteb 1's ``s2s``/``w2w`` are refused.
* ``task_subtypes`` is a closed list with no "probing" entry: ``[]``, except DiscoEval's
  coherence task (``Discourse coherence``).
* ``dataset.revision`` is required (a string): the release tag ``v<release>`` that
  ``polyprobe publish`` creates; ``datasets.load_dataset`` ignores it for a local folder.
* ``dataset.path`` is the Hub id given, else the folder's absolute path (a relative one would
  depend on where mteb runs).
* ``license``: one of mteb's names, a URL, or ``not specified``.
* ``bibtex_citation``: BibTeX only (mteb takes the key of the first entry for in-text
  citations); a plain-text citation of the card becomes a ``@misc`` entry with the text as its
  ``note``.
* No key of our own: polyprobe's provenance (task, labels, fingerprint) goes to
  ``provenance.json`` beside the metadata.
"""

from __future__ import annotations

import re

CATEGORY = "t2c"
TASK_TYPE = "Classification"

# mteb 2.x ``Licenses`` values
MTEB_LICENSES = frozenset(
    {
        "not specified", "mit", "cc-by-2.0", "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0",
        "cc-by-sa-4.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0",
        "cc-by-nc-nd-4.0", "cc-by-nd-4.0", "openrail", "openrail++", "odc-by", "afl-3.0",
        "apache-2.0", "cc-by-nd-2.1-jp", "cc0-1.0", "bsd-3-clause", "gpl-3.0", "lgpl",
        "lgpl-3.0", "cdla-sharing-1.0", "mpl-2.0", "msr-la-nc", "multiple", "gemma",
        "eupl-1.2", "openmdw-1.1",
    }
)  # fmt: skip

# mteb 2.x ``TaskDomain`` values that describe text
MTEB_DOMAINS = (
    "Academic", "Blog", "Constructed", "Encyclopaedic", "Engineering", "Fiction", "Government",
    "Legal", "Medical", "News", "Non-fiction", "Poetry", "Religious", "Reviews", "Social",
    "Spoken", "Subtitles", "Web", "Written", "Programming", "Chemistry", "Financial",
    "Entertainment", "E-commerce", "Sport",
)  # fmt: skip

SUBTYPES = {"discourse_coherence": ["Discourse coherence"]}


def mteb_license(card_license: str | None) -> str:
    """The card's licence as mteb names it: its own id, a licence URL, or ``not specified``."""
    lic = str(card_license or "").strip().lower()
    if not lic or lic in ("unknown", "other", "none"):
        return "not specified"
    if lic in MTEB_LICENSES or lic.startswith(("http://", "https://")):
        return lic
    if "," in lic or " and " in lic:
        return "multiple"
    return f"https://spdx.org/licenses/{card_license}.html"


def bibtex_only(citations: list[str]) -> str:
    """The citations as BibTeX: entries kept, plain text wrapped in ``@misc`` with a ``note``
    (braces in the text become parentheses so the entry stays well-formed)."""
    out = []
    for n, text in enumerate(citations, 1):
        text = text.strip()
        if re.match(r"@\w+\s*\{\s*[^\s,{}]+\s*,", text):
            out.append(text)
            continue
        note = " ".join(text.replace("{", "(").replace("}", ")").split())
        out.append(f"@misc{{polyprobe_source_{n},\n  note = {{{note}}}\n}}")
    return "\n\n".join(out)


MODULE = '''"""MTEB tasks for the polyprobe configs exported in this folder.

    import mteb, polyprobe_mteb
    mteb.evaluate(model, polyprobe_mteb.tasks(), cache=None)

Written by ``polyprobe export --format mteb``; needs ``mteb>=2,<3`` (``pip install
polyprobe[mteb]``). Each task reads its ``<config>.json`` (mteb's ``TaskMetadata`` as is) and
loads the dataset with ``datasets.load_dataset(path, name=config)``, offline for a local
folder; the config's text column is renamed to mteb's ``text``.
"""

from __future__ import annotations

import json
from pathlib import Path

from mteb.abstasks.classification import AbsTaskClassification
from mteb.abstasks.task_metadata import TaskMetadata

HERE = Path(__file__).resolve().parent
TEXT_COLUMNS = {text_columns}


def _task_class(config: str, column: str) -> type:
    meta = json.loads((HERE / (config + ".json")).read_text(encoding="utf-8"))

    def dataset_transform(self, num_proc=None, **kwargs):
        if column != "text":
            self.dataset = self.dataset.rename_column(column, "text")

    name = "Polyprobe_" + "".join(ch if ch.isalnum() else "_" for ch in config)
    return type(
        name,
        (AbsTaskClassification,),
        {"metadata": TaskMetadata(**meta), "dataset_transform": dataset_transform},
    )


TASK_CLASSES = {config: _task_class(config, col) for config, col in TEXT_COLUMNS.items()}


def tasks(configs=None):
    """One task object per exported config (all, or those named)."""
    return [TASK_CLASSES[c]() for c in (configs or TASK_CLASSES)]
'''
