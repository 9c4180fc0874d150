"""What the parser returns: the requirement it read, where each slot came from, and what it skipped."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.errors import InputError
from bot.models import Language, Requirement


class ParseError(InputError):
    """A question the parser refuses: a number outside the sane range, or text it cannot read.

    `field` names the Requirement field (or "question"); the message quotes the offending value.
    """


# Why a span was set aside or how it was read, for code to test; `note` says the same for people.
SpanKind = Literal[
    "repeated",          # a scalar slot stated again with another value: the first one stands
    "unknown-gpu",       # a GPU name the catalog lacks
    "unknown-provider",  # a provider the catalog lacks
    "users",             # a concurrency read from the users served ("for 10 users")
    "implied",           # a slot implied by another (a method implies training)
    "assumed",           # a default the answer must say (8 GPUs in each machine named without a count)
]


class Span(BaseModel):
    """One slot value and the characters of the question it was read from (`text[start:end]`)."""

    model_config = ConfigDict(extra="forbid")

    slot: str
    value: Any
    text: str
    start: int
    end: int
    note: str | None = None
    # Left out of the JSON (Answer.parse keeps its shape); code reads this, never `note`'s wording.
    kind: SpanKind | None = Field(default=None, exclude=True)


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

    def notices(self, billed: bool = True) -> list[str]:
        """Follow-up questions about names the catalog does not know, in the question's language; an
        unknown provider only where its billing rules could change the answer (`billed`: a price or cost
        is asked), not beside a hardware choice whose prices were said to be alike.

        Silently dropping "V100" would answer a different question than the one asked.
        """
        out = []
        for span in self.spans:
            if span.kind == "assumed" and span.slot == "gpu_count":  # "两台机器": 8 GPUs each, said and asked
                from bot.messages import say
                out.append(say("quantities.gpus_per_node_assumed", self.language, written=span.text.strip(),
                               gpus=span.value, per_node=8))
        for span in self.ignored:
            if span.kind == "unknown-gpu":
                out.append(
                    f"我没有 {span.text} 的规格数据，本次回答没有考虑它。请换成知识库中的 GPU（如 L4、A100、H100），"
                    "或让维护者把它加入 knowledge/gpus.yaml。" if self.language == "zh" else
                    f"I have no specs for {span.text!r}, so this answer does not cover it. Name a catalog GPU "
                    "(e.g. L4, A100, H100), or ask the maintainers to add it to knowledge/gpus.yaml."
                )
            elif span.kind == "unknown-provider" and billed:
                out.append(
                    f"我不认识供应商 {span.text}，本次回答没有考虑它的计费规则。" if self.language == "zh" else
                    f"I don't know the provider {span.text!r}, so its billing rules are not covered here."
                )
        return out

    def summary(self) -> dict:
        """The JSON form carried in `Answer.parse`."""
        return {
            "language": self.language,
            "slots": self.extracted,
            "spans": [s.model_dump(mode="json", exclude_none=True) for s in self.spans],
            "ignored": [s.model_dump(mode="json", exclude_none=True) for s in self.ignored],
        }
