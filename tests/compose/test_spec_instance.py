"""What an instance holds, asked in a message (bot/compose/spec_instance.py, issue #22): the instance part is
answered from the catalog's instance rows (its GPUs and their memory) before the rest of the part, in the
user's language. Real parser, sizer, rules, composers."""

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def lines_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


@pytest.mark.parametrize("text, first, job", [
    ("阿里云 gn8v 是什么卡？32B 全参微调要几台？抢占式有什么坑", "gn8v 用的是 H20 96GB，每张 96 GB", "8 张 H20 96GB"),
    ("what GPU does gn8v have? and how many for a 32B full fine-tune?", "gn8v has H20 96GB, 96 GB each", "8× H20 96GB"),
])
def test_the_instance_part_names_its_card_and_the_job_part_its_count(advisor, text, first, job):
    _, lines = lines_of(advisor, text)
    assert lines[0].startswith(first)
    assert any("nvidia-smi" in line for line in lines[1:3])  # the provider does not name the GPU
    assert any(job in line for line in lines[1:4])


@pytest.mark.parametrize("text, first", [
    ("what GPUs does a p5.48xlarge have?", "p5.48xlarge: 8× H100 SXM, 80 GB each (640 GB in all), 192 vCPUs"),
    ("g6e.12xlarge 是什么配置？", "g6e.12xlarge：4 张 L40S，每张 48 GB（共 192 GB），48 个 vCPU"),
    ("ebmgn8v 用的什么卡？", "ecs.ebmgn8v.48xlarge：8 张 H20 96GB"),
])
def test_an_instance_alone(advisor, text, first):
    answer, lines = lines_of(advisor, text)
    assert lines[0].startswith(first)
    assert answer.answers[0].rule == "spec.instance-hardware"


def test_a_job_on_an_instance_without_the_hardware_asked_is_not_this(advisor):
    answer, _ = lines_of(advisor, "can llama 3 8B be served on a g6e.12xlarge?")
    assert all(a.rule != "spec.instance-hardware" for a in answer.answers)


def test_an_instance_whose_gpu_the_catalog_lacks_names_the_providers_card(advisor):
    _, lines = lines_of(advisor, "g5.xlarge 是什么卡？")
    assert lines[0].startswith("g5.xlarge：1 张 NVIDIA A10G 24GB，4 个 vCPU、16 GiB 内存")
    assert not any("国内能租到的卡" in line for line in lines)  # no job: no default cards after it


def test_the_job_part_after_an_instance_part_is_said_once(advisor):
    _, lines = lines_of(advisor, "what GPUs does a p4d.24xlarge have, and can it fine-tune a 13B fully?")
    assert lines[0].startswith("p4d.24xlarge: 8× A100 40GB SXM4")
    verdicts = [line for line in lines if line.strip().startswith("Yes — it needs about 34 of 40 GB")]
    assert len(verdicts) == 1
