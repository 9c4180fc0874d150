"""bot.nlu.slots.gpus: catalog GPUs and how many, per node and in all."""

import pytest

from bot.nlu import parse
from tests.nlu import stated


def test_a_family_name_stays_a_family_for_the_advisor_to_ask_about():
    assert parse("8x H100 for training").extracted["gpu"] == "h100"
    assert parse("8x H100 SXM for training").extracted["gpu"] == "h100-sxm"


def test_the_memory_written_with_a_family_picks_the_variant():
    assert parse("two A100 80G for training").extracted["gpu"] == "a100-80gb-sxm"
    assert parse("2 x 80GB A100").extracted["gpu"] == "a100-80gb-sxm"


@pytest.mark.parametrize("text, count", [("两张 4090", 2), ("8x H100 for training", 8), ("双卡 跑 7B", 2),
                                         ("四张卡跑 70B", 4)])
def test_counts_in_english_and_chinese(text, count):
    assert parse(text).extracted["gpu_count"] == count


def test_gpus_per_node_times_the_nodes_is_a_cluster():
    slots = parse("2 nodes of 8x H100 each").extracted
    assert (slots["gpu_count"], slots["topics"]) == (16, ["cluster"])


def test_machines_and_sizes_are_not_gpus():
    assert "gpu_count" not in parse("4 GPU servers").extracted
    assert stated(parse("3090亿参数")) == {"params_b": 309}  # a size, not an RTX 3090


def test_a_gpu_the_user_rules_out_is_not_their_gpu():
    from bot.nlu import parse
    assert parse("which GPUs can we get in China? don't say H100").requirement.gpu is None
    assert parse("除了 H100 还有什么卡能训练 70B").requirement.gpu is None


def test_a_gpu_turned_down_in_passing_leaves_the_one_wanted():
    from bot.nlu import parse
    for text in ("fine-tune 13B on A100s, not A800s", "租 A100 跑 13B 微调，不用 A800", "no A800 please, A100 for a 13B LoRA"):
        req = parse(text).requirement
        assert req.gpu == "a100" and "a800" not in req.gpu_options, text
    assert parse("without H20, which card serves a 70B model?").requirement.gpu is None
    assert parse("is the L20 enough or no?").requirement.gpu == "l20"  # a 'no' after the name rules nothing out


def test_each_compared_gpu_keeps_its_own_count():
    from bot.nlu import parse

    req = parse("whats better: one 8x L4 box or a 2x L40S box?").requirement
    assert req.gpu_options == ["l4", "l40s"] and req.gpu_option_counts == {"l4": 8, "l40s": 2}
    same = parse("8x H100 or 8x A100 for this?").requirement
    assert same.gpu_option_counts == {} and same.gpu_count == 8  # one count for both stays the plan's count


def test_a_ruled_out_gpu_is_not_an_unknown_gpu():
    from bot.nlu import parse

    req = parse("which GPUs can we rent in Shenzhen? don't say H100").requirement
    assert req.gpu is None and req.unknown_gpu is None


def test_a_form_factor_after_the_memory_picks_the_variant():
    from bot.nlu import parse

    assert parse("H100 80GB PCIe for serving").requirement.gpu == "h100-pcie"
    req = parse("2 张 L40S 还是 1 张 H100 80G PCIe？").requirement
    assert req.gpu_options == ["l40s", "h100-pcie"] and req.gpu_option_counts == {"l40s": 2, "h100-pcie": 1}


def test_a_count_above_one_servers_worth_written_with_the_nodes_is_their_total():
    from bot.nlu import parse

    assert parse("我们想两台 16 卡搞定 A800").requirement.gpu_count == 16
    assert parse("2 nodes of 8x H100").requirement.gpu_count == 16
    assert parse("4 nodes x 8 H100").requirement.gpu_count == 32


@pytest.mark.parametrize("text, refused", [
    ("serving a 70B, no H100s please. what should we rent?", ["h100"]),
    ("国内部署 32B，不要 H20，选什么卡", ["h20"]),
    ("8x A100 or 8x L40S? not 4090s", ["rtx-4090"]),
    ("we can't get H100s, what else serves a 70B?", ["h100"]),
    ("买不到 H20 的话选什么卡", ["h20"]),
])
def test_a_ruled_out_gpu_is_kept_as_refused(text, refused):
    extracted = parse(text).extracted
    assert extracted["refused_gpus"] == refused
    assert not set(refused) & {extracted.get("gpu"), *extracted.get("gpu_options", [])}


def test_a_memory_written_before_a_card_name_picks_that_memorys_board():
    assert parse("淘宝上那种 48G 的 4090 能不能跑").extracted["gpu"] == "rtx-4090-48gb"
    assert parse("24G 的 4090 能不能跑").extracted["gpu"] == "rtx-4090"  # its own memory: the card itself
    both = parse("我们有 4090 24G，换成 48G 的 4090 行不行").extracted
    assert both["gpu"] == "rtx-4090" and both["gpu_options"] == ["rtx-4090", "rtx-4090-48gb"]


@pytest.mark.parametrize("text, gpu", [("PCIe 版 H800 跑 72B 推理", "h800-pcie"), ("SXM 版的 H100 训练 8B", "h100-sxm"),
                                       ("a PCIe H100 for serving 13B", "h100-pcie")])
