"""One parser per format, on real captures and hand-written excerpts of the documented formats."""

from __future__ import annotations

import pytest

from bot.diagnostics.errors import read_errors, read_nccl
from bot.diagnostics.kernel_log import parse_xid_line
from bot.diagnostics.query_gpu import decode_reasons, parse_query_csv
from bot.diagnostics.smi import SmiParseError, parse_excerpt
from bot.diagnostics.table import parse_table
from bot.diagnostics.topo import parse_topo
from tests.diagnostics.conftest import H100_EXPORTER, H100_TABLE, SMI, needs_fixtures, read, section


@needs_fixtures
def test_default_table_reads_every_gpu_row_and_skips_the_process_table():
    report, extras = parse_table(read(H100_TABLE))
    assert report.driver == "550.90.07" and report.cuda_driver == "12.4" and len(report.gpus) == 8
    gpu = report.gpus[0]
    assert (gpu.name, gpu.bus_id, gpu.persistence_mode, gpu.temperature_c) == ("NVIDIA H100 80GB HBM3", "00000000:19:00.0", True, 27)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.memory_total_mib, gpu.mig_mode) == (72.0, 700.0, 81559, False)
    assert extras[0] == {"index": 0, "pstate": "P0", "fan_error": None, "compute_mode": "Default"}


@needs_fixtures
def test_narrow_525_table_and_its_cut_name():
    report, _ = parse_table(read(SMI / "default-table-525__525.125.06__nvidia-smi__leptonai-gpud.txt"))
    assert report.gpus[0].name == "NVIDIA GeForce ..." and report.gpus[0].power_limit_w == 450.0
    assert report.gpus[0].fan_speed_pct is None  # ERR! in the fan column


@needs_fixtures
def test_exporter_query_gpu_csv_with_units_under_load():
    report, _ = parse_query_csv(section(H100_EXPORTER, "nvidia-smi --query-gpu", "load"))
    gpu = report.gpus[0]
    assert report.driver == "590.48.01" and gpu.power_limit_w == 700.0 and gpu.max_sm_clock_mhz == 1980
    assert gpu.clock_event_reasons == [] and gpu.remapped_rows_pending is False and gpu.pcie_width_max == 16


def test_query_gpu_without_units_and_the_reason_mask_decoded_bit_by_bit():
    report, _ = parse_query_csv("index, name, temperature.gpu, power.draw, power.limit, clocks_event_reasons.active\n"
                                "0, NVIDIA H100 80GB HBM3, 89, 402.1, 700, 0x0000000000000020\n"
                                "1, NVIDIA H100 80GB HBM3, 71, 699.5, 700, 0x00000000000000A4\n")
    assert report.gpus[0].clock_event_reasons == ["sw_thermal_slowdown"]
    assert report.gpus[1].clock_event_reasons == ["sw_power_cap", "sw_thermal_slowdown", "hw_power_brake_slowdown"]
    assert decode_reasons("0x1") == ["gpu_idle"] and decode_reasons("Active") is None


def test_query_gpu_row_with_the_wrong_number_of_values_names_the_row():
    with pytest.raises(SmiParseError, match="row 3 has 2 values for 3 columns"):
        parse_query_csv("index, name, temperature.gpu\n0, A, 40\n1, B\n")


@needs_fixtures
def test_topo_of_a_one_gpu_capture_and_a_pcie_box():
    assert parse_topo(section(H100_EXPORTER, "nvidia-smi topo -m")).gpus == ["GPU0"]
    topo = parse_topo("\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\n"
                      "GPU0\t X \tPIX\tSYS\tPIX\t0-47\nGPU1\tPIX\t X \tSYS\tPIX\t0-47\nGPU2\tSYS\tSYS\t X \tSYS\t48-95\n"
                      "NIC0\tPIX\tPIX\tSYS\t X\n\nLegend:\n  X    = Self\n")
    assert (topo.nvlink_pairs, topo.pcie_pairs, topo.cross_socket_pairs, topo.nics) == (0, 3, 2, ["NIC0"])
    nvlinked = parse_topo("\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n")
    assert nvlinked.nvlink_pairs == 1 and nvlinked.gpu_links[0].nvlinks == 18


