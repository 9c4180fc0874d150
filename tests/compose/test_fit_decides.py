"""A "no" on one card names the term that alone decides it: the model states (so checkpointing cannot
rescue it), the activations (and the fp32 logits of a large vocabulary, which checkpointing leaves),
the weights of a served model, or its KV cache. Real parser, sizer and rules."""

import re

from bot.conversation import Conversations
from bot.render.text import render_text


def lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def early(out):
    """The first two lines after the verdict: the bigger card where one is named, and what decides the miss."""
    return " ".join(out[1:3])


def test_states_that_fill_the_card_are_named_as_what_checkpointing_cannot_fix_en(advisor):
    out = lines(advisor, "full finetune qwen2.5-1.5b on one rtx 4090, 4096 tokens per sample, batch 8, we hit OOM. "
                         "would turning on gradient checkpointing be enough?")
    assert out[0].startswith("No — ")
    decided = out[1]  # right after the verdict: what alone keeps it off the card
    assert "model states" in decided and "16 bytes a parameter" in decided
    assert "gradient checkpointing alone is not enough" in decided
    logits = next(l for l in out if "fp32 logits" in l)
    assert "151,936" in logits and re.search(r"\b3\d GB\b", logits)  # 2 x 4096 x 8 x 151,936 x 4 bytes


def test_states_that_fill_the_card_are_named_zh(advisor):
    out = lines(advisor, "单张 4090 全量微调 Qwen2.5-1.5B，序列长度 4096，batch 8，爆显存了，打开梯度检查点能解决吗")
    assert out[0].startswith("不行")
    assert any("模型状态" in l and "只开梯度检查点不够" in l for l in out[1:3])
    assert any("fp32 `logits`" in l for l in out[:6])


def test_states_over_the_card_say_no_activation_saving_helps(advisor):
    out = lines(advisor, "can I do a full fine-tune of llama 3.1 8b on a single h100 80gb with adamw?")
    assert "The model states alone decide it" in early(out)
    assert "more than the 79.1 GB usable" in early(out)


def test_frozen_base_weights_decide_a_qlora_miss_zh(advisor):
    out = lines(advisor, "一张 4090 用 QLoRA 训 Llama-3-70B 行不行？序列 2048，batch 1")
    assert out[0].startswith("不行")
    assert "基座权重" in early(out)


def test_served_weights_over_the_card_are_what_decides_it(advisor):
    out = lines(advisor, "will mixtral 8x7b run on one rtx 4090 for inference?")
    assert "The weights alone decide it" in early(out)


def test_a_kv_cache_that_outgrows_the_card_is_named_zh(advisor):
    out = lines(advisor, "Qwen2.5-7B 做在线服务，并发 60 个请求，单张 L4 够用吗")
    assert "决定性的是 KV 缓存" in early(out)


def test_a_job_that_fits_gets_no_deciding_term(advisor):
    out = lines(advisor, "can I LoRA fine-tune qwen2.5 7b on one a100 80gb?")
    assert "decide it" not in " ".join(out)