def test_a_form_factor_before_the_name_picks_the_variant(text, gpu):
    assert parse(text).requirement.gpu == gpu


@pytest.mark.parametrize("text, count", [("H800 TP=4 跑 Qwen2.5-72B", 4), ("serve 70B on H100 with tp 2", 2),
                                         ("L40S，张量并行 4，够不够", 4), ("H100 TP=4 PP=2 for a 405B", 8),
                                         ("4 路张量并行的 L20 跑 32B", 4)])
def test_a_tensor_parallel_degree_on_a_named_card_is_its_gpu_count(text, count):
    assert parse(text).requirement.gpu_count == count


def test_a_stated_count_wins_over_the_parallel_degree_and_no_card_no_count():
    assert parse("8x H100, TP=4 with two replicas").requirement.gpu_count == 8
    assert parse("what does TP=4 mean?").requirement.gpu_count is None


@pytest.mark.parametrize("text, gpus", [
    ("two 8xH20 nodes for a 70B fine-tune", 16),
    ("we have two 8x H100 nodes", 16),
    ("2 8-GPU H100 nodes", 16),
    ("a cluster of four 8-GPU H100 servers", 32),
    ("3 x 8xA100 nodes", 24),
    ("两个 8 卡 H20 节点", 16),
    ("2 台 8 卡 A800", 16),
    ("两台8卡H800服务器", 16),
])
def test_the_node_count_written_before_the_gpus_per_node_multiplies_them(text, gpus):
    slots = parse(text).extracted
    assert (slots["gpu_count"], slots["topics"]) == (gpus, ["cluster"])


@pytest.mark.parametrize("text, gpus", [
    ("8x H100 per node, we have 4 such nodes", 32),
    ("each node has 8x H100; 4 of those nodes", 32),
    ("每台 8 卡 H100，我们有 4 台这样的机器", 32),
    ("单机 8 卡 A800，一共 3 台同样的服务器", 24),
])
def test_nodes_like_the_one_described_before_multiply_its_gpus(text, gpus):
    assert parse(text).requirement.gpu_count == gpus


@pytest.mark.parametrize("text, gpus", [("an 8x H100 box", 8), ("16 张 H100，两台机器", 16), ("8x H100 per node", 8)])
def test_one_node_or_a_total_is_not_multiplied(text, gpus):
    assert parse(text).requirement.gpu_count == gpus


def test_a_latency_in_milliseconds_is_no_rtx_card():
    req = parse("TTFT under 4090 ms").requirement
    assert req.gpu is None and [q.value for q in req.quantities if q.role == "ttft"] == [4090]


@pytest.mark.parametrize("text, gpus", [
    ("70B 模型，两台机器 200G 网络，训练会慢吗", 16), ("70B training on two H100 nodes with 200G networking, will it be slow?", 16),
    ("training a 70B across 2 servers, 100G network between them, is that enough?", 16),
    ("三台服务器 100G RoCE，训练 32B 够不够", 24),
])
def test_machines_named_without_a_count_on_a_network_hold_8_gpus_each_assumed(text, gpus):
    from bot.nlu import parse
    parsed = parse(text)
    assert parsed.requirement.gpu_count == gpus
    assert any(s.slot == "gpu_count" and s.kind == "assumed" for s in parsed.spans)
    notice = parsed.notices()
    assert len(notice) == 1 and str(gpus) in notice[0] and ("8" in notice[0])


@pytest.mark.parametrize("text, gpus", [
    ("两台 8 卡 H100，200G 网络，70B 训练会慢吗", 16), ("need 3 L40S nodes for serving llama 3.1 8b, 200 concurrent users", None),
    ("两台 4090 工作站，100G 网络，跑 7B 推理", None), ("两台 4 卡 A100，100G 网络", 8),
])
def test_a_stated_count_a_geforce_box_or_no_network_assumes_nothing(text, gpus):
    from bot.nlu import parse
    parsed = parse(text)
    assert parsed.requirement.gpu_count == gpus
    assert not any(s.kind == "assumed" for s in parsed.spans)


@pytest.mark.parametrize("text", [
    "1) AutoDL 的 4090 机器 nvidia-smi 显示 CUDA Version 12.2，能装 PyTorch 2.11 吗？ 2) 单张 4090 能不能全参微调 7B？",
    "4090 机器。单张 4090 能不能全参微调 7B？",
])
def test_a_gpu_name_before_machine_is_not_a_count_of_machines(text):
    req = parse(text).requirement
    assert (req.gpu, req.gpu_count) == ("rtx-4090", 1)  # the 4090's machine, not 4,090 machines of one card


@pytest.mark.parametrize("text", ["cheapest 8x H100 box? must be SXM, not PCIe or NVL", "8 卡 H100，只要 SXM，不要 PCIe 或 NVL"])
def test_a_ruled_out_pair_of_variants_is_refused_not_compared(text):
    req = parse(text).requirement
    assert sorted(req.refused_gpus) == ["h100-nvl", "h100-pcie"] and not req.gpu_options


def test_a_variant_pair_compared_stays_the_options():
    assert parse("H100 PCIe vs SXM for training?").requirement.gpu_options == ["h100-pcie", "h100-sxm"]
