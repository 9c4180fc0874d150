"""Slack's side of the conversation, on loopback, for tests, the bench and the example cards.

The technique is bolt-python's own: a real HTTP server that implements the Web API methods the
app calls and records every request; requests to the app signed exactly as Slack signs them; and
a WebSocket server speaking the Socket Mode envelope protocol. Nothing here talks to Slack.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from slack_sdk.signature import SignatureVerifier

TEAM_ID = "T0LOCAL"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"


@dataclass
class ApiCall:
    """One request the app made: Web API method (or `upload` / `response_url`), parameters, time."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)

    @property
    def blocks(self) -> list[dict]:
        return self.json_param("blocks") or []

    def json_param(self, name: str):
        """A parameter sent as JSON text (form posts) or as a JSON value (JSON posts)."""
        return _json_param(self.params.get(name))


class LocalSlackApi:
    """A threaded HTTP server playing the Slack Web API on 127.0.0.1 and a free port.

    `base_url` goes to `WebClient(base_url=...)`. `rate_limit_once(method)` makes the next call of
    that method answer 429 with Retry-After. `not_in_channel` lists channels where
    chat.postMessage fails as Slack does when the bot is not a member. `usergroups` maps a
    user-group id to its members' user ids, for `usergroups.list` and `usergroups.users.list`;
    `errors` makes a method fail as Slack does (e.g. `missing_scope`). `fail_next(method, status,
    times)` makes the next calls of a method answer with an HTTP error (a 500 from Slack's side).
    """

    def __init__(self):
        self.calls: list[ApiCall] = []
        self.socket_mode_url: str | None = None
        self.not_in_channel: set[str] = set()
        self.usergroups: dict[str, list[str]] = {}
        self.errors: dict[str, str] = {}  # method -> the error it answers with (ok: false)
        self._rate_limited: dict[str, int] = {}
        self._failing: dict[str, list[int]] = {}  # method -> HTTP statuses for its next calls
        self._lock = threading.Condition()
        self._ts = itertools.count(1)
        self._files = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.request_queue_size = 1024
        self._thread = threading.Thread(target=self._server.serve_forever, name="local-slack-api", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def base_url(self) -> str:
        return self.root + "api/"

    def response_url(self, name: str = "r1") -> str:
        return self.root + f"response/{name}"

    def start(self) -> "LocalSlackApi":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "LocalSlackApi":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- test controls -----------------------------------------------------------------------
    def rate_limit_once(self, method: str, retry_after: int = 1) -> None:
        with self._lock:
            self._rate_limited[method] = retry_after

    def fail_next(self, method: str, status: int = 500, times: int = 1) -> None:
        with self._lock:
            self._failing.setdefault(method, []).extend([status] * times)

    def _take_failure(self, method: str) -> int | None:
        with self._lock:
            pending = self._failing.get(method)
            return pending.pop(0) if pending else None

    def calls_to(self, method: str) -> list[ApiCall]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0) -> list[ApiCall]:
        """Block until `count` calls of `method` arrived; AssertionError naming what did arrive."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = [c for c in self.calls if c.method == method]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [c.method for c in self.calls]
                    raise AssertionError(f"expected {count} {method} call(s) within {timeout}s, got {len(found)}; "
                                         f"calls: {seen}")
                self._lock.wait(left)

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()

    # -- the server ----------------------------------------------------------------------------
    def _record(self, call: ApiCall) -> None:
        with self._lock:
            self.calls.append(call)
            self._lock.notify_all()

    def _take_rate_limit(self, method: str) -> int | None:
        with self._lock:
            return self._rate_limited.pop(method, None)

    def _answer(self, method: str, params: dict) -> dict:
        if method in self.errors:
            return {"ok": False, "error": self.errors[method]}
        if method == "auth.test":
            return {"ok": True, "url": "https://local.slack.test/", "team": "Local", "user": "gpu-advisor",
                    "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "chat.postMessage":
            channel = params.get("channel", "")
            if channel in self.not_in_channel:
                return {"ok": False, "error": "not_in_channel"}
            ts = f"{1700000000 + next(self._ts)}.000100"
            return {"ok": True, "channel": channel, "ts": ts,
                    "message": {"text": params.get("text", ""), "ts": ts, "bot_id": BOT_ID}}
        if method == "chat.delete":
            return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}
        if method == "chat.update":
            return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts"), "text": params.get("text")}
        if method in ("views.open", "views.publish", "views.update", "views.push"):
            return {"ok": True, "view": {"id": "V0LOCAL", **(_json_param(params.get("view")) or {})}}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._files):06d}"
            return {"ok": True, "upload_url": self.root + f"upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = _json_param(params.get("files")) or []
            return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files]}
        if method == "usergroups.list":
            include_users = str(params.get("include_users", "")).lower() in ("1", "true")
            groups = []
            for group_id, members in sorted(self.usergroups.items()):
                group = {"id": group_id, "team_id": TEAM_ID, "handle": group_id.lower(), "name": group_id,
                         "is_usergroup": True, "user_count": len(members)}
                if include_users:
                    group["users"] = list(members)
                groups.append(group)
            return {"ok": True, "usergroups": groups}
        if method == "usergroups.users.list":
            group_id = params.get("usergroup", "")
            if group_id not in self.usergroups:
                return {"ok": False, "error": "no_such_subteam"}
            return {"ok": True, "users": list(self.usergroups[group_id])}
        if method == "apps.connections.open":
            return {"ok": True, "url": self.socket_mode_url}
        return {"ok": False, "error": "unknown_method"}

    def _handler_class(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: tests read the recorded calls instead
                pass

            def _reply(self, status: int, body: bytes, content_type="application/json", headers=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def _handle(self):
                url = urllib.parse.urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                params: dict[str, Any] = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
                path = url.path.strip("/")
                if path.startswith("upload/"):  # the file's bytes, whatever the content type says
                    api._record(ApiCall("upload", {"file_id": path.split("/", 1)[1], "_bytes": len(raw),
                                                   "_png": raw.startswith(b"\x89PNG")}, headers))
                    return self._reply(200, b"OK - " + str(len(raw)).encode(), "text/plain")
                content_type = headers.get("content-type", "")
                if raw and "application/json" in content_type:
                    params.update(json.loads(raw))
                elif raw:
                    params.update({k: v[-1] for k, v in urllib.parse.parse_qs(raw.decode()).items()})
                if path.startswith("response/"):
                    api._record(ApiCall("response_url", {"name": path.split("/", 1)[1], **params}, headers))
                    return self._reply(200, b"ok", "text/plain")
                method = path.removeprefix("api/")
                failure = api._take_failure(method)
                if failure is not None:
                    api._record(ApiCall(method, {**params, "_status": failure}, headers))
                    return self._reply(failure, b'{"ok": false, "error": "fatal_error"}')
                retry_after = api._take_rate_limit(method)
                api._record(ApiCall(method, {**params, "_status": 429 if retry_after else 200}, headers))
                if retry_after is not None:
                    body = json.dumps({"ok": False, "error": "ratelimited"}).encode()
                    return self._reply(429, body, headers={"Retry-After": str(retry_after)})
                self._reply(200, json.dumps(api._answer(method, params)).encode())

            do_GET = _handle
            do_POST = _handle

        return Handler


def _json_param(value):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


# -- requests to the app, signed as Slack signs them ------------------------------------------------


class SlackRequests:
    """Bodies and signed headers for events, slash commands and interactive payloads."""

    def __init__(self, signing_secret: str, api: LocalSlackApi | None = None):
        self.verifier = SignatureVerifier(signing_secret)
        self.api = api
        self._ids = itertools.count(1)
        # Event ids are unique across runs, as Slack's are: a shared dedupe store outlives a run.
        self._run = uuid.uuid4().hex[:8].upper()

    def headers(self, body: str, content_type: str, timestamp: int | None = None,
                retry_num: int | None = None) -> dict[str, str]:
        timestamp = int(time.time()) if timestamp is None else timestamp
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(timestamp),
            "X-Slack-Signature": self.verifier.generate_signature(timestamp=str(timestamp), body=body),
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return headers

    def event(self, event: dict, event_id: str | None = None) -> tuple[str, str]:
        """(body, content type) of an Events API callback."""
        body = {
            "token": "legacy", "team_id": TEAM_ID, "api_app_id": "A0LOCAL", "type": "event_callback",
            "event_id": event_id or f"Ev{self._run}{next(self._ids):06d}", "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
            "event": {"event_ts": event.get("ts", "1.0"), **event},
        }
        return json.dumps(body), "application/json"

    def command(self, text: str, user: str = "U0ALICE", channel: str = "C0GENERAL",
                command: str = "/gpu") -> tuple[str, str]:
        fields = {
            "token": "legacy", "team_id": TEAM_ID, "team_domain": "local", "channel_id": channel,
            "channel_name": "general", "user_id": user, "user_name": user.lower(), "command": command,
            "text": text, "api_app_id": "A0LOCAL", "trigger_id": f"trig.{next(self._ids)}",
            "response_url": self.api.response_url(f"cmd{next(self._ids)}") if self.api else "",
        }
        return urllib.parse.urlencode(fields), "application/x-www-form-urlencoded"

    def block_action(self, action_id: str, value: str, *, user: str = "U0ALICE", channel: str = "C0GENERAL",
                     message_ts: str = "1700000001.000100", thread_ts: str | None = None) -> tuple[str, str]:
        message = {"type": "message", "ts": message_ts, "bot_id": BOT_ID, "text": "card"}
        if thread_ts:
            message["thread_ts"] = thread_ts
        payload = {
            "type": "block_actions", "team": {"id": TEAM_ID, "domain": "local"},
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0LOCAL",
            "token": "legacy", "trigger_id": f"trig.{next(self._ids)}",
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel, "is_ephemeral": False},
            "channel": {"id": channel, "name": "general"}, "message": message,
            "response_url": self.api.response_url(f"act{next(self._ids)}") if self.api else "",
            "actions": [{"type": "button", "action_id": action_id, "block_id": "b1", "value": value,
                         "action_ts": str(time.time())}],
        }
        return self._payload(payload)

    def view_submission(self, callback_id: str, values: dict, private_metadata: str = "",
                        user: str = "U0ALICE") -> tuple[str, str]:
        payload = {
            "type": "view_submission", "team": {"id": TEAM_ID, "domain": "local"},
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID}, "api_app_id": "A0LOCAL",
            "token": "legacy", "trigger_id": f"trig.{next(self._ids)}",
            "view": {"id": "V0LOCAL", "type": "modal", "callback_id": callback_id, "private_metadata": private_metadata,
                     "state": {"values": values}, "team_id": TEAM_ID, "app_id": "A0LOCAL", "bot_id": BOT_ID},
        }
        return self._payload(payload)

    @staticmethod
    def _payload(payload: dict) -> tuple[str, str]:
        return urllib.parse.urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"


# -- Socket Mode ---------------------------------------------------------------------------------------


class LocalSocketModeServer:
    """A WebSocket server speaking Socket Mode: it says hello, pushes envelopes, collects acks."""

    def __init__(self):
        from websockets.sync.server import serve

        self.acks: dict[str, dict] = {}
        self._outbox: queue.Queue[dict] = queue.Queue()
        self._acked = threading.Condition()
        self._connected = threading.Event()
        self._server = serve(self._handle, "127.0.0.1", 0)
        self._thread = threading.Thread(target=self._server.serve_forever, name="local-socket-mode", daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/link"

    def start(self) -> "LocalSocketModeServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._outbox.put({"_stop": True})
        self._server.shutdown()

    def wait_connected(self, timeout: float = 10.0) -> None:
        if not self._connected.wait(timeout):
            raise AssertionError("the Socket Mode client did not connect")

    def send(self, envelope_type: str, payload: dict, retry_attempt: int = 0) -> str:
        envelope_id = f"env-{time.monotonic_ns()}"
        self._outbox.put({"envelope_id": envelope_id, "type": envelope_type, "payload": payload,
                          "accepts_response_payload": envelope_type != "events_api",
                          "retry_attempt": retry_attempt, "retry_reason": "timeout" if retry_attempt else ""})
        return envelope_id

    def wait_ack(self, envelope_id: str, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._acked:
            while envelope_id not in self.acks:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no ack for envelope {envelope_id} within {timeout}s")
                self._acked.wait(left)
            return self.acks[envelope_id]

    def _handle(self, websocket) -> None:
        websocket.send(json.dumps({"type": "hello", "num_connections": 1,
                                   "connection_info": {"app_id": "A0LOCAL"}}))
        self._connected.set()

        def receive() -> None:
            try:
                for message in websocket:
                    data = json.loads(message)
                    if "envelope_id" in data:
                        with self._acked:
                            self.acks[data["envelope_id"]] = data
                            self._acked.notify_all()
            except Exception:  # the client went away
                return

        threading.Thread(target=receive, daemon=True).start()
        while True:
            envelope = self._outbox.get()
            if envelope.get("_stop"):
                return
            websocket.send(json.dumps(envelope))
