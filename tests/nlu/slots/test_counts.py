"""bot.nlu.slots.counts: the GPU count written next to a GPU name, read on a Scan."""

import pytest

from bot.knowledge import default_catalog
from bot.nlu import parse
from bot.nlu.scan import Scan, lexicon_for
from bot.nlu.slots.counts import attached_count


def count(text: str) -> tuple:
    scan = Scan.of(text, lexicon_for(default_catalog()))
    name = scan.lex.gpus.pattern.search(scan.text)
    return attached_count(scan, name.start(), name.end())


@pytest.mark.parametrize("text, expected", [
    ("八张 A100", (8, 0, 7)),
    ("A100 x4", (4, 0, 7)),
    ("H100 80GB x8", (8, 0, 12)),
    ("an 8x H100 box", (8, 3, 10)),  # a box of GPUs still counts GPUs
])
def test_a_count_before_or_after_the_name(text, expected):
    assert count(text) == expected


@pytest.mark.parametrize("text", ["two B200 nodes", "第八张 A100"])
def test_nodes_and_ordinals_are_no_gpu_count(text):
    assert count(text)[0] is None


@pytest.mark.parametrize("text", ["租 A800 一个月多少钱", "租 H100 两个月多少钱", "H100 3 个月的账单", "L20 一个小时多少钱"])
def test_a_period_after_a_gpu_name_is_no_count_of_gpus(text):
    assert parse(text).requirement.gpu_count is None


@pytest.mark.parametrize("text, count", [("A100 两个", 2), ("4090 一个", 1), ("两个 4090", 2)])
def test_a_measure_word_alone_after_a_gpu_name_still_counts(text, count):
    assert parse(text).requirement.gpu_count == count
