"""Request signing between the bot and the agent: HMAC-SHA256 over method, path, body and time.

The string signed is `METHOD\\nPATH\\nQUERY\\nTIMESTAMP\\nNONCE\\nSHA256(BODY)`. The agent refuses a
request whose timestamp is more than `window_s` away from its clock (stale), whose signature does
not match (compared in constant time), or whose nonce it has already accepted (replayed). Nonces
are remembered for twice the window, so a replay inside the window is caught and one outside it
is stale. PATH and QUERY are the request target exactly as sent (still percent-encoded): the
client signs what it puts on the wire and the agent verifies ASGI's `raw_path`, never a decoded
form, so encoded characters cannot make the two sides disagree.

Every response to an authenticated request is signed too (refusals are not), so a reply cannot be
forged or altered on the way back (plain http):
`x-gpu-advisor-response-signature: v1=HMAC(secret, "response\nSTATUS\nREQUEST_SIGNATURE\nTIMESTAMP\nSHA256(BODY))`.
Binding the reply to the request's signature (which covers its fresh nonce) means an old reply
cannot be replayed for a new request. A streamed reply (the event stream) cannot sign a body it has
not produced yet: its header signs the status with the body digest "stream", and each event carries
its own signature in its SSE `id:` field (`event_signature`).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections import OrderedDict
from collections.abc import Callable

# The signing half of the scheme is the wire contract, shared with the bot's dispatcher; its names
# are re-exported here for the agent's callers.
from bot.agent_contract import (  # noqa: F401
    _NONCE_FORMAT, _TIMESTAMP_FORMAT, MIN_SECRET_BYTES, NEXT_SECRET_ENV, NONCE, RESPONSE_SIGNATURE, RESPONSE_TIMESTAMP,
    SECRET_ENV, SECRET_SCOPE_KEY, SIGNATURE, STREAMED, TIMESTAMP, canonical, event_signature, response_headers,
    response_signature, sign_headers, signature, verify_event, verify_response)

class NonceCache:
    """Nonces seen recently. Bounded: when full of unexpired nonces, new requests are refused."""

    def __init__(self, ttl_s: float, max_entries: int = 100_000):
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self._seen: OrderedDict[str, float] = OrderedDict()

    def seen(self, nonce: str, now: float) -> bool:
        """Whether `nonce` was accepted and has not expired (does not add it)."""
        expires = self._seen.get(nonce)
        return expires is not None and expires >= now

    def add(self, nonce: str, now: float) -> str | None:
        """None if accepted; else the reason it is refused."""
        while self._seen and next(iter(self._seen.values())) < now:
            self._seen.popitem(last=False)
        if nonce in self._seen:
            return "replayed request (nonce already used)"
        if len(self._seen) >= self.max_entries:
            return "too many recent requests; retry later"
        self._seen[nonce] = now + self.ttl_s
        return None


class Verifier:
    """Checks signed requests. During a secret rotation (`next_secret`, GPU_ADVISOR_AGENT_SECRET_NEXT)
    a request signed with either secret is authentic, and its reply is signed with the same one."""

    def __init__(self, secret: bytes, window_s: float = 60.0, clock: Callable[[], float] = time.time,
                 next_secret: bytes | None = None):
        self.secret = secret
        self.secrets = (secret, next_secret) if next_secret and next_secret != secret else (secret,)
        self.window_s = window_s
        self.clock = clock
        self.nonces = NonceCache(ttl_s=2 * window_s)

    def precheck(self, headers: dict[str, str]) -> tuple[str, str] | None:
        """What can be refused from the headers alone, before reading a body: unsigned, malformed,
        stale or replayed. None if the request may be authentic."""
        timestamp, nonce, sig = headers.get(TIMESTAMP), headers.get(NONCE), headers.get(SIGNATURE)
        if not (timestamp and nonce and sig):
            return "missing", "request is not signed (missing timestamp, nonce or signature header)"
        if not _TIMESTAMP_FORMAT.fullmatch(timestamp) or not _NONCE_FORMAT.fullmatch(nonce) or len(sig) > 80:
            return "malformed", "malformed timestamp, nonce or signature header"
        if abs(self.clock() - int(timestamp)) > self.window_s:
            return "stale", f"stale request: timestamp is more than {self.window_s:.0f} s from the agent's clock"
        if self.nonces.seen(nonce, self.clock()):
            return "replayed", "replayed request (nonce already used)"
        return None

    def check(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> tuple[str, str] | None:
        """None if the request is authentic; else (reason code, message)."""
        return self.authenticate(method, path, query, headers, body)[1]

    def authenticate(self, method: str, path: str, query: str, headers: dict[str, str],
                     body: bytes) -> tuple[bytes | None, tuple[str, str] | None]:
        """(the secret the request was signed with, None) if authentic; else (None, refusal)."""
        refused = self.precheck(headers)
        if refused:
            return None, refused
        timestamp, nonce, sig = headers[TIMESTAMP], headers[NONCE], headers[SIGNATURE]
        now = self.clock()
        matched = None
        for secret in self.secrets:  # every candidate is compared, so timing does not tell which matched
            expected = signature(secret, method, path, query, timestamp, nonce, body)
            if hmac.compare_digest(expected.encode(), sig.encode()) and matched is None:
                matched = secret
        if matched is None:
            return None, ("bad_signature", "bad signature")
        refused = self.nonces.add(nonce, now)
        if refused:
            return None, ("replayed", refused)
        return matched, None


def _signing_send(send, secret: bytes, request_signature: str):
    """Wrap ASGI `send` so the response carries the agent's signature over status and body.

    A complete body (one message) is signed over its bytes; a streamed body (more_body) gets the
    "stream" digest in its header and signs each event itself (see the events endpoint)."""
    start: dict | None = None

    async def signed_send(message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message  # held until the body shows whether it is complete or streamed
            return
        if message["type"] == "http.response.body" and start is not None:
            body = None if message.get("more_body") else message.get("body", b"")
            extra = response_headers(secret, start["status"], request_signature, body)
            headers = list(start.get("headers", [])) + [(k.encode(), v.encode()) for k, v in extra.items()]
            await send({**start, "headers": headers})
            start = None
        await send(message)

    return signed_send


class SignedRequests:
    """ASGI middleware: bounds the body size and read time, checks every request's signature, signs
    the responses to authenticated requests.

    What the headers alone show (unsigned, malformed, stale, replayed, a declared body over
    `max_body`) is refused before a byte of the body is read; the body must then arrive within
    `body_timeout_s` (408) and within `max_body` (413). Refusals are not signed: the agent signs only
    replies to requests it authenticated, so no one can get its signature over their own header.
    `verifier=None` (only with --insecure-dev, on loopback) skips the signature check; with no
    secret, responses are not signed either.
    `open_paths` are served unsigned (e.g. /metrics for a Prometheus scraper when asked for).
    """

    def __init__(self, app, verifier: Verifier | None, max_body: int = 64 * 1024,
                 open_paths: frozenset[str] = frozenset(), failures: dict[str, int] | None = None,
                 body_timeout_s: float = 10.0):
        self.app = app
        self.verifier = verifier
        self.max_body = max_body
        self.open_paths = open_paths
        self.failures = failures if failures is not None else {}
        self.body_timeout_s = body_timeout_s

    async def _refuse(self, send, status: int, code: str, message: str) -> None:
        self.failures[code] = self.failures.get(code, 0) + 1
        body = json.dumps({"detail": message, "code": code}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def _read_body(self, receive) -> bytes | str | None:
        """The body; None if the client went away; "too_large" past max_body."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return "too_large"
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        verifier = self.verifier if scope["path"] not in self.open_paths else None
        if verifier is not None:
            refused = verifier.precheck(headers)
            if refused:
                return await self._refuse(send, 401, *refused)
        declared = headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_body:
            return await self._refuse(send, 413, "too_large", f"request body over {self.max_body} bytes")
        try:
            async with asyncio.timeout(self.body_timeout_s):
                body = await self._read_body(receive)
        except TimeoutError:
            return await self._refuse(send, 408, "body_timeout",
                                      f"request body not received within {self.body_timeout_s:g} s")
        if body is None:
            return None
        if isinstance(body, str):  # "too_large"
            return await self._refuse(send, 413, "too_large", f"request body over {self.max_body} bytes")
        if verifier is not None:
            # The target as sent (percent-encoded), which is what the client signed.
            raw_path = scope.get("raw_path")
            path = raw_path.decode("latin-1") if raw_path else scope["path"]
            secret, refused = verifier.authenticate(scope["method"], path,
                                                         scope.get("query_string", b"").decode("latin-1"), headers, body)
            if refused or secret is None:  # a secret, or the refusal: never neither
                return await self._refuse(send, 401, *(refused or ("bad_signature", "bad signature")))
            scope = {**scope, SECRET_SCOPE_KEY: secret}  # the reply (and its events) are signed with it
            send = _signing_send(send, secret, headers[SIGNATURE])
        replayed = False

        async def replay_receive():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay_receive, send)
