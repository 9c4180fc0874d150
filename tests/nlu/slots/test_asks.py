"""What a message asks: its parts, each typed, with spans, labels and subjects (bot/nlu/slots/asks.py)."""

import time

import pytest

from bot.nlu import parse
from bot.nlu.slots.asks import MAX_ASKS, read_asks


def asks(text: str):
    return parse(text).requirement.asks


def kinds(text: str) -> list[str]:
    return [a.kind for a in asks(text)]


@pytest.mark.parametrize("text, kind", [
    ("what does an hour of a g5.2xlarge cost on demand?", "price"),
    ("L4 一小时多少钱？", "price"),
    ("Option A $1.80/h, option B $1,100/month, we run 300 h a month — which one is cheaper?", "cost"),
    ("包月 ¥9,000 还是按量 ¥20/小时划算？每月用 200 小时", "cost"),
    ("can a 13B model be fully fine-tuned on two A100 80GB?", "fit"),
    ("Qwen2.5-14B 推理需要多少显存？", "fit"),
    ("which GPU should we rent to serve Llama-3-8B for 30 users?", "select"),
    ("is CUDA 12.8 supported by driver 535?", "compat"),
    # whether the plan is allowed is a licence verdict, however it is worded
    ("can we legally host a paid chatbot on RTX 5090 cards in a colo?", "compat"),
    ("putting 4090s in a rented rack for a customer API — is that allowed?", "compat"),
    ("训练跑着跑着就挂了，dmesg 里有 Xid 79", "diagnose"),
    # a slowdown or a hang said in other words is a symptom to triage, not a topic to explain (#25)
    ("pretraining runs a lot slower on the rented nodes, thoughts?", "diagnose"),
    ("多机任务又卡住了", "diagnose"),
    ("what should we check on a newly rented 4x L40S box? give me the list", "checklist"),
    ("新机器到手，验收清单给一个", "checklist"),
    ("the seller claims 9k tokens/s on our model; what do we ask them and what do we benchmark ourselves?", "checklist"),
    ("what's the difference between NVLink and PCIe for tensor parallel?", "explain"),
    ("we need some GPUs, any recs?", "open"),
    # a premium stated and weighed is a choice, not a price lookup (#24)
    ("deciding between the L40S and the A100 80GB for serving Qwen2.5-14B; is the A100 worth 40% more?", "select"),
    ("A100 还是 H100 训练 13B？H100 贵 50%", "select"),
    ("训一个 7B，L40S 和 A100 租金基本一样，选哪个", "select"),  # a price said, not asked
    ("an 8x 4090 box rents for far less per hour than 2x H100 for our 70B AWQ model, good idea?", "select"),
    # cheaper said, the licence asked: "any licence problem?" is a compat question, not a cost one
    ("we'd rack RTX 5090s for a paid chatbot since they're far cheaper than H100s; any licensing risk?", "compat"),
    # everyday 啥 for 什么: a choice with nothing to size is an open default, not a primer (#22)
    ("部门要搭个知识库问答，该配啥机器？", "open"),
    ("做微调用啥卡好", "open"),
    # which provider is cheap: prices by provider, not a generic primer
    ("租卡哪个平台便宜点", "price"),
    ("4090 哪里租便宜", "price"),
    # a choice, however the options are counted ("台", "个", "家") or the pick is worded
    ("两套方案：8 卡 L20 或 4 卡 H20，推理 Qwen2.5-72B 选哪套", "select"),
    ("serving Mistral-7B: A10 or L4, which one should we go with?", "select"),
    # a plan's speed foreseen is an explanation, not a symptom to triage
    ("4 卡 L40S 走 PCIe 做张量并行会不会很慢", "explain"),
    ("will it be too slow to fine-tune 7B over PCIe on 4x 4090?", "explain"),
    # whether a thing suits a use is a question of its own, not the tail of the part before it
    ("can preemptible VMs be used for an online API?", "explain"),
    ("竞价实例可以拿来做训练吗", "explain"),
    # techniques weighed ("… 有啥区别，选哪个") are explained, not given a hardware default
    ("DDP 和 DeepSpeed 有什么区别，选哪个", "explain"),
    ("what's the difference between vLLM and SGLang, which one should we pick?", "explain"),
    # how long until money comes back is a payback, not a training time
    ("8 卡 H100 服务器 ¥200 万，自己买要多久回本", "cost"),
])
def test_each_kind_is_read_from_its_cues(text, kind):
    assert kinds(text)[0] == kind


