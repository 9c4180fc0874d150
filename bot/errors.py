"""The one exception tree of gpu-advisor.

    GpuAdvisorError
    ├── InputError(field, message)   what a user typed or asked: the CLI exits 2 with one line,
    │   │                            Slack asks again, the agent API answers 4xx
    │   └── ParseError                 the question text the parser refuses (bot.nlu)
    ├── ConfigError                  a setting, file or folder the operator supplies is unusable:
    │                                knowledge/, rules/, inventory, Slack settings, log settings,
    │                                YAML files, the chart path; the CLI exits 2
    └── ServiceError                 something the bot depends on failed while running: the store,
                                     an agent, the rule engine, the answer workers; the CLI exits 1

Modules keep their own names for readability (`KnowledgeError`, `StoreError`, ...) but derive
from one of these, so callers catch by kind and read `field`/`message` instead of taking apart
the text. InputError and ConfigError stay ValueErrors and ServiceError a RuntimeError, so older
`except ValueError` blocks keep working.
"""

from __future__ import annotations


class GpuAdvisorError(Exception):
    """Base of every error gpu-advisor raises on purpose."""


class InputError(GpuAdvisorError, ValueError):
    """Bad input from a user. `field` names what was wrong (a Requirement field, a flag, "question"),
    `message` says why; `str()` is "field: message" (just the message when there is no field)."""

    def __init__(self, field: str | None, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class ConfigError(GpuAdvisorError, ValueError):
    """A setting, file or folder the operator supplies cannot be used; the message names it."""


class ServiceError(GpuAdvisorError, RuntimeError):
    """A service the bot depends on failed at run time (store, agent, engine, worker processes)."""


def user_message(exc: BaseException) -> str:
    """The text to show a user for `exc`: the message of an InputError, else the whole text."""
    if isinstance(exc, InputError):
        return exc.message
    return str(exc)
