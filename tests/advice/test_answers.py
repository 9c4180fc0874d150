"""Real questions through the real parser, rules and assembler: what an engineer reads first."""

import re
from pathlib import Path

import pytest
import yaml

from bot.conversation import Conversations
from bot.errors import InputError
from bot.knowledge import default_catalog
from bot.messages.format import display_text
from bot.render.text import MAX_LINES, render_text
from bot.nlu.parser import detect_language

NLU = Path(__file__).resolve().parent.parent / "nlu"
QUESTION_SETS = ("corpus.yaml", "heldout.yaml", "probe.yaml", "advice.yaml")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def questions():
    for name in QUESTION_SETS:
        for item in yaml.safe_load((NLU / name).read_text(encoding="utf-8"))["questions"]:
            yield name, item["text"]


@pytest.fixture(scope="module")
def answers(advisor):
    conversations = Conversations(advisor)
    out = []
    for index, (name, text) in enumerate(questions()):
        try:
            out.append((text, conversations.ask(f"{name}:{index}", text)))
        except InputError:
            continue  # refused with the field named: covered by the NLU tests
    return out


def test_every_answer_leads_with_its_primary_ask_and_fits_in_twenty_lines(answers):
    catalog = default_catalog()
    assert len(answers) > 350
    for text, answer in answers:
        shown = render_text(answer)
        lines = shown.splitlines()
        assert answer.verdict is not None, text
        first = answer.answers[0] if answer.answers else None
        if first is not None and first.ask_index == 0:
            lead = f"{first.label} {first.lead}" if first.label else first.lead
        else:  # the composer of the primary ask added nothing: the verdict answers it
            label = answer.requirement.asks[0].label if answer.requirement.asks and answer.answers else None
            lead = f"{label} {answer.verdict.text}" if label else answer.verdict.text
        assert lines[0].startswith(display_text(lead, catalog, answer.language)), text
        assert not re.search(r"\[(?:verdict|advice)\.[a-z-]+\]", shown), (text, shown)  # no rule ids in the brief
        assert len(lines) <= MAX_LINES, (text, shown)
        assert "No rule matched" not in shown and "没有规则匹配" not in shown


def test_chinese_questions_get_chinese_default_answers(answers):
    for text, answer in answers:
        if detect_language(text) != "zh":
            continue  # an English sentence quoting 包年包月 is answered in English
        for line in render_text(answer).splitlines():
            # every line carries Chinese; rule ids, GPU ids and numbers may be ASCII
            assert _CJK.search(line), (text, line)


def ask(advisor, text: str):
    return Conversations(advisor).ask("t", text)


def test_full_fine_tune_on_one_4090_says_no_with_the_number_and_offers_lora_and_qlora(advisor):
    answer = ask(advisor, "Can I fully fine-tune a 7B model on one RTX 4090?")
    assert answer.verdict.answer == "no"
    assert re.match(r"No — this job needs about 1\d\d GB per GPU; 1 x rtx-4090 has 24 GB each\.", answer.verdict.text)
    assert "LoRA (≈" in answer.verdict.text and "QLoRA (≈" in answer.verdict.text
    kinds = [(r.kind, r.method) for r in answer.recommendations]
    # full fine-tuning was asked: the full setups that fit come first, then the change of method
    adapters = [i for i, (_, method) in enumerate(kinds) if method in ("lora", "qlora")]
    assert [kinds[i] for i in adapters] == [("method", "lora"), ("method", "qlora")]
    assert adapters[0] > 0 and all(r.fits and r.method is None for r in answer.recommendations[:adapters[0]])
    assert all(answer.recommendations[i].fits and answer.recommendations[i].need_gb < 24 for i in adapters)