@pytest.mark.parametrize("line, time", [
    ("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.", "+1234.567890s"),
    ("[Tue Jan 21 04:41:44 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.",
     "Tue Jan 21 04:41:44 2025"),
    ("Jan 21 04:41:44 node7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.", "Jan 21 04:41:44"),
    ("2025-01-21T04:41:44+0000 node7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
     "2025-01-21T04:41:44+0000"),
])
def test_kernel_log_variants(line, time):
    event = parse_xid_line(line)
    assert event.code == 79 and event.pci == "0000:3b:00" and event.time == time
    assert event.message == "GPU has fallen off the bus."


def test_excerpt_of_one_section_without_the_header():
    report = parse_excerpt("    Remapped Rows\n        Correctable Error                 : 0\n"
                           "        Uncorrectable Error               : 2\n        Pending                           : Yes\n"
                           "        Remapping Failure Occurred        : No\n")
    gpu = report.gpus[0]
    assert (gpu.remapped_rows_uncorrectable, gpu.remapped_rows_pending, gpu.remapped_rows_failure) == (2, True, False)
    with pytest.raises(SmiParseError, match="no GPU field"):
        parse_excerpt("Some Title\n    Foo    : bar\n")


def test_pytorch_and_cuda_errors_with_their_numbers():
    errors = {e.kind: e for e in read_errors(
        "UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.25 GiB "
        "of which 1.06 GiB is free. Of the allocated memory 75.21 GiB is allocated by PyTorch, and 512.00 MiB is reserved "
        "by PyTorch but unallocated.\nRuntimeError: The NVIDIA driver on your system is too old (found version 11040).")}
    arch = errors["arch-unsupported"]
    assert (arch.gpu_name, arch.arch, arch.supported_archs[-1]) == ("NVIDIA GeForce RTX 5090", "sm_120", "sm_90")
    oom = errors["oom"]
    assert (oom.tried_gib, oom.total_gib, oom.free_gib, oom.allocated_gib, oom.reserved_gib) == (2.0, 79.25, 1.06, 75.21, 0.5)
    assert errors["driver-too-old"].driver_cuda == "11.4"
    old = read_errors("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total capacity; "
                      "22.10 GiB already allocated; 5.06 MiB free; 22.50 GiB reserved in total by PyTorch)")[0]
    assert (old.tried_gib, old.total_gib, old.allocated_gib, old.reserved_gib) == (0.02, 23.65, 22.1, 22.5)


@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some other API call",
    "训练时报 CUDA error: out of memory，batch 32，4090",
])
def test_the_cuda_runtime_s_own_out_of_memory_is_an_oom(text):
    """cudaErrorMemoryAllocation reads "CUDA error: out of memory", not PyTorch's "CUDA out of memory"."""
    assert [e.kind for e in read_errors(text)] == ["oom"]


def test_nccl_socket_vs_ib():
    socket = read_nccl(["node1:12:12 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
                        "node1:12:12 [0] NCCL INFO NET/IB : No device found.",
                        "node1:12:12 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
                        "node1:12:40 [0] NCCL WARN Net : Connection closed by remote peer"])
    assert (socket.version, socket.transport, socket.socket_interfaces) == ("2.21.5", "socket", ["eth0"])
    assert len(socket.warnings) == 1
    ib = read_nccl(["n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.1.0.1<0>"])
    assert ib.transport == "ib" and ib.ib_devices == ["mlx5_0:1/IB", "mlx5_1:1/IB"]
    assert read_nccl(["nothing here"]) is None


def test_a_header_quoted_in_a_sentence_leaves_the_sentence_as_the_question():
    from bot.diagnostics.paste import split_paste

    text = ('our container is torch built w/ cuda 12.8. the rented box shows this header: "NVIDIA-SMI 535.161.08  '
            'Driver Version: 535.161.08  CUDA Version: 12.2", 8x H100 80GB HBM3. will it run or do we need them to upgrade?')
    question, paste = split_paste(text)
    assert paste is not None and (paste.driver, paste.driver_cuda) == ("535.161.08", "12.2")
    assert "will it run" in question and "cuda 12.8" in question and "NVIDIA-SMI" not in question
