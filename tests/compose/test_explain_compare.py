"""The side-by-side reply (bot/compose/explain_compare.py, issue #24): the pick leads with its
reason in the job's terms, the deciding specs follow side by side, prices where known, and
"reported" where a figure has no datasheet behind it. EN and ZH."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext
from bot.compose.explain_compare import compare_reply, subject_ids
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Answer, Ask, Recommendation, Requirement

RENTED = ["a800-80gb-sxm", "a800-40gb-pcie", "h800-sxm", "h800-pcie", "h20-96gb", "h20-141gb", "l20", "l40",
          "rtx-4090d", "rtx-6000-ada", "rtx-a6000", "a40", "a30", "gh200-96gb", "rtx-pro-6000", "rtx-4090-48gb"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


def reply(catalog, subjects, req=None, language="en", answer=None, kind="select"):
    req = req or Requirement()
    ctx = ComposeContext(requirement=req, answer=answer or Answer(requirement=req), catalog=catalog, language=language)
    return compare_reply(Ask(kind=kind, text=" or ".join(subjects), subjects=subjects), ctx)


def test_h800_or_h20_for_inference_picks_the_bandwidth(catalog):
    out = reply(catalog, ["h800", "h20"], Requirement(workload="inference", params_b=70))
    assert out.lead == ("H20 96GB for serving (decode is bandwidth-bound): 4,000 GB/s of memory bandwidth against "
                        "3,350 GB/s on the H800 SXM5 80GB (1.19×) (reported).")
    assert out.figures["pick"] == "h20-96gb" and out.figures["reason"] == "bandwidth"
    # the table says each figure once; that the two cards' figures are reported is one line below it
    assert "Dense BF16: H800 SXM5 80GB 989 TFLOPS | H20 96GB 148 TFLOPS" in out.details
    assert sum("reported" in d for d in out.details) == 1
    assert any(d.startswith("the H800 SXM5 80GB is better at prefill and training") for d in out.details)
    assert not any(d.startswith("Price") for d in out.details)  # neither priced: no row saying so twice
    zh = reply(catalog, ["h800", "h20"], Requirement(workload="inference", params_b=70), "zh")
    assert zh.lead.startswith("推理服务（解码受带宽限制）选 H20 96GB：显存带宽 4,000 GB/s") and "（据报道）" in zh.lead


def test_h800_or_h20_for_training_picks_the_compute(catalog):
    out = reply(catalog, ["h800-sxm", "h20-96gb"], Requirement(workload="training"))
    assert out.lead.startswith("H800 SXM5 80GB for training (compute-bound): 989 TFLOPS dense BF16 against 148 TFLOPS")
    assert "(6.68×)" in out.lead


def test_a800_or_a100_is_decided_by_nvlink(catalog):
    out = reply(catalog, ["a800", "a100"], Requirement(workload="training"))
    assert subject_ids(Ask(kind="select", subjects=["a800", "a100"]),
                       ComposeContext(requirement=Requirement(), answer=Answer(requirement=Requirement()),
                                      catalog=catalog)) == ["a800-80gb-sxm", "a100-80gb-sxm"]
    assert out.lead.startswith("A100 80GB SXM for training (compute-bound): the same compute, bandwidth and memory, "
                               "but NVLink 600 GB/s against 400 GB/s")
    zh = reply(catalog, ["a800", "a100"], Requirement(workload="training"), "zh")
    assert zh.lead.startswith("训练（受算力限制）选 A100 80GB SXM：算力、带宽、显存相同，但 NVLink 为 600 GB/s")


def test_no_job_names_strengths_and_asks(catalog):
    out = reply(catalog, ["l40s", "rtx-5090"])
    assert out.figures["pick"] is None and out.figures["reason"] == "open"
    assert "the RTX 5090 is better at decode, long contexts (bandwidth)" in out.lead
    assert "Say what you will run" in out.lead
    assert any("GeForce card" in d for d in out.details)  # the licence, for the 5090


def test_a_job_that_fits_only_on_one_leads_with_that(catalog):
    req = Requirement(workload="inference", params_b=32)
    recs = [Recommendation(rank=1, kind="compare", gpu="rtx-4090", count=1, fits=False, why="", rule="r"),
            Recommendation(rank=2, kind="compare", gpu="l20", count=1, fits=True, why="", rule="r")]
    out = reply(catalog, ["rtx-4090", "l20"], req, answer=Answer(requirement=req, recommendations=recs))
    assert out.lead == "L20: the job fits on 1 × L20; on 1 × RTX 4090 it does not."
    assert reply(catalog, ["rtx-4090", "l20"], req, "zh", answer=Answer(requirement=req, recommendations=recs)
                 ).lead == "选 L20：任务能放进 1 张 L20；1 张 RTX 4090 放不下。"


def test_the_modified_board_is_flagged_side_by_side(catalog):
    out = reply(catalog, ["rtx-4090-48gb", "l20"], Requirement(workload="inference"))
    assert any("not an NVIDIA product" in d for d in out.details)
    assert any("reported" in d and "Modified RTX 4090 48GB" in d for d in out.details)


@pytest.mark.parametrize("gpu", RENTED)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_rented_card_answers_x_or_y_from_its_entry(catalog, gpu, language):
    out = reply(catalog, [gpu, "h100-sxm"], Requirement(workload="inference"), language)
    assert out is not None and out.lead
    assert gpu not in out.lead and "h100-sxm" not in out.lead  # display names, never ids
    assert len(out.details) >= 6 and out.figures[f"{gpu}.memory_gb"] == catalog.gpus[gpu].memory_gb


def test_one_gpu_is_no_comparison(catalog):
    assert reply(catalog, ["h100-sxm"]) is None
    assert reply(catalog, ["h100-sxm", "llama-3-8b"]) is None


def test_training_time_and_the_fp8_exception_are_said(catalog):
    from bot.advice.compare import compare
    from bot.compose.explain_compare import render

    req = Requirement(workload="training", params_b=13, gpu_count=8)
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog)
    out = render(compare(catalog, ["h20-96gb", "a800-80gb-sxm"], req, flops=6 * 13e9 * 1e9), ctx)
    assert out.lead.startswith("A800 SXM4 80GB for training (compute-bound): 312 TFLOPS dense BF16 against 148")
    assert "Time to finish: H20 96GB ~46 h on 8 GPUs | A800 SXM4 80GB ~22 h on 8 GPUs" in out.details
    assert any(d.startswith("With an FP8 recipe the H20 96GB's 296 TFLOPS") for d in out.details)
    assert any(d.endswith("A800 SXM4 80GB none (no FP8 tensor cores)") for d in out.details)  # no "reported" on a lack


def test_an_nvidia_product_is_picked_before_a_modified_board(catalog):
    out = reply(catalog, ["l20", "rtx-4090-48gb"], Requirement(workload="inference"))
    assert out.figures["pick"] == "l20" and out.figures["reason"] == "supported"
    assert out.lead.startswith("L20: an NVIDIA data-centre product with ECC and a warranty")
    zh = reply(catalog, ["l20", "rtx-4090-48gb"], Requirement(workload="inference"), "zh")
    assert zh.lead.startswith("选 L20：NVIDIA 正规产品")


def test_a_geforce_card_beats_a_modified_board_without_a_data_centre_claim(catalog):
    # the stock card wins on its warranty alone: no ECC, and the GeForce licence binds both sides
    out = reply(catalog, ["rtx-4090", "rtx-4090-48gb"], Requirement(workload="inference", params_b=13))
    assert out.figures["pick"] == "rtx-4090" and out.figures["reason"] == "supported"
    assert "ECC" not in out.lead and "data-centre product" not in out.lead
    assert "Both are GeForce cards" in out.lead and "L40S" in out.lead
    zh = reply(catalog, ["rtx-4090d", "rtx-4090-48gb"], Requirement(workload="inference", params_b=13), "zh")
    assert zh.lead.startswith("选 RTX 4090 D：NVIDIA 正规产品，有原厂保修") and "ECC" not in zh.lead
    assert "L20" in zh.lead


def test_when_one_side_leads_on_nothing_it_is_said_once(catalog):
    out = reply(catalog, ["a800", "a100"])  # no job stated, the same compute: a verdict with its condition
    assert out.lead.startswith("A100 80GB SXM if it costs about the same; otherwise it depends on the job: with the "
                               "same dense BF16 (312 TFLOPS)")
    assert out.lead.count("splitting one model across GPUs (NVLink)") == 1
    zh = reply(catalog, ["a800", "a100"], language="zh")
    assert zh.lead.startswith("价格相近就选 A100 80GB SXM") and zh.lead.count("多卡切分同一模型（NVLink）") == 1
    # a side that leads on compute too is not "the same compute"
    other = reply(catalog, ["l4", "l40s"])
    assert "the L40S is better at" in other.lead and "the L4 leads on none of these specs" in other.lead


def test_stated_latency_targets_are_judged_on_each_compared_side():
    from bot.advisor import Advisor
    from bot.conversation import Conversations

    answer = Conversations(Advisor()).ask("t", "serve Qwen2.5-32B, TTFT < 1s and TPOT < 50ms, 20 concurrent, 2k-token "
                                               "prompts. L20 or L40S?")
    reply = answer.answers[0]
    rows = [d for d in reply.details if "TPOT ~" in d and "concurrent (estimate)" in d]
    assert len(rows) == 2
    for row in rows:
        assert row.endswith("meets your targets") or row.endswith("misses your targets")


def test_a_premium_the_user_states_decides_between_the_same_compute(catalog):
    req = Requirement(workload="training", params_b=13, gpu_count=16, dataset_tokens_b=500)
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog, language="en",
                         question="pretrain 13B on 500B tokens over 16 GPUs: H100 or H200, given the H200 costs 25% more per hour?")
    out = compare_reply(Ask(kind="select", text=ctx.question, subjects=["h100", "h200"]), ctx)
    assert out.lead.startswith("H100 SXM: the H200 SXM is not worth +25% for training (compute-bound)")
    assert "Dense BF16 989 TFLOPS against 989 TFLOPS" in out.lead and "~1.25× as much" in out.lead
    assert not any(d.startswith(("Price:", "Finished job:")) for d in out.details)  # their premium, not the table's
    zh_ctx = ComposeContext(requirement=Requirement(workload="inference", params_b=70), answer=Answer(requirement=req),
                            catalog=catalog, language="zh", question="部署 70B 推理，H100 和 H200 选哪个？H200 贵 20%")
    zh = compare_reply(Ask(kind="select", text=zh_ctx.question, subjects=["h100", "h200"]), zh_ctx)
    assert zh.lead.startswith("选 H200 SXM：做推理服务（解码受带宽限制），贵 20% 也值")


def test_a_modified_board_goes_by_a_chinese_name_in_chinese_answers(catalog):
    zh = reply(catalog, ["rtx-4090-48gb", "l20"], Requirement(workload="inference", params_b=32), "zh")
    assert "RTX 4090 48GB 魔改卡" in zh.lead and "aftermarket" not in " ".join([zh.lead, *zh.details])
    en = reply(catalog, ["rtx-4090-48gb", "l20"], Requirement(workload="inference", params_b=32), "en")
    assert "Modified RTX 4090 48GB (aftermarket)" in " ".join([en.lead, *en.details])


def test_neither_holding_the_job_is_said_after_the_pick(catalog):
    req = Requirement(workload="inference", params_b=8, concurrency=150)
    recs = [Recommendation(rank=1, kind="compare", gpu="l4", count=8, fits=False, need_gb=30.0, have_gb=22.0,
                           why="asked", rule="r"),
            Recommendation(rank=2, kind="compare", gpu="l40s", count=2, fits=False, need_gb=110.0, have_gb=44.0,
                           why="asked", rule="r")]
    out = reply(catalog, ["l4", "l40s"], req, answer=Answer(requirement=req, recommendations=recs))
    assert out.lead.startswith("L40S for serving") and "Neither holds this at the count asked" in out.lead
    assert "2× L40S needs ~110 of 44 GB per GPU" in out.lead


def test_a_deadline_says_which_side_finishes_inside_it(catalog):
    from bot.models import Estimate, TrainingTime
    from bot.nlu import parse  # the deadline is read from the message's quantities
    for text, expected in (("full fine-tune of a 13B on 5B tokens, must be done within 10 days: 8x H100 or 8x A100 80GB?",
                            "Both finish inside your 240 h deadline"),
                           ("full fine-tune of a 13B on 5B tokens, must be done within 2 days: 8x H100 or 8x A100 80GB?",
                            "Only the H100 SXM finishes inside your 48 h deadline")):
        req = parse(text).requirement
        flops = 6 * 13e9 * 5e9
        est = Estimate(time=TrainingTime(tokens=5e9, active_params_b=13, flops_per_param_token=6, flops=flops, mfu=0.4,
                                         precision="bf16", formula="6ND"))
        ctx = ComposeContext(requirement=req, answer=Answer(requirement=req, estimate=est), catalog=catalog,
                             language="en", question=text)
        out = compare_reply(Ask(kind="select", text=text, subjects=["h100", "a100-80gb-sxm"]), ctx)
        assert expected in out.lead, out.lead


def test_which_is_faster_without_a_job_is_answered_with_the_compute_ratio(catalog):
    req = Requirement()
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog)
    out = compare_reply(Ask(kind="explain", text="h800 or h20 — how much quicker is one than the other?",
                            subjects=["h800", "h20"]), ctx)
    assert out.lead.startswith("The H800 SXM5 80GB is faster: 6.7× the dense BF16 compute (989 TFLOPS against "
                               "148 TFLOPS on the H20 96GB)")
    assert "the H20 96GB is ahead (4,000 GB/s against 3,350 GB/s)" in out.lead  # decode is the other's side
    zh_ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog, language="zh")
    zh = compare_reply(Ask(kind="explain", text="h800 和 h20 谁快，快几倍", subjects=["h800", "h20"]), zh_ctx)
    assert zh.lead.startswith("H800 SXM5 80GB 更快：稠密 BF16 算力是 H20 96GB 的 6.7 倍")


def test_a_job_given_keeps_its_pick_even_when_speed_is_asked(catalog):
    req = Requirement(workload="inference", params_b=70)
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog)
    out = compare_reply(Ask(kind="explain", text="serving 70B: is the h800 or the h20 faster?",
                            subjects=["h800", "h20"]), ctx)
    assert out.lead.startswith("H20 96GB for serving")


def test_the_difference_asked_leads_with_what_differs_and_keeps_the_pick_below(catalog):
    req = Requirement(workload="inference", params_b=32)
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog)
    out = compare_reply(Ask(kind="explain", text="how do the l40s and the l20 differ for serving a 32b model",
                            subjects=["l40s", "l20"]), ctx)
    assert out.lead.startswith("L40S / L20: the same 48 GB / 864 GB/s; the L40S is better at prefill and training")
    assert "3.04× the dense BF16" in out.lead
    assert out.details[0].startswith("L40S for serving")  # the pick for the job, after the differences


def test_a_labelled_part_naming_its_own_workload_is_judged_for_it():
    from bot.advisor import Advisor
    from bot.compose import compose_all
    from bot.nlu import parse

    advisor = Advisor()
    text = "两个问题：(1) L40S 和 H100，微调哪个快？(2) 部署推理服务哪个好？"
    parsed = parse(text, advisor.catalog)
    answer = advisor.answer(parsed.requirement, language=parsed.language)
    ctx = ComposeContext(requirement=answer.requirement, answer=answer, catalog=advisor.catalog,
                         language=parsed.language, question=text)
    replies = {r.label: r.lead for r in compose_all(ctx)}
    assert "(2)" in replies and "带宽" in replies["(2)"], replies
    assert replies["(1)"] != replies["(2)"]


@pytest.mark.parametrize("question, modified, bystander", [
    ("T4 vs RTX 4090 vs 4090 48GB for 7B LoRA?", "Modified RTX 4090 48GB (aftermarket)", "T4"),
    ("T4 vs 4090 vs 4090 48G，7B LoRA 用哪个？", "RTX 4090 48GB 魔改卡", "T4"),
    ("T4 和 4090 和 4090 48G 跑 7B LoRA 有啥区别", "RTX 4090 48GB 魔改卡", "T4"),
])
def test_the_modified_board_note_names_the_modified_board_not_the_first_card_listed(advisor, question, modified,
                                                                                   bystander):
    from bot.conversation import Conversations
    from bot.render.text import render_text
    lead = render_text(Conversations(advisor).ask("t", question)).splitlines()[0]
    assert lead.startswith(("RTX 4090: an NVIDIA product", "选 RTX 4090：NVIDIA 正规产品")), lead
    said = lead.split("；" if "；" in lead else "; ", 1)[1]
    assert said.startswith((f"the {modified} is a modified board", f"{modified} 是改装卡")), lead
    assert f"{bystander} is a modified board" not in lead and f"{bystander} 是改装卡" not in lead


@pytest.mark.parametrize("text, lead", [
    ("A800 or H20 boxes for about the same money? mainly serving big MoE models, a little LoRA tuning on the side",
     "H20 96GB for serving (decode is bandwidth-bound)"),
    ("A800 和 H20 整机租金差不多，主要跑 MoE 推理，偶尔 LoRA 微调，选哪个？", "推理服务（解码受带宽限制）选 H20 96GB"),
])
def test_the_main_workload_decides_the_pick_not_the_occasional_fine_tune(advisor, text, lead):
    from tests.compose.answering import answer_of
    answers = answer_of(advisor, text).answers
    assert answers[0].lead.startswith(lead), answers[0].lead
