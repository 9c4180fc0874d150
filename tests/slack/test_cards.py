"""Block Kit cards from real answers: Slack's limits hold for every answer, and echoed text is inert."""

from __future__ import annotations

import json

import pytest
from slack_harness import text_objects
from slack_sdk.models.blocks import Block

from bot.models import Answer, Candidate, Finding, Requirement
from bot.slack import cards
from bot.slack.examples import CORPUS, DEFAULT_OUT, corpus_answers, longest, write_examples


@pytest.fixture(scope="module")
def corpus(rules):
    if not CORPUS.exists():
        pytest.skip(f"no question corpus at {CORPUS}")
    return corpus_answers(rules)


def assert_within_limits(blocks: list[dict], max_blocks: int = cards.MAX_MESSAGE_BLOCKS) -> None:
    assert 0 < len(blocks) <= max_blocks
    for block in Block.parse_all(blocks):  # slack_sdk's own per-block validators
        block.to_dict()
    for text in text_objects(blocks):
        assert len(text) <= cards.SECTION_TEXT_MAX


def test_every_corpus_answer_renders_within_slack_limits(corpus):
    assert len(corpus) > 100
    for question, answer in corpus:
        card = cards.answer_card(answer, "a1")
        assert_within_limits(card.to_dict()["blocks"])
        assert 0 < len(card.text) <= cards.FALLBACK_TEXT_MAX, question


def test_the_longest_answer_is_trimmed_with_a_more_button_never_rejected(corpus):
    _, answer = longest(corpus)
    # Ten times the longest real answer's findings, each message near the card's per-finding cap.
    findings = [f.model_copy(update={"message": (f.message + " ") * 8, "rule": f"{f.rule}.{i}"})
                for i in range(10) for f in answer.findings]
    huge = answer.model_copy(update={"findings": findings, "questions": answer.questions * 5})
    card = cards.answer_card(huge, "a1")
    blocks = card.to_dict()["blocks"]
    assert_within_limits(blocks)
    assert card.trimmed > 0
    assert sum(len(t) for t in text_objects(blocks)) <= cards.CARD_TEXT_BUDGET + 6000
    assert cards.ACTION_MORE in {e.get("action_id") for b in blocks for e in b.get("elements", [])}
    more = cards.more_view(huge).to_dict()
    assert_within_limits(more["blocks"], cards.MAX_VIEW_BLOCKS)


def test_findings_are_grouped_by_topic_blocking_first():
    findings = [Finding(rule=f"r{i}", topic=topic, severity=severity, message=f"m{i}")
                for i, (topic, severity) in enumerate([("memory", "info"), ("power", "warn"), ("license", "block"),
                                                        ("memory", "block"), ("cost", "info")])]
    groups = cards.finding_groups(findings)
    assert [topic for topic, _ in groups] == ["memory", "license", "power", "cost"]
    assert [f.severity for f in groups[0][1]] == ["block", "info"]


@pytest.mark.parametrize(("language", "expected"), [("en", "2 GPU options fit (60.0 GB needed)"),
                                                    ("zh", "2 种 GPU 可容纳（需要 60.0 GB）")])
def test_the_headline_of_several_fitting_options_counts_them(language, expected):
    """No verdict, no GPU named, every candidate fits and nothing warns: the header counts the
    options (the label once shared its key with the "What to do" section title, which won)."""
    candidates = [Candidate(gpu=gpu, count=1, fits=True, need_gb=60, have_gb=80, headroom_gb=20)
                  for gpu in ("a100-80gb", "h100-sxm")]
    answer = Answer(requirement=Requirement(), candidates=candidates, language=language)
    assert cards.headline(answer) == f":white_check_mark: {expected}"


def test_escape_makes_mentions_inert_and_clip_never_splits_an_escape():
    assert cards.escape("<!channel> & <@U1|bob>") == "&lt;!channel&gt; &amp; &lt;@U1|bob&gt;"
    clipped = cards.clip(cards.escape("ab<cd"), 5)
    assert clipped == "ab…"


def test_examples_regenerate_and_match_docs_cards(rules, tmp_path):
    written = write_examples(tmp_path, rules)
    names = {p.name for p in written}
    assert names == {p.name for p in DEFAULT_OUT.glob("*.json")}, "run `python -m bot.slack.examples`"
    for path in written:
        payload = json.loads(path.read_text(encoding="utf-8"))
        limit = cards.MAX_VIEW_BLOCKS if payload.get("type") in ("modal", "home") else cards.MAX_MESSAGE_BLOCKS
        assert_within_limits(payload["blocks"], limit)
        # The committed example has the same card layout as one made from today's answer (texts
        # carry dates and the rule-base version, so only the structure is compared).
        committed = json.loads((DEFAULT_OUT / path.name).read_text(encoding="utf-8"))
        layout = [(b["type"], b.get("block_id")) for b in payload["blocks"]]
        assert [(b["type"], b.get("block_id")) for b in committed["blocks"]] == layout, (
            f"docs/cards/{path.name} is out of date: run `python -m bot.slack.examples`")
