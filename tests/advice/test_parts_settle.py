"""Each labelled part of a message keeps an answer of its own, in its own terms (issue #22)."""

from __future__ import annotations

from bot.advice.parts import own_load, settle
from bot.models import Ask, AskAnswer
from bot.nlu import parse
from bot.render.text import render_text


def _asks(*texts: str) -> list[Ask]:
    out, at = [], 0
    for i, text in enumerate(texts):
        out.append(Ask(kind="explain", text=text, start=at, end=at + len(text), label=f"{i + 1})"))
        at += len(text) + 1
    return out


def test_an_answer_that_carried_a_later_parts_lines_gives_them_up():
    asks = _asks("minimum driver for cuda 12.6?", "our hosts run 535, does the 12.6 wheel load?")
    first = AskAnswer(kind="compat", lead="12.6 needs 560", details=["535: yes, under compat", "535 runs 12.2 natively"],
                      ask_index=0, label="1)")
    second = AskAnswer(kind="compat", lead="535: yes, under compat", details=["535 runs 12.2 natively"],
                       ask_index=1, label="2)")
    settled = settle([first, second], asks, lambda ask, used: None)
    assert [a.details for a in settled] == [[], ["535 runs 12.2 natively"]]


def test_one_line_for_two_parts_goes_to_the_part_it_fits_and_the_other_gets_its_next_best():
    asks = _asks("why will the new account not launch a g6 box", "does preemptible capacity need its own vcpu quota")
    quota = AskAnswer(kind="explain", lead="preemptible capacity has its own vcpu quota per family", rule="quota.spot",
                      ask_index=0, label="1)")
    twin = quota.model_copy(update={"ask_index": 1, "label": "2)"})
    ondemand = AskAnswer(kind="explain", lead="the on-demand quota of a new account starts at 0, so it will not launch",
                         rule="quota.on-demand")
    offered: list[tuple[str, set[str]]] = []

    def alternative(ask: Ask, used: set[str]) -> AskAnswer | None:
        offered.append((ask.text, used))
        return ondemand if "quota.on-demand" not in used else None

    settled = settle([quota, twin], asks, alternative)
    assert [(a.label, a.lead) for a in settled] == [("1)", ondemand.lead), ("2)", quota.lead)]
    assert offered == [(asks[0].text, {"quota.spot"})]


def test_a_part_whose_words_another_parts_line_says_shares_that_line():
    asks = _asks("how much memory for a 13b model", "which gcp machine", "monthly bill for it")
    memory = AskAnswer(kind="fit", lead="about 30 GB", ask_index=0, label="1)")
    bill = AskAnswer(kind="price", lead="GCP: the cheapest machine that holds it is g2-standard-24 at $2/h",
                     ask_index=2, label="3)")
    settled = settle([memory, bill], asks, lambda ask, used: None)
    assert [a.label for a in settled] == ["1)", "2) 3)"]


def test_labels_are_kept_as_typed(advisor):
    req = parse("Q1: can a 7B model be LoRA-tuned on one L4? Q2: and is the L4 allowed in a data centre?",
                advisor.catalog).requirement
    assert [a.label for a in req.asks] == ["Q1", "Q2"]
    answer = advisor.answer(req, "en")
    lines = render_text(answer).splitlines()
    assert lines[0].startswith("Q1 ") and any(line.startswith("Q2 ") for line in lines)


def test_a_labelled_part_nothing_answers_is_said_not_skipped(advisor):
    parsed = parse("(a) what is the minimum driver for CUDA 12.6? (b) and what about the old Pascal box in the lab?",
                   advisor.catalog)
    text = render_text(advisor.answer(parsed.requirement, parsed.language))
    assert text.startswith("(a) ") and "\n(b) " in text


def test_a_part_before_the_one_that_names_spot_is_answered_on_demand(advisor):
    req = parse("1）新开的 AWS 账号为什么起不来 g6 实例，提示 vCPU 不够 2）那 Spot 实例的额度是不是要单独申请",
                advisor.catalog).requirement
    assert req.billing == "spot"
    assert own_load(req).get(0, {}).get("billing", "kept") is None
    answer = advisor.answer(req, "zh")
    first, second = (next(a for a in answer.answers if a.ask_index == i) for i in (0, 1))
    assert "On-Demand" in first.lead and "All G and VT Spot" not in first.lead
    assert "Spot" in second.lead and second.lead != first.lead


def test_a_fit_part_after_a_sizing_part_is_answered_from_the_sizing(advisor):
    parsed = parse("(1) memory needed to serve Qwen2.5-32B in bf16? (2) and would 2x L40S hold it?", advisor.catalog)
    answer = advisor.answer(parsed.requirement, parsed.language)
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert second.label == "(2)" and "L40S" in second.lead.upper()
    assert "fits" in second.lead or second.lead.startswith("Yes")
    # part 1 states no GPU: it is sized on none, not on the 2x L40S only part 2 names
    first = next(a for a in answer.answers if a.ask_index == 0)
    assert "L40S" not in first.lead.upper()


def test_a_part_asking_for_a_number_format_is_answered_from_the_cards_tensor_cores(advisor):
    parsed = parse("1) 租一张 L40S 大概多少钱一小时 2) L40S 支持 FP8 吗", advisor.catalog)
    answer = advisor.answer(parsed.requirement, parsed.language)
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert second.lead.startswith("能") and "FP8" in second.lead and "TFLOPS" in second.lead
    parsed = parse("1) hourly price of an A100 80GB? 2) can the A100 do fp8?", advisor.catalog)
    second = next(a for a in advisor.answer(parsed.requirement, "en").answers if a.ask_index == 1)
    assert second.lead.startswith("No") and "FP8" in second.lead
