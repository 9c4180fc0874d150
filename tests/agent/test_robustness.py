"""The agent under hostile or unlucky input: time limits, odd timestamps, encoded paths, loopback."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from pydantic import ValidationError

from bot.agent.jobs import ServingJob
from bot.agent.security import (NONCE, RESPONSE_SIGNATURE, SIGNATURE, TIMESTAMP, Verifier, sign_headers,
                                verify_response)
from bot.agent.serve import ServerPool
from bot.cli import main
from tests.agent.conftest import needs_fixtures
from tests.agent.streaming_server import streaming_app
from tests.dispatch.helpers import SECRET, agent_app, call, wait

KEY = SECRET.encode()


@pytest.fixture(scope="module")
def servers():
    # A slow endpoint: 200 tokens, 50 ms apart, so one request takes ~10 s.
    with ServerPool([agent_app(kernel_log=None), streaming_app(tokens=200, first_delay=0.05, token_delay=0.05)]) as pool:
        yield pool




@needs_fixtures
def test_a_timed_out_serving_job_frees_its_slot(servers):
    agent, stream = servers.urls
    params = {"kind": "serving", "url": stream, "requests": 4, "concurrency": 1, "max_tokens": 200, "seconds": 0.3}
    first = call(agent, "POST", "/jobs", params)
    assert first.status_code == 202
    started = time.monotonic()
    done = wait(agent, first.json()["id"])
    assert done["state"] == "failed" and done["error"] == "time limit of 0.3 s exceeded"
    assert time.monotonic() - started < 3
    # The run was cancelled, not left going in the background: the slot is free at once.
    second = call(agent, "POST", "/jobs", params)
    assert second.status_code == 202, second.text
    assert wait(agent, second.json()["id"])["state"] == "failed"
    health = call(agent, "GET", "/health").json()
    assert health["jobs_running"] == 0


@needs_fixtures
def test_an_absurd_timestamp_is_a_401_not_a_500(servers):
    headers = sign_headers(KEY, "GET", "/health")
    headers[TIMESTAMP] = "1" * 5000  # int() of this raises ValueError (Python's 4300-digit limit)
    response = call(servers.urls[0], "GET", "/health", headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "malformed"


@pytest.mark.parametrize("timestamp", ["١٧٠٠٠٠٠٠٠٠", "1234567890123", "+1700000000", " 1700000000", "17e8", ""])
def test_only_ascii_digit_timestamps_of_bounded_length_are_accepted(timestamp):
    verifier = Verifier(KEY, clock=lambda: 1_700_000_000.0)
    headers = sign_headers(KEY, "GET", "/health", now=1_700_000_000)
    headers[TIMESTAMP] = timestamp
    code, _ = verifier.check("GET", "/health", "", headers, b"")
    assert code == ("missing" if timestamp == "" else "malformed")
    assert verifier.check("GET", "/health", "", sign_headers(KEY, "GET", "/health", now=1_700_000_000), b"") is None


@needs_fixtures
def test_a_percent_encoded_path_verifies(servers):
    # The client signs the path as sent; the agent must verify that, not the decoded path.
    response = call(servers.urls[0], "GET", "/jobs/no%20such")
    assert response.status_code == 404 and response.json()["detail"] == "no job 'no such'"


@needs_fixtures
def test_the_query_string_is_signed(servers):
    assert call(servers.urls[0], "GET", "/jobs", query="limit=5").status_code == 200
    signed_other = sign_headers(KEY, "GET", "/jobs", query="limit=6")
    response = call(servers.urls[0], "GET", "/jobs", headers=signed_other, query="limit=5")
    assert response.status_code == 401 and response.json()["code"] == "bad_signature"


@needs_fixtures
def test_responses_are_signed_and_bound_to_the_request(servers):
    headers = sign_headers(KEY, "GET", "/health")
    response = call(servers.urls[0], "GET", "/health", headers=headers)
    assert response.status_code == 200 and response.headers[RESPONSE_SIGNATURE].startswith("v1=")
    assert verify_response(KEY, 200, headers[SIGNATURE], response.headers, response.content) is None
    # The same reply does not verify for another request, another status, or another body.
    other = sign_headers(KEY, "GET", "/health")[SIGNATURE]
    assert verify_response(KEY, 200, other, response.headers, response.content) == "bad response signature"
    assert verify_response(KEY, 201, headers[SIGNATURE], response.headers, response.content) == "bad response signature"
    assert verify_response(KEY, 200, headers[SIGNATURE], response.headers, response.content + b" ") == \
        "bad response signature"
    assert verify_response(KEY, 200, headers[SIGNATURE], {}, response.content) == "no response signature"
    # A refusal is not signed: the agent signs only replies to requests it authenticated, so no one
    # gets the agent's signature over a signature header of their own choosing (issue 15, item 8).
    refused = call(servers.urls[0], "GET", "/health", headers={**headers, NONCE: "x" * 20})
    assert refused.status_code == 401 and RESPONSE_SIGNATURE not in refused.headers
    assert verify_response(KEY, 401, headers[SIGNATURE], refused.headers, refused.content) == "no response signature"


@needs_fixtures
def test_every_event_in_a_stream_is_signed(servers):
    url = servers.urls[0]
    job = call(url, "POST", "/jobs", {"kind": "probe", "framework": False}).json()
    path = f"/jobs/{job['id']}/events"
    headers = sign_headers(KEY, "GET", path)
    from bot.agent.security import verify_event

    events = []
    with httpx.stream("GET", url + path, headers=headers, timeout=10, trust_env=False) as response:
        assert verify_response(KEY, 200, headers[SIGNATURE], response.headers, None) is None
        event: dict[str, str] = {}
        for line in response.iter_lines():
            if not line:
                if "data" in event:
                    events.append(event)
                event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                event[name] = value
    assert events and json.loads(events[-1]["data"])["state"] == "done"
    for event in events:
        assert verify_event(KEY, headers[SIGNATURE], event["id"], event["data"]) is None
    assert verify_event(KEY, headers[SIGNATURE], events[0]["id"], events[0]["data"].replace("probe", "prob")) \
        == "bad event signature"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://127.0.0.9:8000", "http://[::1]:8000",
                                 "https://127.0.0.1"])
def test_serving_urls_on_literal_loopback_are_accepted(url):
    assert ServingJob(url=url).url == url


@pytest.mark.parametrize("url,why", [
    ("http://localhost:8000", "not a name such as 'localhost'"),
    ("http://LOCALHOST:8000", "not a name"),
    ("http://127.0.0.1.nip.io:8000", "not a name"),
    ("http://10.0.0.7:8000", "loopback"),
    ("http://[::ffff:10.0.0.7]:8000", "loopback"),
    ("http://user@127.0.0.1:8000", "loopback"),
    ("file:///etc/passwd", "loopback"),
])
def test_serving_urls_elsewhere_are_refused(url, why):
    with pytest.raises(ValidationError, match=why):
        ServingJob(url=url)


@pytest.mark.parametrize("host", ["localhost", "0.0.0.0", "10.0.0.7", "::"])
def test_insecure_dev_refuses_anything_but_a_loopback_address(capsys, host):
    assert main(["agent", "serve", "--insecure-dev", "--host", host]) == 2
    err = capsys.readouterr().err
    assert "loopback" in err and "Traceback" not in err
    if host == "localhost":
        assert "127.0.0.1" in err and "not a name" in err
