"""The one rule of what a published string may not hold: a C0 control character other than tab.

Why a module of its own on the ground floor: the rule is applied twice, by the input layer
(:mod:`polyprobe.loaders.inputs` refuses such a line or field at its ``file:line``) and by
``polyprobe validate`` (:mod:`polyprobe.cards.validate` rejects a folder whose strings hold
one), and the two must never drift apart: a reader that let through what ``validate``
rejects made builds that exit 0 with folders that fail validation. ``loaders`` may not
import ``cards``, so the rule lives below both. It imports nothing of the package.

The rule: U+0000-U+0008 and U+000A-U+001F (so LF and CR too: a text is one line; a
multi-line CSV field is refused, not published with a line break in it). Tab is the one C0
character text may hold. C1 controls (U+0080-U+009F) are not C0 and not refused here.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_PATTERN", "control_name", "first_control"]

#: The characters the rule refuses, as a regular expression that both Python's ``re`` and
#: RE2 (Arrow's ``match_substring_regex``, what ``validate`` searches parquet columns with)
#: read the same way.
CONTROL_PATTERN = "[\\x00-\\x08\\x0a-\\x1f]"

_CONTROL = re.compile(CONTROL_PATTERN)
_NAMES = (
    ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF")
    + ("CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM")
    + ("SUB", "ESC", "FS", "GS", "RS", "US")
)


def first_control(text: str) -> int:
    """The index of the first character of ``text`` the rule refuses, or -1."""
    found = _CONTROL.search(text)
    return -1 if found is None else found.start()


def control_name(char: str) -> str:
    """``U+0000 (NUL)``: how messages name a C0 character."""
    code = ord(char)
    name = _NAMES[code] if code < len(_NAMES) else ""
    return f"U+{code:04X} ({name})" if name else f"U+{code:04X}"
