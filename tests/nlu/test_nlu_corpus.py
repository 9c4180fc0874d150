"""The corpus of questions as people write them (tests/nlu/corpus.yaml) parses at the stated goal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.nlu.evaluate import load_corpus, score
from bot.nlu.parser import detect_language, parse

CORPUS = Path(__file__).with_name("corpus.yaml")
GOAL = 0.95


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    return load_corpus(CORPUS)


def test_corpus_is_large_and_bilingual(corpus):
    assert len(corpus) >= 150
    languages = [detect_language(item["text"]) for item in corpus]
    assert languages.count("zh") >= 50 and languages.count("en") >= 50
    assert sum(1 for item in corpus if "error" in item) >= 4, "the corpus includes out-of-range questions"


def test_corpus_slot_accuracy_meets_the_goal_without_crashes(corpus):
    report = score(corpus)
    detail = "\n".join(report.crashes + report.failures)
    assert not report.crashes, f"parser crashed:\n{detail}"
    assert report.accuracy >= GOAL, (
        f"slot accuracy {report.accuracy:.1%} ({report.slots_right}/{report.slots_total}) is below {GOAL:.0%}:\n{detail}"
    )


def test_every_span_points_at_the_text_it_quotes(corpus):
    for item in corpus:
        if "error" in item:
            continue
        result = parse(item["text"])
        for span in result.spans + result.ignored:
            assert item["text"][span.start:span.end] == span.text, (item["text"], span)
        assert {s.slot for s in result.spans} == set(result.extracted)


def test_the_scorer_counts_a_wrong_slot_and_a_spurious_one():
    report = score([{"text": "fine-tune a 7B model on a 4090", "expect": {"params_b": 13, "workload": "training"}}])
    assert report.slots_right == 1  # workload
    assert report.per_slot["params_b"].false_positive == 1 and report.per_slot["params_b"].false_negative == 1
    assert report.per_slot["gpu"].false_positive == 1  # stated but not expected