def test_a_suitability_question_after_a_price_is_a_part_of_its_own():
    got = kinds("what does an L4 cost per hour? can spot instances be used for serving on it?")
    assert got == ["price", "explain"]


def test_numbered_parts_are_separate_asks_labelled_as_written():
    got = asks("two things: 1) can Llama-3-8B run on one L4 2) what does an L4 cost per hour")
    assert [(a.kind, a.label) for a in got] == [("fit", "1)"), ("price", "2)")]
    text = "two things: 1) can Llama-3-8B run on one L4 2) what does an L4 cost per hour"
    assert text[got[1].start:got[1].end].strip() == got[1].text == "what does an L4 cost per hour"


def test_chinese_numbered_parts_without_spaces():
    got = asks("两个问题：1）L40S 能跑 Qwen2.5-7B 推理吗 2）一小时多少钱")
    assert [(a.kind, a.label) for a in got] == [("fit", "1)"), ("price", "2)")]


def test_a_numbered_part_without_a_cue_continues_the_one_before():
    got = asks("(a) min driver for CUDA 12.4? (b) can our 535 nodes run a cu124 wheel? (c) and the H100 box?")
    assert [a.kind for a in got] == ["compat", "compat", "compat"]
    assert got[2].label == "(c)"


def test_question_marks_split_parts_of_different_kinds():
    assert kinds("how much is an 8x H100 node per hour? and what should I check when it arrives?") == [
        "price", "checklist"]


def test_a_part_without_a_cue_continues_the_ask_before_it():
    got = asks("what does Xid 79 mean? is the GPU broken?")
    assert len(got) == 1 and got[0].kind == "diagnose"


def test_subjects_are_those_named_inside_the_part():
    got = asks("1) can Llama-3-8B run on one L4 2) and how much does an H100 cost per hour")
    assert "l4" in got[0].subjects and "h100" not in got[0].subjects
    assert "h100" in got[1].subjects


def test_a_message_without_any_cue_gets_one_ask_from_what_was_read():
    assert kinds("Llama-3-70B on 4x A100 80GB") == ["fit"]
    assert kinds("hello") == ["open"]


def test_a_kv_cache_question_is_inference():
    assert parse("how big is the KV cache of Llama-3-8B at 32k context?").requirement.workload == "inference"


def test_the_count_of_asks_is_bounded_and_long_messages_stay_fast():
    many = " ".join(f"{i}) what does an L4 cost?" for i in range(1, 10))
    assert len(asks(many)) <= MAX_ASKS
    long = "is this ok? " * 1500  # 18 KB of parts
    start = time.perf_counter()
    got = asks(long)
    assert len(got) <= MAX_ASKS and time.perf_counter() - start < 5  # wide margin: linear, not quadratic


def test_a_question_without_a_cue_is_context_for_the_cue_that_follows():
    got = asks("实测 HBM 带宽才 3.9 TB/s，官网标的不是 4.8 吗？正常吗")
    assert [a.kind for a in got] == ["diagnose"] and got[0].start == 0


@pytest.mark.parametrize("text", ["TPOT is bad with TP=8 on 8x L20", "8 张 L20 上 TP=8，TPOT 很差",
                                  "the vLLM endpoint on our A10G box is really slow, ideas?",
                                  # a measured figure doubted against the spec sheet
                                  "our L40S only hits 250 TFLOPS fp16 against a 733 datasheet, did the host shortchange us?",
                                  "租来的 4090 跑分只有官方的一半，是不是缩水卡"])
def test_a_symptom_is_a_diagnosis(text):
    assert kinds(text)[0] == "diagnose"


def test_a_preamble_that_asks_nothing_is_the_context_of_the_numbered_parts():
    asks = read_asks("plan is 16x h100 for 3 weeks to pretrain a 3b model. a) is 3 wks realistic b) total cost")
    assert [(a.kind, a.label) for a in asks] == [("cost", "a)"), ("cost", "b)")]
    # a preamble that asks, or numbered parts without a cue of their own, keep it
    asks = read_asks("we need the price of an h100: 1) on aws 2) on runpod")
    assert asks[0].kind == "price" and asks[0].label is None


