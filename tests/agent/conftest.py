from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
SMI = FIXTURES / "nvidia-smi"
KERNEL_LOG = FIXTURES / "kernel-log" / "dmesg-xid-13-43__leptonai-gpud.log"
# Files in the fixture folder that are not `nvidia-smi -q` output (or are broken on purpose).
NOT_Q_OUTPUT = {
    "8x-a100-sxm4-80gb__nvidia-smi-nvlink-status__leptonai-gpud.txt": "nvlink -s",
    "8x-h100-default-table__550.90.07__nvidia-smi__leptonai-gpud.txt": "plain nvidia-smi table",
    "default-table-525__525.125.06__nvidia-smi__leptonai-gpud.txt": "plain nvidia-smi table",
    "help-query-gpu__590.48.01__from-h100-capture__utkuozdemir-nvidia_gpu_exporter.txt": "no -q section",
    "h100-80gb-hbm3-INVALID__535.183.01__nvidia-smi-q__leptonai-gpud.txt": "Attached GPUs",
}

needs_fixtures = pytest.mark.skipif(not SMI.is_dir(), reason=f"shared fixtures not found at {FIXTURES}")


def captures() -> list[Path]:
    return sorted(SMI.iterdir()) if SMI.is_dir() else []


def q_captures() -> list[Path]:
    return [p for p in captures() if p.name not in NOT_Q_OUTPUT]
