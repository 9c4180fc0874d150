"""Request signing: known-answer signatures, the exact stale boundary, the nonce cache's expiry and
eviction order, and the body-size bound of the middleware (with and without content-length)."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest

from bot.agent import security
from bot.agent.security import (
    NONCE,
    RESPONSE_SIGNATURE,
    RESPONSE_TIMESTAMP,
    SIGNATURE,
    TIMESTAMP,
    NonceCache,
    SignedRequests,
    Verifier,
    canonical,
    event_signature,
    response_headers,
    response_signature,
    sign_headers,
    signature,
    verify_event,
    verify_response,
)

SECRET = b"0123456789abcdef-test-secret"
NOW = 1_700_000_000
NONCE_VALUE = "AbCdEfGhIjKlMnOp_-12"
BODY = b'{"probe": "smi"}'
BODY_SHA256 = "075ecf3854309868b29614bf5b629f234e4690b2b18a48723e3218947837af0f"
EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


# -- known answers: the wire format the agent and every client version must agree on ------------------

def test_canonical_string_is_the_documented_one_with_the_method_upper_case():
    assert canonical("post", "/v1/check", "verbose=1&x=%2F", str(NOW), NONCE_VALUE, BODY) == (
        f"POST\n/v1/check\nverbose=1&x=%2F\n{NOW}\n{NONCE_VALUE}\n{BODY_SHA256}".encode())
    assert canonical("GET", "/health", "", str(NOW), NONCE_VALUE, b"") == (
        f"GET\n/health\n\n{NOW}\n{NONCE_VALUE}\n{EMPTY_SHA256}".encode())


def test_request_signature_known_answer():
    # HMAC-SHA256(SECRET, canonical string), computed independently of the module under test
    expected = "v1=4777d9ec909ab14e12dfe5d2c753795f2a4985f85ad04e4d8f96a7d2561d0dec"
    assert signature(SECRET, "POST", "/v1/check", "verbose=1&x=%2F", str(NOW), NONCE_VALUE, BODY) == expected
    assert signature(SECRET, "post", "/v1/check", "verbose=1&x=%2F", str(NOW), NONCE_VALUE, BODY) == expected
    assert signature(SECRET, "GET", "/health", "", str(NOW), NONCE_VALUE, b"") == (
        "v1=af567bc099cb5735b2b7373a7d57eaf1991e021ab6bfc769e7debf45344fb85d")


def test_response_and_event_signature_known_answers():
    assert response_signature(SECRET, 200, "v1=abc", str(NOW + 1), b'{"ok":true}') == (
        "v1=cd93df66b414f2d0a8eed5384367ee958f457494a1bb0bd94dc9f3275636dbc6")
    # a streamed response signs the digest "stream" in place of its body
    assert response_signature(SECRET, 200, "v1=abc", str(NOW + 1), None) == (
        "v1=c9ced0a158e672249d7c9b28af9b90432b4d83bf8c47d1f7a2b588f6cbba041a")
    assert event_signature(SECRET, "v1=abc", '{"gpu": 0}') == (
        "v1=323273b1d9ea9fdd41f9d952865a58a57ac220741b43b3cb27b70065ce3212a0")


def test_sign_headers_carry_time_nonce_and_the_matching_signature():
    headers = sign_headers(SECRET, "post", "/v1/check", BODY, query="a=1", now=NOW + 0.9)
    assert headers[TIMESTAMP] == str(NOW)
    assert len(headers[NONCE]) == 24  # 18 random bytes, URL-safe base64
    assert headers[SIGNATURE] == signature(SECRET, "POST", "/v1/check", "a=1", str(NOW), headers[NONCE], BODY)
    assert sign_headers(SECRET, "GET", "/x", now=NOW)[NONCE] != headers[NONCE]


def test_response_headers_carry_the_time_and_the_signature():
    assert response_headers(SECRET, 200, "v1=r", b"x", now=NOW + 0.7) == {
        RESPONSE_TIMESTAMP: str(NOW), RESPONSE_SIGNATURE: response_signature(SECRET, 200, "v1=r", str(NOW), b"x")}


def test_verify_response_and_event():
    body = b'{"ok":true}'
    headers = {RESPONSE_TIMESTAMP: str(NOW), RESPONSE_SIGNATURE: response_signature(SECRET, 200, "v1=r", str(NOW), body)}
    assert verify_response(SECRET, 200, "v1=r", headers, body) is None
    assert verify_response(SECRET, 500, "v1=r", headers, body) == "bad response signature"
    assert verify_response(SECRET, 200, "v1=other", headers, body) == "bad response signature"
    assert verify_response(SECRET, 200, "v1=r", headers, body + b" ") == "bad response signature"
    assert verify_response(SECRET, 200, "v1=r", {RESPONSE_TIMESTAMP: str(NOW)}, body) == "no response signature"
    for bad in ("", "12a", "１２", "1" * 13):
        assert verify_response(SECRET, 200, "v1=r", {**headers, RESPONSE_TIMESTAMP: bad}, body) == (
            "malformed response timestamp")
    event_id = event_signature(SECRET, "v1=r", "data")
    assert verify_event(SECRET, "v1=r", event_id, "data") is None
    assert verify_event(SECRET, "v1=r", event_id, "data!") == "bad event signature"
    assert verify_event(SECRET, "v1=q", event_id, "data") == "bad event signature"


# -- the verifier ------------------------------------------------------------------------------------

class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def signed(timestamp: int, nonce: str = NONCE_VALUE, body: bytes = BODY) -> dict[str, str]:
    return {TIMESTAMP: str(timestamp), NONCE: nonce,
            SIGNATURE: signature(SECRET, "POST", "/v1/check", "", str(timestamp), nonce, body)}


def check(verifier: Verifier, headers: dict[str, str], body: bytes = BODY):
    refused = verifier.check("POST", "/v1/check", "", headers, body)
    return refused[0] if refused else None


@pytest.mark.parametrize("offset,outcome", [
    (-60, None), (60, None), (0, None),           # exactly at the window: accepted
    (-61, "stale"), (61, "stale"),                # one second past it: stale
])
def test_stale_boundary_is_exactly_the_window(offset, outcome):
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    assert check(verifier, signed(NOW + offset)) == outcome


def test_a_fraction_of_a_second_past_the_window_is_stale():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW + 0.5))
    assert check(verifier, signed(NOW - 60)) == "stale"      # 60.5 s old
    assert check(verifier, signed(NOW + 60, nonce="x" * 16)) is None  # 59.5 s ahead


def test_the_stale_message_names_the_window():
    verifier = Verifier(SECRET, window_s=30, clock=Clock(NOW))
    code, message = verifier.check("POST", "/v1/check", "", signed(NOW - 31), BODY)
    assert code == "stale" and "30 s" in message


def test_refusals_in_order_of_checks():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    good = signed(NOW)
    for missing in (TIMESTAMP, NONCE, SIGNATURE):
        assert check(verifier, {k: v for k, v in good.items() if k != missing}) == "missing"
    assert check(verifier, {**good, TIMESTAMP: "17e8"}) == "malformed"
    assert check(verifier, {**good, NONCE: "short"}) == "malformed"
    assert check(verifier, {**good, NONCE: "bad nonce with spaces!"}) == "malformed"
    assert check(verifier, good, body=BODY + b"x") == "bad_signature"
    assert check(verifier, {**good, SIGNATURE: good[SIGNATURE].upper()}) == "bad_signature"
    assert verifier.check("GET", "/v1/check", "", good, BODY)[0] == "bad_signature"
    assert verifier.check("POST", "/v1/check", "a=1", good, BODY)[0] == "bad_signature"
    assert Verifier(b"another-secret-0123", clock=Clock(NOW)).check("POST", "/v1/check", "", good, BODY)[0] == (
        "bad_signature")
    assert check(verifier, good) is None
    assert check(verifier, good) == "replayed"


def test_the_default_window_is_60_seconds():
    verifier = Verifier(SECRET, clock=Clock(NOW))
    assert verifier.window_s == 60.0
    assert check(verifier, signed(NOW - 60)) is None
    assert check(verifier, signed(NOW - 61, nonce="y" * 16)) == "stale"


def test_refusal_messages():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    good = signed(NOW)
    assert verifier.check("POST", "/v1/check", "", {}, BODY) == (
        "missing", "request is not signed (missing timestamp, nonce or signature header)")
    assert verifier.check("POST", "/v1/check", "", {**good, NONCE: "short"}, BODY) == (
        "malformed", "malformed timestamp, nonce or signature header")
    assert verifier.check("POST", "/v1/check", "", {**good, SIGNATURE: "v1=0"}, BODY) == ("bad_signature", "bad signature")
    assert verifier.check("POST", "/v1/check", "", good, BODY) is None
    assert verifier.check("POST", "/v1/check", "", good, BODY) == ("replayed", "replayed request (nonce already used)")


def test_an_overlong_signature_header_is_malformed():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    good = signed(NOW)
    assert check(verifier, {**good, SIGNATURE: "v" * 80}) == "bad_signature"  # 80 characters: checked
    assert check(verifier, {**good, SIGNATURE: "v" * 81}) == "malformed"      # 81: refused unread


def test_a_replay_is_refused_from_the_headers_alone():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    assert check(verifier, signed(NOW)) is None
    assert verifier.precheck(signed(NOW)) == ("replayed", "replayed request (nonce already used)")
    assert verifier.precheck(signed(NOW, nonce="z" * 16)) is None


def test_a_full_nonce_cache_refuses_new_requests():
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    verifier.nonces.max_entries = 1
    assert check(verifier, signed(NOW, nonce="p" * 16)) is None
    assert verifier.check("POST", "/v1/check", "", signed(NOW, nonce="q" * 16), BODY) == (
        "replayed", "too many recent requests; retry later")


def test_a_bad_signature_does_not_burn_the_nonce():
    # Otherwise anyone could block a client's next request by sending its nonce first.
    verifier = Verifier(SECRET, window_s=60, clock=Clock(NOW))
    forged = {**signed(NOW), SIGNATURE: "v1=" + "0" * 64}
    assert check(verifier, forged) == "bad_signature"
    assert check(verifier, signed(NOW)) is None


def test_nonces_are_remembered_for_twice_the_window():
    clock = Clock(NOW)
    verifier = Verifier(SECRET, window_s=60, clock=clock)
    assert verifier.nonces.ttl_s == 120
    assert check(verifier, signed(NOW)) is None
    clock.now = NOW + 60  # still inside the window: a replay is caught by the nonce
    assert check(verifier, signed(NOW)) == "replayed"
    clock.now = NOW + 61  # outside: stale, whatever the nonce cache says
    assert check(verifier, signed(NOW)) == "stale"


# -- the nonce cache ----------------------------------------------------------------------------------

REPLAYED = "replayed request (nonce already used)"
FULL = "too many recent requests; retry later"


def test_a_nonce_expires_strictly_after_its_ttl():
    cache = NonceCache(ttl_s=10)
    assert cache.add("a", now=0) is None
    assert cache.add("a", now=5) == REPLAYED
    assert cache.add("a", now=10) == REPLAYED   # expires at 10: still held at 10
    assert cache.add("a", now=10.001) is None  # gone just after, so accepted again (and held to 20.001)
    assert cache.add("a", now=20) == REPLAYED


def test_eviction_removes_the_oldest_expired_nonces_first_and_stops_at_a_live_one():
    cache = NonceCache(ttl_s=10, max_entries=3)
    assert [cache.add(n, now=t) for n, t in (("a", 0), ("b", 1), ("c", 2))] == [None, None, None]
    assert cache.add("d", now=3) == FULL  # full of live nonces: refused, not evicted
    assert cache.add("d", now=10.5) is None  # "a" (expired at 10) made room
    assert cache.add("b", now=10.5) == REPLAYED  # "b" lives to 11
    assert cache.add("c", now=10.5) == REPLAYED
    assert cache.add("a", now=10.5) == FULL  # "a" was evicted, but the cache is full again
    assert cache.add("e", now=12.5) is None  # "b" and "c" expired: room for more
    assert cache.add("f", now=12.5) is None
    assert cache.add("g", now=12.5) == FULL  # d, e, f live


def test_seen_does_not_add_and_honours_expiry():
    cache = NonceCache(ttl_s=10)
    assert cache.max_entries == 100_000
    assert not cache.seen("a", now=0)
    assert cache.add("a", now=0) is None
    assert cache.seen("a", now=10) and not cache.seen("a", now=10.001)
    assert not cache.seen("b", now=0) and cache.add("b", now=0) is None


def test_a_full_cache_refuses_but_still_recognises_replays():
    cache = NonceCache(ttl_s=100, max_entries=2)
    cache.add("a", now=0)
    cache.add("b", now=0)
    assert cache.add("a", now=1) == REPLAYED
    assert cache.add("c", now=1) == FULL


# -- the middleware: body size, with and without content-length ---------------------------------------

class App:
    """The smallest ASGI app: echoes the body it was given, then reads once more."""

    def __init__(self, start_headers: bool = True, body_key: bool = True):
        self.bodies: list[bytes] = []
        self.after: list[dict] = []
        self.scopes: list[dict] = []
        self.start_headers, self.body_key = start_headers, body_key

    async def __call__(self, scope, receive, send):
        self.scopes.append(scope)
        message = await receive()
        assert message["type"] == "http.request" and message["more_body"] is False
        self.bodies.append(message["body"])
        self.after.append(await receive())  # past the body: the server's own receive
        start = {"type": "http.response.start", "status": 200}
        if self.start_headers:
            start["headers"] = [(b"content-type", b"text/plain")]
        await send(start)
        await send({"type": "http.response.body", "body": b"echo:" + message["body"]} if self.body_key
                   else {"type": "http.response.body"})


def call(middleware, chunks: list[bytes] | None, headers: dict[str, str] | None = None, path: str = "/v1/check",
         scope_extra: dict | None = None, drop: tuple[str, ...] = (), stall: bool = False):
    """Run one request through the middleware; (status, headers, body, receive calls) of the response.
    `chunks=None`: the client disconnects before sending a body; `stall`: it never sends one."""
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
                for i, c in enumerate(chunks)] if chunks is not None else []
    received = []

    async def receive():
        received.append(1)
        if stall:
            await asyncio.sleep(3600)
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(k.encode(), v.encode()) for k, v in (headers or {}).items()], **(scope_extra or {})}
    for key in drop:
        del scope[key]
    asyncio.run(middleware(scope, receive, send))
    if not sent:
        return None, {}, b"", len(received)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body, len(received)


def refusal(status_headers_body) -> tuple[int, str, str]:
    status, headers, body, _ = status_headers_body
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == str(len(body))
    assert headers["connection"] == "close"  # a refused client does not keep the connection
    decoded = json.loads(body)
    assert set(decoded) == {"detail", "code"}
    return status, decoded["code"], decoded["detail"]


def test_a_chunked_body_over_the_limit_is_refused_without_content_length():
    app = App()
    failures: dict[str, int] = {}
    middleware = SignedRequests(app, verifier=None, max_body=10, failures=failures)
    reply = call(middleware, [b"123456", b"78901"])  # 11 bytes, no content-length
    assert refusal(reply) == (413, "too_large", "request body over 10 bytes")
    assert app.bodies == []
    call(middleware, [b"12345678901"])
    assert failures == {"too_large": 2} and middleware.failures is failures


def test_a_chunked_body_of_exactly_the_limit_reaches_the_app_whole():
    app = App()
    status, _, body, _ = call(SignedRequests(app, verifier=None, max_body=10), [b"12345", b"", b"67890"])
    assert (status, body) == (200, b"echo:1234567890")
    assert app.bodies == [b"1234567890"]


def test_a_declared_length_over_the_limit_is_refused_before_reading():
    app = App()
    reply = call(SignedRequests(app, verifier=None, max_body=10), [b"x"], {"content-length": "11"})
    assert refusal(reply) == (413, "too_large", "request body over 10 bytes")
    assert reply[3] == 0 and app.bodies == []
    status, _, _, _ = call(SignedRequests(app, verifier=None, max_body=10), [b"x"], {"content-length": "10"})
    assert status == 200


def test_a_signed_request_passes_and_its_reply_is_signed_for_it():
    app = App()
    verifier = Verifier(SECRET, clock=Clock(NOW))
    headers = signed(NOW)
    status, reply_headers, body, _ = call(SignedRequests(app, verifier=verifier), [BODY[:5], BODY[5:]], headers)
    assert (status, body) == (200, b"echo:" + BODY)
    assert reply_headers["content-type"] == "text/plain"  # the app's own headers are kept
    assert verify_response(SECRET, 200, headers[SIGNATURE], reply_headers, body) is None


def test_a_reply_without_headers_or_body_is_signed_over_an_empty_body():
    app = App(start_headers=False, body_key=False)
    headers = signed(NOW)
    status, reply_headers, body, _ = call(SignedRequests(app, Verifier(SECRET, clock=Clock(NOW))), [BODY], headers)
    assert (status, body) == (200, b"")
    assert verify_response(SECRET, 200, headers[SIGNATURE], reply_headers, b"") is None


def test_during_a_rotation_either_secret_is_accepted_and_the_reply_signed_with_it():
    new = b"fedcba9876543210-next-secret"
    verifier = Verifier(SECRET, clock=Clock(NOW), next_secret=new)
    assert verifier.secret == SECRET and verifier.secrets == (SECRET, new)
    assert Verifier(SECRET, next_secret=SECRET).secrets == (SECRET,)
    assert Verifier(SECRET).secrets == (SECRET,)
    middleware = SignedRequests(App(), verifier)
    for secret, nonce in ((SECRET, "a" * 16), (new, "b" * 16)):
        headers = {TIMESTAMP: str(NOW), NONCE: nonce,
                   SIGNATURE: signature(secret, "POST", "/v1/check", "", str(NOW), nonce, BODY)}
        status, reply_headers, body, _ = call(middleware, [BODY], headers)
        assert status == 200
        assert verify_response(secret, 200, headers[SIGNATURE], reply_headers, body) is None
    headers = {TIMESTAMP: str(NOW), NONCE: "c" * 16,
               SIGNATURE: signature(b"neither-secret-00000", "POST", "/v1/check", "", str(NOW), "c" * 16, BODY)}
    assert call(middleware, [BODY], headers)[0] == 401


def test_an_unsigned_or_tampered_request_never_reaches_the_app():
    app = App()
    middleware = SignedRequests(app, verifier=Verifier(SECRET, clock=Clock(NOW)))
    assert refusal(call(middleware, [BODY + b" "], signed(NOW))) == (401, "bad_signature", "bad signature")
    assert refusal(call(middleware, [BODY], {})) == (
        401, "missing", "request is not signed (missing timestamp, nonce or signature header)")
    assert refusal(call(middleware, [BODY], signed(NOW - 61))) == (
        401, "stale", "stale request: timestamp is more than 60 s from the agent's clock")
    assert app.bodies == []
    assert middleware.failures == {"bad_signature": 1, "missing": 1, "stale": 1}


def test_a_replayed_request_is_refused_with_its_reason():
    app = App()
    middleware = SignedRequests(app, verifier=Verifier(SECRET, clock=Clock(NOW)))
    headers = signed(NOW)
    assert call(middleware, [BODY], headers)[0] == 200
    assert refusal(call(middleware, [BODY], headers)) == (401, "replayed", "replayed request (nonce already used)")
    assert len(app.bodies) == 1


def test_the_path_signed_is_the_raw_target_and_the_query_string_is_optional():
    verifier = Verifier(SECRET, clock=Clock(NOW))
    # a scope with no raw_path and no query_string (some servers leave them out)
    headers = {TIMESTAMP: str(NOW), NONCE: "n" * 16,
               SIGNATURE: signature(SECRET, "POST", "/v1/x", "", str(NOW), "n" * 16, BODY)}
    reply = call(SignedRequests(App(), verifier), [BODY], headers, path="/v1/x", drop=("raw_path", "query_string"))
    assert reply[0] == 200
    # raw_path wins over the decoded path
    headers = {TIMESTAMP: str(NOW), NONCE: "m" * 16,
               SIGNATURE: signature(SECRET, "POST", "/v1/a%2Fb", "q=%20", str(NOW), "m" * 16, BODY)}
    reply = call(SignedRequests(App(), verifier), [BODY], headers, path="/v1/a/b",
                 scope_extra={"raw_path": b"/v1/a%2Fb", "query_string": b"q=%20"})
    assert reply[0] == 200


def test_a_client_that_goes_away_gets_no_reply_and_the_app_is_not_called():
    app = App()
    assert call(SignedRequests(app, verifier=None), None) == (None, {}, b"", 1)
    assert app.bodies == []


def test_a_body_that_never_arrives_times_out():
    app = App()
    middleware = SignedRequests(app, verifier=None, body_timeout_s=0.05)
    assert refusal(call(middleware, [b""], stall=True)) == (408, "body_timeout",
                                                            "request body not received within 0.05 s")
    assert app.bodies == [] and middleware.failures == {"body_timeout": 1}
    assert SignedRequests(app, verifier=None).body_timeout_s == 10.0
    assert SignedRequests(app, verifier=None).max_body == 64 * 1024


def test_the_app_reads_the_body_once_then_the_servers_receive():
    app = App()
    reply = call(SignedRequests(app, verifier=None), [b"ab", b"cd"])
    assert reply[:3:2] == (200, b"echo:abcd")
    assert app.after == [{"type": "http.disconnect"}]


def test_a_body_message_without_a_body_is_empty():
    app = App()
    messages = iter([{"type": "http.request", "more_body": False}])

    async def receive():
        return next(messages, {"type": "http.disconnect"})

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"", "headers": []}
    asyncio.run(SignedRequests(app, verifier=None)(scope, receive, send))
    assert app.bodies == [b""]


def test_other_scopes_pass_straight_through():
    seen = []

    async def app(scope, receive, send):
        seen.append((scope, receive, send))

    async def receive():
        return {}

    async def send(message):
        return None

    scope = {"type": "lifespan"}
    asyncio.run(SignedRequests(app, verifier=Verifier(SECRET))(scope, receive, send))
    assert seen == [(scope, receive, send)]


def test_open_paths_are_served_unsigned():
    app = App()
    middleware = SignedRequests(app, verifier=Verifier(SECRET, clock=Clock(NOW)), open_paths=frozenset({"/metrics"}))
    status, _, body, _ = call(middleware, [b""], {}, path="/metrics")
    assert (status, body) == (200, b"echo:")


def test_the_module_documents_the_string_it_signs():
    # The docstring is the spec other clients implement; keep it and the code together.
    assert "METHOD\\nPATH\\nQUERY\\nTIMESTAMP\\nNONCE\\nSHA256(BODY)" in security.__doc__
    assert hashlib.sha256(BODY).hexdigest() == BODY_SHA256
