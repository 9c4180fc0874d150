"""The wire contract between the bot and its host agent: the jobs the agent runs (`JobRequest`,
one of the job models chosen by `kind`), the `Job` it reports back, and the request and response
signatures (HMAC-SHA256, see `bot.agent.security` for the whole scheme and the agent's checks).

Both sides import it: the agent (bot.agent) to accept and run jobs, the dispatcher
(bot.dispatch) to submit them and verify the replies; so it lives in the core beside
`bot.host_report`, and bot.dispatch imports nothing from bot.agent.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator

# -- jobs -------------------------------------------------------------------------------------------

MatmulPrecision = Literal["fp32", "tf32", "bf16", "fp16", "fp8"]
# Job ids as the agent makes them: a counter and 8 hex digits. The bot puts ids into URL paths, so
# it accepts nothing else.
JOB_ID_PATTERN = r"^[0-9]{1,12}-[0-9a-f]{8}$"


def is_loopback_ip(host: str | None) -> bool:
    """A literal loopback address (127.0.0.0/8, ::1). Names such as "localhost" are not: what they
    resolve to is up to the host's resolver configuration, not to us."""
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProbeJob(_Params):
    kind: Literal["probe"] = "probe"
    kernel_log: bool = True
    xid_limit: int = Field(default=200, ge=1, le=1000)
    framework: bool = True


class MatmulJob(_Params):
    kind: Literal["matmul"] = "matmul"
    gpu: int = Field(default=0, ge=0, le=63)
    precisions: list[MatmulPrecision] = Field(default_factory=lambda: list[MatmulPrecision](["bf16"]), min_length=1,
                                              max_length=5)
    size: int = Field(default=8192, ge=256, le=16384)
    seconds: float = Field(default=5.0, gt=0, le=120, description="time budget per precision")


class MembwJob(_Params):
    kind: Literal["membw"] = "membw"
    gpu: int = Field(default=0, ge=0, le=63)
    size_mib: int = Field(default=1024, ge=1, le=16384)
    seconds: float = Field(default=5.0, gt=0, le=120)


class H2dJob(_Params):
    kind: Literal["h2d"] = "h2d"
    gpu: int = Field(default=0, ge=0, le=63)
    size_mib: int = Field(default=256, ge=1, le=4096)
    seconds: float = Field(default=5.0, gt=0, le=120)


class ServingJob(_Params):
    """An OpenAI-compatible endpoint on this host (loopback only: the agent is no proxy)."""

    kind: Literal["serving"] = "serving"
    url: str = Field(default="http://127.0.0.1:8000", max_length=200)
    model: str = Field(default="default", min_length=1, max_length=200)
    prompt: str = Field(default="Write a short story about a GPU.", min_length=1, max_length=8000)
    max_tokens: int = Field(default=128, ge=1, le=4096)
    concurrency: int = Field(default=4, ge=1, le=256)
    requests: int = Field(default=32, ge=1, le=10_000)
    api: Literal["chat", "completions"] = "chat"
    timeout_s: float = Field(default=60.0, gt=0, le=600, description="per request")
    seconds: float = Field(default=300.0, gt=0, le=1800, description="time limit for the whole run")

    @field_validator("url")
    @classmethod
    def _loopback(cls, value: str) -> str:
        parts = urlsplit(value)
        try:
            _ = parts.port  # raises ValueError on a bad port
        except ValueError:
            raise ValueError(f"url {value!r} has an invalid port") from None
        ok = parts.scheme in ("http", "https") and not parts.username and not parts.password
        if ok and parts.hostname and not is_loopback_ip(parts.hostname):
            try:
                ipaddress.ip_address(parts.hostname)
            except ValueError:
                raise ValueError(f"url host {parts.hostname!r}: use a loopback address such as 127.0.0.1 or [::1], "
                                 "not a name such as 'localhost' (an endpoint on this host)") from None
        if not ok or not is_loopback_ip(parts.hostname):
            raise ValueError("url must be http(s)://127.0.0.1[:port] or http(s)://[::1][:port], a loopback address "
                             "(an endpoint on this host)")
        return value


JobParams = Annotated[ProbeJob | MatmulJob | MembwJob | H2dJob | ServingJob, Field(discriminator="kind")]
JOB_KINDS = ("probe", "matmul", "membw", "h2d", "serving")


class JobRequest(RootModel[JobParams]):
    """The body of POST /jobs: exactly one of the job models, chosen by `kind`."""

JobState = Literal["queued", "running", "done", "failed"]