def test_a_notice_question_and_a_resume_question_are_two_parts():
    got = asks("用竞价实例训练，被回收前会有多长时间的通知？之后怎么恢复训练？")
    assert [a.text for a in got] == ["用竞价实例训练，被回收前会有多长时间的通知？", "之后怎么恢复训练？"]
    got = asks("spot or on-demand for a 3-node run? and what checkpoint interval should we pick?")
    assert len(got) == 2 and got[1].text.startswith("and what checkpoint interval")


@pytest.mark.parametrize("text", [
    # a link, a benchmark or a colleague's claim weighed for a sized job: explained, not sized (#22)
    "we fine-tune a 34B model on two 8x A100 boxes joined by 25GbE; is that sufficient or do we want RDMA?",
    "三台 8 卡 H800 训练 Qwen2.5-72B，机器之间是 100G 以太网，够不够？",
    "Llama-3-70B on 4x H200 behind a chatbot with a p99 latency budget: the provider sends MLPerf numbers. Should we trust those?",
    "Qwen2.5-32B 放在 4 卡 L40S 上做在线问答，对方给了一个跑分，对我们有参考价值吗？",
    "My manager says a 13B training job on 16 A100s needs the SXM version for NVLink. Is she right?",
    # speed compared between two named GPUs: answered from their specs, not a pick
    "L40S vs A100: which is faster, and by how much?",
    "H100 和 H20 哪个快？快多少？",
])
def test_a_link_benchmark_claim_or_speed_question_is_an_explanation(text):
    assert kinds(text)[0] == "explain"


@pytest.mark.parametrize("text", [
    "Can two RTX 4090 without NVLink run Qwen2.5-32B in 4-bit?",
    "Is one H100 enough to serve Qwen2.5-32B for 20 users?",
    "两张 4090 没有 NVLink 能跑 Qwen2.5-72B 的 4bit 吗？",
])
def test_naming_a_link_does_not_turn_a_fit_question_into_an_explanation(text):
    assert kinds(text) == ["fit"]


def test_a_difference_asked_in_other_words_is_a_part_of_its_own():
    parts = asks("两个问题：1）A800 跟 H800 有啥不同 2）训练 7B 用哪个")
    assert len(parts) == 2 and "有啥不同" in parts[0].text


def test_the_legal_department_is_not_a_licence_question_of_its_own():
    got = asks("we plan a paid endpoint on RTX 5090s in a colo. licensing ok? our legal team wants to know")
    assert [a.kind for a in got] == ["compat"]


@pytest.mark.parametrize("text", ["whats the price of a g6e.2xlarge in eu-west-1?",
                                  "what's on-demand for p4de.24xlarge in us-west-2 today?"])
def test_a_price_asked_in_chat_spelling_is_a_price(text):
    assert kinds(text) == ["price"]


@pytest.mark.parametrize("text, kind", [
    ("our LoRA run got ~35% slower once we split it over 3 nodes, what changed?", "diagnose"),
    ("pretraining became 2x slower on the new H800 pod", "diagnose"),
])
def test_a_run_that_got_slower_by_a_stated_amount_is_a_diagnosis(text, kind):
    assert kinds(text)[0] == kind


@pytest.mark.parametrize("text, kind", [
    ("领导让我配一台跑大模型的机器，推荐一下？", "open"),  # a recommendation asked with nothing sized: a default
    ("麻烦看下这台服务器能不能用", "checklist"),  # a machine judged with no job named: its acceptance
    ("is the new node ok? we just got the keys", "checklist"),
])
def test_a_recommendation_or_a_machine_judged_with_nothing_sized(text, kind):
    assert kinds(text)[0] == kind


def test_a_part_about_restarting_by_itself_is_an_explanation_not_the_price_before_it():
    got = kinds("1) what does an A100 cost per hour? 2) and how can the job auto-restart after a node dies?")
    assert got == ["price", "explain"]


@pytest.mark.parametrize("text", ["1) can we full fine-tune a 13B on 16x A100? 2) which ZeRO stage then?",
                                  "1）13B 全参能在 16 卡 A800 上跑吗 2）ZeRO 用哪个 stage 好"])
