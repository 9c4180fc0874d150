"""deploy/systemd/gpu-advisor-agent.service, checked structurally (no systemd needed)."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from bot.cli import build_parser

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "systemd" / "gpu-advisor-agent.service"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, allow_no_value=True)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser


def environment() -> dict[str, str]:
    # configparser keeps the last of repeated keys; read every Environment= line from the text.
    lines = [line.split("=", 1)[1] for line in UNIT.read_text().splitlines() if line.startswith("Environment=")]
    return dict(line.split("=", 1) for line in lines)


def test_the_unit_runs_the_agent_as_an_unprivileged_user():
    service = unit()["Service"]
    argv = shlex.split(service["ExecStart"])
    assert argv[0].endswith("/gpu-advisor")
    args = build_parser().parse_args(argv[1:])
    assert args.handler.__name__ == "_cmd_agent_serve"
    assert service["User"] not in ("", "root") and service["NoNewPrivileges"] == "true"
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


def test_the_key_comes_from_a_file_and_never_from_the_unit():
    env = environment()
    assert "GPU_ADVISOR_AGENT_SECRET" not in env
    assert env["GPU_ADVISOR_AGENT_SECRET_FILE"].startswith("/etc/gpu-advisor/")


def test_systemd_waits_longer_than_the_graceful_stop():
    service = unit()["Service"]
    env = environment()
    assert service["KillSignal"] == "SIGTERM"
    assert int(service["TimeoutStopSec"]) > float(env["GPU_ADVISOR_SHUTDOWN_TIMEOUT"])


def test_a_host_without_kern_log_still_starts_the_unit():
    # ReadOnlyPaths= of a missing path fails the unit (226/NAMESPACE) unless it is prefixed "-" (#29).
    paths = unit()["Service"]["ReadOnlyPaths"].split()
    assert "-/var/log/kern.log" in paths and "/var/log/kern.log" not in paths
