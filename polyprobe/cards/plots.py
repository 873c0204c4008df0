"""Label-distribution bar charts for the card.

Drawn with Pillow rather than matplotlib: a build writes one chart per config (dozens for the
full UD suite) and matplotlib's Agg draw costs ~0.1 s each, which dominated the whole build
(measured in ``bench/build_ud.py``); Pillow draws the same grouped bars in a few milliseconds.
The PNG bytes are a function of the counts alone (within one Pillow/FreeType install): fixed
size, DejaVu Sans from matplotlib's bundled fonts (matplotlib is a core dependency, but is not
imported), no text chunks, no timestamps.

Everything but the bars is grey (black text anti-aliased on white, grey grid lines), so the
chart is drawn as a greyscale image and saved as a *palette* PNG: each grey level is its own
palette entry and the bars' colours take grey levels the drawing does not use. The pixels are
exactly those of the same chart drawn in RGB (``tests/test_plots.py`` compares them), while
zlib compresses a third of the bytes: encoding was over half the charts' CPU; EWT's 51 charts
now take 0.3 s instead of 0.5 s and 257 KB instead of 373 KB. A chart whose rotated labels use
so many grey levels that its colours find no free entry is saved in RGB (3 of EWT's 51).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

SIZE = (640, 360)
MARGIN = {"left": 60, "right": 12, "top": 48, "bottom": 70}
# matplotlib's tab10, so the charts look like every other scientific plot.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
MAX_LABELLED = 30  # more classes than this: bars only, the table in the card names them
# the grey levels of the drawing (an "L" image: 0 black, 255 white)
WHITE, BLACK = 255, 0
GRID = 0xE6  # "#e6e6e6"


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

    img = Image.new("L", SIZE, WHITE)
    draw = ImageDraw.Draw(img)
    small, normal = _font(10), _font(13)
    x0, x1 = MARGIN["left"], SIZE[0] - MARGIN["right"]
    y0, y1 = MARGIN["top"], SIZE[1] - MARGIN["bottom"]

    draw.text((x0, 8), title, fill=BLACK, font=normal, anchor="la")
    top = max((max(c, default=0) for c in counts_by_split.values()), default=0)
    step = _nice_step(max(top, 1))
    ymax = max(step * -(-max(top, 1) // step), 1)
    for tick in range(0, ymax + 1, step):
        y = y1 - (y1 - y0) * tick / ymax
        draw.line([(x0 - 4, y), (x0, y)], fill=BLACK)
        draw.line([(x0, y), (x1, y)], fill=GRID)
        draw.text((x0 - 6, y), f"{tick:,}", fill=BLACK, font=small, anchor="rm")
    draw.text((x0, y0 - 8), "rows", fill=BLACK, font=small, anchor="md")

    n_labels = max(len(label_names), 1)
    n_splits = max(len(counts_by_split), 1)
    group_w = (x1 - x0) / n_labels
    bar_w = group_w * 0.8 / n_splits
    # Bars and legend swatches, the only colours, are drawn last (once the grey levels are
    # known): they cover the grid lines and nothing else grey; the axis line, drawn over them
    # in RGB, is drawn again after them.
    boxes: list[tuple[int, list[float]]] = []
    for k, counts in enumerate(counts_by_split.values()):
        for i, c in enumerate(counts):
            left = x0 + i * group_w + group_w * 0.1 + k * bar_w
            height = (y1 - y0) * c / ymax
            if c > 0:
                boxes.append((k, [left, y1 - height, left + max(bar_w - 1, 1), y1]))
    axis = [(x0, y0), (x0, y1), (x1, y1)]
    draw.line(axis, fill=BLACK)

    if len(label_names) <= MAX_LABELLED:
        for i, name in enumerate(label_names):
            text = name if len(name) <= 18 else name[:17] + "…"
            cx = x0 + (i + 0.5) * group_w
            if len(label_names) > 8 or len(text) * 6 > group_w:
                _rotated_text(img, text, cx, y1 + 4, small)
            else:
                draw.text((cx, y1 + 6), text, fill=BLACK, font=small, anchor="ma")
    else:
        draw.text(
            ((x0 + x1) / 2, y1 + 8),
            f"{len(label_names)} classes (see table)",
            fill=BLACK,
            font=small,
            anchor="ma",
        )

    lx = x1 - 10
    for k, split in enumerate(reversed(list(counts_by_split))):
        idx = len(counts_by_split) - 1 - k
        w = draw.textlength(split, font=small)
        ly = y0 - 22
        boxes.append((idx, [lx - w - 16, ly - 5, lx - w - 6, ly + 5]))
        draw.text((lx - w, ly), split, fill=BLACK, font=small, anchor="lm")
        lx -= w + 26

    img = _coloured(img, boxes, axis)
    img.save(Path(path), format="PNG", optimize=False, compress_level=6)


def _coloured(grey: Any, boxes: Sequence[tuple[int, list[float]]], axis: list[Any]) -> Any:
    """The grey drawing with its coloured boxes (split index, rectangle) filled, then the
    axis line drawn again over them: a palette image whose colours take grey levels the
    drawing leaves unused, or an RGB image if there are not enough of them."""
    from PIL import ImageDraw

    used = sorted({k % len(COLOURS) for k, _ in boxes})
    free = [level for level, n in enumerate(grey.histogram()) if n == 0]
    if len(free) >= len(used):
        slot = dict(zip(used, free, strict=False))
        palette = bytearray(v for level in range(256) for v in (level, level, level))
        for k, level in slot.items():
            palette[3 * level : 3 * level + 3] = _rgb(COLOURS[k])
        img = grey
        fill: Callable[[int], Any] = slot.__getitem__
    else:
        img, palette = grey.convert("RGB"), None
        fill = COLOURS.__getitem__
    draw = ImageDraw.Draw(img)
    for k, box in boxes:
        draw.rectangle(box, fill=fill(k % len(COLOURS)))
    draw.line(axis, fill="black")
    if palette is None:
        return img
    from PIL import Image

    out = Image.frombytes("P", img.size, img.tobytes())
    out.putpalette(bytes(palette))
    return out


def _rgb(colour: str) -> bytes:
    """``#rrggbb`` as three bytes."""
    return bytes.fromhex(colour.removeprefix("#"))


def _rotated_text(img: Any, text: str, cx: float, top: float, font: Any) -> None:
    """Tick label at 45°, its end under the tick (how long labels stay readable)."""
    from PIL import Image, ImageDraw

    w = int(ImageDraw.Draw(img).textlength(text, font=font)) + 2
    label = Image.new("L", (w, 14), 0)
    ImageDraw.Draw(label).text((0, 7), text, fill=255, font=font, anchor="lm")
    rotated = label.rotate(45, expand=True, resample=Image.BICUBIC)
    x = int(cx - rotated.width)
    img.paste(BLACK, (x + 4, int(top)), rotated)