def test_a_part_asking_which_zero_stage_is_an_explanation_of_the_stages(text):
    assert kinds(text)[1] == "explain"


@pytest.mark.parametrize("text", ["哪个平台租4090便宜", "哪家租 RTX 4090 整机比较便宜？", "哪个云上跑 8 卡 H100 最便宜"])
def test_which_provider_is_cheap_is_a_price_whatever_stands_between(text):
    assert kinds(text)[0] == "price"


def test_which_provider_is_cheap_does_not_reach_across_a_sentence_end():
    # the 便宜 of another sentence is not what "哪家" asks about
    assert kinds("哪家的售后好一点？上次买的卡很便宜")[0] != "price"


@pytest.mark.parametrize("text", ["Qwen 72B inference on A100s, how many?", "serving a 70B model on L40S. how many would it take?",
                                  "70B 推理用 L40S 要几张", "deepseek 32B 用 H20 得几台？"])
def test_a_bare_how_many_after_named_hardware_wants_the_count(text):
    parsed = parse(text).requirement
    assert "gpu_count" in parsed.asks[0].wants and parsed.intent == "how-many"


def test_how_many_of_something_else_does_not_want_the_count():
    parsed = parse("how many tokens per second on an H100?").requirement
    assert "gpu_count" not in parsed.asks[0].wants and parsed.intent != "how-many"


@pytest.mark.parametrize("text", ["they quoted $1.90/hr per A100, is that ok?", "8x H200 at $3.60 per GPU-hour, is this reasonable?",
                                  "L40S 报价 ¥9/卡时，这个价格正常吗"])
def test_a_quoted_rate_judged_is_a_price_not_a_diagnosis(text):
    assert kinds(text)[0] == "price"


def test_a_symptom_next_to_a_rate_is_still_diagnosed():
    assert kinds("we pay $2/hr and GPU utilization is only 20%, is that normal?")[0] == "diagnose"


@pytest.mark.parametrize("text", [
    "新租的 H100 节点，H2D 23 GB/s，BF16 GEMM 760 TFLOPS，有没有问题？",
    "device to host is 12 GB/s on our A100 box, something wrong?",
    "NCCL all_reduce busbw 160 GB/s on 8x H800, normal?",
    "our H100 does 520 TFLOPS bf16 gemm, anything wrong?",
    "A100 上 H2D 只有 11 GB/s，正常吗",
    "L40S box: host to device 9 GB/s, is that a problem?",
    "满载 88 度，频率掉到 1400 MHz，有没有问题",
    "our H100 shows 2.9 TB/s on the membw test, is something off?",
])
def test_a_measured_figure_judged_is_a_diagnosis_not_a_capability(text):
    assert kinds(text) == ["diagnose"]


@pytest.mark.parametrize("text, kind", [
    # a figure said as the spec, a link named, a figure for a sign-off: not a reading to diagnose
    ("is 200 Gb/s per GPU enough for training 70B across nodes?", "fit"),
    ("what H2D bandwidth should we expect on an H100?", "explain"),
    ("H200 node acceptance: pinned host to device copy reads 27 GB/s, fine?", "checklist"),
    # the datasheet's figure quoted for a plan is no reading
    ("H100 官方标称显存带宽 3.35 TB/s，做 70B 推理有没有问题？", "fit"),
    ("the H200 is rated 4.8 TB/s memory bandwidth, any problem serving a 70B on it?", "fit"),
    # a plan judged for a job is a fit, whatever figure it quotes; a figure measured on the job stays a reading
    ("H100 has 989 TFLOPS bf16, is that fine for training 7B?", "fit"),
    ("is it ok to run Llama 8B on one L4?", "fit"),
    ("our L40S gets 300 TFLOPS running a 7B LoRA, is that ok for this card?", "diagnose"),
])
def test_a_figure_that_is_no_reading_judged_is_not_diagnosed(text, kind):
    assert kinds(text) == [kind]


@pytest.mark.parametrize("text", [
    "Applications Clocks Setting shows Active",
    "H100 上 SW Power Cap 一直显示 Active，有问题吗",
    "nvidia-smi says HW Slowdown is active on GPU 2, should I worry?",
    "Applications Clocks Setting 显示 Active 是什么情况",
])
def test_a_clock_event_reason_said_active_is_a_diagnosis(text):
    assert kinds(text) == ["diagnose"]


