"""One Slack bot replica for the two-replica test: the real Bolt app over HTTP, as `serve --http`.

It reads the Slack settings from the environment (SLACK_API_URL points at the test's local Web
API), keeps its event claims, thread state, button payloads, recent questions and rule-base
version in the shared store (GPU_ADVISOR_DATABASE_URL/_SCHEMA), prints its events URL and its
claim id, and runs until its stdin closes (or is killed, as a dying replica).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

from bot.slack.app import build_app, close_app
from bot.slack.serve import EVENTS_PATH, http_server
from bot.slack.settings import load_settings
from bot.store import Store


def main() -> None:
    settings = load_settings()
    store = Store()
    app = build_app(settings, "http", store=store)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = http_server(app, "127.0.0.1", port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    print(json.dumps({"url": f"http://127.0.0.1:{port}{EVENTS_PATH}", "claimed_by": store.claimed_by}), flush=True)
    sys.stdin.read()
    server.should_exit = True
    thread.join(timeout=10)
    close_app(app)
    store.close()


if __name__ == "__main__":
    main()
