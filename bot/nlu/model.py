"""What the parser returns: the requirement it read, where each slot came from, and what it skipped."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.models import Language, Requirement


class ParseError(ValueError):
    """A question the parser refuses: a number outside the sane range, or text it cannot read.

    `field` names the Requirement field (or "question"); the message quotes the offending value.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class Span(BaseModel):
    """One slot value and the characters of the question it was read from (`text[start:end]`)."""

    model_config = ConfigDict(extra="forbid")

    slot: str
    value: Any
    text: str
    start: int
    end: int
    note: str | None = None


class Parse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    language: Language
    requirement: Requirement
    spans: list[Span]
    # Recognised but not used: a second GPU, a provider the catalog does not know, and so on.
    ignored: list[Span] = []

    @property
    def extracted(self) -> dict[str, Any]:
        """The Requirement fields this question stated, as JSON values."""
        names = {s.slot for s in self.spans}
        return self.requirement.model_dump(mode="json", include=names)

    def summary(self) -> dict:
        """The JSON form carried in `Answer.parse`."""
        return {
            "language": self.language,
            "slots": self.extracted,
            "spans": [s.model_dump(mode="json", exclude_none=True) for s in self.spans],
            "ignored": [s.model_dump(mode="json", exclude_none=True) for s in self.ignored],
        }