def test_a_clock_event_reason_asked_about_is_explained():
    assert kinds("what does SW Power Cap mean?") == ["explain"]
    assert kinds("what do clock event reasons on the H100 mean?") == ["explain"]


@pytest.mark.parametrize("text", [
    "RTX 5090 上 torch 2.4 能跑吗",
    "will torch 2.6 work on B200s?",
    "does torch 2.4 support the RTX 5090?",
    "torch 2.5 支持 H20 吗",
    "does vllm 0.6 support the H20?",
])
def test_a_framework_release_asked_of_a_card_is_compat(text):
    assert kinds(text) == ["compat"]


def test_a_framework_release_with_a_job_to_size_stays_a_fit():
    assert kinds("will torch 2.4 with a 7B LoRA fit on a 5090?") == ["fit"]


@pytest.mark.parametrize("text", [
    "can we rent out our 4090s on vast.ai?",
    "4090 放机房对外出租，授权上有问题吗",
    "we want to list our 4090 boxes on vast.ai and sell the GPU time, licence ok?",
    "把 5090 服务器租给客户用可以吗？",
    "4090 机器对外出租会不会有授权风险",
    "is it ok to offer our 4090 rig on runpod community cloud?",
    "could we resell 5090 compute to other startups?",
])
def test_geforce_cards_rented_out_or_their_licence_doubted_is_compat(text):
    assert kinds(text) == ["compat"]


@pytest.mark.parametrize("text, kind", [
    ("4090 出租多少钱？", "price"),   # what renting one costs
    ("can we rent 4090s on vast.ai?", "fit"),  # renting one, not renting ours out
])
def test_renting_a_geforce_card_is_not_a_licence_question(text, kind):
    assert kinds(text) == [kind]


@pytest.mark.parametrize("text", [
    "loss 变 NaN 了，是不是显卡坏了？",
    "training loss went NaN after 2k steps, bad GPU?",
    "loss is nan after 2k steps, why?",
    "训练 loss 突然变成 nan",
    "grad norm went inf then loss nan on 8x H100, hardware?",
])
def test_a_loss_gone_nan_is_a_diagnosis(text):
    assert kinds(text) == ["diagnose"]


@pytest.mark.parametrize("text", [
    "we just got the node, how do we accept it?",
    "how should we accept delivery of the new H100 servers?",
    "new 8x H100 box arrived, how do we verify it's good before paying?",
    "got the rented node today, how do I validate it?",
    "验收怎么做",
    "机器交付了，我们该怎么验机",
])
def test_accepting_a_delivered_node_is_a_checklist(text):
    assert kinds(text) == ["checklist"]


@pytest.mark.parametrize("text", [
    "How much does the H800's 400 GB/s NVLink hurt TP=8 serving of a 70B vs H100's 900?",
    "how much would the slower NVLink on H800 slow down our 70B TP=8 inference compared to H100?",
    "how much does it matter that H800 has 400 GB/s NVLink vs 900 on H100?",
])
def test_how_much_a_difference_hurts_is_not_a_price(text):
    assert "price" not in kinds(text)


@pytest.mark.parametrize("text", ["how much does an H800 cost per hour?", "how much is an H100?"])
def test_how_much_a_card_costs_stays_a_price(text):
    assert kinds(text) == ["price"]


def test_how_big_an_impact_is_not_a_memory_fit():
    assert "fit" not in kinds("H800 的 NVLink 对 70B TP=8 推理有多大影响？")
    assert "fit" not in kinds("H800 NVLink 阉割到 400GB/s，对 70B TP8 推理影响多大？")


def test_held_up_by_the_network_asked_of_a_plan_is_not_a_fault():
    assert "diagnose" not in kinds("两台 8 卡 H100，100G 网络，7B DDP 和 70B FSDP 哪个会被网络卡住？")
    assert kinds("训练卡住了，NCCL 超时")[0] == "diagnose"


