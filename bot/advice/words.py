"""How much two texts speak of the same thing: shared English words (stop words aside) and shared
Chinese character pairs. The one word-overlap measure of the composers, the parts of a message
(bot/advice/parts.py) and the brief's "Watch out" (bot/render/text.py)."""

from __future__ import annotations

import re

_STOP = frozenset({"the", "and", "for", "with", "what", "how", "does", "this", "that", "are", "our", "can", "you",
                   "your", "any", "will", "from", "have", "much", "more", "into", "its", "than", "then", "them",
                   "they", "there", "when", "which", "who", "why", "would", "should", "could", "about"})


# A word (a hyphen splits one: "rtx-4090" reads as "RTX 4090") or a number as written: "1,359", "400.0".
_TERM = re.compile(r"[a-z][a-z0-9]{2,}|[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?")
# The brand words a probe name adds ("NVIDIA GeForce RTX 4090") say nothing its display name does not.
_BRAND = frozenset({"nvidia", "geforce", "tesla"})


# A log's timestamp ("2025-01-21T04:41:44,284616+00:00") says when, not what: no terms of its own.
_TIMESTAMP = re.compile(r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}[t ][0-9:.,]+(?:[+-][0-9]{2}:?[0-9]{2}|z)?", re.IGNORECASE)


def _term(written: str) -> str:
    """'400.0' and '400' are one number, '1,359' and '1359' too, and '67.74' is the '68' a line rounds
    it to (from 10 up; '2.5' stays '2.5')."""
    if not written[0].isdigit():
        return written
    plain = written.replace(",", "")
    if "." not in plain:
        return plain
    value = float(plain)
    return str(round(value)) if value >= 10 else plain.rstrip("0").rstrip(".")


def terms(text: str) -> set[str]:
    text = _TIMESTAMP.sub(" ", text.lower())
    words = {_term(w) for w in _TERM.findall(text.replace("-", " ")) if w not in _STOP and w not in _BRAND}
    for run in re.findall(r"[\u4e00-\u9fff]{2,}", text):
        words |= {run[i:i + 2] for i in range(len(run) - 1)}
    return words
