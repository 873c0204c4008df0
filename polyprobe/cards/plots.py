"""Label-distribution bar charts for the card.

Drawn with Pillow rather than matplotlib: a build writes one chart per config (dozens for the
full UD suite) and matplotlib's Agg draw costs ~0.1 s each, which dominated the whole build
(measured in ``bench/build_ud.py``); Pillow draws the same grouped bars in a few milliseconds.
The PNG bytes are a function of the counts alone (within one Pillow/FreeType install): fixed
size, DejaVu Sans from matplotlib's bundled fonts (matplotlib is a core dependency, but is not
imported), no text chunks, no timestamps.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

SIZE = (640, 360)
MARGIN = {"left": 60, "right": 12, "top": 48, "bottom": 70}
# matplotlib's tab10, so the charts look like every other scientific plot.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
MAX_LABELLED = 30  # more classes than this: bars only, the table in the card names them


@lru_cache(maxsize=4)
def _font(size: int) -> Any:
    from PIL import ImageFont

    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.submodule_search_locations:
        ttf = (
            Path(next(iter(spec.submodule_search_locations))) / "mpl-data/fonts/ttf/DejaVuSans.ttf"
        )
        if ttf.is_file():
            return ImageFont.truetype(str(ttf), size)
    return ImageFont.load_default()


def _nice_step(top: int) -> int:
    """A 1-2-5 tick step giving at most ~6 ticks up to ``top``."""
    step = 1
    while top / step > 6:
        for m in (2, 5, 10):
            if top / (step * m) <= 6:
                return step * m
        step *= 10
    return step


def label_bar_chart(
    path: str | Path,
    title: str,
    label_names: Sequence[str],
    counts_by_split: Mapping[str, Sequence[int]],
) -> None:
    """Grouped bars: one group per label, one bar per split (in the mapping's order)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    small, normal = _font(10), _font(13)
    x0, x1 = MARGIN["left"], SIZE[0] - MARGIN["right"]
    y0, y1 = MARGIN["top"], SIZE[1] - MARGIN["bottom"]

    draw.text((x0, 8), title, fill="black", font=normal, anchor="la")
    top = max((max(c, default=0) for c in counts_by_split.values()), default=0)
    step = _nice_step(max(top, 1))
    ymax = max(step * -(-max(top, 1) // step), 1)
    for tick in range(0, ymax + 1, step):
        y = y1 - (y1 - y0) * tick / ymax
        draw.line([(x0 - 4, y), (x0, y)], fill="black")
        draw.line([(x0, y), (x1, y)], fill="#e6e6e6")
        draw.text((x0 - 6, y), f"{tick:,}", fill="black", font=small, anchor="rm")
    draw.text((x0, y0 - 8), "rows", fill="black", font=small, anchor="md")

    n_labels = max(len(label_names), 1)
    n_splits = max(len(counts_by_split), 1)
    group_w = (x1 - x0) / n_labels
    bar_w = group_w * 0.8 / n_splits
    for k, counts in enumerate(counts_by_split.values()):
        colour = COLOURS[k % len(COLOURS)]
        for i, c in enumerate(counts):
            left = x0 + i * group_w + group_w * 0.1 + k * bar_w
            height = (y1 - y0) * c / ymax
            if c > 0:
                draw.rectangle([left, y1 - height, left + max(bar_w - 1, 1), y1], fill=colour)
    draw.line([(x0, y0), (x0, y1), (x1, y1)], fill="black")

    if len(label_names) <= MAX_LABELLED:
        for i, name in enumerate(label_names):
            text = name if len(name) <= 18 else name[:17] + "…"
            cx = x0 + (i + 0.5) * group_w
            if len(label_names) > 8 or len(text) * 6 > group_w:
                _rotated_text(img, text, cx, y1 + 4, small)
            else:
                draw.text((cx, y1 + 6), text, fill="black", font=small, anchor="ma")
    else:
        draw.text(
            ((x0 + x1) / 2, y1 + 8),
            f"{len(label_names)} classes (see table)",
            fill="black",
            font=small,
            anchor="ma",
        )

    lx = x1 - 10
    for k, split in enumerate(reversed(list(counts_by_split))):
        idx = len(counts_by_split) - 1 - k
        w = draw.textlength(split, font=small)
        ly = y0 - 22
        draw.rectangle([lx - w - 16, ly - 5, lx - w - 6, ly + 5], fill=COLOURS[idx % len(COLOURS)])
        draw.text((lx - w, ly), split, fill="black", font=small, anchor="lm")
        lx -= w + 26
    img.save(Path(path), format="PNG", optimize=False, compress_level=6)


def _rotated_text(img: Any, text: str, cx: float, top: float, font: Any) -> None:
    """Tick label at 45°, its end under the tick (how long labels stay readable)."""
    from PIL import Image, ImageDraw

    w = int(ImageDraw.Draw(img).textlength(text, font=font)) + 2
    label = Image.new("L", (w, 14), 0)
    ImageDraw.Draw(label).text((0, 7), text, fill=255, font=font, anchor="lm")
    rotated = label.rotate(45, expand=True, resample=Image.BICUBIC)
    x = int(cx - rotated.width)
    black = Image.new("RGB", rotated.size, "black")
    img.paste(black, (x + 4, int(top)), rotated)
