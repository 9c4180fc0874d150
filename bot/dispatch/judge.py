"""Turn a probe report and benchmark results into engine facts, and findings into an Answer.

The facts (`host`, `host_gpu`, `host_xid`, `benchmark_result`, `host_expect`, and `cuda_release`
for the team's CUDA) go through the same Engine as `ask`, so a host check's findings have the
same shape and justification as any other answer. Rules live in rules/health/host-*.yaml.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from bot.agent.report import BenchmarkResult, GpuProbe, ProbeReport
from bot.knowledge import Catalog, UnknownNameError, version_number
from bot.advice.assemble import AnswerParts, assemble
from bot.models import Answer, Requirement

Fact = tuple[str, dict]
POWER_REASONS = {"sw_power_cap", "hw_power_brake_slowdown"}
THERMAL_REASONS = {"sw_thermal_slowdown", "hw_thermal_slowdown"}
# PCIe payload bandwidth per lane, GB/s, after line encoding (gen1-2 8b/10b, gen3+ 128b/130b).
PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.877}
_PRODUCT_PATTERNS: list[tuple[str, str]] = [
    (r"H100.*NVL", "h100-nvl"), (r"H100.*PCIE", "h100-pcie"), (r"H100", "h100-sxm"),
    (r"H200.*NVL", "h200-nvl"), (r"H200", "h200-sxm"), (r"B200", "b200"),
    (r"A100.*PCIE.*40GB|A100.*40GB.*PCIE", "a100-40gb-pcie"), (r"A100.*PCIE", "a100-80gb-pcie"),
    (r"A100.*SXM.*80GB|A100.*80GB.*SXM", "a100-80gb-sxm"),
    (r"L40S", "l40s"), (r"\bL4\b", "l4"),
    (r"RTX 5090", "rtx-5090"), (r"RTX 4090", "rtx-4090"), (r"RTX 3090", "rtx-3090"),
]


def recognise_gpu(catalog: Catalog, product_name: str | None) -> str | None:
    """The catalog id for an NVML/nvidia-smi product name, when the catalog has that card."""
    if not product_name:
        return None
    upper = product_name.upper()
    for pattern, gpu_id in _PRODUCT_PATTERNS:
        if re.search(pattern, upper) and gpu_id in catalog.gpus:
            return gpu_id
    stripped = re.sub(r"^(NVIDIA\s+)?(GEFORCE\s+|TESLA\s+)?", "", product_name, flags=re.I)
    try:
        ids = catalog.resolve_gpu(stripped)
    except UnknownNameError:
        return None
    return ids[0] if len(ids) == 1 else None


def gpu_class(catalog: Catalog, gpu_id: str | None, probe: GpuProbe) -> str | None:
    if gpu_id:
        return catalog.gpus[gpu_id].gpu_class
    brand = (probe.brand or "") + " " + (probe.name or "")
    if "GeForce" in brand or "TITAN" in brand.upper():
        return "consumer"
    if probe.brand in ("NVIDIA", "Tesla") or "RTX A" in (probe.name or "") or "Quadro" in brand:
        return "datacenter"
    return None


def _busy(probe: GpuProbe) -> bool:
    """Under load: not idle-throttled, and working (utilisation or power well above idle)."""
    if probe.clock_event_reasons and "gpu_idle" in probe.clock_event_reasons:
        return False
    if probe.utilization_gpu_pct is not None and probe.utilization_gpu_pct >= 20:
        return True
    if probe.power_draw_w and probe.power_limit_w:
        return probe.power_draw_w >= 0.3 * probe.power_limit_w
    return False


def host_gpu_fact(catalog: Catalog, report: ProbeReport, probe: GpuProbe) -> dict:
    gpu_id = recognise_gpu(catalog, probe.name)
    reasons = set(probe.clock_event_reasons or [])
    retired = None
    if probe.retired_pages_sbe is not None or probe.retired_pages_dbe is not None:
        retired = (probe.retired_pages_sbe or 0) + (probe.retired_pages_dbe or 0)
    downgraded = None
    if probe.pcie_gen_current is not None and probe.pcie_gen_max is not None:
        downgraded = probe.pcie_gen_current < probe.pcie_gen_max or (
            probe.pcie_width_current is not None and probe.pcie_width_max is not None
            and probe.pcie_width_current < probe.pcie_width_max)
    return {
        "index": probe.index, "bus_id": probe.bus_id, "gpu": gpu_id, "name": probe.name or "unknown GPU",
        "brand": probe.brand, "gpu_class": gpu_class(catalog, gpu_id, probe),
        "driver": report.driver, "driver_num": version_number(report.driver) if report.driver else None,
        "cuda_driver": report.cuda_driver,
        "ecc_mode": probe.ecc_mode,
        "ecc_volatile_uncorrected": probe.ecc_volatile_uncorrected,
        "ecc_aggregate_uncorrected": probe.ecc_aggregate_uncorrected,
        "ecc_volatile_corrected": probe.ecc_volatile_corrected,
        "retired_pages_sbe": probe.retired_pages_sbe, "retired_pages_dbe": probe.retired_pages_dbe,
        "retired_pages_total": retired, "retired_pages_pending": probe.retired_pages_pending,
        "remapped_rows_correctable": probe.remapped_rows_correctable,
        "remapped_rows_uncorrectable": probe.remapped_rows_uncorrectable,
        "remapped_rows_pending": probe.remapped_rows_pending, "remapped_rows_failure": probe.remapped_rows_failure,
        "temperature_c": probe.temperature_c, "power_draw_w": probe.power_draw_w, "power_limit_w": probe.power_limit_w,
        "throttle_reasons": ", ".join(sorted(reasons)) if reasons else None,
        "power_throttle": bool(reasons & POWER_REASONS) if probe.clock_event_reasons is not None else None,
        "thermal_throttle": bool(reasons & THERMAL_REASONS) if probe.clock_event_reasons is not None else None,
        "pcie_gen_current": probe.pcie_gen_current, "pcie_gen_max": probe.pcie_gen_max,
        "pcie_width_current": probe.pcie_width_current, "pcie_width_max": probe.pcie_width_max,
        "pcie_downgraded": downgraded, "busy": _busy(probe),
        "persistence_mode": probe.persistence_mode, "mig_mode": probe.mig_mode,
    }


def _xid_facts(catalog: Catalog, report: ProbeReport) -> list[Fact]:
    groups: OrderedDict[tuple[int, str], list] = OrderedDict()
    for event in report.kernel_log.events if report.kernel_log else []:
        groups.setdefault((event.code, event.pci), []).append(event)
    facts = []
    for (code, pci), events in groups.items():
        entry = catalog.xids.get(code)
        facts.append(("host_xid", {
            "code": code, "pci": pci, "count": len(events),
            "first_seen": events[0].time, "last_seen": events[-1].time, "last_message": events[-1].message,
            "meaning": entry.meaning if entry else "not in NVIDIA's catalog as known to this advisor",
            "action": entry.action if entry else "look the code up in NVIDIA's Xid catalog",
            "meaning_zh": entry.meaning_zh if entry else "不在本顾问所知的 NVIDIA Xid 目录中",
            "action_zh": entry.action_zh if entry else "请在 NVIDIA 的 Xid 目录中查找该代码",
            "app_error": entry.app_error if entry else False, "known": entry is not None,
        }))
    return facts


def expected_for(catalog: Catalog, result: BenchmarkResult, report: ProbeReport) -> float | None:
    """The spec figure a benchmark is compared with, for the GPU it ran on."""
    probe = next((g for g in report.gpus if g.index == (result.gpu or 0)), None)
    if probe is None:
        return None
    if result.kind == "h2d":
        if probe.pcie_gen_max and probe.pcie_width_max:
            return round(PCIE_LANE_GBS.get(probe.pcie_gen_max, 0) * probe.pcie_width_max, 1) or None
        return None
    gpu_id = recognise_gpu(catalog, probe.name)
    if gpu_id is None:
        return None
    spec = catalog.gpus[gpu_id]
    if result.kind == "matmul" and result.precision:
        return spec.dense_tflops.get(result.precision)
    if result.kind == "membw":
        return spec.bandwidth_gbs
    return None


def _benchmark_facts(catalog: Catalog, report: ProbeReport, results: list[BenchmarkResult]) -> list[Fact]:
    facts = []
    for result in results:
        expected = expected_for(catalog, result, report) if result.status == "ok" else None
        ratio = round(result.measured / expected, 3) if expected and result.measured is not None else None
        facts.append(("benchmark_result", {
            "benchmark": result.kind, "status": result.status, "gpu_index": result.gpu, "precision": result.precision,
            "measured": result.measured, "unit": result.unit, "expected": expected, "ratio": ratio,
            "percent": round(ratio * 100) if ratio is not None else None, "detail": result.detail,
            "ttft_ms_p50": result.metrics.get("ttft_ms_p50"), "itl_ms_mean": result.metrics.get("itl_ms_mean"),
            "request_throughput_rps": result.metrics.get("request_throughput_rps"),
            "concurrency": int(result.metrics["concurrency"]) if "concurrency" in result.metrics else None,
        }))
    return facts


def host_facts(catalog: Catalog, name: str, deployment: str, team_cuda: str | None, report: ProbeReport,
               benchmarks: list[BenchmarkResult] | None = None, expect_gpu: str | None = None,
               expect_count: int | None = None) -> list[Fact]:
    gpus = [host_gpu_fact(catalog, report, g) for g in report.gpus]
    facts: list[Fact] = [("host", {
        "name": name, "deployment": deployment, "team_cuda": team_cuda,
        "team_cuda_num": version_number(team_cuda) if team_cuda else None,
        "gpu_count": len(report.gpus), "driver": report.driver,
        "driver_num": version_number(report.driver) if report.driver else None, "cuda_driver": report.cuda_driver,
        "gpu_names": ", ".join(sorted({g["name"] for g in gpus})) or "none",
    })]
    facts += [("host_gpu", g) for g in gpus]
    if team_cuda:
        major = int(team_cuda.split(".")[0])
        family = catalog.cuda_major(major)
        if family is not None:
            release = catalog.cuda_release(team_cuda)
            exact = release.min_driver if release else family.min_driver
            facts.append(("cuda_release", {
                "version": team_cuda, "major": major, "min_driver": exact, "min_driver_num": version_number(exact),
                "compat_min_driver": family.min_driver, "compat_min_driver_num": version_number(family.min_driver),
                "min_cc": float(family.min_cc), "max_cc": float(family.max_cc), "known_release": release is not None,
            }))
    facts += _xid_facts(catalog, report)
    facts += _benchmark_facts(catalog, report, benchmarks or [])
    if expect_gpu or expect_count:
        expected_id = None
        if expect_gpu:
            try:
                ids = catalog.resolve_gpu(expect_gpu)
                expected_id = ids[0] if len(ids) == 1 else expect_gpu
            except UnknownNameError:
                expected_id = expect_gpu
        actual_ids = sorted({g["gpu"] or g["name"] for g in gpus})
        facts.append(("host_expect", {
            "gpu": expected_id, "count": expect_count, "actual_gpus": ", ".join(actual_ids) or "none",
            "actual_count": len(gpus),
            "matches_gpu": expected_id is None or (bool(gpus) and all(g["gpu"] == expected_id for g in gpus)),
            "matches_count": expect_count is None or expect_count == len(gpus),
        }))
    return facts


def judge(advisor, name: str, deployment: str, team_cuda: str | None, report: ProbeReport,
          benchmarks: list[BenchmarkResult] | None = None, expect_gpu: str | None = None,
          expect_count: int | None = None, language: str = "en", extra_facts: list[Fact] | None = None) -> Answer:
    """Run the host's facts through the advisor's engine; an Answer shaped like `ask`'s."""
    facts = host_facts(advisor.catalog, name, deployment, team_cuda, report, benchmarks, expect_gpu, expect_count)
    facts += extra_facts or []  # e.g. host_trend facts from the check history (bot.store.trends)
    result = advisor.engine.run(facts, language=language)
    first = next((f for k, f in facts if k == "host_gpu"), None)
    requirement = Requirement(
        gpu=first["gpu"] if first and first["gpu"] else None, gpu_count=len(report.gpus) or None,
        deployment=deployment, cuda=team_cuda,
        driver=report.driver if report.driver and re.fullmatch(r"\d+(\.\d+){0,2}", report.driver) else None,
        topics=["health", "verification"],
    )
    return assemble(AnswerParts(requirement=requirement, result=result, language=language,
                                rule_base_version=advisor.version))
