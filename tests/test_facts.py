"""The fact builders (bot.facts): each source's facts, typed, with what the rules need derived."""

from __future__ import annotations

import re

import datetime as dt

import pytest
from pydantic import ValidationError

from bot.engine.fact_kinds import (
    BenchmarkResultFact,
    CostFact,
    CudaReleaseFact,
    HostExpectFact,
    HostFact,
    GpuFact,
    HostGpuFact,
    HostXidFact,
    RequirementFact,
    XidFact,
)
from bot.facts import (
    cost_facts,
    cuda_release_fact,
    host_facts,
    question_facts,
    recognise_gpu,
    requirement_fact,
    sizing_facts,
    trend_facts,
)
from bot.host_report import BenchmarkResult, GpuCounters, GpuProbe, HostCheck, KernelLogReport, ProbeReport, XidEvent
from bot.knowledge import default_catalog, load_catalog
from bot.models import Cost, Requirement
from bot.sizing.estimate import ModelShape
from bot.sizing.sizer import size_requirement

T0 = dt.datetime(2025, 3, 1, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


# -- a question -------------------------------------------------------------------------------

@pytest.mark.parametrize("cuda,driver_cuda,relation", [
    ("12.4", "12.4", "within"), ("12.2", "12.4", "within"), ("12.8", "12.4", "minor-compat"), ("13.0", "12.4", "newer-major"),
])
def test_the_toolkit_is_set_against_the_driver_s_cuda(cuda, driver_cuda, relation):
    fact = requirement_fact(Requirement(cuda=cuda, driver_cuda=driver_cuda), named=[], family=None, instance=None)
    assert fact.toolkit_vs_driver == relation
    assert (fact.cuda_num, fact.driver_cuda_major) == (int(cuda.split(".")[0]) * 1_000_000 + int(cuda.split(".")[1]) * 1000, 12)


def test_requirement_flags_come_from_the_question(catalog):
    req = Requirement(workload="training", method="qlora", params_b=7, gpu="rtx-4090", gpu_count=2, billing="spot",
                      driver="535.104.05", topics=["spot"])
    fact = requirement_fact(req, named=[catalog.gpus["rtx-4090"]], family=None, instance=None, unknown_gpu_fits=True)
    assert (fact.has_size, fact.gpu_named, fact.multi_gpu, fact.spot, fact.peft) == (True, True, True, True, True)
    assert (fact.driver_major, fact.driver_num, fact.unknown_gpu_fits) == (535, 535104005, True)
    assert fact.sizing_question and fact.other_focus  # sized, but spot is asked about too
    bare = requirement_fact(Requirement(), named=[], family=None, instance=None)
    assert (bare.has_size, bare.gpu_named, bare.multi_gpu, bare.spot, bare.sizing_question) == (False,) * 5


def test_a_family_lists_its_variants_and_an_instance_its_quota(catalog):
    variants = [catalog.gpus[i] for i in catalog.resolve_gpu("h100")]
    instance = catalog.instance("p5.48xlarge")
    fact = requirement_fact(Requirement(gpu="h100", billing="spot"), named=variants, family="h100", instance=instance)
    assert fact.gpu_variants == ", ".join(g.id for g in variants) and "h100-sxm" in fact.gpu_variants
    assert (fact.instance_family, fact.quota_code) == ("p5", instance.quota_code("spot"))


def test_question_facts_mark_the_gpus_it_concerns_and_look_up_xids(catalog):
    facts = question_facts(catalog, Requirement(gpu="l40s", cuda="12.4", xids=[79, 999]), named=[catalog.gpus["l40s"]],
                           selected={"l40s"}, family=None, instance=None)
    selected = [f.gpu for f in facts if type(f).__name__ == "GpuFact" and f.selected]
    assert selected == ["l40s"]
    assert sum(type(f).__name__ == "GpuFact" for f in facts) == len(catalog.gpus)
    xids = {f.code: f for f in facts if isinstance(f, XidFact)}
    assert xids[79].known and "bus" in xids[79].meaning.lower()
    assert not xids[999].known and xids[999].meaning_zh
    [release] = [f for f in facts if isinstance(f, CudaReleaseFact)]
    assert (release.version, release.major, release.known_release) == ("12.4", 12, True)
    assert len([f for f in facts if isinstance(f, RequirementFact)]) == 1


def test_every_question_states_the_same_frozen_gpu_facts_of_its_catalog(catalog):
    def gpu_facts(selected: set[str], of=catalog):
        return {f.gpu: f for f in question_facts(of, Requirement(gpu="l40s"), named=[], selected=selected,
                                                 family=None, instance=None) if isinstance(f, GpuFact)}

    first, again = gpu_facts({"l40s"}), gpu_facts({"l40s"})
    assert all(first[g] is again[g] for g in first), "built again for the same catalog"
    assert first["l40s"].selected and not gpu_facts(set())["l40s"].selected
    with pytest.raises(ValidationError):  # shared by every question: nobody may change one
        first["l40s"].selected = False
    reloaded = load_catalog()  # a reload is a new catalog, with facts of its own
    assert reloaded is not catalog and gpu_facts({"l40s"}, reloaded)["l40s"] is not first["l40s"]
    assert gpu_facts({"l40s"}, reloaded)["l40s"] == first["l40s"]


def test_a_cuda_major_outside_the_table_has_no_release_fact(catalog):
    assert cuda_release_fact(catalog, "99.0") is None


def test_cost_facts_mark_the_cheapest_the_runner_up_and_the_fastest_per_currency():
    costs = [Cost(label="A", hourly_rate=10, hours=100, total=1000), Cost(label="B", hourly_rate=5, hours=300, total=1500),
             Cost(label="C", hourly_rate=3, hours=900, total=2700), Cost(label="D", hourly_rate=30, hours=50, total=1500, currency="CNY")]
    facts = {f.label: f for f in cost_facts(costs, stated=True)}
    assert [l for l, f in facts.items() if f.cheapest] == ["A", "D"]
    assert [l for l, f in facts.items() if f.runner_up] == ["B"]
    assert [l for l, f in facts.items() if f.fastest] == ["D"]
    assert all(isinstance(f, CostFact) and f.stated for f in facts.values())
    assert cost_facts([], stated=False) == []


# -- a sizing result --------------------------------------------------------------------------

def test_sizing_facts_carry_the_estimate_and_each_candidate(catalog):
    req = Requirement(workload="training", params_b=7, gpu="rtx-4090", dataset_tokens_b=1)
    sizing = size_requirement(req, ModelShape(params_b=7), catalog, {"rtx-4090"})
    facts = sizing_facts(sizing)
    estimate, *rest = facts
    assert estimate.total_gb == round(sizing.memory.total, 3) or estimate.total_gb == sizing.memory.as_dict()["total"]
    assert estimate.any_single_fit is any(c.fits for c in sizing.candidates if c.count == 1)
    assert estimate.training_tokens_b == pytest.approx(1.0)
    candidates = [f for f in rest if type(f).__name__ == "CandidateFact"]
    assert len(candidates) == len(sizing.candidates)
    assert {c.gpu for c in candidates if c.selected} == {"rtx-4090"}
    assert all(c.crosses_nodes == (c.count > 8) for c in candidates)
    costs = [f for f in rest if isinstance(f, CostFact)]
    assert len(costs) == len(sizing.costs) and not any(c.stated for c in costs)
    assert not any(isinstance(f, CostFact) for f in sizing_facts(sizing, with_costs=False))


# -- a probe report ---------------------------------------------------------------------------

def _probe(**fields) -> GpuProbe:
    return GpuProbe(**{"index": 0, "bus_id": "00000000:19:00.0", "name": "NVIDIA H100 80GB HBM3", **fields})


def test_host_facts_from_a_probe_report(catalog):
    report = ProbeReport(source="nvml", driver="535.161.08", cuda_driver="12.2", gpus=[
        _probe(clock_event_reasons=["hw_power_brake_slowdown"], pcie_gen_current=4, pcie_gen_max=5,
               retired_pages_sbe=1, retired_pages_dbe=2, utilization_gpu_pct=90),
        _probe(index=1, bus_id="00000000:3B:00.0", clock_event_reasons=["gpu_idle"]),
    ], kernel_log=KernelLogReport(readable=True, events=[
        XidEvent(code=79, pci="PCI:0000:3b:00", message="fell off", time="t1"),
        XidEvent(code=79, pci="PCI:0000:3b:00", message="fell off again", time="t2"),
    ]))
    bench = [BenchmarkResult(kind="matmul", status="ok", gpu=0, precision="bf16", measured=494.7, unit="TFLOPS")]
    facts = host_facts(catalog, "h1", "datacenter", "12.4", report, bench, expect_gpu="H100", expect_count=8)
    [host] = [f for f in facts if isinstance(f, HostFact)]
    assert (host.gpu_count, host.driver_num, host.team_cuda_num, host.gpu_names) == (
        2, 535161008, 12004000, "NVIDIA H100 80GB HBM3")
    first, second = [f for f in facts if isinstance(f, HostGpuFact)]
    assert (first.gpu, first.power_throttle, first.thermal_throttle, first.pcie_downgraded, first.busy) == (
        "h100-sxm", True, False, True, True)
    assert first.retired_pages_total == 3 and second.busy is False and second.power_throttle is False
    [xid] = [f for f in facts if isinstance(f, HostXidFact)]
    assert (xid.count, xid.first_seen, xid.last_seen, xid.last_message, xid.known) == (2, "t1", "t2", "fell off again", True)
    [matmul] = [f for f in facts if isinstance(f, BenchmarkResultFact)]
    assert (matmul.expected, matmul.percent) == (catalog.gpus["h100-sxm"].dense_tflops["bf16"],
                                                 round(494.7 / catalog.gpus["h100-sxm"].dense_tflops["bf16"] * 100))
    [expect] = [f for f in facts if isinstance(f, HostExpectFact)]
    assert (expect.matches_gpu, expect.matches_count, expect.actual_count) == (True, False, 2)
    assert [f.version for f in facts if isinstance(f, CudaReleaseFact)] == ["12.4"]


@pytest.mark.parametrize("expect,gpu,matches", [
    ("H100", "h100", True), ("h100-sxm", "h100-sxm", True), ("h100-pcie", "h100-pcie", False),
    ("A100", "a100", False), ("Z9000", "Z9000", False),
])
def test_the_inventory_s_expected_gpu_against_the_probe(catalog, expect, gpu, matches):
    report = ProbeReport(source="nvml", gpus=[_probe(), _probe(index=1, bus_id="00000000:3B:00.0")])
    [fact] = [f for f in host_facts(catalog, "h1", "datacenter", None, report, expect_gpu=expect)
              if isinstance(f, HostExpectFact)]
    assert (fact.gpu, fact.matches_gpu, fact.count, fact.matches_count, fact.actual_gpus) == (
        gpu, matches, None, True, "h100-sxm")


def test_unknown_throttle_reasons_stay_unknown(catalog):
    [_, gpu] = host_facts(catalog, "h1", "datacenter", None, ProbeReport(source="nvml", gpus=[_probe()]))
    assert (gpu.power_throttle, gpu.thermal_throttle, gpu.throttle_reasons, gpu.pcie_downgraded) == (None, None, None, None)


@pytest.mark.parametrize("name,expected", [
    ("NVIDIA H100 80GB HBM3", "h100-sxm"), ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"), ("NVIDIA L40S", "l40s"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"), ("NVIDIA H200", "h200-sxm"), ("Tesla T4", "t4"), ("Tesla P4", None),
])
def test_product_names_are_recognised(catalog, name, expected):
    assert recognise_gpu(catalog, name) == expected


