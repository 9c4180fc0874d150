"""Network and NVLink questions lead with the deciding number for the stated plan (issue #24):
bytes per step across nodes and their seconds, an NVLink cut's consequence, SXM against PCIe pairs.
Real parser, sizer, rules and catalog."""

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def first_line(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()[0]


def seconds(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"~([0-9.]+) s", line)]


def test_fsdp_across_nodes_on_100gbe_is_said_in_seconds_per_step(advisor):
    line = first_line(advisor, "do we need InfiniBand for two nodes x eight H100s doing a full fine-tune of a 70B "
                               "with FSDP, or is 100GbE fine?")
    assert line.startswith("Yes, you need it — 100 Gb/s is 12.5 GB/s per node")
    assert "420 GB" in line  # 3 x 70B x 2 bytes
    slow, fast = seconds(line)
    assert slow == pytest.approx(34, abs=1) and fast == pytest.approx(1.05, abs=0.1)


def test_an_nvlink_cut_on_the_same_compute_is_judged_by_what_is_exposed(advisor):
    line = first_line(advisor, "H800 or H100 for an 8-card fine-tune: does 400 GB/s of NVLink instead of 900 really matter?")
    assert line.startswith("Only where communication is exposed") and "2.25×" in line  # 900 / 400
    zh = first_line(advisor, "H800 和 H100 做多机训练差多少？听说 H800 的 NVLink 被砍了，我们 64 卡训 13B，影响大吗")
    assert zh.startswith("64 卡跨机训练时影响不大")


def test_with_the_model_known_the_gradient_all_reduce_is_timed_on_both(advisor):
    answer = Conversations(advisor).ask("t", "A800 or A100 for full fine-tuning a 13B on 8 GPUs?")
    text = render_text(answer)
    line = next(x for x in text.splitlines() if "all-reduce of a 13B model" in x)
    fast, slow = seconds(line)
    assert slow == pytest.approx(fast * 1.5, rel=0.05)


def test_sxm_against_pcie_pairs_for_8_gpu_training_leads_with_the_interconnect(advisor):
    line = first_line(advisor, "we train a 13B model on 8 GPUs; H100 SXM nodes or the cheaper H100 PCIe ones, "
                               "is SXM worth paying for?")
    # "worth it?" answered in its terms, with the break-even price the compute ratio alone sets
    assert line.startswith("The H100 SXM is worth it") and "the 76%" in line and "1.31×" in line
    assert "H100 SXM for training on 8 GPUs" in line and "PCIe Gen5" in line
    extra, sxm, pcie = seconds(line)[0], *seconds(line)[-2:]
    assert pcie > 5 * sxm
    if "more exchange a step" in line:  # priced under the break-even: the extra seconds decide it
        assert extra == pytest.approx(pcie - sxm, abs=0.06)  # shown rounded


def test_tensor_parallel_over_pcie_is_answered_with_its_all_reduces_and_latency_estimate(advisor):
    answer = Conversations(advisor).ask("t", "serving llama 3.1 70b fp8 on 4x L40S with TP=4, 8k prompts — "
                                             "will PCIe without NVLink hurt?")
    line = render_text(answer).splitlines()[0]
    assert "160 all-reduces" in line and "8,192-token prompt" in line
    cand = next(c for c in answer.candidates if c.gpu == "l40s" and c.count == 4)
    assert f"TPOT is ~{cand.tpot_ms:.0f} ms" in line
    zh = render_text(Conversations(advisor).ask("t", "4 张 L40S 做 TP=4 推理 Llama-3.1-70B FP8 行不行？没有 NVLink，"
                                                     "PCIe 会不会拖死")).splitlines()
    assert zh[0].startswith("可以") and "160 次" in zh[1]


def test_serving_across_two_nodes_says_what_crosses_them_under_pipeline_parallel(advisor):
    out = render_text(Conversations(advisor).ask("t", "两台 8 卡 H20 跑 DeepSeek 推理，机器之间要不要上 IB？RoCE 够不够")).splitlines()
    assert out[0].startswith("跨 2 台做流水线并行") and "7,168" in out[0] and "14 KB" in out[0]
    assert "200–400 Gb/s" in out[1]


def test_the_pcie_pairs_line_needs_a_bridged_pcie_card_against_an_sxm_one(advisor):
    text = render_text(Conversations(advisor).ask("t", "训一个 14B 模型，租 H20 和 A800 的价格基本一样，选哪个？"))
    assert text.splitlines()[0].startswith("训练（受算力限制）选 A800")  # "训一个" is training, the price is said
    assert "NVSwitch" not in text.splitlines()[1]  # both are SXM boards: no PCIe pairs to speak of
    assert "47%" in text  # the same hourly price: the job costs 1/2.11 on the A800


def test_an_nvlink_only_difference_says_what_busbw_to_measure_on_each(advisor):
    answer = Conversations(advisor).ask("t", "8 卡训练，H800 和 H100 的 NVLink 差一倍多，影响大吗？")
    text = render_text(answer)
    assert "约 150 GB/s" in text and "约 370 GB/s" in text and "乘以 2.25" in text and "整体慢 56%" in text


