"""bot.nlu.slots.keywords: optimizer, deployment, billing, precision, method, workload, topics."""

import pytest

from bot.nlu import parse


def test_settings_in_one_question():
    slots = parse("fine-tune with 8-bit adam in bf16 in our data center").extracted
    assert (slots["optimizer"], slots["precision"], slots["deployment"], slots["workload"]) == (
        "adam8bit", "bf16", "datacenter", "training")


def test_a_method_implies_training():
    result = parse("全参微调 7B")
    assert (result.extracted["method"], result.extracted["workload"]) == ("full", "training")
    assert [s.kind for s in result.spans if s.slot == "workload"] == ["implied"]


@pytest.mark.parametrize("text, workload", [("训练 100 小时", "training"), ("deploy on spot instances", "inference"),
                                            ("train then serve it", "training"), ("想训一个 14B 的模型", "training"),
                                            ("4 张卡训 7B 够吗", "training"),
                                            # a serving-only checkpoint format implies serving; a method still wins
                                            ("Qwen2.5-32B as AWQ int4 on two L40S", "inference"),
                                            ("QLoRA on top of a GPTQ checkpoint", "training")])
def test_the_workload(text, workload):
    assert parse(text).extracted["workload"] == workload


def test_the_first_billing_word_is_the_billing():
    assert parse("deploy on spot instances").extracted["billing"] == "spot"


def test_geforce_in_a_data_centre_is_a_licence_question():
    assert "license" in parse("数据中心里能不能用 GeForce 卡？").extracted["topics"]
    assert "interconnect" in parse("H100 SXM vs H100 PCIe").extracted["topics"]


@pytest.mark.parametrize("text, deployment", [
    ("we'll bill our clients per request for a model hosted on 5090s", "commercial-hosting"),
    ("打算向客户收费，用几台 4090 提供大模型接口", "commercial-hosting"),
    ("a reseller quotes 2.10 an hour for an H100", None),  # the vendor's trade, not where ours runs
    ("按量付费的 L40S 一小时多少钱", None),  # a billing mode of ours, not a paid service
])
def test_a_service_sold_to_others_is_commercial_hosting(text, deployment):
    assert parse(text).requirement.deployment == deployment


@pytest.mark.parametrize("text, billing", [
    ("fine-tune a 13B, not spot please, on-demand is fine", "on-demand"),
    ("no spot: reserved only for the H100 nodes", "reserved"),
    ("我们不用抢占式实例，包月 A100 多少钱", "subscription"),
    ("不要抢占式，训练 7B", None),
    ("deploy on spot instances, not on-demand", "spot"),  # the refused mode is the other one
])
def test_a_refused_billing_mode_is_not_the_billing(text, billing):
    extracted = parse(text).extracted
    assert extracted.get("billing") == billing
    assert "spot" not in extracted.get("billing_options", []) or billing == "spot"


def test_a_refused_spot_mode_does_not_bring_spot_warnings():
    from bot.advisor import Advisor

    advisor = Advisor()

    def rules(text: str) -> list[str]:
        return [f.rule for f in advisor.answer(parse(text, advisor.catalog).requirement, "zh").findings]

    assert not [r for r in rules("不要抢占式，按量 A100 训练 7B 一个月多少钱") if r.startswith("spot.")]
    assert [r for r in rules("用抢占式 A100 训练 7B 一个月多少钱") if r.startswith("spot.")]  # the same plan on spot warns


@pytest.mark.parametrize("text, deployment", [
    ("we want a help desk bot on Llama 3 8B", None), ("an IT service desk assistant with a 13B model", None),
    ("a 4090 box under my desk for an 8B model", "workstation"), ("my desktop has a 3090", "workstation"),
    ("台式机上跑 8B", "workstation")])
def test_a_desk_is_the_users_machine_only_where_the_machine_sits_at_it(text, deployment):
    assert parse(text).requirement.deployment == deployment


@pytest.mark.parametrize("text", [
    "mostly serving Qwen-72B behind an API, plus the odd LoRA fine-tune now and then",
    "our main workload is inference; we do some QLoRA runs too",
    "主要做推理，偶尔做一点 LoRA 微调",
    "推理为主，少量全参微调",
])
def test_the_main_workload_named_as_such_wins_over_an_occasional_fine_tune(text):
    assert parse(text).extracted["workload"] == "inference"


@pytest.mark.parametrize("text", ["LoRA fine-tune, then serve it", "先微调再部署推理", "mostly fine-tuning, some serving"])
def test_without_inference_as_the_main_workload_training_still_wins(text):
    assert parse(text).extracted["workload"] == "training"


@pytest.mark.parametrize("text", ["a low-latency LLM API for a 7B, L4 or L40S?", "我们要做一个 chat API，7B 模型，用 L4 还是 L40S？",
                                  "backing a completions API with a 13B model"])
def test_an_llm_api_is_serving(text):
    assert parse(text).extracted["workload"] == "inference"