@pytest.mark.parametrize("name,memory_mib,expected", [
    # A name the catalog knows as a name or alias wins over the patterns (GH200 is not an H200).
    ("NVIDIA GH200 480GB", None, "gh200-96gb"), ("NVIDIA GeForce RTX 4090 D", None, "rtx-4090d"),
    ("NVIDIA A800-SXM4-80GB", None, "a800-80gb-sxm"), ("NVIDIA L20", None, "l20"),
    ("NVIDIA H800 PCIe", None, "h800-pcie"), ("NVIDIA H800", 81559, "h800-sxm"),
    # A family's bare name is told apart by the memory the probe read; without it, not guessed.
    ("NVIDIA H20", 97871, "h20-96gb"), ("NVIDIA H20", 143771, "h20-141gb"), ("NVIDIA H20", None, None),
])
def test_captured_names_are_recognised_with_the_probe_s_memory(catalog, name, memory_mib, expected):
    assert recognise_gpu(catalog, name, memory_mib) == expected


def test_a_pasted_gpu_without_a_name_is_the_model_the_question_names(catalog):
    from bot.diagnostics.models import Paste
    from bot.facts import paste_facts

    report = ProbeReport(source="nvidia-smi-text", gpus=[
        GpuProbe(index=0, bus_id="", remapped_rows_uncorrectable=2, remapped_rows_pending=True).mark_unsupported(),
        GpuProbe(index=1, bus_id="", name="NVIDIA H20", memory_total_mib=97871).mark_unsupported()])
    paste = Paste(report=report)

    def names(**fields) -> list[str]:
        req = Requirement(pasted=paste, **fields)
        return [f.name for f in paste_facts(catalog, req) if type(f).__name__ == "HostGpuFact"]

    assert names(gpu="a100-80gb-sxm") == ["NVIDIA A100 80GB SXM", "NVIDIA H20"]
    assert names(gpu="h100") == ["NVIDIA H100", "NVIDIA H20"]  # a family, no memory to tell its cards apart
    assert names() == ["unknown GPU", "NVIDIA H20"]
    assert names(gpu="h100", gpu_options=["h100", "a100"]) == ["unknown GPU", "NVIDIA H20"]  # two models named


