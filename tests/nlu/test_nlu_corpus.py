"""The question sets parse at the stated goal, each on its own.

corpus.yaml is the set the parser was developed on; heldout.yaml was written before its author read
the parser or the corpus, so it measures how the parser generalises (issue #3 quality); probe.yaml
is a smaller unseen check written after the parser was changed for heldout.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.nlu.evaluate import load_corpus, score
from bot.nlu.parser import detect_language, parse

HERE = Path(__file__).parent
CORPUS = HERE / "corpus.yaml"
HELDOUT = HERE / "heldout.yaml"
# advice.yaml: the slots the advice reads (intents, users, checkpoints, quotes, compared options).
SETS = {"corpus": CORPUS, "heldout": HELDOUT, "probe": HERE / "probe.yaml", "advice": HERE / "advice.yaml"}
# Every slot of every question right (issue #13: the split must keep the corpus and held-out sets at
# 100%). A question the parser cannot read yet is fixed in the parser, or its expectation corrected
# when the parse is right and the expectation incomplete; never by lowering this.
GOAL = 1.0


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    return load_corpus(CORPUS)


@pytest.fixture(scope="module", params=sorted(SETS))
def question_set(request) -> list[dict]:
    return load_corpus(SETS[request.param])


def test_corpus_is_large_and_bilingual(corpus):
    assert len(corpus) >= 150
    languages = [detect_language(item["text"]) for item in corpus]
    assert languages.count("zh") >= 50 and languages.count("en") >= 50
    assert sum(1 for item in corpus if "error" in item) >= 4, "the corpus includes out-of-range questions"


def test_heldout_set_is_large_and_bilingual():
    heldout = load_corpus(HELDOUT)
    assert len(heldout) >= 80
    languages = [detect_language(item["text"]) for item in heldout]
    assert languages.count("zh") >= 35 and languages.count("en") >= 35
    corpus_texts = {item["text"].strip() for item in load_corpus(CORPUS)}
    assert not corpus_texts & {item["text"].strip() for item in heldout}, "held-out questions repeat corpus ones"


def test_slot_accuracy_meets_the_goal_without_crashes(question_set):
    report = score(question_set)
    detail = "\n".join(report.crashes + report.failures)
    assert not report.crashes, f"parser crashed:\n{detail}"
    assert report.accuracy >= GOAL, (
        f"slot accuracy {report.accuracy:.1%} ({report.slots_right}/{report.slots_total}) is below {GOAL:.0%}:\n{detail}"
    )


def test_every_span_points_at_the_text_it_quotes(question_set):
    for item in question_set:
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
