"""A serving pick for many concurrent users (bot/compose/select_serving.py, issue #24): the KV cache of every
user's sequence is said as counted in the pick, and an FP8 KV cache is offered with what it buys (fewer GPUs,
twice the users, or, on a card without FP8, the card that holds it). Real parser, sizer, rules and catalog."""

import re

from bot.conversation import Conversations
from bot.render.text import render_text


def lines_of(advisor, text):
    answer = Conversations(advisor).ask("t", text)
    return answer, render_text(answer).splitlines()


def test_many_users_say_the_kv_cache_the_pick_holds(advisor):
    answer, lines = lines_of(advisor, "we need to serve Qwen2.5-14B to 48 people at the same time, what should we rent?")
    kv = next(line for line in lines[1:4] if "KV cache of all 48 users" in line)
    memory = answer.estimate.memory_gb
    assert f"~{memory.kv_cache:.0f} GB in BF16" in kv and "48 sequences ×" in kv
    assert memory.kv_cache > 0.15 * memory.total  # the KV cache is a real share of what the pick holds


def test_an_fp8_kv_cache_is_offered_with_what_it_buys(advisor):
    _, lines = lines_of(advisor, "we need to serve Qwen2.5-14B to 48 people at the same time, what should we rent?")
    fp8 = [line for line in lines[1:5] if "FP8 KV cache" in line]
    assert fp8 and re.search(r"halves the cache to ~[0-9]+ GB", fp8[0])
    assert "holds it" in fp8[0] or "room for about 96 users" in fp8[0]


def test_the_china_pick_says_it_in_chinese(advisor):
    _, lines = lines_of(advisor, "部署 Llama 3.1 70B 给 64 个人同时用，租什么卡？")
    assert any("64 个并发用户的 KV cache" in line for line in lines[1:4])
    assert any("FP8 KV cache" in line and "减半" in line for line in lines[1:5])


def test_one_user_or_a_small_cache_gets_no_kv_line(advisor):
    _, lines = lines_of(advisor, "which GPU should we rent to serve Llama 3.1 70B for one user at 2k context?")
    assert not any("KV cache of all" in line for line in lines)
