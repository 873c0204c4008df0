"""Open a possibly compressed file as a binary stream, deciding the format by its magic bytes.

Why by magic bytes and not by name: dump files travel renamed (the shared English excerpt is
``...-shortened.bz2`` with no ``.xml``; mirrors serve ``.xml`` files that are really gzip), and
a wrong guess by suffix either feeds compressed bytes to the XML parser or refuses a good
file. Why binary: the XML parser must see the bytes so it can detect UTF-16 and declared
encodings itself (a text-mode stream hard-codes one encoding and fails on the Bulgarian
UTF-16 dump).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path
from typing import BinaryIO

from polyprobe.errors import InputError

__all__ = ["COMPRESSIONS", "compression_of", "open_binary"]

# magic bytes -> compression name (zstd is recognised so that it can be refused by name)
COMPRESSIONS: tuple[tuple[bytes, str], ...] = (
    (b"BZh", "bz2"),
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


def compression_of(path: str | Path) -> str:
    """``bz2``, ``gzip``, ``xz``, ``zstd`` or ``plain``, from the file's first bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except FileNotFoundError:
        raise InputError(path, None, "no such file", "missing-file") from None
    except IsADirectoryError:
        raise InputError(path, None, "is a folder, not a file", "missing-file") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror}", "unreadable") from None
    for magic, name in COMPRESSIONS:
        if head.startswith(magic):
            return name
    return "plain"


def open_binary(path: str | Path) -> BinaryIO:
    """The decompressed bytes of ``path`` as a stream (bz2, gzip, xz or plain). A zstd file is
    refused with what to do: the standard library has no zstd decoder."""
    kind = compression_of(path)
    if kind == "bz2":
        return bz2.open(path, "rb")  # type: ignore[return-value]
    if kind == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if kind == "xz":
        return lzma.open(path, "rb")  # type: ignore[return-value]
    if kind == "zstd":
        raise InputError(
            path,
            None,
            "is zstd-compressed, which polyprobe cannot read: decompress it first "
            "(zstd -d FILE) or recompress it as bz2 or gzip",
            "unreadable",
        )
    return open(path, "rb")
