"""Each ask answered in its own terms, through the real parser, rules and composers."""

import pytest

from bot.sizing.memory import GB, PER_B  # GB = 2**30 bytes; PER_B: GB per 10^9 bytes

from bot.conversation import Conversations
from bot.render.text import render_text


def ask(advisor, text):
    return Conversations(advisor).ask("t", text)


def test_an_acceptance_checklist_carries_the_gpus_own_reference_numbers(advisor):
    answer = ask(advisor, "we just rented 8x H100 SXM, what should we check before the run? give me the list")
    first = answer.answers[0]
    assert first.kind == "checklist" and "8× H100 SXM" in first.lead
    spec = advisor.catalog.gpus["h100-sxm"]
    floor = round(spec.dense_tflops["bf16"] * 0.65)  # the healthy GEMM figure: 65% of the dense peak
    assert first.figures["gemm_floor_tflops"] == floor
    text = render_text(answer)
    assert f"{floor:,}" in text and "nvidia-smi topo -m" in text and "all_reduce_perf" in text
    assert answer.recommendations == []  # nothing to size was asked
    assert not any("optimizer" in q.lower() for q in answer.questions)


def test_an_ampere_node_is_checked_for_row_remapping_and_a_volta_one_for_retired_pages(advisor):
    a100 = render_text(ask(advisor, "acceptance checklist for our new 8x A100 80GB SXM node"))
    v100 = render_text(ask(advisor, "acceptance checklist for our new 8x V100 node"))
    assert "Remapped Rows" in a100 and "Retired Pages" not in a100
    assert "Retired Pages" in v100


def test_pitfalls_of_renting_in_chinese_are_a_chinese_list(advisor):
    answer = ask(advisor, "租 GPU 服务器要注意什么坑？")
    text = render_text(answer)
    assert answer.answers[0].kind == "checklist"
    assert text.splitlines()[0].startswith("租 GPU 服务器常见的坑")
    assert "GeForce" in text and "580/525/450" in text


def test_a_kv_cache_question_leads_with_the_kv_figure(advisor):
    answer = ask(advisor, "How big is the KV cache for Llama-3.1-8B at 32k context with 4 concurrent requests?")
    # 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes per token, per sequence
    per_token = 32 * 8 * 128 * 2 * 2
    expected_gb = per_token * 32_768 * 4 / GB
    assert answer.answers[0].kind == "fit"
    assert answer.answers[0].figures["kv_cache_gb"] == pytest.approx(expected_gb, rel=0.05)
    assert render_text(answer).startswith(f"KV cache: ~{expected_gb:,.0f} GB")
    assert not any("training" in q.lower() and "inference" in q.lower() for q in answer.questions)


def test_will_it_hurt_is_answered_yes_when_the_network_is_too_slow(advisor):
    answer = ask(advisor, "2 nodes of 8x H100, full fine-tune of a 70B. Will 100GbE between the nodes hurt?")
    assert render_text(answer).startswith("Yes, badly — 100 Gb/s")


def test_an_open_ask_gets_a_default_and_at_most_two_questions(advisor):
    for text in ("we need a box for fine-tuning, any recs?", "公司想部署一个大模型，大概要什么配置"):
        answer = ask(advisor, text)
        assert answer.answers[0].kind == "open"
        questions = [d for d in answer.answers[0].details if d.startswith("?")]
        assert 1 <= len(questions) <= 2 and answer.questions == []


def test_how_many_gpus_without_a_model_gives_typical_counts_and_the_deciding_question(advisor):
    answer = ask(advisor, "how many GPUs would we need?")
    assert answer.answers[0].lead.startswith("It depends on the model")
    assert "2× 80 GB" in answer.answers[0].lead


def test_every_ask_of_a_numbered_message_is_answered_in_order(advisor):
    answer = ask(advisor, "1) can Llama-3-8B be served on one L4? 2) what should I check when the L4 box arrives?")
    kinds = [a.kind for a in answer.requirement.asks]
    assert kinds == ["fit", "checklist"]
    lines = render_text(answer).splitlines()
    assert any(line.startswith("2) Acceptance checklist") for line in lines)


