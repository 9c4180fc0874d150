"""bot/ops/benchplan.py: every GPU (or those asked for), each precision the card supports (#29)."""

from __future__ import annotations

import pytest

from bot.host_report import BenchmarkResult, GpuProbe, ProbeReport
from bot.ops.benchplan import describe_not_run, not_run, parse_gpus, plan, supported_precisions


def gpu(index: int = 0, cc: str | None = None, architecture: str | None = None) -> GpuProbe:
    return GpuProbe(index=index, bus_id=f"00000000:{index:02x}:00.0", compute_capability=cc, architecture=architecture)


@pytest.mark.parametrize("cc, architecture, expected", [
    ("7.0", None, ["fp32", "fp16"]),                              # V100: no TF32/BF16/FP8 tensor cores
    ("7.5", None, ["fp32", "fp16"]),                              # T4
    ("8.0", None, ["fp32", "fp16", "tf32", "bf16"]),              # A100
    ("8.6", None, ["fp32", "fp16", "tf32", "bf16"]),              # RTX 3090 / A10
    ("8.9", None, ["fp32", "fp16", "tf32", "bf16", "fp8"]),       # RTX 4090 / L40S
    ("9.0", None, ["fp32", "fp16", "tf32", "bf16", "fp8"]),       # H100
    ("12.0", None, ["fp32", "fp16", "tf32", "bf16", "fp8"]),      # RTX 5090
    (None, "Hopper", ["fp32", "fp16", "tf32", "bf16", "fp8"]),    # nvidia-smi text: the architecture only
    (None, "Volta", ["fp32", "fp16"]),
    (None, None, ["fp32", "fp16", "tf32", "bf16"]),               # unknown: FP8 only when known to be there
])
def test_each_precision_the_card_supports(cc, architecture, expected):
    assert supported_precisions(gpu(cc=cc, architecture=architecture)) == expected


def test_every_gpu_by_default_and_a_missing_gpu_is_a_result_not_silence():
    report = ProbeReport(source="nvml", gpus=[gpu(0, "9.0"), gpu(1, "9.0"), gpu(3, "8.0")])
    jobs, missing = plan("matmul", report, None)
    assert [(j["gpu"], j["precisions"]) for j in jobs] == [
        (0, ["fp32", "fp16", "tf32", "bf16", "fp8"]), (1, ["fp32", "fp16", "tf32", "bf16", "fp8"]),
        (3, ["fp32", "fp16", "tf32", "bf16"])]
    assert missing == []
    jobs, missing = plan("membw", report, [3, 2])
    assert [j["gpu"] for j in jobs] == [3] and jobs[0]["kind"] == "membw"
    [absent] = missing
    assert (absent.kind, absent.gpu, absent.status) == ("membw", 2, "unavailable")
    assert describe_not_run(absent) == "benchmark membw on GPU 2 did not run: unavailable: GPU 2 is not on this host " \
                                       "(GPUs: 0, 1, 3)"


def test_gpu_lists_parse_and_bad_ones_name_the_part():
    assert parse_gpus(None) is None and parse_gpus("all") is None
    assert parse_gpus("0, 3,3,7") == [0, 3, 7]
    with pytest.raises(ValueError, match="'x' is not a GPU index"):
        parse_gpus("0,x")
    with pytest.raises(ValueError, match="'64' is not a GPU index"):
        parse_gpus("64")


def test_only_results_without_a_figure_count_as_not_run():
    ok = BenchmarkResult(kind="matmul", status="ok", gpu=0, precision="bf16", measured=700.0, unit="TFLOPS")
    failed = BenchmarkResult(kind="matmul", status="unavailable", gpu=1, precision="fp8", detail="unavailable: no torch")
    assert not_run([ok, failed]) == [failed]
    assert describe_not_run(failed) == "benchmark matmul fp8 on GPU 1 did not run: unavailable: no torch"
