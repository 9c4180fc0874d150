from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
SMI = FIXTURES / "nvidia-smi"
KERNEL_LOG = FIXTURES / "kernel-log" / "dmesg-xid-13-43__leptonai-gpud.log"
H100_Q = SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt"
H100_TABLE = SMI / "8x-h100-default-table__550.90.07__nvidia-smi__leptonai-gpud.txt"
H100_EXPORTER = SMI / "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__utkuozdemir-nvidia_gpu_exporter.txt"
A100_XML = SMI / "a100-sxm4-80gb__535.54.03__nvidia-smi-q-x__influxdata-telegraf.xml"

needs_fixtures = pytest.mark.skipif(not SMI.is_dir(), reason=f"shared fixtures not found at {FIXTURES}")


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def section(path: Path, command_prefix: str, state: str = "load") -> str:
    """One section of an exporter capture file (the body under its `# $ command` line)."""
    from bot.diagnostics.smi import capture_sections

    found = [(s, body) for s, _, cmd, body in capture_sections(read(path)) if cmd.startswith(command_prefix)]
    body = next((b for s, b in found if s == state), found[0][1])
    return "\n".join(line for line in body.splitlines() if not line.startswith("#")).strip("\n")
