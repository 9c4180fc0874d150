"""Outside text on the terminal: what an agent, a store or a file says is printed inert.

A GPU name, an agent's error or a kernel-log line can carry terminal control sequences (ESC [2J
clears the screen, a carriage return overwrites the line it is on, bidi overrides reorder it), so
a rented host could draw a fake "checks out" on the operator's terminal. `safe_text` escapes every
control character except newline and tab as a visible `\\xNN` / `\\uNNNN`; `safe_json` does the
same for the characters `json.dumps(..., ensure_ascii=False)` leaves raw (C1 controls, line and
paragraph separators, bidi controls). Use them for every line of outside text a command prints.
"""

from __future__ import annotations

import re

# C0 controls except \t and \n, DEL, C1 controls, line/paragraph separators, bidi embeddings,
# overrides and isolates, and the zero-width marks that hide text.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
# What JSON string literals may hold raw but a terminal would act on (C0 is escaped by json.dumps).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: object) -> str:
    """`text` with every control character shown as an escape (newlines and tabs kept)."""
    return _UNSAFE.sub(_escaped, str(text))


def safe_json(dumped: str) -> str:
    """A `json.dumps` result with the characters it leaves raw written as `\\uNNNN` (still the same JSON)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
