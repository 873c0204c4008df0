"""``polyprobe demo``: a dataset folder from the bundled sample, so a newcomer sees the whole
path (treebank → folder → ``load_dataset``) in one command without any download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_TREEBANK = Path(__file__).parent / "data" / "UD_English-PolyprobeDemo"
# The sample is tiny, so class floors are lowered (recorded in the card like any parameter).
DEMO_MIN_PER_CLASS = (2, 1, 1)


def build_demo(out: str | Path, *, overwrite: bool = False, seed: int = 0) -> Any:
    from polyprobe.builders.recipes.ud import build_ud

    return build_ud(
        [DEMO_TREEBANK],
        lang="en",
        out=out,
        min_per_class=DEMO_MIN_PER_CLASS,
        seed=seed,
        overwrite=overwrite,
    )
