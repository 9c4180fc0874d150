"""docker-compose.yml (bot host), docker-compose.agent.yml (GPU host) and the Dockerfile, checked
without a Docker engine.

The compose files are validated against tests/deploy/compose-subset.schema.json: a schema we
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
BOT_FILE, AGENT_FILE = ROOT / "docker-compose.yml", ROOT / "docker-compose.agent.yml"
BOT_COMPOSE = yaml.safe_load(BOT_FILE.read_text())
AGENT_COMPOSE = yaml.safe_load(AGENT_FILE.read_text())
# Both files' services, for the checks that apply to every service.
COMPOSE = {"services": {**BOT_COMPOSE["services"], **AGENT_COMPOSE["services"]},
           "volumes": {**(BOT_COMPOSE.get("volumes") or {}), **(AGENT_COMPOSE.get("volumes") or {})}}
VERSION = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
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


@pytest.mark.parametrize("compose", [BOT_COMPOSE, AGENT_COMPOSE], ids=["bot", "agent"])
def test_the_compose_files_validate_against_our_compose_spec_subset(compose):
    schema = json.loads((Path(__file__).parent / "compose-subset.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in jsonschema.Draft7Validator(schema).iter_errors(compose)]
    assert errors == []


def test_the_subset_schema_refuses_what_the_spec_refuses():
    schema = json.loads((Path(__file__).parent / "compose-subset.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    broken = {"services": {**yaml.safe_load(BOT_FILE.read_text())["services"],
                           **yaml.safe_load(AGENT_FILE.read_text())["services"]}}
    broken["services"]["agent"]["deploy"]["resources"]["reservations"]["devices"][0].pop("capabilities")
    broken["services"]["bot"]["healthcheck"]["interval"] = "30 seconds"
    broken["services"]["bot"]["restrat"] = "always"
    messages = " | ".join(e.message for e in validator.iter_errors(broken))
    assert "'capabilities' is a required property" in messages
    assert "'30 seconds' does not match" in messages
    assert "'restrat' does not match any of the regexes" in messages


@pytest.mark.skipif(not os.environ.get("GPU_ADVISOR_COMPOSE_SCHEMA"),
                    reason="GPU_ADVISOR_COMPOSE_SCHEMA (a copy of the official compose-spec.json) is not set")
def test_the_compose_files_validate_against_the_official_schema():
    schema = json.loads(Path(os.environ["GPU_ADVISOR_COMPOSE_SCHEMA"]).read_text())
    for compose in (BOT_COMPOSE, AGENT_COMPOSE):
        errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(compose)]
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


def test_the_bot_health_check_probes_its_readiness_endpoint():
    bot = COMPOSE["services"]["bot"]
    port = bot["environment"]["GPU_ADVISOR_HEALTH_PORT"]
    assert bot["healthcheck"]["test"][-1] == f"http://127.0.0.1:{port}/readyz"


def test_each_host_needs_only_its_own_secrets():
    """Compose interpolates every `${VAR:?}` of a file before profiles apply: the bot host's file
    must not demand the agent key, nor the GPU host's file the Slack tokens."""
    def required(path: Path) -> set[str]:
        return set(re.findall(r"\$\{([A-Z0-9_]+):\?", path.read_text()))

    assert required(BOT_FILE) == {"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "POSTGRES_PASSWORD"}
    # The agent host also names the one address its port is published on (not a secret).
    assert required(AGENT_FILE) == {"GPU_ADVISOR_AGENT_SECRET", "GPU_ADVISOR_AGENT_ADDRESS"}
    assert "agent" not in BOT_COMPOSE["services"] and set(AGENT_COMPOSE["services"]) == {"agent"}


def test_the_inventory_is_mounted_only_when_it_exists():
    [mount] = [v for v in COMPOSE["services"]["bot"]["volumes"] if isinstance(v, dict)
               and v["target"] == COMPOSE["services"]["bot"]["environment"]["GPU_ADVISOR_INVENTORY"]]
    assert mount["type"] == "bind" and mount["read_only"] is True
    assert mount["bind"]["create_host_path"] is False  # a missing file fails `up` instead of becoming a directory


def test_images_are_pinned_to_the_release_version():
    for name, svc in COMPOSE["services"].items():
        image = svc["image"]
        assert ":" in image and not image.endswith(":latest"), name
        if "build" in svc:
            assert image == f"gpu-advisor:{VERSION}", name


def test_stops_are_graceful_within_the_grace_period():
    for name in ("bot", "agent"):
        svc = COMPOSE["services"][name]
        grace = int(svc["stop_grace_period"].rstrip("s"))
        assert grace > float(svc["environment"]["GPU_ADVISOR_SHUTDOWN_TIMEOUT"]), name


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


def test_the_image_is_a_normal_install_of_the_wheel():
    assert "pip wheel" in DOCKERFILE and "-e ." not in DOCKERFILE and "--editable" not in DOCKERFILE
    # the build context has what the wheel's build hook copies into the package
    for needed in ("setup.py", "MANIFEST.in", "rules", "knowledge"):
        assert re.search(rf"^COPY .*\b{re.escape(needed)}\b", DOCKERFILE, re.MULTILINE), needed
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert not {"rules", "knowledge", "setup.py"} & set(ignored)


def test_the_inventory_example_matches_the_agents_the_deploy_files_start():
    inventory = yaml.safe_load((ROOT / "docs" / "inventory.example.yaml").read_text())
    agent_args = COMPOSE["services"]["agent"]["command"]
    assert "--tls-cert" not in agent_args  # the agents serve plain HTTP by default...
    for host in inventory["hosts"]:  # ...so the example says http://, on a network it trusts
        assert host["url"].startswith("http://") and host["allow_plain_http"] is True


def test_the_agent_port_is_published_on_one_address_not_every_interface():
    # Docker's published ports bypass the host's firewall: "8700:8700" is open to every network (#29).
    for port in COMPOSE["services"]["agent"]["ports"]:
        host_ip, host_port, container_port = str(port).rsplit(":", 2)
        assert host_ip == "${GPU_ADVISOR_AGENT_ADDRESS:?" + host_ip.split(":?", 1)[1], port
        assert "0.0.0.0" not in host_ip.split(":?")[0] and (host_port, container_port) == ("8700", "8700")


def test_the_kernel_log_mount_creates_nothing_on_a_host_without_kern_log():
    # A file bind of /var/log/kern.log on a journald-only host made Docker create a directory (#29).
    volumes = COMPOSE["services"]["agent"]["volumes"]
    assert not [v for v in volumes if isinstance(v, str) and "kern.log" in v]
    [logs] = [v for v in volumes if isinstance(v, dict) and v["target"] == "/var/log"]
    assert logs == {"type": "bind", "source": "/var/log", "target": "/var/log", "read_only": True,
                    "bind": {"create_host_path": False}}
    from bot.agent.kernel_log import KERN_LOG

    assert KERN_LOG.parent.as_posix() == logs["target"]  # the agent finds kern.log inside the mount


def test_every_host_key_the_inventory_names_reaches_the_bot_without_editing_compose():
    bot = COMPOSE["services"]["bot"]
    assert bot["env_file"] == [{"path": "./agent-keys.env", "required": False}]
    inventory = yaml.safe_load((ROOT / "docs" / "inventory.example.yaml").read_text())
    names = {host["secret_env"] for host in inventory["hosts"]}
    # No per-host variable is spelled out in compose: they come from agent-keys.env, whatever they are.
    assert not names & set(bot["environment"])
    assert not [k for k in bot["environment"] if k.endswith("_SECRET") and k.startswith("GPU_NODE")]
    ignored = {(ROOT / ".gitignore").read_text().split().count("agent-keys.env"),
               (ROOT / ".dockerignore").read_text().split().count("agent-keys.env")}
    assert ignored == {1}  # the key file never reaches git nor the image
    assert "agent-keys.env" in (ROOT / "docs" / "operations.md").read_text()