# -- check history ----------------------------------------------------------------------------

def _gpu(index: int, **counters) -> GpuCounters:
    return GpuCounters(index=index, uuid=f"GPU-{index}", **counters)


def _at(hours: float, *gpus: GpuCounters, host: str = "gpu-01") -> HostCheck:
    return HostCheck(host=host, checked_at=T0 + dt.timedelta(hours=hours), gpus=list(gpus))


def test_rising_counters_and_new_xids_become_trends():
    before = _at(0, _gpu(0, ecc_uncorrected=1, ecc_corrected=5, retired_pages=2, xids={13: 1}))
    after = _at(6, _gpu(0, ecc_uncorrected=3, ecc_corrected=5, retired_pages=2, xids={13: 2, 79: 1}))
    facts = {(f.metric, f.new_xid): f for f in trend_facts(before, after)}
    assert set(facts) == {("ecc_uncorrected", None), ("xid", 13), ("xid", 79)}
    ecc = facts[("ecc_uncorrected", None)]
    assert (ecc.previous, ecc.current, ecc.delta, ecc.hours) == (1, 3, 2, 6.0)
    assert (facts[("xid", 79)].previous, facts[("xid", 79)].current) == (0, 1)
    assert ecc.host == "gpu-01" and ecc.gpu_index == 0


def test_a_counter_that_went_down_is_a_negative_trend_and_fewer_xid_events_are_none():
    facts = trend_facts(_at(0, _gpu(0, ecc_corrected=50, xids={13: 4})), _at(1, _gpu(0, ecc_corrected=0, xids={13: 1})))
    assert [(f.metric, f.delta) for f in facts] == [("ecc_corrected", -50)]


def test_unreported_counters_and_new_gpus_give_no_trend():
    before = _at(0, _gpu(0, ecc_uncorrected=None))
    after = _at(1, _gpu(0, ecc_uncorrected=4), _gpu(1, ecc_uncorrected=9, xids={79: 1}))
    assert trend_facts(before, after) == []


def test_a_gpu_is_followed_by_uuid_when_its_index_changes():
    before = _at(0, GpuCounters(index=0, uuid="GPU-x", remapped_uncorrectable=0))
    after = _at(1, GpuCounters(index=1, uuid="GPU-x", remapped_uncorrectable=2))
    [fact] = trend_facts(before, after)
    assert (fact.gpu_index, fact.metric, fact.delta) == (1, "remapped_uncorrectable", 2)