class Job(BaseModel):
    """A job as the agent reports it; the bot validates every reply against this model."""

    id: str = Field(pattern=JOB_ID_PATTERN)
    kind: Literal["probe", "matmul", "membw", "h2d", "serving"]
    params: dict[str, Any]
    state: JobState = "queued"
    progress: float = Field(default=0.0, ge=0.0, le=1.0)
    message: str = ""
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    version: int = Field(default=0, description="bumped on every change; streams send each version once")


# -- signing ----------------------------------------------------------------------------------------

TIMESTAMP = "x-gpu-advisor-timestamp"
NONCE = "x-gpu-advisor-nonce"
SIGNATURE = "x-gpu-advisor-signature"
RESPONSE_TIMESTAMP = "x-gpu-advisor-response-timestamp"
RESPONSE_SIGNATURE = "x-gpu-advisor-response-signature"
STREAMED = "stream"  # the body digest a streamed response's header signs
SECRET_ENV = "GPU_ADVISOR_AGENT_SECRET"
# The next secret during a rotation: accepted beside SECRET_ENV until the rotation is finished.
NEXT_SECRET_ENV = "GPU_ADVISOR_AGENT_SECRET_NEXT"
SECRET_SCOPE_KEY = "gpu_advisor.secret"
MIN_SECRET_BYTES = 16
_NONCE_FORMAT = re.compile(r"[A-Za-z0-9_-]{16,64}")
_TIMESTAMP_FORMAT = re.compile(r"[0-9]{1,12}")  # ASCII digits only; bounded, so int() cannot fail


def canonical(method: str, path: str, query: str, timestamp: str, nonce: str, body: bytes) -> bytes:
    digest = hashlib.sha256(body).hexdigest()
    return "\n".join([method.upper(), path, query, timestamp, nonce, digest]).encode()


def signature(secret: bytes, method: str, path: str, query: str, timestamp: str, nonce: str, body: bytes) -> str:
    mac = hmac.new(secret, canonical(method, path, query, timestamp, nonce, body), hashlib.sha256)
    return "v1=" + mac.hexdigest()


def sign_headers(secret: bytes, method: str, path: str, body: bytes = b"", query: str = "",
                 now: float | None = None) -> dict[str, str]:
    timestamp = str(int(now if now is not None else time.time()))
    nonce = secrets.token_urlsafe(18)
    return {TIMESTAMP: timestamp, NONCE: nonce,
            SIGNATURE: signature(secret, method, path, query, timestamp, nonce, body)}


def response_signature(secret: bytes, status: int, request_signature: str, timestamp: str,
                       body: bytes | None) -> str:
    """`body=None`: a streamed response, whose events are signed one by one."""
    digest = STREAMED if body is None else hashlib.sha256(body).hexdigest()
    text = "\n".join(["response", str(status), request_signature, timestamp, digest]).encode()
    return "v1=" + hmac.new(secret, text, hashlib.sha256).hexdigest()


def response_headers(secret: bytes, status: int, request_signature: str, body: bytes | None,
                     now: float | None = None) -> dict[str, str]:
    timestamp = str(int(now if now is not None else time.time()))
    return {RESPONSE_TIMESTAMP: timestamp,
            RESPONSE_SIGNATURE: response_signature(secret, status, request_signature, timestamp, body)}


def verify_response(secret: bytes, status: int, request_signature: str, headers: Mapping[str, str],
                    body: bytes | None) -> str | None:
    """None if the agent signed this response to this request; else why not."""
    timestamp, sig = headers.get(RESPONSE_TIMESTAMP), headers.get(RESPONSE_SIGNATURE)
    if not sig:
        return "no response signature"
    if not timestamp or not _TIMESTAMP_FORMAT.fullmatch(timestamp):
        return "malformed response timestamp"
    expected = response_signature(secret, status, request_signature, timestamp, body)
    if not hmac.compare_digest(expected.encode(), sig.encode()):
        return "bad response signature"
    return None


def event_signature(secret: bytes, request_signature: str, data: str) -> str:
    text = "\n".join(["event", request_signature, hashlib.sha256(data.encode()).hexdigest()]).encode()
    return "v1=" + hmac.new(secret, text, hashlib.sha256).hexdigest()


def verify_event(secret: bytes, request_signature: str, event_id: str, data: str) -> str | None:
    """None if this server-sent event's `id:` signs its `data:` for this request; else why not."""
    if not hmac.compare_digest(event_signature(secret, request_signature, data).encode(), event_id.encode()):
        return "bad event signature"
    return None
