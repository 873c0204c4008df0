"""Former home of opening a possibly compressed file by its magic bytes, now
:mod:`polyprobe.loaders.inputs` (the one input layer every reader opens its files through).
The names stay importable for existing callers; nothing is implemented here."""

from __future__ import annotations

from polyprobe.loaders.inputs import COMPRESSIONS, compression_of, open_binary

__all__ = ["COMPRESSIONS", "compression_of", "open_binary"]
