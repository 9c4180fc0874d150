"""Natural-language understanding: questions as people write them -> Requirement, with spans.

    from bot.nlu import parse
    parse("fine-tune Llama-3-8B with LoRA on two 4090s").requirement

Names are imported lazily so importing `bot.nlu` costs nothing until a name is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.nlu.model import Parse, ParseError, Span
    from bot.nlu.parser import detect_language, parse

__all__ = ["Parse", "ParseError", "Span", "detect_language", "parse"]
_HOME = {"Parse": "bot.nlu.model", "ParseError": "bot.nlu.model", "Span": "bot.nlu.model",
         "detect_language": "bot.nlu.parser", "parse": "bot.nlu.parser"}


def __getattr__(name: str):
    if name in _HOME:
        import importlib

        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'bot.nlu' has no attribute {name!r}")
