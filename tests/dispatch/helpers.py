"""Real agents on loopback for the dispatcher tests: replaying real captures, signed with a secret."""

from __future__ import annotations

from pathlib import Path

from bot.agent.app import AgentConfig, create_app
from bot.agent.serve import replay_probe
from tests.agent.conftest import KERNEL_LOG, SMI

SECRET = "test-secret-0123456789abcdef"
H100 = SMI / "8x-h100-80gb-hbm3-a__535.161.08__nvidia-smi-q__leptonai-gpud.txt"
RTX4090 = SMI / "8x-rtx-4090-a__535.154.05__nvidia-smi-q__leptonai-gpud.txt"


def agent_app(capture: Path = H100, kernel_log: Path | None = KERNEL_LOG, secret: str | None = SECRET,
              backend: str = "smi"):
    return create_app(AgentConfig(secret=secret.encode() if secret else None, gpu_probe=replay_probe(capture, backend),
                                  backend=f"replay:{backend}", kernel_log_replay=kernel_log))


def inventory_yaml(entries: list[dict], cuda: str | None = "13.0") -> str:
    lines = ["hosts:"]
    for e in entries:
        lines += [f"  - name: {e['name']}", f"    url: {e['url']}", f"    secret_env: {e.get('secret_env', 'TEST_AGENT_SECRET')}",
                  f"    allow: [{', '.join(e.get('allow', ['U1', 'S0INFRA']))}]"]
        for key in ("expect", "serving", "timeout_s", "deployment"):
            if key in e:
                lines.append(f"    {key}: {e[key]}")
    if cuda:
        lines += ["defaults:", f"  cuda: \"{cuda}\""]
    return "\n".join(lines) + "\n"
