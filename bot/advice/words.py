"""How much two texts speak of the same thing: shared English words (stop words aside) and shared
Chinese character pairs. The one word-overlap measure of the composers, the parts of a message
(bot/advice/parts.py) and the brief's "Watch out" (bot/render/text.py)."""

from __future__ import annotations

import re

_STOP = frozenset({"the", "and", "for", "with", "what", "how", "does", "this", "that", "are", "our", "can", "you",
                   "your", "any", "will", "from", "have", "much", "more", "into", "its", "than", "then", "them",
                   "they", "there", "when", "which", "who", "why", "would", "should", "could", "about"})


def terms(text: str) -> set[str]:
    text = text.lower()
    words = {w for w in re.findall(r"[a-z][a-z0-9-]{2,}|[0-9]+", text) if w not in _STOP}
    for run in re.findall(r"[\u4e00-\u9fff]{2,}", text):
        words |= {run[i:i + 2] for i in range(len(run) - 1)}
    return words
