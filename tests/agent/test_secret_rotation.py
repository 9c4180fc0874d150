"""Zero-downtime secret rotation: an agent given the next secret (GPU_ADVISOR_AGENT_SECRET_NEXT)
accepts requests signed with either secret and signs each reply with the one its request used,
so bots on the old and the new secret both verify their replies while the rotation runs."""

from __future__ import annotations

import httpx
import pytest

from bot.agent.app import AgentConfig, create_app
from bot.agent.security import SIGNATURE, sign_headers, verify_response
from bot.agent.serve import ServerPool, replay_probe
from tests.agent.conftest import needs_fixtures
from tests.dispatch.helpers import H100

CURRENT = b"current-secret-0123456789abcdef"
NEXT = b"next-secret-0123456789abcdef-xyz"
OTHER = b"someone-elses-secret-0123456789ab"


@pytest.fixture(scope="module")
def agents():
    probe = replay_probe(H100)
    rotating = create_app(AgentConfig(secret=CURRENT, next_secret=NEXT, gpu_probe=probe, backend="replay:smi"))
    finished = create_app(AgentConfig(secret=NEXT, gpu_probe=probe, backend="replay:smi"))
    with ServerPool([rotating, finished]) as pool:
        yield pool.urls


def get_health(url: str, secret: bytes) -> tuple[httpx.Response, str]:
    headers = sign_headers(secret, "GET", "/health")
    return httpx.get(url + "/health", headers=headers, timeout=10), headers[SIGNATURE]


@needs_fixtures
@pytest.mark.parametrize("secret", [CURRENT, NEXT])
def test_during_a_rotation_both_secrets_are_accepted_and_replies_verify_with_the_callers(agents, secret):
    response, request_signature = get_health(agents[0], secret)
    assert response.status_code == 200
    assert verify_response(secret, 200, request_signature, response.headers, response.content) is None
    other = NEXT if secret == CURRENT else CURRENT
    assert verify_response(other, 200, request_signature, response.headers, response.content) is not None


@needs_fixtures
def test_any_other_secret_is_refused(agents):
    response, _ = get_health(agents[0], OTHER)
    assert response.status_code == 401 and response.json()["code"] == "bad_signature"


@needs_fixtures
def test_after_the_rotation_the_old_secret_is_refused(agents):
    assert get_health(agents[1], NEXT)[0].status_code == 200
    assert get_health(agents[1], CURRENT)[0].status_code == 401
