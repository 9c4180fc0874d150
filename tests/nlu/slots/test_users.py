"""bot.nlu.slots.users: users served, as concurrency, and the inference they imply."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, users", [("serve 13B for 10 users", 10), ("单用户 7B", 1), ("a single user chatbot", 1),
                                         ("50个用户同时用", 50)])
def test_users_are_the_concurrency(text, users):
    assert parse(text).extracted["concurrency"] == users


def test_users_served_imply_inference_unless_the_job_is_stated():
    result = parse("run a 13B model for 10 users")
    assert result.extracted["workload"] == "inference"
    [workload] = [s for s in result.spans if s.slot == "workload"]
    assert workload.kind == "implied"
    assert parse("fine-tune 13B for 10 users").extracted["workload"] == "training"


def test_a_stated_concurrency_wins_over_users():
    assert parse("20 concurrent requests from 500 users").extracted["concurrency"] == 20
