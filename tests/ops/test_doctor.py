"""`gpu-advisor doctor`: each misconfiguration in the matrix is reported with a fix.

Slack is a local HTTP server that answers `auth.test` / `apps.connections.open` as the Web API
does (ok for the known tokens, invalid_auth otherwise); agents are local HTTP servers or a
closed port; the store is a SQLite file or an unreachable PostgreSQL port.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.rulebase import DEFAULT_RULES_DIR
from bot.cli.doctor import run_doctor

GOOD_BOT, GOOD_APP = "xoxb-good-1234", "xapp-1-good-5678"


class _Server:
    def __init__(self, handler):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeSlackApi(BaseHTTPRequestHandler):
    calls: list[tuple[str, str]] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        token = self.headers.get("authorization", "").removeprefix("Bearer ")
        method = self.path.rsplit("/", 1)[-1]
        FakeSlackApi.calls.append((method, token))
        if method == "auth.test" and token == GOOD_BOT:
            body = {"ok": True, "user": "gpu-advisor", "team": "Local Team", "user_id": "U0BOT"}
        elif method == "apps.connections.open" and token == GOOD_APP:
            body = {"ok": True, "url": "wss://127.0.0.1/never-used"}
        else:
            body = {"ok": False, "error": "invalid_auth"}
        payload = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class AgentHealth(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        status = 200 if self.path == "/health" else 404
        payload = b'{"status": "ok"}'
        self.send_response(status)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def slack_api():
    server = _Server(FakeSlackApi)
    FakeSlackApi.calls = []
    yield server
    server.stop()


@pytest.fixture
def agent():
    server = _Server(AgentHealth)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def real_agent():
    """A real signed agent on loopback (replaying a capture), with --open-metrics: /health unsigned."""
    from bot.agent.app import AgentConfig, create_app
    from bot.agent.serve import ServerPool, replay_probe
    from tests.dispatch.helpers import H100, SECRET

    app = create_app(AgentConfig(secret=SECRET.encode(), gpu_probe=replay_probe(H100, "smi"), backend="replay:smi",
                                 open_metrics=True))
    with ServerPool([app]) as pool:
        yield pool.urls[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(monkeypatch, tmp_path, slack_api):
    """A complete, healthy configuration; each test breaks one thing."""
    for name in ("SLACK_SIGNING_SECRET", "GPU_ADVISOR_INVENTORY", "GPU_ADVISOR_LOG_FORMAT", "GPU_ADVISOR_RULES_DIR",
                 "GPU_ADVISOR_DATABASE_SCHEMA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN", GOOD_BOT)
    monkeypatch.setenv("SLACK_APP_TOKEN", GOOD_APP)
    monkeypatch.setenv("SLACK_API_URL", slack_api.url + "/api/")
    monkeypatch.setenv("GPU_ADVISOR_METRICS_PORT", "9108")
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    from bot.store import Store

    Store().close()  # migrated
    return monkeypatch


def write_inventory(tmp_path: Path, url: str, secret_env: str = "GPU_NODE_1_SECRET") -> Path:
    path = tmp_path / "inventory.yaml"
    path.write_text(f"hosts:\n  - name: gpu-node-1\n    url: {url}\n    secret_env: {secret_env}\n"
                    "    allow: [U0ALICE]\n")
    return path


def failures(report, check):
    return [r for r in report.by_check(check) if r.status == "fail"]


def test_a_healthy_configuration_passes(env, tmp_path, real_agent):
    from tests.dispatch.helpers import SECRET

    env.setenv("GPU_ADVISOR_INVENTORY", str(write_inventory(tmp_path, real_agent)))
    env.setenv("GPU_NODE_1_SECRET", SECRET)
    report = run_doctor()
    assert report.ok, [r for r in report.results if r.status != "ok"]
    assert {r.check for r in report.results} == {"config", "slack", "store", "rules", "inventory", "roles"}
    assert ("auth.test", GOOD_BOT) in FakeSlackApi.calls


def test_missing_tokens_are_named_with_where_to_get_them(env):
    env.delenv("SLACK_BOT_TOKEN")
    env.delenv("SLACK_APP_TOKEN")
    report = run_doctor(["config", "slack"])
    [problem] = failures(report, "config")
    assert "SLACK_BOT_TOKEN is not set" in problem.message and "SLACK_APP_TOKEN is not set" in problem.message
    assert "OAuth & Permissions" in problem.fix and "connections:write" in problem.fix
    assert "slack/manifest.yaml" in problem.fix
    assert [r.status for r in report.by_check("slack")] == ["skip", "skip"]


def test_a_token_slack_rejects_is_reported_with_invalid_auth(env):
    env.setenv("SLACK_BOT_TOKEN", "xoxb-revoked-0000")
    report = run_doctor(["slack"])
    [problem] = failures(report, "slack")
    assert "SLACK_BOT_TOKEN rejected by auth.test: invalid_auth" in problem.message
    assert "reinstall" in problem.fix
    assert ("auth.test", "xoxb-revoked-0000") in FakeSlackApi.calls


def test_a_bad_app_token_is_reported(env):
    env.setenv("SLACK_APP_TOKEN", "xapp-1-wrong")
    [problem] = failures(run_doctor(["slack"]), "slack")
    assert "SLACK_APP_TOKEN rejected by apps.connections.open: invalid_auth" in problem.message
    assert "Socket Mode" in problem.fix


def test_an_unreachable_slack_api_is_reported(env):
    env.setenv("SLACK_API_URL", f"http://127.0.0.1:{closed_port()}/api/")
    [problem] = failures(run_doctor(["slack"]), "slack")
    assert "cannot reach the Slack API" in problem.message and "network" in problem.fix


def test_an_unreachable_database_is_reported_with_how_to_check_it(env):
    env.setenv("GPU_ADVISOR_DATABASE_URL", f"postgresql://postgres:pw@127.0.0.1:{closed_port()}/test")
    [problem] = failures(run_doctor(["store"]), "store")
    assert "cannot connect" in problem.message and "pw" not in problem.message
    assert "pg_isready" in problem.fix and "GPU_ADVISOR_DATABASE_URL" in problem.fix


def test_an_unmigrated_database_is_a_warning_with_the_upgrade_command(env, tmp_path):
    env.setenv("GPU_ADVISOR_DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    [result] = run_doctor(["store"]).by_check("store")
    assert result.status == "warn" and "gpu-advisor db upgrade" in result.fix


def test_an_unsupported_database_url_is_reported(env):
    env.setenv("GPU_ADVISOR_DATABASE_URL", "mysql://u@db/x")
    [problem] = failures(run_doctor(["store"]), "store")
    assert "mysql" in problem.message and "postgresql://" in problem.fix


def test_a_broken_rule_folder_names_the_file_and_line(env, tmp_path):
    broken = tmp_path / "rules"
    (broken / "health").mkdir(parents=True)
    (broken / "health" / "bad.yaml").write_text(
        "rules:\n  - id: health.bad\n    title: Broken\n    topic: health\n"
        "    when:\n      - fact: no_such_fact\n    then:\n      finding: {en: x, zh: y}\n    sources: [nvidia-xid]\n")
    env.setenv("GPU_ADVISOR_RULES_DIR", str(broken))
    [problem] = failures(run_doctor(["rules"]), "rules")
    assert "bad.yaml:6" in problem.message and "no_such_fact" in problem.message
    assert "gpu-advisor rules lint" in problem.fix


def test_a_missing_rule_folder_is_reported(env, tmp_path):
    env.setenv("GPU_ADVISOR_RULES_DIR", str(tmp_path / "nowhere"))
    [problem] = failures(run_doctor(["rules"]), "rules")
    assert "does not exist" in problem.message and "GPU_ADVISOR_RULES_DIR" in problem.fix


def test_the_shipped_rules_pass(env):
    env.setenv("GPU_ADVISOR_RULES_DIR", str(DEFAULT_RULES_DIR))
    assert failures(run_doctor(["rules"]), "rules") == []


def test_an_unreachable_agent_and_its_missing_secret_are_reported(env, tmp_path):
    port = closed_port()
    env.setenv("GPU_ADVISOR_INVENTORY", str(write_inventory(tmp_path, f"http://127.0.0.1:{port}")))
    env.delenv("GPU_NODE_1_SECRET", raising=False)
    problems = failures(run_doctor(["inventory"]), "inventory")
    messages = " | ".join(p.message for p in problems)
    assert "GPU_NODE_1_SECRET is not set" in messages
    assert f"the agent at http://127.0.0.1:{port} does not answer" in messages
    assert any(f"gpu-advisor agent serve --host 0.0.0.0 --port {port}" in p.fix for p in problems)


def test_a_wrong_agent_key_fails_the_inventory_check(env, tmp_path, real_agent, capsys):
    # The agent serves /health unsigned (--open-metrics): only a signed call tells a wrong key (#29).
    env.setenv("GPU_ADVISOR_INVENTORY", str(write_inventory(tmp_path, real_agent)))
    env.setenv("GPU_NODE_1_SECRET", "not-the-agents-key-0123456789abcdef")
    problems = failures(run_doctor(["inventory"]), "inventory")
    assert [p.message for p in problems] == [
        f"gpu-node-1: the agent at {real_agent} refuses the key in GPU_NODE_1_SECRET (a signed request failed)"]
    assert problems[0].fix.startswith("set GPU_NODE_1_SECRET to the value of GPU_ADVISOR_AGENT_SECRET on gpu-node-1")
    assert main(["doctor", "--only", "inventory"]) == 1
    assert "All checks passed" not in capsys.readouterr().out


def test_the_right_agent_key_passes_the_inventory_check(env, tmp_path, real_agent):
    from tests.dispatch.helpers import SECRET

    env.setenv("GPU_ADVISOR_INVENTORY", str(write_inventory(tmp_path, real_agent)))
    env.setenv("GPU_NODE_1_SECRET", SECRET)
    [result] = run_doctor(["inventory"]).by_check("inventory")
    assert result.status == "ok" and "accepts the key in GPU_NODE_1_SECRET" in result.message


def test_a_bad_log_format_and_metrics_port_are_reported(env):
    env.setenv("GPU_ADVISOR_LOG_FORMAT", "xml")
    env.setenv("GPU_ADVISOR_METRICS_PORT", "nine")
    problems = failures(run_doctor(["config"]), "config")
    assert {p.fix.split(" to ")[0] for p in problems} == {"set GPU_ADVISOR_LOG_FORMAT", "set GPU_ADVISOR_METRICS_PORT"}


def test_the_command_exits_1_and_prints_each_fix(env, capsys):
    env.setenv("SLACK_BOT_TOKEN", "xoxb-revoked-0000")
    assert main(["doctor", "--only", "slack,store"]) == 1
    out = capsys.readouterr().out
    assert "✘ slack     SLACK_BOT_TOKEN rejected by auth.test: invalid_auth" in out
    assert "fix: copy the Bot User OAuth Token again" in out
    assert "1 problem(s) to fix." in out


def test_the_command_exits_0_and_prints_json_when_healthy(env, capsys):
    assert main(["doctor", "--only", "slack,store", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in report["results"]] == ["ok", "ok", "ok"]


def test_an_unknown_check_name_is_an_input_error(env, capsys):
    assert main(["doctor", "--only", "slak"]) == 2
    assert "unknown check(s) slak" in capsys.readouterr().err


def test_ping_is_the_container_health_check(agent):
    assert main(["ping", agent.url + "/health"]) == 0
    assert main(["ping", agent.url + "/missing"]) == 1
    assert main(["ping", f"http://127.0.0.1:{closed_port()}/health"]) == 1


def test_doctor_reads_the_role_file_as_the_bot_does(tmp_path, monkeypatch):
    monkeypatch.delenv("GPU_ADVISOR_ROLES", raising=False)
    [unset] = run_doctor(["roles"]).results
    assert unset.status == "skip" and "allow lists decide" in unset.message
    path = tmp_path / "roles.yaml"
    path.write_text("roles:\n  checker: {groups: [S0INFRA]}\n")
    monkeypatch.setenv("GPU_ADVISOR_ROLES", str(path))
    [good] = run_doctor(["roles"]).results
    assert good.status == "ok" and "checker: 0 user(s), 1 group(s)" in good.message
    path.write_text("roles:\n  checker: {users: [S0INFRA]}\n")
    [bad] = run_doctor(["roles"]).results
    assert bad.status == "fail" and "roles.yaml:2:21" in bad.message and "list it under `groups`" in bad.message
