"""flash-attn's "no kernel image is available" on a card older than Ampere (a V100, a T4): FlashAttention 2 has no
kernels below sm_80, so the answer says a rebuild cannot help and the driver is not the cause, and names what runs
there (PyTorch SDPA, xformers); on a card it supports the usual arch-list answer stays."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of

_ERR = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


@pytest.mark.parametrize("text, cc", [
    (f"our flash-attn wheel runs on the A100s, but on the V100 node:\n{_ERR}\ndriver is 550, should I rebuild for sm_70?", "7.0"),
    (f"flash_attn 装在 T4 上跑推理直接报错：\n{_ERR}\n是驱动太旧吗？", "7.5"),
    (f"换成 V100 之后 flash-attention 报：\n{_ERR}\n要不要重新编译？", "7.0"),
])
def test_flash_attn_on_a_pre_ampere_card_cannot_be_rebuilt(advisor, text, cc):
    answer = answer_of(advisor, text)
    reply = next(a for a in answer.answers if a.kind == "diagnose")
    assert "sm_80" in reply.lead and cc in reply.lead, reply.lead
    assert any("scaled_dot_product_attention" in d and "xformers" in d for d in reply.details), reply.details
    assert "flash-attention-readme" in reply.sources


def test_flash_attn_on_an_ampere_card_keeps_the_arch_list_answer(advisor):
    answer = answer_of(advisor, f"flash-attn on our A100 box:\n{_ERR}")
    reply = next(a for a in answer.answers if a.kind == "diagnose")
    assert "sm_80 and up" not in reply.lead, reply.lead
