"""A new 8-GPU HGX (NVSwitch) server being set up: beside the driver, Fabric Manager of the driver's version,
and no question asking which driver the box runs when the user asks which one to install."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text", [
    "新到的 8 卡 H100 服务器，要跑 cu126 的 torch，驱动装哪个版本？还要装什么？",
    "just racked a new HGX H200 8-gpu node for cu128 vllm, which driver should we install and what else?",
    "8x H20 box arrived, what driver to install for CUDA 12.8, anything else to set up?",
])
def test_a_new_nvswitch_server_gets_fabric_manager_and_no_driver_question(advisor, text):
    answer = answer_of(advisor, text)
    reply = next(a for a in answer.answers if a.kind == "compat")
    assert any("nvidia-fabricmanager" in d for d in reply.details), reply.details
    assert "nvidia-fabric-manager" in reply.sources
    assert not any("Driver Version" in q for q in answer.questions), answer.questions


def test_a_single_pcie_card_gets_no_fabric_manager_line(advisor):
    answer = answer_of(advisor, "new workstation with one L40S, which driver should I install for cu128 torch?")
    assert not any("fabricmanager" in d for a in answer.answers for d in a.details)
