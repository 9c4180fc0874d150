"""The message catalog read back from the start-up cache (issue #31): the same messages as a fresh
parse, with no YAML parsed on a hit."""

from __future__ import annotations

import pytest
import yaml

import bot.messages as messages
from bot import cache


@pytest.fixture
def fresh_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.CACHE_SWITCH_ENV, raising=False)
    messages.catalog.cache_clear()
    yield tmp_path / "cache"
    messages.catalog.cache_clear()


def test_a_second_start_reads_the_messages_without_parsing_yaml(fresh_catalog, monkeypatch):
    first = messages.catalog()
    assert list(fresh_catalog.glob("messages-*.pickle"))
    messages.catalog.cache_clear()

    def refuse(*args, **kwargs):
        raise AssertionError("parsed YAML on a cache hit")

    monkeypatch.setattr(yaml, "load", refuse)
    monkeypatch.setattr(yaml, "compose", refuse)
    again = messages.catalog()
    assert again == first and again is not first
    assert messages.say("fit.part_weights", "zh", gb="14") == "权重 14 GB"


def test_the_cached_messages_equal_a_parse_with_the_cache_off(fresh_catalog, monkeypatch):
    cached = messages.catalog()
    messages.catalog.cache_clear()
    monkeypatch.setenv(cache.CACHE_SWITCH_ENV, "off")
    assert messages.catalog() == cached
