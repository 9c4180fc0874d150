"""A KV-cache ask about the user's own setup leads with the verdict on that setup, the KV figure as
its reason, and how many full-length sequences the setup does hold (bf16 and fp8 cache)."""

import re


from bot.conversation import Conversations
from bot.render.text import render_text


def ask(advisor, text):
    return Conversations(advisor).ask("t", text)


def test_kv_on_a_setup_too_small_leads_no_with_the_kv_figure_and_the_sequences_it_holds(advisor):
    answer = ask(advisor, "will the kv cache fit? Llama-3.1-70B AWQ int4 on 2x A40, 64k context, 6 users at once")
    text = render_text(answer)
    lines = text.splitlines()
    assert lines[0].startswith("No") and "KV cache" in lines[0]
    held = answer.answers[0].details[0]
    assert "concurrent sequences" in held and "FP8" in answer.answers[0].details[1]


def test_kv_size_with_no_gpu_named_still_leads_with_the_figure(advisor):
    text = render_text(ask(advisor, "how big is the kv cache for qwen2.5-7b, 32k context, 10 sequences"))
    assert text.startswith("KV cache: ~")


def test_kv_verdict_in_chinese(advisor):
    text = render_text(ask(advisor, "两张 L40S 跑 Qwen2.5-72B int4，32k 上下文 10 个并发，KV cache 放得下吗"))
    first = text.splitlines()[0]
    assert first.startswith("不行") and "KV cache 合计约" in first


def test_a_lighter_weight_option_on_the_stated_setup_says_the_kv_room_it_leaves(advisor):
    answer = ask(advisor, "will llama-3.1-405b run for inference on a single 8x H100 node in bf16?")
    text = render_text(answer)
    line = next(row for row in text.splitlines() if "left for the KV cache" in row)
    assert "fp8 weights on 8× H100 SXM" in line
    option = next(r for r in answer.recommendations if r.kind == "precision")
    free = float(line.split("~")[1].split(" GB")[0])
    assert 0 < free < option.have_gb * 0.9  # the room beside the lighter weights, within vLLM's share
    sequences, fp8 = (int(x) for x in re.search(r"~(\d+) concurrent sequences .*\((\d+) with", line).groups())
    assert fp8 in (2 * sequences, 2 * sequences + 1)


def test_a_stated_concurrency_gets_no_generic_kv_room_line(advisor):
    text = render_text(ask(advisor, "will llama-3.1-405b run for inference on 8x H100 in bf16 with 32 concurrent users at 16k?"))
    assert "size the setup on your real concurrency" not in text
