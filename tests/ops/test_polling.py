"""One polling thread per replica (bot.ops.polling): the rule base's and the configs' syncs share it."""

from __future__ import annotations

import threading

import pytest

from bot.ops.polling import PollLoop


def _threads(name: str) -> int:
    return sum(t.name == name and t.is_alive() for t in threading.enumerate())


def test_two_checks_run_on_one_thread_and_a_failing_one_does_not_stop_the_other(caplog):
    ran: dict[str, set[str]] = {"rules": set(), "configs": set()}
    both = threading.Event()

    def rules() -> None:
        ran["rules"].add(threading.current_thread().name)
        raise OSError("the store is down")

    def configs() -> None:
        ran["configs"].add(threading.current_thread().name)
        if ran["rules"]:
            both.set()

    loop = PollLoop(0.02, name="test-sync").add("rules", rules).add("configs", configs)
    try:
        assert both.wait(5)
        assert ran == {"rules": {"test-sync"}, "configs": {"test-sync"}}
        assert _threads("test-sync") == 1
        assert "rules: checking the store failed" in caplog.text
    finally:
        loop.stop()


def test_the_thread_ends_with_the_last_check_and_starts_again_with_a_new_one():
    loop = PollLoop(0.02, name="test-sync-2").add("a", lambda: None).add("b", lambda: None)
    loop.remove("a")
    assert loop.labels == ["b"] and _threads("test-sync-2") == 1
    loop.remove("b")
    assert loop.labels == [] and _threads("test-sync-2") == 0
    polled = threading.Event()
    loop.add("c", polled.set)
    try:
        assert polled.wait(5)
    finally:
        loop.stop()
    assert _threads("test-sync-2") == 0


def test_an_interval_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        PollLoop(0)
