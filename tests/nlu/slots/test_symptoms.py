"""bot.nlu.slots.symptoms: what a sick GPU shows."""

import pytest

from bot.nlu import parse
from tests.nlu import stated


@pytest.mark.parametrize("text, symptoms", [("ECC errors on GPU 3", ["ecc-errors"]), ("显存不足怎么办", ["oom"]),
                                            ("NCCL timeout on 2 nodes", ["nccl-error"])])
def test_symptoms(text, symptoms):
    assert parse(text).extracted["symptoms"] == symptoms


@pytest.mark.parametrize("text", ["掉卡了", "fell off the bus"])
def test_falling_off_the_bus_is_xid_79(text):
    assert stated(parse(text)) == {"xids": [79], "symptoms": ["fallen-off-bus"]}


def test_a_hypothetical_oom_is_a_memory_question_not_a_symptom():
    slots = parse("will a 13B model OOM on a 4090?").extracted
    assert "symptoms" not in slots and "memory" in slots["topics"]
    assert parse("training crashed with OOM on a 4090").extracted["symptoms"] == ["oom"]
