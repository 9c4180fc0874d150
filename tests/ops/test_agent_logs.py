"""The agent's start-up lines: running as root is a WARNING an operator's log filter keeps (#29)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bot.agent.serve import free_port
from tests.dispatch.helpers import H100


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="the warning is for an agent started as root")
def test_an_agent_started_as_root_without_user_warns_at_warning_level():
    env = {**os.environ, "GPU_ADVISOR_LOG_FORMAT": "json", "GPU_ADVISOR_LOG_LEVEL": "INFO"}
    env.pop("GPU_ADVISOR_AGENT_USER", None)
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "agent", "serve", "--insecure-dev", "--replay", str(H100),
                             "--port", str(free_port())], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=env)
    lines = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if "Uvicorn running" in line:  # uvicorn's handlers are in place: SIGTERM stops it
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    records = [json.loads(line) for line in lines if line.startswith("{")]
    [root] = [r for r in records if "running as root" in r["message"]]
    assert root["level"] == "WARNING", root
    assert [r["level"] for r in records if "serving http" in r["message"]] == ["INFO"]
