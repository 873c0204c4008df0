"""Block-decoded lines with true line numbers (what the UniMorph, Wuggy and frequency
readers read through).

Why: the text layer reported a bad byte on the wrong line (it decodes ahead in chunks) and
could not go on after it; these lines must match what Python's text mode gives for good
files, whatever the block boundaries, and name the true line of a bad byte."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from polyprobe.errors import InputError
from polyprobe.loaders.inputs import BadLine, line_blocks, numbered_lines


def _text_mode(path: Path) -> list[str]:
    """The readers' previous reference: text mode, lines split as ``newline=""`` does."""
    with open(path, encoding="utf-8", newline="") as fh:
        lines = [line.rstrip("\r\n") for line in fh]
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return lines


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="ab\t \r\né\u0085\u2028", max_size=60),
    block=st.integers(min_value=1, max_value=9),
    bom=st.booleans(),
)
def test_same_lines_as_text_mode(tmp_path_factory, text: str, block: int, bom: bool) -> None:  # type: ignore[no-untyped-def]
    assume(text or not bom)  # a lone BOM: text mode sees one empty line, we see an empty file
    # a lone CR in a file with LF line ends is refused in its line, where text mode would end
    # the line there (test_loaders_inputs pins that); a file without LF has CR line ends
    assume("\n" not in text or "\r" not in text.replace("\r\n", ""))
    path = tmp_path_factory.mktemp("t") / "f.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    got = [line for lines in line_blocks(path, block) for line in lines]
    assert got == _text_mode(path)
    assert [n for n, _ in numbered_lines(path, block)] == list(range(1, len(got) + 1))


@pytest.mark.parametrize("block", [4, 64, 1 << 20])
def test_bad_byte_is_reported_on_its_own_line_and_reading_goes_on(
    tmp_path: Path, block: int
) -> None:
    lines = [f"word{i}\tx".encode() for i in range(1, 6001)]
    lines[5000] = b"w\xffrd5001\tx"  # line 5001
    path = tmp_path / "bad.tsv"
    path.write_bytes(b"\r\n".join(lines) + b"\r\n")
    got = list(numbered_lines(path, block))
    assert len(got) == 6000
    bad = [(n, line) for n, line in got if isinstance(line, BadLine)]
    assert [n for n, _ in bad] == [5001]
    assert "invalid start byte at byte 2 of the line" in bad[0][1].problem
    assert got[5001] == (5002, "word5002\tx")  # the lines after it are read


def test_gzip_by_content(tmp_path: Path) -> None:
    path = tmp_path / "lexicon"  # no .gz suffix: recognised by its magic bytes
    with gzip.open(path, "wb") as fh:
        fh.write(b"a\tb\nc\td")
    assert list(numbered_lines(path)) == [(1, "a\tb"), (2, "c\td")]


def test_truncated_gzip_is_fatal_at_the_line_reached(tmp_path: Path) -> None:
    data = gzip.compress(b"a\tb\n" * 1000)
    path = tmp_path / "x.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError) as err:
        list(numbered_lines(path))
    assert err.value.reason == "truncated-gzip" and err.value.path == str(path)
    assert err.value.line == 1 and "truncated gzip file" in err.value.problem


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        list(numbered_lines(tmp_path / "nope"))
    assert err.value.reason == "missing-file"