# -- field by field: what each builder copies and derives ---------------------------------------

def test_a_gpu_fact_is_the_catalog_card(catalog):
    from bot.facts import gpu_fact

    h100 = gpu_fact(catalog.gpus["h100-sxm"], selected=True)
    assert h100.model_dump() == {
        "gpu": "h100-sxm", "name": "NVIDIA H100 SXM", "family": "h100", "gpu_class": "datacenter",
        "architecture": "Hopper", "cc": 9.0, "memory_gb": 80.0, "memory_type": "HBM3", "bandwidth_gbs": 3350.0,
        "board_power_w": 700, "psu_w": None, "form_factor": catalog.gpus["h100-sxm"].form_factor,
        "form_factor_zh": "SXM5 模块（HGX/DGX H100 基板）", "slots": None,
        "ecc": True, "nvlink": True, "mig_max_instances": 7, "fp8": True, "fp4": False, "bf16": True, "tf32": True,
        "selected": True,
    }
    t4 = gpu_fact(catalog.gpus["t4"], selected=False)
    assert (t4.bf16, t4.tf32, t4.fp8, t4.selected, t4.slots) == (False, False, False, False, 1)
    rtx = gpu_fact(catalog.gpus["rtx-4090"], selected=False)
    assert (rtx.gpu_class, rtx.psu_w, rtx.ecc, rtx.nvlink, rtx.board_power_w) == ("consumer", 850, False, False, 450)


def test_every_form_factor_reads_in_chinese(catalog):
    """The rules' Chinese text names the board in Chinese: no catalog entry's English reaches it."""
    from bot.messages.format import form_factor

    for gpu in catalog.gpus.values():
        zh = form_factor(gpu.form_factor, "zh")
        assert zh != gpu.form_factor and not re.search(r"\b(?:module|card|baseboard|slot|passive)\b", zh), (gpu.id, zh)
    assert form_factor("PCIe card, single-slot low-profile, passive", "zh") == "PCIe 卡，单槽，被动散热"
    assert form_factor("SXM5 module (HGX H200 baseboard)", "en") == "SXM5 module (HGX H200 baseboard)"


def test_a_provider_fact_and_a_price_fact(catalog):
    from bot.facts import price_fact, provider_fact

    assert provider_fact(catalog.providers["aws"]).model_dump() == {
        "provider": "aws", "name": catalog.providers["aws"].name, "provider_kind": "cloud",
        "billing_granularity_s": 1, "minimum_billed_s": 60}
    row = next(r for r in catalog.prices if r.instance_type and r.region)
    fact = price_fact(row, age_days=12, stale=False, example=True)
    assert fact.model_dump() == {
        "gpu": row.gpu, "provider": row.provider, "billing": row.billing, "hourly_rate": row.hourly_rate,
        "quoted_on": row.quoted_on.isoformat(), "age_days": 12, "stale": False, "currency": row.currency,
        "example": True, "instance_type": row.instance_type, "region": row.region}
    assert price_fact(row, age_days=400, stale=True, example=False).stale is True


def test_xid_facts_carry_nvidia_s_entry_in_both_languages(catalog):
    [fact] = [f for f in question_facts(catalog, Requirement(xids=[13]), named=[], selected=set(), family=None,
                                         instance=None) if isinstance(f, XidFact)]
    entry = catalog.xids[13]
    assert fact.model_dump() == {"code": 13, "meaning": entry.meaning, "action": entry.action,
                                 "meaning_zh": entry.meaning_zh, "action_zh": entry.action_zh,
                                 "app_error": True, "known": True}
    [unknown] = [f for f in question_facts(catalog, Requirement(xids=[999]), named=[], selected=set(), family=None,
                                           instance=None) if isinstance(f, XidFact)]
    assert (unknown.known, unknown.app_error) == (False, False)
    assert "NVIDIA" in unknown.action and "Xid" in unknown.action_zh


def test_question_facts_hold_one_of_each_list_entry_and_each_provider_once(catalog):
    from bot.engine.fact_kinds import ProviderFact, SymptomFact, TopicFact

    req = Requirement(provider="aws", provider_options=["aws", "runpod"], topics=["cost", "spot"], symptoms=["oom"])
    facts = question_facts(catalog, req, named=[], selected=set(), family=None, instance=None)
    assert [f.provider for f in facts if isinstance(f, ProviderFact)] == ["aws", "runpod"]
    assert [f.name for f in facts if isinstance(f, TopicFact)] == ["cost", "spot"]
    assert [f.name for f in facts if isinstance(f, SymptomFact)] == ["oom"]
    assert not any(isinstance(f, CudaReleaseFact) for f in facts)
    [requirement] = [f for f in facts if isinstance(f, RequirementFact)]
    assert (requirement.compared_providers, requirement.has_symptoms, requirement.stated_costs) == (3, True, 0)


def test_requirement_counts_of_what_the_question_compares():
    req = Requirement(gpu_options=["h100", "a100"], billing_options=["spot", "on-demand"], provider_options=[],
                      costs=[{"label": "A", "hourly_rate": 2.0}, {"label": "B", "hourly_rate": 3.0}])
    fact = requirement_fact(req, named=[], family=None, instance=None)
    assert (fact.compared_gpus, fact.compared_billing, fact.compared_providers, fact.stated_costs) == (2, 2, 0, 2)
    assert requirement_fact(Requirement(gpu_options=["h100"]), named=[], family=None, instance=None).compared_gpus == 0
    assert "topics" not in type(fact).model_fields and fact.gpu_variants is None


