"""Score the parser against a corpus of questions with their expected slots.

Shared by the corpus test (tests/nlu) and the benchmark (bench/nlu.py), so both count the same way:
a slot is right when the parser gives exactly the expected value (lists compare as sets, costs
entry by entry); a slot the question does not state must stay empty. A question whose `error`
names a field is right when the parser refuses it with a ParseError on that field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.knowledge import Catalog
from bot.nlu.model import ParseError
from bot.nlu.parser import parse
from bot.yamlio import load_yaml


@dataclass
class SlotScore:
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0

    @property
    def precision(self) -> float:
        predicted = self.true_positive + self.false_positive
        return self.true_positive / predicted if predicted else 1.0

    @property
    def recall(self) -> float:
        expected = self.true_positive + self.false_negative
        return self.true_positive / expected if expected else 1.0


@dataclass
class Report:
    questions: int = 0
    slots_total: int = 0
    slots_right: int = 0
    crashes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    per_slot: dict[str, SlotScore] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return self.slots_right / self.slots_total if self.slots_total else 1.0


def load_corpus(path: Path) -> list[dict]:
    data = load_yaml(path).data
    return data["questions"]


def _canonical(slot: str, value: Any) -> Any:
    if value is None or value == []:
        return None
    if slot in ("topics", "xids", "symptoms"):
        return frozenset(value)
    if slot == "costs":
        # A rate with its duration. Quotes without one and monthly prices (the advice's additions)
        # are scored as `quotes`, only in sets that expect them.
        paired = tuple(
            (str(c["label"]).lower(), c.get("gpu"), round(float(c["hourly_rate"]), 4), round(float(c["hours"]), 4),
             c.get("currency", "USD"))
            for c in value if c.get("hourly_rate") is not None and c.get("hours") is not None
        )
        return paired or None
    if slot == "quotes":
        return tuple(
            (str(c["label"]).lower(), c.get("gpu"), c.get("hourly_rate"), c.get("monthly_rate"), c.get("gpu_count"),
             bool(c.get("per_gpu")), c.get("currency", "USD"))
            for c in value if c.get("hours") is None
        ) or None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (int, float)):
        return round(float(value), 4) if isinstance(value, float) else value
    return str(value)


# Slots added for the advice (issue #11). A question set written before them does not say what they
# should hold, so they are scored only in sets that expect them somewhere (tests/nlu/advice.yaml).
ADVICE_SLOTS = frozenset({"intent", "checkpointing", "checkpoint_minutes", "instance", "unknown_gpu",
                          "gpu_options", "gpu_option_counts", "provider_options", "billing_options", "instance_options", "quotes", "driver_cuda", "usage_hours_per_month", "unknown_gpu_memory_gb",
                          "gpu_hours", "gpu_hours_gpu", "budget", "budget_currency", "network_gbps",
                          # what each part asks (issue #22): scored by tests/nlu/slots/test_asks.py
                          "asks",
                          # pasted tool output (#25) and the typed numbers (#23): tested on their own
                          "pasted", "quantities"})


def score(corpus: list[dict], catalog: Catalog | None = None) -> Report:
    report = Report()
    covered = {slot for item in corpus for slot in (item.get("expect") or {})}
    for item in corpus:
        text = item["text"]
        report.questions += 1
        expected_error = item.get("error")
        try:
            result = parse(text, catalog)
        except ParseError as exc:
            _count(report, "error", expected_error, exc.field, text)
            continue
        except Exception as exc:  # the corpus test fails on any of these
            report.crashes.append(f"{text!r}: {type(exc).__name__}: {exc}")
            continue
        if expected_error:
            _count(report, "error", expected_error, None, text)
            continue
        expected = {k: _canonical(k, v) for k, v in (item.get("expect") or {}).items()}
        extracted = dict(result.extracted)
        if "costs" in extracted:
            extracted["quotes"] = extracted["costs"]
        got = {k: _canonical(k, v) for k, v in extracted.items() if k in covered or k not in ADVICE_SLOTS}
        for slot in sorted(set(expected) | set(got)):
            _count(report, slot, expected.get(slot), got.get(slot), text)
    return report


def _count(report: Report, slot: str, expected: Any, got: Any, text: str) -> None:
    scores = report.per_slot.setdefault(slot, SlotScore())
    report.slots_total += 1
    if expected == got:
        report.slots_right += 1
        scores.true_positive += 1
        return
    if got is not None:
        scores.false_positive += 1
    if expected is not None:
        scores.false_negative += 1
    report.failures.append(f"{slot}: expected {_show(expected)}, got {_show(got)} in {text.strip()[:90]!r}")


def _show(value: Any) -> str:
    if isinstance(value, frozenset):
        return repr(sorted(value, key=str))
    return repr(value)
