"""bot.nlu.slots.usage: GPU-hours are work, never a count of GPUs, however the card is written with them."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, hours, gpu", [
    ("我们有 5000 卡时", 5000, None),
    ("budget of 2,000 GPU hours", 2000, None),
    ("用 800 个 H100 小时", 800, "h100"),
    ("we have 3k H100 hours", 3000, "h100"),
    ("800 H100-hours", 800, "h100"),
    ("预算 500 个 GPU 小时", 500, None),
    ("给了 2000 张卡时", 2000, None),
    ("5000 RTX 4090 hours", 5000, "rtx-4090"),
    ("1.2 万 A800 卡时够不够训 7B", 12000, "a800"),
])
def test_gpu_hours_written_any_way_are_work_not_a_count(text, hours, gpu):
    req = parse(text).requirement
    assert (req.gpu_hours, req.gpu_hours_gpu, req.gpu_count) == (hours, gpu, None)
    assert [q.value for q in req.quantities if q.role == "work"] == [hours]
    assert not [q for q in req.quantities if q.role == "gpus"]


@pytest.mark.parametrize("text, gpus, hours", [("rent 8 H100 for 10 hours", 8, 10), ("8x H100 for 24 hours", 8, 24)])
def test_cards_for_some_hours_stay_a_count_and_a_duration(text, gpus, hours):
    req = parse(text).requirement
    assert (req.gpu_count, req.gpu_hours) == (gpus, None)
    assert [q.value for q in req.quantities if q.role == "duration"] == [hours]


@pytest.mark.parametrize("text, hours, gpu", [("我们有一万卡时", 10000, None), ("一千卡时够吗", 1000, None),
                                              ("两千个 H100 小时", 2000, "h100"), ("三万卡时，训 7B 够不够", 30000, None)])
def test_gpu_hours_in_chinese_numerals_are_work(text, hours, gpu):
    req = parse(text).requirement
    assert (req.gpu_hours, req.gpu_hours_gpu, req.gpu_count) == (hours, gpu, None)


@pytest.mark.parametrize("text", ["一卡时多少钱", "A800 一卡时 12 元"])
def test_one_gpu_hour_written_as_a_prices_unit_is_neither_work_nor_a_card(text):
    req = parse(text).requirement
    assert (req.gpu_hours, req.gpu_count) == (None, None)
    assert not [q for q in req.quantities if q.role == "work"]