def test_an_on_demand_instance_names_the_on_demand_quota(catalog):
    instance = catalog.instance("p5.48xlarge")
    on_demand = requirement_fact(Requirement(), named=[], family=None, instance=instance)
    spot = requirement_fact(Requirement(billing="spot"), named=[], family=None, instance=instance)
    assert (on_demand.quota_name, spot.quota_name) == tuple(instance.quota_names[:2])
    assert on_demand.quota_code == instance.quota_code("on-demand") != spot.quota_code
    assert on_demand.instance_vcpus == instance.vcpus


@pytest.mark.parametrize("fields,sizing,elsewhere", [
    ({"params_b": 7}, True, False),
    ({"model": "llama-3-8b"}, True, False),
    ({"intent": "recommend"}, True, False),
    ({"topics": ["provider"]}, True, True),  # "which GPU should I rent?"
    ({"topics": ["provider"], "gpu": "h100"}, False, True),
    ({"gpu": "h100"}, True, False),  # a bare GPU: what fits on it
    ({"workload": "training"}, True, False),
    ({"gpu": "h100", "topics": ["memory", "precision", "parallelism"]}, True, False),
    ({"gpu": "h100", "topics": ["license"]}, False, True),
    ({"gpu": "h100", "deployment": "datacenter"}, False, False),
    ({"gpu": "h100", "symptoms": ["oom"]}, False, True),
    ({"gpu": "h100", "xids": [79]}, False, True),
    ({"gpu": "h100", "billing": "spot"}, False, True),
    ({"gpu": "h100", "cuda": "12.4"}, False, True),
    ({"gpu": "h100", "driver_cuda": "12.4"}, False, True),
    ({"gpu": "h100", "driver": "535.104.05"}, False, True),
    ({"gpu": "h100", "billing_options": ["spot", "on-demand"]}, False, True),
    ({"gpu": "h100", "intent": "first-check"}, False, True),
    ({"gpu": "h100", "costs": [{"label": "A", "hourly_rate": 2.0}]}, False, True),
    ({}, False, False),
])
def test_which_questions_are_about_sizing_and_which_ask_about_something_else(fields, sizing, elsewhere):
    from bot.facts import asks_elsewhere, is_sizing_question

    req = Requirement(**fields)
    assert is_sizing_question(req, gpu_named="gpu" in fields) is sizing
    assert asks_elsewhere(req) is elsewhere


def test_an_estimate_fact_checks_the_context_against_the_model_s_maximum(catalog):
    from bot.sizing.sizer import shape_from_arch

    def estimate(model: str, context: int):
        arch = catalog.models[model]
        req = Requirement(workload="inference", model=model, context=context)
        return sizing_facts(size_requirement(req, shape_from_arch(arch, arch.params_b), catalog))[0]

    within = estimate("qwen2.5-7b", 8192)
    assert (within.context_tokens, within.max_context, within.context_over_max, within.context_extendable) == (
        8192, 32768, False, False)
    extendable = estimate("qwen2.5-7b", 65536)
    assert (extendable.context_over_max, extendable.context_extendable, extendable.extension_max_context) == (
        True, True, 131072)
    assert "YaRN" in extendable.extension_method and "rope_scaling" in extendable.extension_how
    beyond = estimate("qwen2.5-7b", 262144)
    assert (beyond.context_over_max, beyond.context_extendable) == (True, False)
    llama = estimate("llama-3-8b", 16384)
    assert (llama.context_over_max, llama.context_extendable, llama.long_context_variant) == (True, False, "llama-3.1-8b")
    assert llama.extension_method is None and llama.recompute is None and llama.training_tokens_b is None
    assert (llama.moe, llama.mfu) == (None, None)


def test_an_estimate_fact_for_training_and_for_a_bare_size(catalog):
    req = Requirement(workload="training", params_b=7, dataset_tokens_b=2, epochs=2)
    sizing = size_requirement(req, ModelShape(params_b=7), catalog)
    estimate = sizing_facts(sizing)[0]
    memory = sizing.memory.as_dict()
    assert {k: getattr(estimate, f"{k}_gb") for k in memory} == memory
    assert estimate.training_tokens_b == pytest.approx(4.0) and 0 < estimate.mfu < 1
    assert estimate.recompute in ("none", "selective", "full")
    assert estimate.context_tokens == sizing.memory.context_tokens


# -- a probe report, field by field -------------------------------------------------------------

