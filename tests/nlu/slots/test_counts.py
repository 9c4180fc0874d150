"""bot.nlu.slots.counts: the GPU count written next to a GPU name, read on a Scan."""

import pytest

from bot.knowledge import default_catalog
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
