"""The lexical report's one figure: COSTRA's transformations as difference vectors
(transformed sentence − its seed) on their first two principal components, a colour per
transformation type.

Why differences rather than the sentences themselves: COSTRA asks whether a transformation is
a *direction* in the sentence space (Barančíková & Bojar 2020: "past" should move every seed
the same way); subtracting the seed removes what the sentences are about, so a type that is a
consistent direction shows as a cluster. The points are the ones the evaluation computed and
stored with the result (``scores.pca``, see :func:`polyprobe.evaluation.lexical.run.costra_pca`):
the report never re-encodes anything. Drawn with matplotlib's Agg canvas in the default style,
no software stamp in the PNG, so the same result gives the same bytes.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

_PNG_METADATA: dict[str, str | None] = {"Software": None}
_RC = {"text.parse_math": False, "text.usetex": False, "svg.hashsalt": "polyprobe"}


def pca_plot_name(result: dict[str, Any]) -> str:
    """``costra-pca-<dataset>-<config>-<encoder>.png`` with unsafe characters replaced."""
    name = result.get("dataset", {}).get("name") or "dataset"
    parts = [str(name), str(result["config"]), str(result["encoder"]["id"])]
    return "costra-pca-" + "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", p) for p in parts) + ".png"


def costra_pca_plot(result: dict[str, Any], path: str | Path, title: str) -> None:
    """Scatter of ``result['scores']['pca']`` coloured by type, legend outside the axes."""
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pca = result["scores"]["pca"]
    names, types = pca["type_names"], pca["types"]
    xs, ys = pca["x"], pca["y"]
    ratio = pca["explained_variance"]
    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8.0, 5.5), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        cmap = matplotlib.colormaps["tab20"]
        for k, name in enumerate(names):
            pts = [i for i, t in enumerate(types) if t == k]
            ax.scatter(
                [xs[i] for i in pts],
                [ys[i] for i in pts],
                s=10,
                alpha=0.7,
                color=cmap(k % 20),
                label=f"{name} ({len(pts)})",
            )
        ax.set_xlabel(f"PC1 ({100 * ratio[0]:.1f}% of variance)")
        ax.set_ylabel(f"PC2 ({100 * ratio[1]:.1f}% of variance)")
        ax.set_title(title, fontsize=9)
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=7, frameon=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fig.tight_layout()
            fig.savefig(Path(path), format="png", dpi=100, metadata=_PNG_METADATA)