def test_a_host_gpu_fact_copies_the_probe_and_derives_what_rules_compare(catalog):
    from bot.facts import host_gpu_fact

    probe = GpuProbe(index=3, bus_id="00000000:9B:00.0", name="NVIDIA GeForce RTX 4090", brand="GeForce",
                     ecc_mode=False, ecc_volatile_uncorrected=1, ecc_aggregate_uncorrected=2, ecc_volatile_corrected=3,
                     retired_pages_sbe=4, retired_pages_dbe=None, retired_pages_pending=True,
                     remapped_rows_correctable=5, remapped_rows_uncorrectable=6, remapped_rows_pending=False,
                     remapped_rows_failure=True, temperature_c=71, power_draw_w=300.5, power_limit_w=450.0,
                     clock_event_reasons=["sw_thermal_slowdown", "sw_power_cap"], pcie_gen_current=4, pcie_gen_max=4,
                     pcie_width_current=8, pcie_width_max=16, persistence_mode=True, mig_mode=False)
    report = ProbeReport(source="nvml", driver="550.54.15", cuda_driver="12.4", gpus=[probe])
    assert host_gpu_fact(catalog, report, probe).model_dump() == {
        "index": 3, "bus_id": "00000000:9B:00.0", "gpu": "rtx-4090", "name": "NVIDIA GeForce RTX 4090",
        "brand": "GeForce", "gpu_class": "consumer", "driver": "550.54.15", "driver_num": 550054015,
        "cuda_driver": "12.4", "ecc_mode": False, "ecc_volatile_uncorrected": 1, "ecc_aggregate_uncorrected": 2,
        "ecc_volatile_corrected": 3, "retired_pages_sbe": 4, "retired_pages_dbe": None, "retired_pages_total": 4,
        "retired_pages_pending": True, "remapped_rows_correctable": 5, "remapped_rows_uncorrectable": 6,
        "remapped_rows_pending": False, "remapped_rows_failure": True, "temperature_c": 71, "power_draw_w": 300.5,
        "power_limit_w": 450.0, "throttle_reasons": "sw_power_cap, sw_thermal_slowdown", "power_throttle": True,
        "thermal_throttle": True, "pcie_gen_current": 4, "pcie_gen_max": 4, "pcie_width_current": 8,
        "pcie_width_max": 16, "pcie_downgraded": True, "busy": True, "spec_power_w": 450, "power_limit_low": False,
        "persistence_mode": True, "mig_mode": False,
    }
    capped = probe.model_copy(update={"power_limit_w": 300.0})  # 300 of the RTX 4090's 450 W: set well below spec
    assert host_gpu_fact(catalog, report, capped).power_limit_low is True
    assert host_gpu_fact(catalog, report, probe.model_copy(update={"power_limit_w": 370.0})).power_limit_low is False
    bare = GpuProbe(index=0, bus_id="x")
    fact = host_gpu_fact(catalog, ProbeReport(source="nvml", gpus=[bare]), bare)
    assert (fact.name, fact.gpu, fact.gpu_class, fact.driver_num, fact.retired_pages_total, fact.busy) == (
        "unknown GPU", None, None, None, None, False)
    same_width = GpuProbe(index=0, bus_id="x", pcie_gen_current=4, pcie_gen_max=4, pcie_width_current=16)
    assert host_gpu_fact(catalog, report, same_width).pcie_downgraded is False


@pytest.mark.parametrize("brand,name,expected", [
    ("GeForce", "NVIDIA Graphics Device", "consumer"),
    (None, "NVIDIA TITAN RTX", "consumer"),
    ("NVIDIA", "NVIDIA Graphics Device", "datacenter"),
    ("Tesla", "Tesla K80", "datacenter"),
    (None, "NVIDIA RTX A6000", "datacenter"),
    ("Quadro", "Quadro RTX 8000", "datacenter"),
    (None, "Some Accelerator", None),
    (None, "NVIDIA H100 80GB HBM3", "datacenter"),  # recognised: the catalog says
])
def test_the_class_of_a_gpu_the_catalog_may_not_know(catalog, brand, name, expected):
    from bot.facts import host_gpu_fact

    probe = GpuProbe(index=0, bus_id="x", brand=brand, name=name)
    assert host_gpu_fact(catalog, ProbeReport(source="nvml", gpus=[probe]), probe).gpu_class == expected


@pytest.mark.parametrize("fields,busy", [
    ({"utilization_gpu_pct": 20}, True),
    ({"utilization_gpu_pct": 19}, False),
    ({"utilization_gpu_pct": 95, "clock_event_reasons": ["gpu_idle"]}, False),
    ({"power_draw_w": 135.0, "power_limit_w": 450.0}, True),
    ({"power_draw_w": 134.0, "power_limit_w": 450.0}, False),
    ({"power_draw_w": 300.0}, False),
    ({"utilization_gpu_pct": 5, "power_draw_w": 400.0, "power_limit_w": 450.0}, True),
])
def test_a_gpu_under_load(catalog, fields, busy):
    from bot.facts import host_gpu_fact

    probe = GpuProbe(index=0, bus_id="x", **fields)
    assert host_gpu_fact(catalog, ProbeReport(source="nvml", gpus=[probe]), probe).busy is busy


def _bench(catalog, result: BenchmarkResult, probe: GpuProbe | None = None):
    from bot.facts import benchmark_fact

    probe = probe or _probe(pcie_gen_max=5, pcie_width_max=16)
    return benchmark_fact(catalog, ProbeReport(source="nvml", gpus=[probe]), result)


