"""Numbers as durable-rules can read them.

durable-rules parses the JSON it is given with its own C parser, which takes no exponent: Python
writes floats below 1e-4 or from 1e16 as `1e-05` / `1e+16`, and the engine then fails with "Could
not assert fact, error code: 204" (the whole question fails). `install()` makes durable's JSON
writer spell every such number out as plain decimals (`0.00001`, `10000000000000000`), the exact
value of the float, so the engine compares and shows what was asked. Infinity and NaN have no
JSON form at all: `check_finite` refuses them with the field's name before they get that far.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

# A JSON string (skipped whole, so its text is never touched) or a number written with an exponent.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?[eE][+-]?\d+)')
_EXPONENT = re.compile(r"\d[eE][+-]?\d")


def _plain(match: re.Match) -> str:
    number = match.group(1)
    if number is None:
        return match.group(0)
    text = format(Decimal(number), "f")
    return text if "." in text else text + ".0"  # stays a float for the engine


def plain_numbers(text: str) -> str:
    """JSON text with every exponent-form number written out in full."""
    if not _EXPONENT.search(text):
        return text
    return _TOKEN.sub(_plain, text)


class EngineJson:
    """Stands in for the `json` module inside durable.engine: same API, plain numbers out."""

    loads = staticmethod(json.loads)

    @staticmethod
    def dumps(obj: Any, **kwargs) -> str:
        return plain_numbers(json.dumps(obj, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)


def install() -> None:
    """Route durable-rules' JSON writing through `EngineJson` (idempotent)."""
    import durable.engine

    if not isinstance(durable.engine.json, EngineJson):
        durable.engine.json = EngineJson()


def check_finite(kind: str, data: dict) -> None:
    """Refuse infinite or NaN numbers in a fact, naming the fact and the field (an InputError)."""
    for key, value in data.items():
        if isinstance(value, float) and not math.isfinite(value):
            from bot.errors import InputError

            raise InputError(f"{kind}.{key}", f"{value} is not a finite number")
