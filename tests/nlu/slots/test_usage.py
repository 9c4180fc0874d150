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


@pytest.mark.parametrize("text", ["要多少 A800 卡时？", "how many H100 GPU-hours?", "多少 H20 卡时"])
def test_the_digits_of_a_gpu_name_are_not_gpu_hours(text):
    assert "gpu_hours" not in parse(text).extracted  # "A800 卡时" is hours of an A800, not 800 of them
