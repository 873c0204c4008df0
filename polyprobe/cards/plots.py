"""Label-distribution bar charts for the card, written so that the PNG bytes are a function of
the counts alone (within one matplotlib/freetype install): no pyplot global state, matplotlib's
default style whatever the user's matplotlibrc says, no ``Software`` text chunk, fixed size and
dpi. matplotlib is imported here only, and only when a card is written."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

FIGSIZE = (6.4, 3.6)
DPI = 100
# PNG text chunks matplotlib would otherwise add; None removes the key.
PNG_METADATA: dict[str, str | None] = {"Software": None}


def label_bar_chart(
    path: str | Path,
    title: str,
    label_names: Sequence[str],
    counts_by_split: Mapping[str, Sequence[int]],
) -> None:
    """Grouped bars: one group per label, one bar per split (in the mapping's order)."""
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rc = {"text.parse_math": False, "text.usetex": False, "svg.hashsalt": "polyprobe"}
    with matplotlib.style.context("default"), matplotlib.rc_context(rc):
        fig = Figure(figsize=FIGSIZE, dpi=DPI)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        n_splits = max(len(counts_by_split), 1)
        width = 0.8 / n_splits
        positions = list(range(len(label_names)))
        for k, (split, counts) in enumerate(counts_by_split.items()):
            offset = (k - (n_splits - 1) / 2) * width
            ax.bar([x + offset for x in positions], list(counts), width=width, label=split)
        ax.set_xticks(positions)
        ax.set_xticklabels(list(label_names), rotation=30 if len(label_names) > 6 else 0)
        ax.set_ylabel("rows")
        ax.set_title(title)
        ax.legend()
        with warnings.catch_warnings():
            # Missing glyphs (labels in scripts the default font lacks) only warn.
            warnings.simplefilter("ignore", UserWarning)
            fig.tight_layout()
            fig.savefig(Path(path), format="png", dpi=DPI, metadata=PNG_METADATA)
