"""``polyprobe demo``: a dataset folder from the bundled sample, so a newcomer sees the whole
path (treebank → folder → ``load_dataset``) in one command without any download."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

DEMO_TREEBANK = Path(__file__).parent / "data" / "UD_English-PolyprobeDemo"
# The sample is tiny, so class floors are lowered (recorded in the card like any parameter).
DEMO_MIN_PER_CLASS = (2, 1, 1)


def demo_note(sentences: int) -> str:
    """What the demo card says about itself: a newcomer reading a card in which most tasks
    are infeasible must learn that this is the sample's size, not a fault."""
    return (
        f"This is the demo build: its source is a sample of {sentences} hand-annotated "
        "sentences bundled with polyprobe, with class floors lowered to "
        f"{'/'.join(map(str, DEMO_MIN_PER_CLASS))}. The sample is tiny, so most tasks are "
        'expected to be infeasible here (see "Tasks not built") and the configs that are '
        "built are far too small to probe with; it shows the path from a treebank to a "
        "dataset folder. Build from a real treebank (`polyprobe build ud`) for real data."
    )


def build_demo(out: str | Path, *, overwrite: bool = False, seed: int = 0) -> Any:
    from polyprobe.builders.build import build
    from polyprobe.builders.families.ud import UdConfig, UdFamily
    from polyprobe.version import __version__

    class DemoFamily(UdFamily):
        """``build ud`` whose card says it is the demo."""

        def card(self, config: Any, sources: Any, language: Any, outcome: Any) -> Any:
            text = super().card(config, sources, language, outcome)
            sentences = int(outcome.duplicates.get("sentences_read", 0))
            return dataclasses.replace(text, summary=f"{text.summary} {demo_note(sentences)}")

    config = UdConfig(
        paths=(DEMO_TREEBANK,),
        lang="en",
        out=Path(out),
        min_per_class=DEMO_MIN_PER_CLASS,
        seed=seed,
        overwrite=overwrite,
        # The sample ships with polyprobe: its version is polyprobe's.
        source_version=f"polyprobe-{__version__}",
    )
    return build(DemoFamily(), config)
