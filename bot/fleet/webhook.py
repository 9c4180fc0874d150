"""The Alertmanager webhook endpoint: `POST /alertmanager` with the webhook JSON; each alert's
advice goes to the channel (bot/fleet/alertmanager.py).

Bounded like every input from outside: the body at most `max_body` bytes and read within
`body_timeout_s`, at most 500 alerts; a bearer token (Alertmanager's `http_config.authorization`)
unless explicitly run without one on loopback. Answers: 200 `{"posted": n}`, 400 naming the bad
field, 401 without the token, 404 another path, 413 a body too large.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import ValidationError

from bot.fleet.alertmanager import AmPayload, advice_text

log = logging.getLogger("gpu_advisor.fleet")
PATH = "/alertmanager"
MAX_BODY = 1024 * 1024


class AlertReceiver:
    def __init__(self, advisor, poster, channel: str, token: str | None, host: str = "127.0.0.1", port: int = 0,
                 language: str = "en", max_body: int = MAX_BODY, body_timeout_s: float = 10.0):
        if not token and host not in ("127.0.0.1", "::1", "localhost"):
            raise ValueError("the Alertmanager receiver needs a token (GPU_ADVISOR_ALERTMANAGER_TOKEN) "
                             "unless it listens on loopback")
        self.advisor, self.poster, self.channel, self.token = advisor, poster, channel, token
        self.language, self.max_body, self.body_timeout_s = language, max_body, body_timeout_s
        self.server = ThreadingHTTPServer((host, port), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}{PATH}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="alertmanager", daemon=True)
        self._lock = threading.Lock()  # one payload judged at a time: the engine's sessions are not shared

    def start(self) -> "AlertReceiver":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle(self, payload: AmPayload) -> int:
        posted = 0
        with self._lock:
            for alert in payload.alerts:
                text = advice_text(alert, self.advisor, self.language)
                if asyncio.run(self.poster.post(self.channel, text)) is not None:
                    posted += 1
        return posted

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                if self.path.split("?", 1)[0] != PATH:
                    return self._reply(404, {"error": f"not found; POST {PATH}"})
                if receiver.token:
                    given = self.headers.get("authorization", "").removeprefix("Bearer ").strip()
                    if not hmac.compare_digest(given.encode(), receiver.token.encode()):
                        return self._reply(401, {"error": "missing or wrong bearer token"})
                length = self.headers.get("content-length", "")
                if not length.isdigit():
                    return self._reply(411, {"error": "content-length required"})
                if int(length) > receiver.max_body:
                    return self._reply(413, {"error": f"body over {receiver.max_body} bytes"})
                self.connection.settimeout(receiver.body_timeout_s)
                try:
                    body = self.rfile.read(int(length))
                    payload = AmPayload.model_validate_json(body)
                except TimeoutError:
                    return self._reply(408, {"error": "body not received in time"})
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first["loc"]) or "(body)"
                    return self._reply(400, {"error": f"{where}: {first['msg']}"})
                try:
                    posted = receiver.handle(payload)
                except Exception as exc:  # judged or posted badly: Alertmanager retries on 5xx
                    log.exception("alertmanager webhook: handling a payload failed")
                    return self._reply(500, {"error": type(exc).__name__})
                log.info("alertmanager webhook: %d alert(s), %d posted", len(payload.alerts), posted)
                return self._reply(200, {"posted": posted})

        return Handler
