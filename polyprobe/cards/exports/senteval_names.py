"""SentEval's ten probing tasks: which polyprobe task each one is, and the file SentEval opens.

SentEval's engine (``senteval/probing.py``) opens fixed names under ``<task_path>/probing/``
(``LengthEval`` → ``sentence_length.txt``, ``DepthEval`` → ``tree_depth.txt``, ...), so an
export that SentEval runs unchanged must use exactly these names, and no other config may take
one of them: our ``sentence_length`` (Wehner's bins) written as ``sentence_length.txt`` would
silently run SentEval's Length task on the wrong binning. SentEval's Length is our
``sentence_length_senteval``; its TopConstituents (constituency-tree top constituents) has no
treebank-free equivalent in UD, and ``top_dependencies`` (the sequence of the root's dependents'
relations) is polyprobe's UD analogue, so it is the one written as ``top_constituents.txt``.
"""

from __future__ import annotations

PROBING_DIR = ("data", "probing")  # SentEval's task_path is the export's ``data`` folder

# polyprobe task → (SentEval file name, SentEval task name as ``se.eval`` takes it)
SENTEVAL_TASKS: dict[str, tuple[str, str]] = {
    "sentence_length_senteval": ("sentence_length.txt", "Length"),
    "word_content": ("word_content.txt", "WordContent"),
    "tree_depth": ("tree_depth.txt", "Depth"),
    "top_dependencies": ("top_constituents.txt", "TopConstituents"),
    "bigram_shift": ("bigram_shift.txt", "BigramShift"),
    "tense": ("past_present.txt", "Tense"),
    "subject_number": ("subj_number.txt", "SubjNumber"),
    "object_number": ("obj_number.txt", "ObjNumber"),
    "odd_man_out": ("odd_man_out.txt", "OddManOut"),
    "coordination_inversion": ("coordination_inversion.txt", "CoordinationInversion"),
}
SENTEVAL_FILES = frozenset(name for name, _ in SENTEVAL_TASKS.values())
OWN_SUFFIX = "-polyprobe"


def senteval_file(config: str, task: str | None) -> tuple[str, str | None]:
    """(file name, SentEval task or None) for one config. The recommended config of one of
    SentEval's tasks (config named like its task) gets SentEval's file; any other config keeps
    its own name, with ``-polyprobe`` added when that name is one of SentEval's files (so
    ``sentence_length`` becomes ``sentence_length-polyprobe.txt``, never SentEval's Length)."""
    if task is not None and config == task and task in SENTEVAL_TASKS:
        name, se_task = SENTEVAL_TASKS[task]
        return name, se_task
    name = f"{config}.txt"
    if name in SENTEVAL_FILES:
        name = f"{config}{OWN_SUFFIX}.txt"
    return name, None
