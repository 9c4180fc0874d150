"""Which Pythons can answer, and a clear error on one that cannot (issue #29).

The rule engine is durable-rules 2.0.28, whose C extension calls `PyEval_CallObject`, removed
from the C API in Python 3.13: on 3.13 the extension builds but does not import, and every
question would fail. `requires-python` admits 3.11 and 3.12 (checked: both import it);
`require_engine()` runs at start-up of the commands that answer, so a Python that cannot is one
line at start, not an ImportError on the first question.
"""

from __future__ import annotations

import sys

from bot.errors import ConfigError

SUPPORTED = ((3, 11), (3, 12))
# What an ImportError of the engine's C extension says, and where it comes from.
_ENGINE_MODULES = ("durable_rules_engine", "durable")


class UnsupportedRuntime(ConfigError):
    """This Python cannot run the rule engine."""


def supported_text() -> str:
    return " and ".join(f"{major}.{minor}" for major, minor in SUPPORTED)


def version_problem(version: tuple[int, int] | None = None) -> str | None:
    """Why this Python (`version`, default the running one) cannot answer, or None."""
    major, minor = version or sys.version_info[:2]
    if (major, minor) in SUPPORTED:
        return None
    return (f"Python {major}.{minor} cannot run the rule engine (durable-rules 2.0.28's C extension "
            f"does not load on it); gpu-advisor answers on Python {supported_text()}: "
            "reinstall it in a virtual environment made with one of those")


def engine_import_problem(exc: ImportError) -> str | None:
    """The one-line reason for an ImportError of the engine, or None when `exc` is another import."""
    name = getattr(exc, "name", None) or ""
    text = str(exc)
    if name.split(".")[0] not in _ENGINE_MODULES and not any(m in text for m in _ENGINE_MODULES):
        return None
    reason = version_problem() or (
        "the rule engine (durable-rules) is not installed or does not load; reinstall gpu-advisor "
        "(`pip install --force-reinstall durable-rules==2.0.28` needs a C compiler)")
    return f"{reason} [{text.splitlines()[0][:200] if text else type(exc).__name__}]"


def require_engine(version: tuple[int, int] | None = None) -> None:
    """Raise UnsupportedRuntime (one line, exit 2) unless the rule engine can load here."""
    problem = version_problem(version)
    if problem:
        raise UnsupportedRuntime(problem)
    try:
        import durable_rules_engine  # noqa: F401  (the C extension itself)
    except ImportError as exc:
        raise UnsupportedRuntime(engine_import_problem(exc) or str(exc)) from exc
