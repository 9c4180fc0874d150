"""bot.nlu.slots.usage: monthly use of the GPUs and a job's total GPU-hours."""

import pytest

from bot.nlu import parse
from tests.nlu import stated


@pytest.mark.parametrize("text, hours", [
    ("每月300小时", 300), ("300 hours a month", 300), ("24/7 inference", 730),
    ("9 hrs a day weekdays", 195.3),  # 21.7 weekdays a month
    ("每天用 10 小时", 304),  # 30.4 days a month
])
def test_monthly_use(text, hours):
    assert parse(text).extracted["usage_hours_per_month"] == hours


def test_gpu_hours_and_the_gpu_they_were_counted_on():
    slots = parse("12,000 H100 GPU-hours").extracted
    assert (slots["gpu_hours"], slots["gpu_hours_gpu"]) == (12_000, "h100")
    assert stated(parse("2000卡时")) == {"gpu_hours": 2000}
    assert parse("3万卡时").extracted["gpu_hours"] == 30_000