def test_brief_text_has_display_names_and_no_rule_ids(advisor):
    text = render_text(ask(advisor, "Can we fully fine-tune a 7B model on one RTX 4090 in our data centre?"))
    assert "RTX 4090" in text and "rtx-4090" not in text and "[verdict." not in text and "[advice." not in text


def test_capacity_is_the_kv_room_beside_the_weights_over_one_sequence(advisor):
    answer = ask(advisor, "Llama-3.1-70B in FP8 on 2x H100 SXM with vLLM: how many concurrent users can we hold at 32k context?")
    reply = answer.answers[0]
    stated = next(c for c in answer.candidates if c.gpu == "h100-sxm" and c.count == 2)
    per_gpu = stated.memory_gb  # per GPU: the KV heads each rank holds
    free = stated.have_gb * 0.90 - (per_gpu.total - per_gpu.kv_cache)
    assert reply.figures["sequences"] == int(free // per_gpu.kv_cache)
    assert render_text(answer).startswith(f"About {int(reply.figures['sequences'])} concurrent sequences at 32,768 tokens")
    assert not any("concurrent" in q for q in answer.questions)  # what the answer computes is not asked back


def test_zero_stages_per_gpu_follow_the_zero_paper(advisor):
    answer = ask(advisor, "13B full fine-tune on 8x A100 80GB: what does each ZeRO stage save per GPU?")
    figures = answer.answers[0].figures
    p = answer.requirement.params_b
    # in GB as capacities are labelled (2^30 bytes): 16 bytes x 13B = 208e9 bytes = 193.7 GB
    assert figures["ddp"] == pytest.approx(16 * p * PER_B, rel=1e-3)
    assert figures["zero-1"] == pytest.approx((4 * p + 12 * p / 8) * PER_B, rel=1e-3)
    assert figures["zero-2"] == pytest.approx((2 * p + 14 * p / 8) * PER_B, rel=1e-3)
    assert figures["zero-3"] == pytest.approx(16 * p / 8 * PER_B, rel=1e-3)


def test_checkpointing_savings_use_the_models_shape_and_the_second_part_gets_the_speed_cost(advisor):
    answer = ask(advisor, "1) how much memory does gradient checkpointing save for Qwen2.5-7B at seq 4096 batch 4? "
                          "2) and how much slower is it?")
    first, second = answer.answers[0], answer.answers[1]
    arch = advisor.catalog.models["qwen2.5-7b"]
    assert first.figures["activations_gb"] == pytest.approx(34 * 4096 * 4 * arch.hidden * arch.layers / GB, rel=0.01)
    assert "30-35%" in second.lead


def test_what_a_gpu_can_do_follows_from_its_memory_and_bytes_per_parameter(advisor):
    for text in ("what can an L40S do?", "L40S 能干啥？"):
        answer = ask(advisor, text)
        figures = answer.answers[0].figures
        memory = advisor.catalog.gpus["l40s"].memory_gb
        assert figures["bf16"] == pytest.approx(round(memory / 2.4), abs=1)
        assert figures["full"] == pytest.approx(memory / 17.6, abs=0.1)


def test_each_part_naming_a_cuda_version_and_a_driver_is_checked_against_nvidias_table(advisor):
    answer = ask(advisor, "CUDA 11.8 的镜像放到驱动 550 的机器上能跑吗？反过来，CUDA 12.4 的镜像放到驱动 470 的机器上呢？")
    lines = render_text(answer).splitlines()
    assert lines[0].startswith("可以")  # the first pair: the rules' verdict
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert second.figures["works"] == "no" and second.figures["cuda"] == "12.4"
    major = advisor.catalog.cuda_major(12)
    assert major.min_driver in second.lead and "11.4" in second.lead  # 470 runs CUDA up to 11.4


def test_min_driver_for_a_cuda_release_comes_from_the_table(advisor):
    answer = ask(advisor, "(a) min driver for cuda 12.8? (b) our nodes are on 535 — can we run the cu128 torch wheel?")
    first, second = answer.answers[0], answer.answers[1]
    assert first.figures["min_driver"] == advisor.catalog.cuda_release("12.8").min_driver
    assert second.figures["works"] == "yes" and second.figures["driver"] == "535"  # minor-version compatibility


def test_an_mla_kv_cache_is_the_latent_and_rope_dims_per_layer(advisor):
    answer = ask(advisor, "MLA 的 KV cache 怎么算？DeepSeek-V3 128k 上下文")
    arch = advisor.catalog.models["deepseek-v3"]
    reply = next(a for a in answer.answers if a.rule == "sizing.kv-formula")
    assert reply.figures["bytes_per_token"] == (arch.kv_lora_rank + arch.qk_rope_head_dim) * arch.layers * 2


def test_a_later_part_is_answered_by_the_findings_that_speak_to_it_not_the_first_parts_verdict(advisor):
    answer = ask(advisor, "(1) LoRA on a 13B model with 8 RTX 4090s, workable? (2) is NVLink required for that?")
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert "NVLink" in second.lead and "25 GB" not in second.lead


def test_host_ram_and_disk_follow_from_the_weights_checkpoints_and_gpus(advisor):
    answer = ask(advisor, "three qs: 1) can a 7B LoRA fine-tune run on one RTX 4090 2) how much host RAM 3) how big a data disk")
    ram = next(a for a in answer.answers if a.rule == "host.ram")
    disk = next(a for a in answer.answers if a.rule == "host.disk")
    weights = answer.requirement.params_b * 2
    assert ram.figures["ram_gb"] >= max(2 * weights, 2 * 24) and ram.figures["ram_gb"] in (32, 64, 128)
    assert disk.figures["disk_gb"] >= weights + 50


def test_a_later_how_many_part_leads_with_the_fewest_gpus_that_hold_it(advisor):
    answer = ask(advisor, "1) can one H100 serve Qwen2.5-72B? 2) with 32 concurrent users at 8k context, how many GPUs?")
    second = next(a for a in answer.answers if a.ask_index == 1)
    assert second.figures["count"] > 1


def test_a_stated_active_count_never_sizes_a_mixture_of_experts_model(advisor):
    answer = ask(advisor, "mixtral 8x7b only activates like 13B params per token, so it fits one RTX 4090 in bf16, right?")
    arch = advisor.catalog.models["mixtral-8x7b"]
    assert answer.requirement.params_b == arch.params_b  # every expert is resident
    assert answer.verdict.answer == "no"
    assert any(f"{arch.params_b:g}B" in d for d in answer.answers[0].details)


def test_a_quoted_nccl_socket_line_is_diagnosed(advisor):
    answer = ask(advisor, "两台机器跑分布式，打开 NCCL_DEBUG=INFO 后发现走的是 NET/Socket，速度很慢，要怎么处理？")
    assert answer.answers and answer.answers[0].kind == "diagnose"
    assert "NET/Socket" in answer.answers[0].lead


def test_expected_latency_is_the_stated_setups_estimate(advisor):
    answer = ask(advisor, "ballpark TTFT and TPOT for llama-3.1-8b served on one L4, 8 concurrent, ~1k in / 256 out?")
    assert answer.requirement.context == 1256  # input + output: what one request holds at its end
    stated = next(c for c in answer.candidates if c.gpu == "l4" and c.count == 1)
    reply = answer.answers[0]
    assert reply.figures["tpot_ms"] == stated.tpot_ms and f"TPOT ~{stated.tpot_ms:.0f} ms" in reply.lead


def test_expected_ttft_is_one_prompts_prefill_and_the_burst_is_said_beside_it(advisor):
    answer = ask(advisor, "serving qwen2.5-7b on one L40S, 16 users at once, ISL 2k OSL 500: what TTFT and TPOT to expect?")
    assert answer.requirement.context == 2500
    stated = next(c for c in answer.candidates if c.gpu == "l40s" and c.count == 1)
    reply = answer.answers[0]
    # the sizer prefills all 16 whole contexts at once; one request prefills its own 2,000 input tokens
    # (about the linear share: attention grows with the square of the prompt)
    assert reply.figures["ttft_s"] == stated.ttft_one_s == pytest.approx(stated.ttft_s / 16 * 2000 / 2500, rel=0.03)
    assert reply.figures["ttft_burst_s"] == pytest.approx(stated.ttft_one_s * 16, rel=1e-3)  # all 16 prompts at once
    assert reply.figures["prompt_tokens"] == 2000
    assert "2,000-token prompt" in reply.lead and "16 prefill at once" in reply.lead


def test_latency_targets_pick_the_cheapest_setup_whose_estimates_meet_them(advisor):
    answer = ask(advisor, "Which GPU for Mixtral 8x7B with TPOT <= 40ms and TTFT <= 450ms at 32 concurrent streams? ISL ~1k, OSL ~300")
    roles = {q.role: q.value for q in answer.requirement.quantities if q.kind == "latency"}
    assert roles == {"tpot": 40.0, "ttft": 450.0}  # each number to the keyword nearest it
    pick = answer.answers[0].figures
    from bot.advice.options import typical_rate
    catalog = advisor.catalog
    if pick.get("precision") == "fp8":  # one card in FP8 weights ahead of a BF16 split at the edge of the TPOT target
        assert pick["count"] == 1 and pick["tpot_ms"] <= 0.85 * 40 and pick["ttft_s"] <= 0.45
        split = [c for c in answer.candidates if c.fits and c.count > 1 and c.tpot_ms is not None and c.tpot_ms <= 40
                 and typical_rate(catalog, c.gpu)]
        assert split and typical_rate(catalog, pick["gpu"]) <= 1.25 * min(typical_rate(catalog, c.gpu) * c.count for c in split)
        return
    chosen = next(c for c in answer.candidates if c.gpu == pick["gpu"] and c.count == pick["count"])
    assert chosen.tpot_ms <= 40 and chosen.ttft_s / 32 <= 0.45

    def hourly(c):
        return typical_rate(catalog, c.gpu) * c.count

    cheaper = [c for c in answer.candidates if c.fits and c.count <= 8 and c.tpot_ms is not None
               and c.tpot_ms <= 40 and c.ttft_s / 32 <= 0.45 and typical_rate(catalog, c.gpu)
               and catalog.gpus[c.gpu].gpu_class == "datacenter" and catalog.gpus[c.gpu].nvlink
               and hourly(c) < hourly(chosen) - 1e-9]
    assert not cheaper
    top = answer.recommendations[0]  # the ranked options agree with the lead
    assert (top.gpu, top.count) == (pick["gpu"], pick["count"])


def test_a_labelled_part_asking_about_fewer_gpus_gets_the_run_time_on_that_count(advisor):
    answer = ask(advisor, "plan: 32x H100 at $3.10/gpu-hr for 2 weeks, pretraining a 2B model on 400B tokens. "
                          "(1) what will it cost (2) is 16 gpus enough")
    second = next(a for a in answer.answers if a.label == "(2)")
    assert second.lead.startswith("Yes:") and "on 16 GPUs" in second.lead
    assert second.figures["gpus"] == 16 and second.figures["wall_hours"] <= second.figures["limit_hours"]
    assert "can't answer this part" not in render_text(answer)


def test_a_labelled_part_without_a_cue_is_routed_to_the_card_it_names_before_giving_up(advisor):
    answer = ask(advisor, "1) which driver do I need for CUDA 12.6? 2) and what about our L40S box?")
    second = next(a for a in answer.answers if a.label == "2)")
    assert "L40S" in second.lead and "can't answer this part" not in second.lead


def test_a_labelled_cost_part_weighs_its_own_numbers_not_another_parts(advisor):
    text = "两个问题：(1) 16 张 A100 跑满一个月是多少卡时？(2) 手上有 5 万卡时，从头训一个 3B 模型 500B tokens 够不够？"
    answers = Conversations(advisor).ask("t", text).answers
    first, second = answers[0], answers[1]
    assert "11,680" in first.lead  # 16 x 730 h, not the 50,000 GPU-hours of part (2)
    assert "50,000" in second.lead
