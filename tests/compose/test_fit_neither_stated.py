"""A fit question about two named cards at a stated count where neither holds the job leads with that no on
both, never with a capability yes (bf16 tensor cores) the same words also trigger; a choice between the two
("… or …?") still sets them side by side."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text", [
    "full fine-tune of qwen2.5 14b with adamw in bf16 on one L40S? and if that fails, does a single A100 80GB do it?",
    "can one rtx 4090 full-finetune llama 3.1 8b with adamw bf16? would the 48gb modded 4090 be enough otherwise?",
    "单张 L40S 能全参微调 qwen2.5 14b 吗（bf16 + adamw）？不行的话一张 A100 80GB 够不够？",
])
def test_neither_named_card_holds_it_leads_with_no_on_both(advisor, text):
    answer = answer_of(advisor, text)
    assert answer.verdict is not None and answer.verdict.rule == "verdict.compare-none-fits-stated", answer.verdict
    assert answer.verdict.text.startswith(("No on both", "两种都不行")), answer.verdict.text
    leads = [a.lead for a in answer.answers]
    assert not any("bf16 tensor cores" in lead or "bf16 张量核心" in lead for lead in leads), leads


def test_a_choice_between_the_two_setups_still_compares_them(advisor):
    answer = answer_of(advisor, "Qwen2.5-32B serving, 8k context, 20 concurrent: 2x L40S or 1x H100 PCIe?")
    assert any("H100 PCIe" in a.lead and "L40S" in a.lead and not a.lead.startswith("No on both")
               for a in answer.answers), [a.lead for a in answer.answers]