@pytest.mark.parametrize("text", [
    "we train a 13B model on 8 GPUs; H100 SXM nodes or the cheaper H100 PCIe ones, is SXM worth paying for?",
    "8 卡训练 13B，H100 SXM 还是便宜些的 H100 PCIe，SXM 值不值得多花钱？",
])
def test_whether_the_dearer_option_is_worth_its_price_is_a_choice_not_a_cheaper_one(text):
    assert kinds(text) == ["select"]  # weighed on what it does for the job, not which costs less an hour


def test_a_stated_count_and_cheaper_still_prices_the_setups():
    assert kinds("would 8x L40S be cheaper than 8x H100 for a 13B LoRA run?") == ["cost"]


@pytest.mark.parametrize("text, labels", [
    ("问三件事：① 阿里云 gn8v 是什么卡？② 用它全参训 Qwen2.5-32B 要几台？③ 想用抢占式实例省钱，有什么坑？", ["①", "②", "③"]),
    ("two things: ① price of an H100 on RunPod ② does Llama 70B fit on two of them", ["①", "②"]),
])
def test_circled_numbers_label_the_parts(text, labels):
    """"①" folds to the digit 1 under NFKC; the scan keeps it, so the parts keep the user's labels."""
    assert [a.label for a in asks(text)] == labels


@pytest.mark.parametrize("text, kind", [
    ("用 H20 全参训 Qwen2.5-32B 要几台（8 卡规格）？", "fit"),  # a configuration, not the card's spec sheet
    ("H20 的规格是什么", "spec"),
])
def test_a_configuration_word_is_not_a_spec_ask(text, kind):
    assert kinds(text)[0] == kind, asks(text)


@pytest.mark.parametrize("text, kinds_read", [
    ("300 H100 GPU-hours: lambda, runpod or vast, which is cheapest & any gotchas", ["price", "checklist"]),
    ("which is cheapest for 8x A100 on RunPod and any pitfalls?", ["price", "checklist"]),
])
def test_gotchas_joined_on_are_an_ask_of_their_own(text, kinds_read):
    assert kinds(text) == kinds_read, asks(text)


@pytest.mark.parametrize("text, kind", [
    ('pretraining a 13B on 8 nodes x 8 H100. provider A = p5 w/ EFA, provider B = cheaper 8xH100 boxes but only "100G RoCE" '
     "per node. does the network actually matter that much?", "explain"),
    ("which is cheaper, 8x A100 or 4x H100 for a 13B fine-tune?", "cost"),
])
def test_an_option_described_as_cheaper_is_not_a_cost_question(text, kind):
    assert kinds(text)[0] == kind, asks(text)


@pytest.mark.parametrize("text", [
    "serve llama-3.1-70b in fp8, 32k ctx, 16 concurrent. how many H100 80G do i need? 2 enough??",
    "Qwen2.5-72B bf16 推理，8k 上下文 16 并发，要几张 A800？两张够吗？",
])
def test_a_guessed_count_belongs_to_the_question_before_it(text):
    """"2 enough??" after "how many?" is the user's guess at that count, not a second ask sized on one GPU."""
    assert len(asks(text)) == 1 and asks(text)[0].text.endswith(("enough??", "够吗？"))


@pytest.mark.parametrize("text, expected", [
    # the card is chosen and the provider is what is asked: its prices by provider, not a sizing
    ("where should we rent H100s?", ["price"]),
    ("想租几台 4090 跑 LoRA，用哪家？", ["price"]),
    ("which cloud is best for an L40S?", ["price"]),
    # no card: the provider kinds by default
    ("国内租 GPU 服务器，找哪家比较靠谱", ["open"]),
    ("训练用的 GPU 云哪家最靠谱？", ["open"]),
    # the options of the choice just asked are that choice, one ask
    ("租 H100 去哪家比较好？RunPod 还是 Cherry", ["select"]),
    ("which box should we pick for the 13B LoRA? L40S or A100?", ["select"]),
])
def test_a_provider_choice_is_read_by_what_is_still_open(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("text", [
    "got a single A100 instance, looks fine so far. what else should we verify before the long job starts?",
    "1x L40S VM is up. what else to test before we trust it?",
    "单卡 H100 云主机开好了，跑训练之前还要查什么？",
])
def test_what_else_to_check_is_a_checklist(text):
    assert "checklist" in kinds(text)
