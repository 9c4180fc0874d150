"""`gpu-advisor serve` start-up and per-request logging, on a real process and the local Slack
stand-in (#29): an unreachable Slack is one clear line; a clean start logs no WARNING (Bolt's
"`token` will be unused" included); each Slack request gets one INFO line under its ids."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bot.ops.logs import describe_request
from tests.kit.local_slack import SlackRequests
from tests.ops.test_lifecycle import (QUESTION, free_port, json_lines, serve_env, slack, start, stop,  # noqa: F401
                                      wait_status)


def test_slack_unreachable_at_start_up_is_one_clear_line(tmp_path, slack):  # noqa: F811
    api, _server = slack
    port = free_port()  # nothing listens there
    env = serve_env(tmp_path, api, SLACK_API_URL=f"http://127.0.0.1:{port}/api/", GPU_ADVISOR_SLACK_ANSWER_PROCESSES="0")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "serve"], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 1
    [line] = [l for l in done.stderr.splitlines() if l.startswith("gpu-advisor: error:")]
    assert f"cannot reach Slack's Web API at http://127.0.0.1:{port}/api/ (auth.test at start-up): " \
           "Connection refused" in line
    assert "URLError" not in line and "doctor --only slack" in line


def test_a_clean_start_logs_no_warning_and_each_request_one_info_line(tmp_path, slack):  # noqa: F811
    api, server = slack
    health = free_port()
    env = serve_env(tmp_path, api, GPU_ADVISOR_HEALTH_PORT=str(health), GPU_ADVISOR_LOG_LEVEL="INFO",
                    GPU_ADVISOR_SLACK_ANSWER_PROCESSES="0", GPU_ADVISOR_SLACK_WORKING_DELAY="0")
    proc, log_path = start(["serve"], env, tmp_path)
    try:
        wait_status(f"http://127.0.0.1:{health}/readyz", 200, proc=proc, log_path=log_path)
        server.wait_connected()
        event = {"type": "app_mention", "user": "U0ALICE", "text": QUESTION, "ts": "1700000300.000100",
                 "channel": "C0GENERAL"}
        body = json.loads(SlackRequests("local-secret").event(event, event_id="Ev0TRACE")[0])
        server.wait_ack(server.send("events_api", body))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not [c for c in api.calls_to("chat.postMessage")
                                                     if c.params.get("thread_ts") == event["ts"]]:
            time.sleep(0.2)
        rc, _took = stop(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = json_lines(log_path)
    assert rc == 0, log_path.read_text()[-3000:]
    warnings = [l for l in lines if l.get("level") in ("WARNING", "ERROR", "CRITICAL")]
    assert warnings == [], warnings
    [request] = [l for l in lines if l.get("logger") == "gpu_advisor.requests"]
    assert request["level"] == "INFO" and request["request_id"] == "Ev0TRACE"
    assert request["conversation_id"] == "T0LOCAL:C0GENERAL:1700000300.000100"
    assert request["message"] == f"slack request: event app_mention user=U0ALICE channel=C0GENERAL chars={len(QUESTION)}"


def test_the_request_line_names_commands_and_buttons_but_never_the_text():
    line = describe_request({"command": "/gpu", "user_id": "U1", "channel_id": "C1", "text": "check gpu-node-7"})
    assert line == "slack request: command /gpu user=U1 channel=C1 chars=16"
    button = describe_request({"type": "block_actions", "user": {"id": "U2"}, "channel": {"id": "C2"},
                               "actions": [{"action_id": "more"}]})
    assert button == "slack request: block_actions more user=U2 channel=C2"
    assert "gpu-node-7" not in line
