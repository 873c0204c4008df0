"""Label charts: drawn as a grey image and saved as a palette PNG (the bars' colours in grey
levels the drawing leaves free), with exactly the pixels of the chart drawn in RGB as before
(the reference below, drawn with the same Pillow and font, so the test holds on any install);
an RGB PNG when the grey levels leave too few entries free."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from polyprobe.cards.plots import (
    COLOURS,
    MARGIN,
    MAX_LABELLED,
    SIZE,
    _font,
    _nice_step,
    label_bar_chart,
)


def _rgb_reference(
    title: str, label_names: Sequence[str], counts_by_split: Mapping[str, Sequence[int]]
) -> Any:
    """The chart as ``label_bar_chart`` drew it in RGB before it drew grey and saved a
    palette (unchanged code, minus the saving)."""
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
                _rotated_reference(img, text, cx, y1 + 4, small)
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
    return img


def _rotated_reference(img: Any, text: str, cx: float, top: float, font: Any) -> None:
    """Tick label at 45°, its end under the tick (how long labels stay readable)."""
    from PIL import Image, ImageDraw

    w = int(ImageDraw.Draw(img).textlength(text, font=font)) + 2
    label = Image.new("L", (w, 14), 0)
    ImageDraw.Draw(label).text((0, 7), text, fill=255, font=font, anchor="lm")
    rotated = label.rotate(45, expand=True, resample=Image.BICUBIC)
    x = int(cx - rotated.width)
    black = Image.new("RGB", rotated.size, "black")
    img.paste(black, (x + 4, int(top)), rotated)


WORDS = [
    "NOUN",
    "Sing",
    "Präteritum",
    "очень_длинное_название",
    "nsubj:pass",
    "0.10-0.20",
    "x" * 30,
]


def _cases() -> list[tuple[str, list[str], dict[str, list[int]]]]:
    """Charts of every shape the builds draw: 1 to 150 classes (horizontal, rotated and no
    tick labels), one to seven splits (colours cycle), long titles, zero and huge counts,
    no rows at all."""
    rng = random.Random(5)
    cases = []
    for n in (1, 2, 5, 9, 30, 31, 150):
        for splits in (["train"], ["train", "validation", "test"], list("abcdefg")):
            names = [rng.choice(WORDS) + str(i) for i in range(n)]
            counts = {s: [rng.choice([0, 1, 7, 999, 12345, 250000]) for _ in names] for s in splits}
            title = rng.choice(["tense", "odd_feature.natural-full-lemma-disjoint-and-more"])
            cases.append((title, names, counts))
    cases.append(("empty", [], {}))
    cases.append(("zeros", ["a", "b"], {"train": [0, 0]}))
    return cases


@pytest.mark.parametrize("case", range(len(_cases())))
def test_chart_pixels_equal_the_rgb_drawing(tmp_path: Path, case: int) -> None:
    title, names, counts = _cases()[case]
    label_bar_chart(tmp_path / "c.png", title, names, counts)
    with Image.open(tmp_path / "c.png") as chart:
        assert chart.mode in ("P", "RGB") and chart.size == SIZE
        assert "transparency" not in chart.info
        pixels = np.asarray(chart.convert("RGB"))
    assert np.array_equal(pixels, np.asarray(_rgb_reference(title, names, counts)))
    label_bar_chart(tmp_path / "again.png", title, names, counts)
    assert (tmp_path / "again.png").read_bytes() == (tmp_path / "c.png").read_bytes()


def test_charts_are_palette_images_unless_no_grey_level_is_free(tmp_path: Path) -> None:
    """The usual chart (a few classes) is a palette PNG and smaller than the RGB one; one
    whose rotated labels use every grey level stays RGB (its pixels: the test above)."""
    names = ["Sing", "Plur"]
    counts = {"train": [900, 700], "validation": [90, 70], "test": [95, 71]}
    label_bar_chart(tmp_path / "p.png", "subject_number", names, counts)
    _rgb_reference("subject_number", names, counts).save(tmp_path / "rgb.png", compress_level=6)
    with Image.open(tmp_path / "p.png") as chart:
        assert chart.mode == "P"
        colours = {c for _, c in chart.convert("RGB").getcolors(256)}
    assert {tuple(bytes.fromhex(c[1:])) for c in COLOURS[:3]} <= colours
    assert (tmp_path / "p.png").stat().st_size < 0.8 * (tmp_path / "rgb.png").stat().st_size
    modes = set()
    for title, names, counts in _cases():
        label_bar_chart(tmp_path / "c.png", title, names, counts)
        with Image.open(tmp_path / "c.png") as chart:
            modes.add(chart.mode)
    assert modes == {"P", "RGB"}