def test_benchmarks_against_the_spec_of_the_gpu_they_ran_on(catalog):
    h100 = catalog.gpus["h100-sxm"]
    membw = _bench(catalog, BenchmarkResult(kind="membw", status="ok", gpu=0, measured=2680.0, unit="GB/s"))
    assert membw.model_dump(exclude_none=True) == {
        "benchmark": "membw", "status": "ok", "gpu_index": 0, "measured": 2680.0, "unit": "GB/s",
        "expected": h100.bandwidth_gbs, "ratio": round(2680.0 / h100.bandwidth_gbs, 3),
        "percent": round(2680.0 / h100.bandwidth_gbs * 100)}
    h2d = _bench(catalog, BenchmarkResult(kind="h2d", status="ok", measured=50.4, unit="GB/s"))
    assert (h2d.expected, h2d.ratio, h2d.percent) == (63.0, 0.8, 80)
    fp8 = _bench(catalog, BenchmarkResult(kind="matmul", status="ok", gpu=0, precision="fp8", measured=1000.0))
    assert fp8.expected == h100.dense_tflops["fp8"]
    assert _bench(catalog, BenchmarkResult(kind="matmul", status="ok", gpu=0, measured=1.0)).expected is None
    failed = _bench(catalog, BenchmarkResult(kind="membw", status="failed", gpu=0, measured=1.0, detail="CUDA error"))
    assert (failed.expected, failed.ratio, failed.percent, failed.detail) == (None, None, None, "CUDA error")
    no_measure = _bench(catalog, BenchmarkResult(kind="membw", status="ok", gpu=0))
    assert (no_measure.expected, no_measure.ratio) == (h100.bandwidth_gbs, None)


def test_a_benchmark_with_no_spec_to_compare_with(catalog):
    unknown = GpuProbe(index=0, bus_id="x", name="Some Accelerator", pcie_gen_max=4)
    assert _bench(catalog, BenchmarkResult(kind="membw", status="ok", gpu=0, measured=1.0), unknown).expected is None
    assert _bench(catalog, BenchmarkResult(kind="h2d", status="ok", gpu=0, measured=1.0), unknown).expected is None
    assert _bench(catalog, BenchmarkResult(kind="membw", status="ok", gpu=5, measured=1.0)).expected is None
    serving = _bench(catalog, BenchmarkResult(kind="serving", status="ok", gpu=0, measured=12.5, metrics={
        "ttft_ms_p50": 80.0, "itl_ms_mean": 21.5, "request_throughput_rps": 3.2, "concurrency": 16.0}))
    assert (serving.expected, serving.ttft_ms_p50, serving.itl_ms_mean, serving.request_throughput_rps,
            serving.concurrency) == (None, 80.0, 21.5, 3.2, 16)
    assert _bench(catalog, BenchmarkResult(kind="serving", status="ok", gpu=0)).concurrency is None


def test_a_host_with_no_gpus_and_no_expectations(catalog):
    facts = host_facts(catalog, "empty", "cloud", None, ProbeReport(source="nvml"))
    [host] = facts
    assert (host.gpu_names, host.gpu_count, host.driver_num, host.team_cuda_num) == ("none", 0, None, None)
    checked = host_facts(catalog, "e", "cloud", "99.0", ProbeReport(source="nvml"), expect_count=2)
    [expect] = [f for f in checked if isinstance(f, HostExpectFact)]
    assert (expect.gpu, expect.matches_gpu, expect.matches_count, expect.actual_gpus) == (None, True, False, "none")
    assert not any(isinstance(f, CudaReleaseFact) for f in checked)  # CUDA 99 is in no table


# -- check history, the details ------------------------------------------------------------------

def test_a_trend_names_its_checks_and_gpu():
    before = _at(0, GpuCounters(index=0, uuid="GPU-0", name="H100", bus_id="00:19", retired_pages=1))
    after = _at(30.5, GpuCounters(index=0, uuid="GPU-0", name="H100", bus_id="00:19", retired_pages=4))
    [fact] = trend_facts(before, after)
    assert fact.model_dump() == {
        "host": "gpu-01", "gpu_index": 0, "gpu_name": "H100", "bus_id": "00:19", "metric": "retired_pages",
        "previous": 1, "current": 4, "delta": 3, "new_xid": None, "previous_at": "2025-03-01T00:00:00+00:00",
        "current_at": "2025-03-02T06:30:00+00:00", "hours": 30.5}


def test_gpus_without_a_uuid_are_matched_by_index_and_unlisted_xids_by_their_bucket():
    before = _at(0, GpuCounters(index=0, ecc_corrected=1), GpuCounters(index=-1, xids={79: 1}))
    after = _at(1, GpuCounters(index=0, ecc_corrected=2), GpuCounters(index=-1, xids={79: 3}))
    assert [(f.gpu_index, f.metric, f.delta) for f in trend_facts(before, after)] == [
        (-1, "xid", 2), (0, "ecc_corrected", 1)]
    first_unlisted = trend_facts(_at(0, GpuCounters(index=0)), _at(1, GpuCounters(index=-1, xids={13: 2})))
    assert [(f.gpu_index, f.previous, f.current, f.new_xid) for f in first_unlisted] == [(-1, 0, 2, 13)]
    moved = trend_facts(_at(0, GpuCounters(index=0, uuid="A", ecc_corrected=1)),
                        _at(1, GpuCounters(index=0, uuid="B", ecc_corrected=5)))
    assert [(f.metric, f.delta) for f in moved] == [("ecc_corrected", 4)]  # no UUID match: by index


# -- boundaries the builders decide --------------------------------------------------------------

def test_a_context_at_the_maximum_fits_and_one_at_the_extension_s_limit_extends(catalog):
    from bot.sizing.sizer import shape_from_arch

    arch = catalog.models["qwen2.5-7b"]
    shape = shape_from_arch(arch, arch.params_b)

    def estimate(context: int):
        return sizing_facts(size_requirement(Requirement(workload="inference", model=arch.id, context=context),
                                             shape, catalog))[0]

    assert estimate(32768).context_over_max is False
    at_limit = estimate(131072)
    assert (at_limit.context_over_max, at_limit.context_extendable) == (True, True)