def test_tp_over_pcie_without_a_stated_context_times_an_8k_prompt_not_the_whole_window(advisor):
    answer = Conversations(advisor).ask("t", "Llama 3.1 70B in FP8 across 4 L40S cards with TP=4: does the lack of NVLink hurt?")
    line = render_text(answer).splitlines()[0]
    assert "8,192-token prompt" in line and "131,072" not in line


def test_a_colleagues_nvlink_claim_for_a_job_across_nodes_is_judged_first(advisor):
    line = first_line(advisor, "Our lead wants A100 instead of A800 for pretraining a 20B model on 24 GPUs over "
                               "3 nodes, because the NVLink is 600 and not 400 GB/s. Is she right?")
    assert line.startswith("Mostly not true: at 24 GPUs across nodes the NVLink cut changes little")


def test_an_ethernet_link_asked_about_for_a_sized_job_is_not_answered_with_memory(advisor):
    line = first_line(advisor, "2 nodes of 8x H100 will fully fine-tune a 70B model; the boxes only talk over "
                               "25GbE. Good enough, or is RoCE a must?")
    assert "GB per GPU" not in line and "25 Gb/s" in line


def answer_text(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


def test_a_fit_of_a_data_parallel_plan_on_slow_ethernet_gets_the_gradient_exchange_in_seconds(advisor):
    text = answer_text(advisor, "3 台 8 卡 H100 做 13B 全参数据并行训练，内存够吗？机器之间只有 50G 以太网，需要换 IB 吗？")
    line = next(x for x in text.splitlines() if "50 Gb/s" in x).strip()
    assert line.startswith("需要——50 Gb/s 折合每节点 6.2 GB/s")
    # ring all-reduce over 3 nodes: 2 x 2/3 of the 26 GB of bf16 gradients, ~35 GB through each node
    assert "约 35 GB" in line and "1.33 倍" in line


def test_a_later_part_asking_for_roce_gets_the_exchange_after_the_fit(advisor):
    lines = answer_text(advisor, "两台 8 卡 H100 跑 7B 全参训练，机房只有 10G 以太网，显存够不够？要不要上 RoCE？").splitlines()
    assert lines[0].startswith("可以")
    line = next(x for x in lines if "10 Gb/s" in x).strip()
    assert line.startswith("需要——10 Gb/s 折合每节点 1.2 GB/s") and "约 14 GB" in line  # 1x the gradients on 2 nodes


def test_a_fabric_surcharge_is_weighed_against_the_gpu_hour_and_the_step_time(advisor):
    text = answer_text(advisor, "do we need IB for a full fine-tune of a 34B with FSDP on 3 nodes of 8x H100, or will 100GbE do? "
                                "IB costs +$0.50/gpu/hr")
    line = next(x for x in text.splitlines() if "$0.50/GPU-hour" in x)
    assert line.strip().startswith("Worth it: the fabric's extra $0.50/GPU-hour is $12.00/h for 24 GPUs")
    assert "median on-demand H100 SXM" in line and "unless a step computes for over" in line


def test_zero_2_or_3_across_nodes_on_slow_ethernet_is_picked_by_the_traffic_where_zero_2_fits(advisor):
    line = first_line(advisor, "we fine-tune a 13B across 2 servers of 8x H100 linked by 100GbE: ZeRO-2 or ZeRO-3?")
    assert line.startswith("ZeRO-2 over 100 Gb/s between nodes (12.5 GB/s per node)")
    assert "~26 GB" in line and "~39 GB" in line  # 1x the bf16 gradients on two nodes, ZeRO-3 1.5x
    zh = first_line(advisor, "4 台 8 卡 H100 全参训练 70B，节点间 100G 以太网，ZeRO-2 还是 ZeRO-3？")
    assert zh.startswith("选 ZeRO-3，因为显存需要") and "RDMA" in zh


def test_sxm_worth_it_weighs_the_listed_prices_against_compute_and_the_exchange_over_pcie(advisor):
    line = first_line(advisor, "full fine-tune of a 7B on 8 GPUs: H100 SXM nodes or the cheaper H100 PCIe nodes, worth paying for SXM?")
    # the verdict names the side its own numbers favour, at the rates the answer's price row says
    assert line.startswith("The H100 SXM is worth it")
    assert "76%" in line and "($2.44 against $2.99" in line


@pytest.mark.parametrize("text", [
    "for training a 13B on 8 GPUs, H100 SXM vs H100 PCIe — the PCIe nodes are a lot cheaper. worth it?",
    "pretraining a 7B on one 8-GPU node: is H100 SXM worth it over the cheaper H100 PCIe boxes?",
    "8 卡训练 13B，H100 SXM 和 H100 PCIe 节点，PCIe 便宜不少，值得吗？",
])
def test_a_worth_it_verdict_names_its_side_and_quotes_the_rates_of_its_own_price_row(advisor, text):
    full = render_text(Conversations(advisor).ask("t", text))
    lines = full.splitlines()
    assert not lines[0].startswith(("Yes, worth it", "值得："))  # never a bare yes that the numbers then argue against
    rates = re.findall(r"\$[0-9.]+", lines[0].split(" H100 SXM for training")[0])
    price_row = next((x for x in lines if x.strip().startswith(("Price", "价格"))), "")
    for rate in rates[:2]:
        assert rate in price_row, (rate, price_row)


def test_an_nvlink_cut_for_tensor_parallel_serving_is_judged_on_prefill_not_on_gradients(advisor):
    full = render_text(Conversations(advisor).ask("t", "A800 or A100 to serve Llama 3.1 70B with TP=8 online? how much does "
                                                       "the 400 vs 600 GB/s NVLink matter?"))
    line = next(x for x in full.splitlines() if "Barely for TPOT" in x)
    assert "8,192-token prompt" in line and "gradient" not in line
    assert "all-reduce takes ~0.19 s on the A800 SXM4 80GB against ~0.13 s on the A100 80GB SXM" in line
    assert "1.5×" in line  # 600 / 400


def _ttft_tpot(line: str) -> tuple[int, int]:
    tpot = int(re.search(r"~([0-9]+)% at 64 concurrent", line).group(1))
    ttft = int(re.search(r"up to ~([0-9]+)%", line).group(1))
    return tpot, ttft


@pytest.mark.parametrize("text", [
    "How much does the H800's 400 GB/s NVLink hurt TP=8 serving of a 70B vs H100's 900?",
    "how much slower is TP=8 inference of a 70B on H800 (400 GB/s NVLink) than on H100 (900)?",
    "Serving a 70B at TP=8: does the H800's NVLink cut (400 vs 900 GB/s on H100) matter?",
])
def test_an_nvlink_impact_question_on_named_cards_gets_the_impact_not_a_price_table(advisor, text):
    full = render_text(Conversations(advisor).ask("t", text))
    lines = full.splitlines()
    assert "GPU-hour at" not in lines[0] and "catalog has no" not in lines[0]  # not the price table
    assert "2.25×" in lines[0] and "TTFT" in lines[0] and "TPOT" in lines[0]  # 900 / 400, both latencies judged
    # 160 all-reduces a step (2 per layer x 80 layers of a Llama-3-70B-shaped model), the prompt's bytes per GPU
    assert "160 times a step" in full and "~37.6 GB per GPU" in full
    assert "TP=4 × 2 replicas" in full and "FP8" in full  # what wins it back
    tpot, ttft = _ttft_tpot(lines[0])
    assert 5 <= tpot <= 30 and 10 <= ttft <= 40


@pytest.mark.parametrize("text", [
    "H800 的 NVLink 只有 400 GB/s，跑 70B TP=8 推理比 H100 的 900 GB/s 慢多少？",
    "用 H800 跑 70B 推理，TP=8，NVLink 400 比 H100 的 900 影响大吗？",
])
def test_an_nvlink_impact_question_in_chinese_gets_the_impact(advisor, text):
    full = render_text(Conversations(advisor).ask("t", text))
    lead = full.splitlines()[0]
    assert lead.startswith("小 batch 时对 TPOT 影响很小") and "2.25 倍" in lead and "TTFT" in lead
    assert "每步 160 次" in full and "TP=4 × 2 个副本" in full


def test_data_parallel_written_as_ddp_is_a_training_plan_timed_per_step(advisor):
    line = first_line(advisor, "DDP of a 2.7B model on 2 nodes x 8 A100, only 50GbE between them. will the network hurt?")
    # 2(N-1)/N x 5.4 GB of bf16 gradients over 2 nodes = 5.4 GB per node a step; 50 Gb/s = 6.25 GB/s: ~0.86 s
    assert "6.2 GB/s per node" in line or "6.25 GB/s per node" in line
    assert seconds(line)[0] == pytest.approx(0.86, abs=0.05)


def test_serving_across_two_nodes_asks_about_the_network_not_the_latency_estimate(advisor):
    line = first_line(advisor, "we'd serve Llama 3.1 70B on two 8xL40S servers with pipeline parallel, 100GbE between them. "
                               "will the network hurt latency?")
    assert "pipeline parallel across the 2 nodes" in line and "latency-bound" in line


@pytest.mark.parametrize("text, ratio", [
    ("how much will H800's NVLink slow our 70B TP=8 inference?", "2.25×"),
    ("we serve Llama 3 70B on 8x A800 with TP=8, does the 400 GB/s NVLink hurt?", "1.5×"),
])
def test_one_cut_nvlink_board_is_judged_against_the_board_it_was_cut_from(advisor, text, ratio):
    full = render_text(Conversations(advisor).ask("t", text))
    lead = full.splitlines()[0]
    assert "for TPOT" in lead and "TTFT" in lead and ratio in lead
    assert "160 times a step" in full and "busbw" in full


@pytest.mark.parametrize("text", ["H800 NVLink 阉割到 400GB/s，对 70B TP8 推理影响多大？", "H800 的 NVLink 对 70B TP=8 推理有多大影响？"])
def test_one_cut_nvlink_board_in_chinese_and_how_big_an_impact_is_not_a_fit(advisor, text):
    lead = first_line(advisor, text)
    assert lead.startswith("小 batch 时对 TPOT 影响很小") and "2.25 倍" in lead
