"""A serving target stated in an acceptance question is the acceptance line (bot/compose/checklist_slo.py)."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def _step(reply, needle):
    return next(d for d in reply.details if needle in d)


def test_the_stated_ttft_and_tpot_at_the_stated_concurrency_lead_and_are_measured_with_aiperf(advisor):
    reply = _reply(advisor, "signing for a 4x L40S serving box next week, Qwen2.5-32B. we need p99 TTFT below 1.5 s and "
                            "TPOT below 50 ms with 24 concurrent users. how do we accept it?")
    assert reply.rule == "checklist.acceptance"
    assert reply.lead.startswith("Acceptance line for 4× L40S: p99 TTFT ≤ 1.5 s and p99 TPOT ≤ 50 ms at 24 concurrent")
    step = _step(reply, "aiperf profile")
    assert "--concurrency 24" in step and "--request-rate" in step and "Poisson" in step
    assert "-m Qwen/Qwen2.5-32B" in step and "--streaming" in step
    # the step number the lead points at is the AIPerf step
    number = reply.lead.split("in step ")[1].split(";")[0]
    assert step.startswith(f"{number}. ")
    assert "aiperf-arrival-patterns" in reply.sources
    assert not any("Serving baseline" in d for d in reply.details)  # the generic baseline gives way to the target


def test_stated_prompt_lengths_are_used_and_not_called_assumed(advisor):
    reply = _reply(advisor, "acceptance test for an 8x H100 SXM inference node: p99 TTFT < 2 s at 64 concurrent, "
                            "prompts of 3,000 tokens, Llama 3.1 70B")
    step = _step(reply, "aiperf profile")
    assert "--synthetic-input-tokens-mean 3000" in step and "assumed" not in step


def test_chinese_target_is_the_acceptance_line_in_chinese(advisor):
    reply = _reply(advisor, "新到一台 8 卡 H20 做推理，合同要求 32 并发时 p99 首 token 不超过 1 秒，验收怎么做？")
    assert "验收线：p99 首 token 时间（TTFT）≤ 1 秒（32 并发）" in reply.lead
    step = _step(reply, "aiperf profile")
    assert "--concurrency 32" in step and "泊松" in step


def test_no_stated_target_keeps_the_plain_checklist(advisor):
    reply = _reply(advisor, "we just got an 8x H100 SXM node for serving Llama 3.1 70B, what should we check before going live?")
    assert reply.lead.startswith("Acceptance checklist for 8× H100 SXM")
    assert any("Serving baseline" in d for d in reply.details)


def test_a_training_mfu_target_is_the_acceptance_line_with_the_tokens_per_second_it_means(advisor):
    reply = _reply(advisor, "signing off a rented 8x H100 SXM box for Llama 3.1 8B continued pretraining, we need 45% MFU. "
                            "what should the acceptance be?")
    assert "MFU" in reply.lead and "measured on your own job" in reply.lead and "AIPerf" not in reply.lead
    arch = advisor.catalog.models["llama-3.1-8b"]
    tps = 0.45 * 989e12 / (6 * (arch.active_params_b or arch.params_b) * 1e9)
    assert f"~{round(tps, -1):,.0f} tokens/s per GPU" in reply.lead


def test_a_stated_tokens_per_second_per_gpu_gives_its_mfu_and_a_low_line_is_said_low(advisor):
    reply = _reply(advisor, "验收 8 卡 H100 SXM，训练 Qwen2.5-7B 要求每卡至少 2500 tokens/s，怎么验收？")
    assert "每卡 ≥ 2,500 tokens/s" in reply.lead
    step = _step(reply, "6 × ")
    assert "偏低" in step and "。 " not in step


def test_the_percentile_the_user_wrote_is_kept(advisor):
    reply = _reply(advisor, "acceptance test for a 2x H100 SXM serving box, Llama 3.1 8B: p90 TTFT under 500 ms and "
                            "TPOT p95 below 30 ms at 16 concurrent")
    assert "p90 TTFT ≤ 0.5 s and p95 TPOT ≤ 30 ms at 16 concurrent" in reply.lead
    assert "p99" not in reply.lead