def test_a_mixture_of_experts_and_whether_one_gpu_holds_the_job(catalog):
    from bot.sizing.sizer import shape_from_arch

    arch = catalog.models["mixtral-8x7b"]
    moe = sizing_facts(size_requirement(Requirement(workload="inference", model=arch.id), shape_from_arch(arch, arch.params_b),
                                        catalog))[0]
    assert (moe.moe, moe.any_single_fit) == (True, True)  # 47B in bf16 fits one H200 or B200
    big = sizing_facts(size_requirement(Requirement(workload="training", params_b=70), ModelShape(params_b=70), catalog))
    assert big[0].any_single_fit is False and big[0].moe is None
    assert any(f.fits for f in big if type(f).__name__ == "CandidateFact")  # several GPUs hold it


def test_a_cuda_release_outside_nvidia_s_list_takes_its_major_s_minimum(catalog):
    unknown = cuda_release_fact(catalog, "12.99")
    assert (unknown.known_release, unknown.min_driver, unknown.compat_min_driver) == (
        False, catalog.cuda_major(12).min_driver, catalog.cuda_major(12).min_driver)
    known = cuda_release_fact(catalog, "12.4")
    assert (known.min_driver, known.min_driver_num) == (catalog.cuda_release("12.4").min_driver, 550054014)
    assert known.compat_min_driver == catalog.cuda_major(12).min_driver != known.min_driver


def test_a_quote_with_no_duration_is_compared_per_hour():
    [hourly, timed] = cost_facts([Cost(label="A", hourly_rate=2, hours=1, total=2, per_hour_only=True),
                                  Cost(label="B", hourly_rate=3, hours=10, total=30)], stated=True)
    assert (hourly.per_hour_only, timed.per_hour_only) == (True, False)


def test_xid_events_keep_their_first_and_last_time_and_the_expected_count(catalog):
    report = ProbeReport(source="nvml", gpus=[_probe()], kernel_log=KernelLogReport(readable=True, events=[
        XidEvent(code=13, pci="PCI:0000:19:00", message=f"event {i}", time=f"t{i}") for i in range(3)]))
    facts = host_facts(catalog, "h1", "datacenter", None, report, expect_count=1)
    [xid] = [f for f in facts if isinstance(f, HostXidFact)]
    assert (xid.count, xid.first_seen, xid.last_seen, xid.last_message) == (3, "t0", "t2", "event 2")
    [expect] = [f for f in facts if isinstance(f, HostExpectFact)]
    assert (expect.count, expect.matches_count, expect.gpu) == (1, True, None)


def test_benchmark_details_copied_and_measured_against_the_right_figure(catalog):
    membw = _bench(catalog, BenchmarkResult(kind="membw", status="ok", gpu=0, precision="bf16", measured=3000.1234))
    assert (membw.precision, membw.expected, membw.ratio) == ("bf16", 3350.0, round(3000.1234 / 3350.0, 3))
    unknown_gen = GpuProbe(index=0, bus_id="x", name="NVIDIA H100 80GB HBM3", pcie_gen_max=9, pcie_width_max=16)
    assert _bench(catalog, BenchmarkResult(kind="h2d", status="ok", gpu=0, measured=1.0), unknown_gen).expected is None
    gen3 = GpuProbe(index=0, bus_id="x", pcie_gen_max=3, pcie_width_max=16)
    assert _bench(catalog, BenchmarkResult(kind="h2d", status="ok", gpu=0, measured=12.0), gen3).expected == 15.8


def test_a_question_s_sizing_follows_its_requirement_and_its_own_prices_replace_the_table(catalog):
    from bot.engine.fact_kinds import EstimateFact

    req = Requirement(workload="training", method="lora", params_b=7, dataset_tokens_b=1, unknown_gpu="L20",
                      unknown_gpu_memory_gb=48)
    sizing = size_requirement(req, ModelShape(params_b=7), catalog)
    assert 16 < sizing.memory.total <= 48  # LoRA on 7B: about 19 GB
    facts = question_facts(catalog, req, named=[], selected=set(), family=None, instance=None, sizing=sizing)
    kinds = [type(f).__name__ for f in facts]
    assert kinds.index("RequirementFact") + 1 == kinds.index("EstimateFact")
    [requirement] = [f for f in facts if isinstance(f, RequirementFact)]
    assert requirement.unknown_gpu_fits is True
    assert any(isinstance(f, CostFact) for f in facts)  # the price table's cost-to-complete
    quoted = req.model_copy(update={"costs": [{"label": "A", "hourly_rate": 2.0}]})
    facts = question_facts(catalog, quoted, named=[], selected=set(), family=None, instance=None, sizing=sizing)
    assert not any(isinstance(f, CostFact) for f in facts) and any(isinstance(f, EstimateFact) for f in facts)
    small = req.model_copy(update={"unknown_gpu_memory_gb": 16})
    [requirement] = [f for f in question_facts(catalog, small, named=[], selected=set(), family=None, instance=None,
                                               sizing=sizing) if isinstance(f, RequirementFact)]
    assert requirement.unknown_gpu_fits is False
    [bare] = [f for f in question_facts(catalog, req, named=[], selected=set(), family=None, instance=None)
              if isinstance(f, RequirementFact)]
    assert bare.unknown_gpu_fits is None  # nothing sized: nothing to judge
