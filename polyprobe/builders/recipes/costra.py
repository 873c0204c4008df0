"""``build costra PATH``: COSTRA's Czech sentence transformations (a folder with ``data.tsv``
and its README, or ``data.tsv`` itself) as a dataset folder: ``transformations`` (every
transformed sentence with its seed, label = type, string similarity as a column), one config
per transformation type, and ``comparisons`` (the orderings COSTRA asserts). Every row is a
test row; the licence is read from the README (CC BY 4.0); the language is Czech.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from polyprobe.builders.build import BuildResult, CardText, Progress
from polyprobe.builders.recipes.lexical import build_lexical


def build_costra(
    path: str | os.PathLike[str], *, progress: Progress | None = None, **options: Any
) -> BuildResult:
    from polyprobe.builders.lexical.costra import costra_tasks
    from polyprobe.loaders.costra import CostraSource

    source = CostraSource(Path(path), source_version=options.get("source_version") or "1.1")
    text = CardText(
        pretty_name="COSTRA: Czech sentence transformations",
        summary="COSTRA 1.1 (Barančíková & Bojar 2020): Czech seed sentences and 14 kinds of "
        "transformations (paraphrase, minimal change, different meaning, opposite meaning, "
        "nonsense, past, future, ban, possibility, formal, nonstandard, simple, "
        "generalization). `transformations` pairs each transformed sentence with its seed "
        "(label = type; `string_similarity` = Levenshtein ratio to the seed); "
        "`comparisons` holds the orderings the dataset asserts, the same as the `costra` "
        "package's evaluator. Evaluate with `polyprobe evaluate ... --encoder ...`.",
        source_datasets=("original",),
        tags=("lexical", "sentence-embeddings", "costra", "polyprobe"),
        task_categories=("sentence-similarity",),
    )
    options = {"lang": "cs", **options}
    return build_lexical("costra", [source], costra_tasks, text, progress=progress, **options)
