"""An interconnect question about a job the stated GPUs cannot hold leads with the fit (issue #24): the
model states against the cards, the link moot until it fits; another workload named for the same cards
is judged on its own. Real parser, sizer, rules and catalog."""

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def answer(advisor, text: str) -> list[str]:
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text, link", [
    ("Full fine-tune a 70B on 8x 4090 with no NVLink or P2P — is PCIe going to kill us? also TP=8 inference?", "PCIe"),
    ("full finetune 70B on 8x L40S, is the lack of NVLink a bottleneck?", "NVLink"),
    ("we want to full fine-tune a 34B on 4x RTX 4090, will PCIe Gen4 hurt?", "PCIe"),
])
def test_a_job_that_does_not_fit_makes_the_link_moot(advisor, text, link):
    lines = answer(advisor, text)
    assert lines[0].startswith(f"It does not fit, so {link} is not the problem yet")
    need, mem = (int(x) for x in re.search(r"~([0-9]+) GB per GPU even sharded over [0-9]+× [^,]+, which have ([0-9]+) GB", lines[0]).groups())
    assert need > mem  # the per-GPU need said against the card
    assert "PCIe adds" not in "\n".join(lines)  # no communication maths for a job that cannot run
    assert "QLoRA on these" in lines[1]


def test_the_other_workload_on_the_same_cards_is_judged_on_its_own(advisor):
    lines = answer(advisor, "Full fine-tune a 70B on 8x 4090 with no NVLink or P2P — is PCIe going to kill us? also TP=8 inference?")
    assert "~1,050 GB of model states" in lines[0] and "192 GB in all" in lines[0]  # ~16 bytes a parameter vs 8 x 24
    serving = next(x for x in lines if x.strip().startswith("TP=8 inference"))
    assert "it fits" in serving and "~130 GB of bf16 weights" in serving and "160 all-reduces per token" in serving


def test_in_chinese_the_fit_leads_too(advisor):
    lines = answer(advisor, "8 张 4090 没有 NVLink 也没有 P2P，全参微调 70B，PCIe 会不会拖死？TP=8 推理呢？")
    assert lines[0].startswith("放不下，所以现在还轮不到 PCIe 的问题") and "合计 192 GB" in lines[0]
    assert any(x.strip().startswith("TP=8 推理 70B 是另一回事，放得下") for x in lines)


@pytest.mark.parametrize("text", ["DDP of a 1.3B on 8x 4090, is PCIe enough?",
                                  "LoRA on a 7B with 2x 4090, do we need NVLink?"])
def test_a_job_that_fits_still_gets_the_link_judged(advisor, text):
    assert not answer(advisor, text)[0].startswith("It does not fit")


@pytest.mark.parametrize("text", ["全参微调 13B，4 张 4090，PCIe 够不够？", "full fine-tune a 13B on 4x 4090, is PCIe enough?"])
def test_a_fit_verdict_saying_no_is_not_followed_by_a_link_judged_fine(advisor, text):
    lines = answer(advisor, text)
    assert lines[0].startswith(("不行", "No", "It does not fit"))
    assert not any(x.strip().startswith(("影响不大", "No, not much", "No, not for this")) for x in lines)


def test_serving_that_does_not_fit_names_weights_and_kv_cache(advisor):
    lead = answer(advisor, "serving Llama 3.1 70B with TP=4 on 4x L40S, will PCIe hurt?")[0]
    assert lead.startswith("It does not fit, so PCIe is not the problem yet") and "KV cache" in lead


def test_a_fit_answer_on_a_slow_network_says_the_network_is_moot_until_it_fits(advisor):
    lines = answer(advisor, "两台 8 卡 A100 40G 全参训练 70B，节点间 100G 网络够吗？")
    assert lines[0].startswith("不行")
    assert lines[1].strip().startswith("放得下之前网络不是问题") and "约 420 GB" in lines[1]
    assert not any(x.strip().startswith("需要——") for x in lines)  # no "you need IB" for a job that cannot run


def test_the_fit_leads_even_where_the_card_s_link_is_asked_about(advisor):
    lines = answer(advisor, "4 张 4090 全参 30B，有没有 NVLink 影响大吗？顺便问下 TP=4 推理呢")
    assert lines[0].startswith("放不下，所以现在还轮不到 NVLink 的问题")
    assert "经过 PCIe 的只有适配器的梯度" in lines[1]  # the 4090 has no NVLink to carry them
    assert any(x.strip().startswith("TP=4 推理 30B 是另一回事") for x in lines)
    assert answer(advisor, "Can I NVLink two 4090s?")[0].startswith("No — the RTX 4090 has no NVLink")


PRIMERS = ("Interconnect roles", "各种互连的职责", "Parallelism strategies and their costs", "各种并行策略及其代价")


@pytest.mark.parametrize("text", [
    "一台 8 卡 4090 的机器，没有 NVLink，想拿来做 70B 的全参训练，或者至少 TP=8 跑 70B 推理，行不行？",
    "8 张 4090 没有 NVLink，能不能全参微调 Llama-3-70B？不行的话 TP=8 推理呢？",
    "We have one 8x RTX 4090 box, no NVLink. Can we do full-parameter training of a 70B on it, or at least run 70B "
    "inference with TP=8?",
    "4x L40S box without NVLink: full training of a 70B feasible, or at least TP=4 inference of it?",
])
def test_a_training_plan_or_at_least_inference_on_it_gets_both_verdicts(advisor, text):
    lines = answer(advisor, text)
    body = "\n".join(lines)
    zh = any("\u4e00" <= ch <= "\u9fff" for ch in text)
    # the training: its model states against all the cards' memory, a no
    assert lines[0].startswith("放不下" if zh else "It does not fit"), lines
    total, have = (int(x.replace(",", "")) for x in re.search(
        r"(?:约\s*|~)([0-9,]+) GB (?:的模型状态|of model states).*?(?:合计 |\()([0-9]+) GB", lines[0]).groups())
    assert total > 1000 and have == 192  # 8x 24 GB, 4x 48 GB
    # the inference on the same cards, with its TP degree, per-card weights and what the link costs there
    serving = next(line for line in lines if re.search(r"TP=[48] (?:推理|inference)", line))
    assert "PCIe" in serving and ("all-reduce" in serving)
    assert not any(p in body for p in PRIMERS)  # never the generic primers for a concrete plan


@pytest.mark.parametrize("text", [
    "do I need NVLink for tensor parallel inference of llama 3.1 70b across 4 GPUs",
    "serving Qwen2.5-72B across two GPUs, is NVLink required?",
])
def test_a_concrete_nvlink_question_is_never_answered_with_a_primer(advisor, text):
    body = "\n".join(answer(advisor, text))
    assert not any(p in body for p in PRIMERS) and "TP=" in body


@pytest.mark.parametrize("text, served", [
    ("4x RTX 4090 box without nvlink — can it do full finetuning of a 13B, or at least serve a 34B with TP=4?",
     "TP=4 inference of the 34B"),
    ("8 卡 4090 没有 NVLink，能全参训 13B 吗？或者至少 TP=8 部署 70B 推理？", "TP=8 推理 70B"),
])
def test_the_served_model_is_the_one_named_for_serving(advisor, text, served):
    """The trained model and the served one differ: the serving verdict sizes the one named beside "serve"."""
    lines = answer(advisor, text)
    assert any(line.strip().startswith(served) for line in lines), lines