def test_two_quotes_are_priced_with_the_user_s_rates_and_the_estimated_hours(advisor):
    answer = ask(advisor, "Quote A: 8x H100 at $2.49/GPU-hour; Quote B: 8x A100 at $1.29/GPU-hour; "
                          "13B on 200B tokens — which is cheaper to finish?")
    assert answer.verdict.rule == "verdict.cheapest-quote"
    by_label = {c.label: c for c in answer.costs}
    assert set(by_label) == {"H100", "A100"}  # the user's quotes only: no example price rows
    for cost, rate in ((by_label["H100"], 2.49), (by_label["A100"], 1.29)):
        assert cost.total == pytest.approx(rate * 8 * cost.hours, rel=1e-3)
    cheaper = min(by_label.values(), key=lambda c: c.total)
    assert answer.verdict.text.startswith(f"{cheaper.label} is cheaper: ")
    assert {r.gpu for r in answer.recommendations if r.kind == "compare"} == {"h100-sxm", "a100-80gb-sxm"}


def test_a_comparison_judges_both_gpus(advisor):
    answer = ask(advisor, "L40S vs A100 for serving Llama-3-8B to 50 users?")
    compared = {r.gpu for r in answer.recommendations if r.kind == "compare"}
    assert compared == {"l40s", "a100-80gb-sxm"}
    assert answer.verdict.rule.startswith("verdict.compare-")


def test_subscription_against_pay_as_you_go_gives_the_break_even_in_chinese(advisor):
    answer = ask(advisor, "阿里云GPU包年包月 4000 元/月，按量付费 12 元/小时，怎么选？")
    assert answer.requirement.provider == "aliyun"
    assert answer.verdict.rule == "verdict.subscription-break-even"
    assert "333 小时" in answer.verdict.text and "8,760 CNY" in answer.verdict.text


def test_everyday_intents(advisor):
    recommend = ask(advisor, "推荐一台 GPU 服务器")
    assert recommend.verdict.answer == "ask"
    # an open ask gets a default first and at most two questions of its own, not the engine's three
    assert recommend.answers[0].kind == "open" and recommend.questions == []
    assert sum(d.startswith("?") for d in recommend.answers[0].details) <= 2
    first = ask(advisor, "Just got an H100 instance, what should I check first?")
    assert first.verdict.rule == "verdict.first-check" and "/gpu check" in first.verdict.text
    assert first.questions == []  # nothing to size: no sizing questions


def test_an_unknown_gpu_is_said_plainly_with_what_can_still_be_judged(advisor):
    answer = ask(advisor, "MI300X 适合训练 13B 模型吗？")
    assert answer.verdict.rule.startswith("verdict.unknown-gpu")
    assert "MI300X" in answer.verdict.text


def test_the_gpus_rented_in_china_are_known(advisor):
    # Issue #24: H800 (and A800, H20, L20...) have catalog entries, so no "no specs" answer.
    answer = ask(advisor, "H800 适合训练 13B 模型吗？")
    assert answer.requirement.gpu == "h800" and answer.requirement.unknown_gpu is None
    assert not answer.verdict.rule.startswith("verdict.unknown-gpu") and "规格数据" not in answer.verdict.text


def test_no_checkpoints_on_spot_is_a_no_and_is_not_asked_again(advisor):
    answer = ask(advisor, "我们不做 checkpoint，用抢占式实例训练 3 天可以吗？")
    assert answer.verdict.rule == "verdict.spot-without-checkpoints"
    assert not any("检查点" in q and "多久" in q for q in answer.questions)


def test_a_licence_question_gets_no_sizing_questions(advisor):
    answer = ask(advisor, "Can we use GeForce RTX 4090 in our data centre?")
    assert answer.verdict.rule == "verdict.license-datacenter"
    assert not any("training" in q.lower() and "inference" in q.lower() for q in answer.questions)


def test_an_aws_spot_instance_names_its_own_spot_quota(advisor):
    answer = ask(advisor, "AWS spot p5 instances for training, anything to watch?")
    rules = {f.rule for f in answer.findings if f.tier == "key"}
    assert "quota.instance-spot" in rules and "quota.request-increase" not in rules
