"""Helpers shared by the Slack tests: the app served over HTTP on loopback, and block inspection.

The app under test is the one `gpu-advisor serve --http` runs: `build_app` served by
`bot.slack.serve.http_server` (uvicorn) on a free loopback port, talking to the local Web API.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass

import httpx

from tests.kit.local_slack import BOT_USER_ID, LocalSlackApi, SlackRequests
from bot.slack.serve import EVENTS_PATH, http_server
from bot.slack.settings import load_settings

SIGNING_SECRET = "local-signing-secret"
ADMIN = "U0ADMIN"
MENTION_TS = "1700000100.000200"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def local_settings(api: LocalSlackApi, **overrides):
    values = dict(bot_token="xoxb-local", app_token="xapp-local", signing_secret=SIGNING_SECRET,
                  api_url=api.base_url, admins=ADMIN, inventory=None, workers=4)
    return load_settings(**{**values, **overrides})


@dataclass
class HttpBot:
    url: str
    api: LocalSlackApi
    requests: SlackRequests
    client: httpx.Client

    def post(self, body: str, content_type: str, **header_options) -> httpx.Response:
        headers = self.requests.headers(body, content_type, **header_options)
        return self.client.post(self.url, content=body.encode(), headers=headers)

    def event(self, event: dict, event_id: str | None = None, **header_options) -> httpx.Response:
        return self.post(*self.requests.event(event, event_id), **header_options)

    def command(self, text: str, **fields) -> httpx.Response:
        return self.post(*self.requests.command(text, **fields))

    def action(self, action_id: str, value: str, **fields) -> httpx.Response:
        return self.post(*self.requests.block_action(action_id, value, **fields))


def serve(app) -> tuple[str, object, threading.Thread]:
    """Serve a Bolt app as `gpu-advisor serve --http` does; returns (events URL, server, thread)."""
    port = free_port()
    server = http_server(app, "127.0.0.1", port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}{EVENTS_PATH}", server, thread


def is_working(call) -> bool:
    """A "working…" message (or a check's progress in it), not an answer."""
    return call.params.get("text", "").startswith("Working on")


def answers(api: LocalSlackApi, count: int = 1, timeout: float = 15.0, channel: str | None = None) -> list:
    """The first `count` answer messages, in order: a card posted directly (`chat.postMessage`) or
    put in place of a working message (`chat.update`), whichever the app's timing gave."""
    deadline = time.monotonic() + timeout
    while True:
        found = [c for c in api.calls_to("chat.postMessage") + api.calls_to("chat.update")
                 if c.params.get("_status") == 200 and not is_working(c)
                 and (channel is None or c.params.get("channel") == channel)]
        found.sort(key=lambda c: c.at)
        if len(found) >= count:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"expected {count} answer(s) within {timeout}s, got {len(found)}; "
                                 f"calls: {[c.method for c in api.calls]}")
        time.sleep(0.02)


def mention(text: str, ts: str = MENTION_TS, thread_ts: str | None = None, channel: str = "C0GENERAL",
            user: str = "U0ALICE") -> dict:
    event = {"type": "app_mention", "user": user, "text": f"<@{BOT_USER_ID}> {text}", "ts": ts, "channel": channel}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def texts(node) -> str:
    """Every text in a block tree, joined, for assertions on what the user sees."""
    return "\n".join(text_objects(node))


def text_objects(node) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("text"), str):
            found.append(node["text"])
        for value in node.values():
            if isinstance(value, (dict, list)):
                found += text_objects(value)
    elif isinstance(node, list):
        for item in node:
            found += text_objects(item)
    return found


def button_value(blocks: list[dict], action_id: str) -> str:
    for block in blocks:
        for element in block.get("elements", []):
            if element.get("action_id") == action_id:
                return element["value"]
    raise AssertionError(f"no {action_id} button in {json.dumps(blocks)[:300]}")


def action_ids(blocks: list[dict]) -> set[str]:
    return {e["action_id"] for b in blocks for e in b.get("elements", []) if "action_id" in e}
