"""'Does LoRA need NVLink?': a decision first, with the bytes per step that decide it."""

from __future__ import annotations

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse
from bot.render.text import ask_lines
from tests.compose.answering import answer_of


def _lines(advisor, text):
    answer = answer_of(advisor, text)
    return ask_lines(answer)[0], answer.answers[0].details


def test_lora_whose_base_fits_one_gpu_needs_no_nvlink(advisor):
    lead, details = _lines(advisor, "we'd LoRA-tune an 8B model on 2x L40S — is NVLink a must or does PCIe do?")
    assert lead.startswith("No, not needed")
    assert "16 GB of frozen weights fit on each L40S (48 GB)" in lead and "ms over PCIe Gen4" in lead
    assert any("has no NVLink at all" in d for d in details)


def test_lora_of_a_model_that_must_be_sharded_gets_its_all_gather_time_and_the_qlora_way_out(advisor):
    lead, details = _lines(advisor, "LoRA 一个 30B 的模型，6 张 RTX 4090 没有 NVLink 可以吗？")
    assert lead.startswith("不是必须，但会多花时间") and "放不下" in lead
    assert any(d.startswith("改用 QLoRA") for d in details)


def test_a_question_without_lora_is_left_to_the_other_composers(advisor):
    lead, _ = _lines(advisor, "do we need NVLink for full fine-tuning of a 13B model on 4x A100 PCIe?")
    assert not lead.startswith(("No, not needed — LoRA", "Not required, but it costs time — LoRA"))


def test_nvlink_for_data_parallel_full_training_is_weighed_against_the_step_compute():
    from bot.advisor import Advisor
    from bot.compose import ComposeContext, compose_all
    from bot.nlu.parser import parse
    advisor = Advisor()
    text = "8x L40S box, full fine-tune of a 13B with DDP/FSDP. do we need nvlink or is PCIe fine?"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    # 13B x 16 B does not fit 48 GB: FSDP, 3 x 26 GB x 7/8 = 68 GB a GPU over 32 GB/s: ~2.1 s against ~67 s at 1M tokens
    assert reply.lead.startswith("No, not for this: FSDP / ZeRO-3") and "~68 GB" in reply.lead and "~2.1 s" in reply.lead
    assert reply.rule == "compat.dp-nvlink"


def test_a_slot_width_asked_about_for_training_is_timed_at_its_lanes(advisor):
    import pytest

    def reply(text):
        parsed = parse(text, advisor.catalog)
        ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                             catalog=advisor.catalog, language=parsed.language, question=text)
        return compose_all(ctx)[0]
    narrow = reply("will Gen4 x4 slots hurt DDP training of a 2B model on our 4x RTX 4090 workstation?")
    wide = reply("will Gen4 x16 slots hurt DDP training of a 2B model on our 4x RTX 4090 workstation?")
    assert narrow.rule == wide.rule == "compat.pcie-link"
    assert narrow.figures["moved_gb"] == wide.figures["moved_gb"] == 6.0  # 2(N-1)/N x 4 GB of bf16 gradients
    assert narrow.figures["seconds_link"] == pytest.approx(4 * wide.figures["seconds_link"], rel=0.01)  # a quarter of the lanes
    assert "PCIe Gen4 x4 carries ~8 GB/s each way" in narrow.lead
    lora = reply("will PCIe Gen4 x8 hurt LoRA of a 7B on 4x RTX 4090?")
    assert lora.lead.startswith("No, not much") and lora.figures["moved_gb"] < 0.5
