"""'Does LoRA need NVLink?': a decision first, with the bytes per step that decide it."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse
from bot.render.text import ask_lines


def _lines(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    answer = advisor.answer(req, parsed.language)
    ctx = ComposeContext(requirement=req, answer=answer, catalog=advisor.catalog, language=parsed.language,
                         question=text, paste=req.pasted)
    answer = answer.model_copy(update={"answers": compose_all(ctx)})
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
