"""The fact builders (bot.facts): each source's facts, typed, with what the rules need derived."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.engine.facts import (
    BenchmarkResultFact,
    CostFact,
    CudaReleaseFact,
    HostExpectFact,
    HostFact,
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
from bot.knowledge import default_catalog
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
