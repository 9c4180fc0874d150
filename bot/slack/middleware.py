"""The middleware chain, each step a small function Bolt calls in order (see `bot.slack.app.register`):

`log_ids_middleware` (every log line of the request carries its ids), `provide_services` (the
shared `SlackServices` in `context["services"]`), `count_requests` (metrics), `ignore_own_events`
(the bot's own posts), `claim_events` (each event answered once across replicas, with a lease
another replica takes over if this one dies); and the claim's end, which the listeners call:
`settle_claim`, `complete_claim`, `release_claim`.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING

from prometheus_client import Counter
from slack_bolt import BoltResponse

from bot.ops.metrics import REGISTRY
from bot.slack.stores import EventClaims

if TYPE_CHECKING:
    from bot.slack.shared import SlackServices

log = logging.getLogger("gpu_advisor.slack")

SLACK_REQUESTS = Counter("gpu_advisor_slack_requests", "Slack requests received, by kind", ["kind"],
                         registry=REGISTRY)
SLACK_DROPPED = Counter("gpu_advisor_slack_dropped", "Slack requests acknowledged and not acted on, by reason",
                        ["reason"], registry=REGISTRY)


def request_kind(body: dict) -> str:
    if body.get("type") == "event_callback":
        return f"event:{(body.get('event') or {}).get('type', '?')}"
    if body.get("command"):
        return "command"
    return body.get("type") or "other"


def provide_services(services: SlackServices):
    """Middleware: the listeners find the shared services in `context["services"]`."""

    def middleware(context, next):  # noqa: A002 - Bolt passes the chain's continuation as `next`
        context["services"] = services
        return next()

    return middleware


def count_requests(body, next):  # noqa: A002
    """Middleware: every request counted by kind (drops are counted by the middleware that drops)."""
    SLACK_REQUESTS.labels(kind=request_kind(body if isinstance(body, dict) else {})).inc()
    return next()


def from_this_bot(event: dict, context) -> bool:
    return bool(
        (event.get("bot_id") and event.get("bot_id") == context.get("bot_id"))
        or (event.get("user") and event.get("user") == context.get("bot_user_id"))
    )


def ignore_own_events(body, context, next):  # noqa: A002
    """Middleware: the bot's own posts (its answers, in channels and DMs) are acknowledged, not answered."""
    event = (body.get("event") or {}) if isinstance(body, dict) else {}
    if event and from_this_bot(event, context):
        SLACK_DROPPED.labels(reason="own_event").inc()
        return BoltResponse(status=200, body="")
    return next()


def claim_events(claims: EventClaims):
    """Middleware: each event is answered once across replicas, and not lost with a dying one.

    The first delivery claims the event with a lease (before the ack, so a replica that dies
    before acknowledging leaves a claim that expires); the listener completes it when answered.
    A redelivery of a completed event is acknowledged and dropped. A redelivery while another
    replica's lease runs gets 503, so Slack retries later: by then the event is completed, or the
    lease has expired and that retry takes the event over.
    """

    def middleware(body, request, context, next):  # noqa: A002
        event_id = body.get("event_id") if isinstance(body, dict) and body.get("type") == "event_callback" else None
        if not event_id:
            return next()
        key = f"event:{event_id}"
        # The claim may wait on the store (a locked SQLite file waits up to its busy timeout): the
        # ack never does. Past CLAIM_WAIT_S the event is acknowledged and its listener waits instead.
        future = _claim_executor().submit(claims.claim, key)
        try:
            claimed = future.result(timeout=CLAIM_WAIT_S)
        except FutureTimeout:
            log.warning("the store did not take the claim of event %s within %.1f s: acknowledged, the answer "
                        "waits for the claim", event_id, CLAIM_WAIT_S)
            context["pending_claim"] = PendingClaim(key, future)
            return next()
        if claimed:
            context["claimed_event"] = key
            return next()
        retry = (request.headers.get("x-slack-retry-num") or ["?"])[0]
        if claims.is_done(key):
            log.info("dropping redelivered event %s (retry %s): answered already", event_id, retry)
            SLACK_DROPPED.labels(reason="duplicate").inc()
            return BoltResponse(status=200, body="")
        log.info("event %s (retry %s) is being answered by another replica: asking Slack to retry later",
                 event_id, retry)
        SLACK_DROPPED.labels(reason="in_progress").inc()
        return BoltResponse(status=503, body="this event is being answered; retry later")

    return middleware


# How long an ack waits for the store to take an event's claim before acknowledging anyway.
CLAIM_WAIT_S = 0.5
# How long a listener waits for a claim the ack could not wait for (a store locked that long fails it).
PENDING_CLAIM_WAIT_S = 60.0
_CLAIMS: dict[str, ThreadPoolExecutor] = {}
_CLAIMS_LOCK = threading.Lock()


