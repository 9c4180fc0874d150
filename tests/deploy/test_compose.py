"""docker-compose.yml and the Dockerfile, checked without a Docker engine.

The compose file is validated against tests/deploy/compose-subset.schema.json: a schema we
wrote from the Compose Specification's shapes for the keys we use (not the official file,
which is not vendored). Setting GPU_ADVISOR_COMPOSE_SCHEMA to a copy of the official
compose-spec.json validates against it too. Every command a service or health check runs must
parse as a `gpu-advisor` subcommand.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
SECRET_WORDS = re.compile(r"TOKEN|SECRET|PASSWORD|KEY", re.IGNORECASE)


def _entrypoint() -> list[str]:
    match = re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", DOCKERFILE, re.MULTILINE)
    assert match, "the Dockerfile has no exec-form ENTRYPOINT"
    return json.loads(match.group(1))


def _parses(argv: list[str]) -> bool:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit:
        return False
    return callable(getattr(args, "handler", None))


def _our_services() -> dict:
    return {name: svc for name, svc in COMPOSE["services"].items() if "build" in svc}


def test_the_compose_file_validates_against_our_compose_spec_subset():
    schema = json.loads((Path(__file__).parent / "compose-subset.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in jsonschema.Draft7Validator(schema).iter_errors(COMPOSE)]
    assert errors == []


def test_the_subset_schema_refuses_what_the_spec_refuses():
    schema = json.loads((Path(__file__).parent / "compose-subset.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    broken = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    broken["services"]["agent"]["deploy"]["resources"]["reservations"]["devices"][0].pop("capabilities")
    broken["services"]["bot"]["healthcheck"]["interval"] = "30 seconds"
    broken["services"]["bot"]["restrat"] = "always"
    messages = " | ".join(e.message for e in validator.iter_errors(broken))
    assert "'capabilities' is a required property" in messages
    assert "'30 seconds' does not match" in messages
    assert "'restrat' does not match any of the regexes" in messages


@pytest.mark.skipif(not os.environ.get("GPU_ADVISOR_COMPOSE_SCHEMA"),
                    reason="GPU_ADVISOR_COMPOSE_SCHEMA (a copy of the official compose-spec.json) is not set")
def test_the_compose_file_validates_against_the_official_schema():
    schema = json.loads(Path(os.environ["GPU_ADVISOR_COMPOSE_SCHEMA"]).read_text())
    errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(COMPOSE)]
    assert errors == []


def test_the_image_runs_the_project_entry_point():
    assert _entrypoint() == ["gpu-advisor"]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^gpu-advisor\s*=\s*"bot\.cli:main"', pyproject, re.MULTILINE)


def test_every_service_command_is_a_gpu_advisor_subcommand():
    commands = {name: svc["command"] for name, svc in _our_services().items()}
    assert commands["bot"][:1] == ["serve"]
    assert commands["agent"][:2] == ["agent", "serve"]
    for name, command in commands.items():
        assert _parses(command), f"{name}: `gpu-advisor {' '.join(command)}` does not parse"


def test_a_command_that_does_not_exist_is_caught():
    assert not _parses(["serve-forever"])
    assert not _parses(["agent", "serve", "--no-such-flag"])


def test_every_service_has_a_health_check_and_ours_run_gpu_advisor():
    for name, svc in COMPOSE["services"].items():
        assert "healthcheck" in svc, f"{name} has no health check"
    for name, svc in _our_services().items():
        test = svc["healthcheck"]["test"]
        assert test[0] == "CMD" and test[1] == "gpu-advisor", name
        assert _parses(test[2:]), f"{name}: health check `{' '.join(test[1:])}` does not parse"


def test_the_bot_health_check_probes_its_metrics_port():
    bot = COMPOSE["services"]["bot"]
    port = bot["environment"]["GPU_ADVISOR_METRICS_PORT"]
    assert f"127.0.0.1:{port}/" in bot["healthcheck"]["test"][-1]


def test_postgres_keeps_its_data_in_a_named_volume_and_the_bot_waits_for_it():
    postgres = COMPOSE["services"]["postgres"]
    named = [v.split(":")[0] for v in postgres["volumes"] if not v.startswith((".", "/"))]
    assert named and all(v in COMPOSE["volumes"] for v in named)
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])
    assert COMPOSE["services"]["bot"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert COMPOSE["services"]["bot"]["environment"]["GPU_ADVISOR_DATABASE_URL"].startswith("postgresql://")


def test_the_bot_runs_several_replicas_in_socket_mode():
    bot = COMPOSE["services"]["bot"]
    assert bot["deploy"]["replicas"] >= 2
    assert "--http" not in bot["command"] and "SLACK_APP_TOKEN" in bot["environment"]


def test_the_agent_reserves_nvidia_gpus():
    devices = COMPOSE["services"]["agent"]["deploy"]["resources"]["reservations"]["devices"]
    assert any(d.get("driver") == "nvidia" and "gpu" in d["capabilities"] for d in devices)


def test_secrets_come_from_the_environment_and_are_never_baked_in():
    for name, svc in COMPOSE["services"].items():
        for key, value in (svc.get("environment") or {}).items():
            if SECRET_WORDS.search(key) and value:
                assert re.fullmatch(r"\$\{[A-Z0-9_]+(:[?-][^}]*)?\}", str(value)), f"{name}.{key} is a literal"
        url = (svc.get("environment") or {}).get("GPU_ADVISOR_DATABASE_URL", "")
        assert "@" not in url or "${POSTGRES_PASSWORD" in url, "the database password must be interpolated"
    for line in DOCKERFILE.splitlines():
        if re.match(r"^\s*(ENV|ARG)\b", line):
            assert not SECRET_WORDS.search(line), f"Dockerfile sets a secret: {line}"
    # The .env file that holds them never reaches the build context.
    assert ".env" in (ROOT / ".dockerignore").read_text().split()
