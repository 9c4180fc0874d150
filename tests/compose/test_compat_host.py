"""A driver too old met inside a container: the answer says the driver belongs to the host and nothing in the
image fixes it; without a container in the message no such line."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text", [
    "our docker image (torch 2.4 cu121) fails with:\nRuntimeError: The NVIDIA driver on your system is too old (found version 11040)\n"
    "the host driver is 470.199.02. can I upgrade it inside the container?",
    "容器里跑 torch cu124 报错：\nRuntimeError: The NVIDIA driver on your system is too old (found version 11040)\n宿主机驱动 470.182.03，能在镜像里修好吗？",
])
def test_a_container_cannot_fix_the_hosts_driver(advisor, text):
    answer = answer_of(advisor, text)
    lines = [line for a in answer.answers for line in (a.lead, *a.details)]
    assert any(line.startswith(("Not from inside the container", "在容器里解决不了")) for line in lines), lines


def test_no_container_no_host_line(advisor):
    answer = answer_of(advisor, "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)\n"
                                "driver 470.182.03, torch cu124 on bare metal: what now?")
    assert not any("container" in line for a in answer.answers for line in (a.lead, *a.details))