def _claim_executor() -> ThreadPoolExecutor:
    """The threads that take event claims off the ack's path (bounded: a stuck store holds at most these)."""
    with _CLAIMS_LOCK:
        if "pool" not in _CLAIMS:
            _CLAIMS["pool"] = ThreadPoolExecutor(max_workers=8, thread_name_prefix="gpu-advisor-claim")
        return _CLAIMS["pool"]


class PendingClaim:
    """A claim the store had not decided when the event was acknowledged; the listener settles it."""

    def __init__(self, key: str, future: Future):
        self.key = key
        self.future = future

    def __deepcopy__(self, memo):  # Bolt copies the context for lazy listeners: share the future
        return self


def settle_claim(context) -> bool:
    """Whether this request's listener should answer: always without a claim to wait for; with
    one, once the store has decided it (False: another replica holds it, or it was answered).
    A store that keeps failing answers anyway (at least once, rather than lose the question)."""
    pending: PendingClaim | None = context.get("pending_claim")
    if pending is None:
        return True
    context["pending_claim"] = None
    try:
        claimed = pending.future.result(timeout=PENDING_CLAIM_WAIT_S)
    except Exception as exc:
        log.error("the claim of %s failed (%s): answering without it", pending.key, type(exc).__name__)
        return True
    if not claimed:
        log.info("%s was claimed elsewhere while the store was busy: not answered here", pending.key)
        SLACK_DROPPED.labels(reason="in_progress").inc()
        return False
    context["claimed_event"] = pending.key
    return True


def complete_claim(context) -> None:
    """The event of this request is answered: no other replica takes it over."""
    pending: PendingClaim | None = context.get("pending_claim")
    if pending is not None:  # acknowledged before the store decided: complete it once it has
        services = context["services"]
        pending.future.add_done_callback(
            lambda done: done.exception() is None and done.result() and services.claims.complete(pending.key))
        return
    key = context.get("claimed_event")
    if key and not context["services"].claims.complete(key):
        log.warning("%s was taken over by another replica before this one answered it", key)


def release_claim(context) -> None:
    """The answer to this request's event could not be delivered: give the claim up, so Slack's
    redelivery of the event is answered (here or on another replica) instead of dropped."""
    key = context.get("claimed_event")
    if not key:
        return
    try:
        if context["services"].claims.release(key):
            log.info("released %s: its answer could not be delivered; Slack's redelivery will be answered", key)
    except Exception:  # the lease still expires on its own
        log.warning("releasing %s failed; its lease expires on its own", key, exc_info=True)


# -- log ids ----------------------------------------------------------------------------------


def request_log_ids(body: dict) -> tuple[str | None, str | None]:
    """(request id, conversation id) of a Slack request: the event id (or trigger id), and the
    conversation the answer is kept under: `team:channel:thread` as the app keys it."""
    event = body.get("event") or {}
    request_id = body.get("event_id") or body.get("trigger_id")
    team = body.get("team_id") or (body.get("team") or {}).get("id") or ""
    channel = event.get("channel") or body.get("channel_id") or (body.get("channel") or {}).get("id")
    if event:
        thread = event.get("thread_ts") or ("dm" if event.get("channel_type") == "im" else event.get("ts"))
    else:
        thread = ((body.get("message") or {}).get("thread_ts") or (body.get("message") or {}).get("ts")
                  or (body.get("container") or {}).get("thread_ts"))
    conversation = f"{team}:{channel}:{thread}" if channel and thread else None
    return request_id, conversation


def log_ids_middleware(body, next):  # noqa: A002 - Bolt passes the chain's continuation as `next`
    """Bolt middleware, first in the chain: every log line of the request, including its lazy
    listeners on the app's context-carrying pool, carries the request and conversation id.

    Bolt's sync `next()` only marks the chain to go on (the listeners run after every middleware
    has returned), so the ids are bound for the rest of the dispatching thread's current context
    rather than inside a `with` block: each request binds both afresh, so none leaks into the
    next one. (HTTP mode dispatches in a copy of the context per request anyway.)"""
    from structlog.contextvars import bind_contextvars, unbind_contextvars

    from bot.ops.logs import log_request, new_request_id

    request_id, conversation_id = request_log_ids(body if isinstance(body, dict) else {})
    unbind_contextvars("request_id", "conversation_id")
    bind_contextvars(request_id=request_id or new_request_id(),
                     **({"conversation_id": conversation_id} if conversation_id else {}))
    log_request(body)  # one INFO line per request, so an incident can be traced by its ids (#29)
    return next()


