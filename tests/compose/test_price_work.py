"""The user's GPU-hours priced at each provider named (bot/compose/price_work.py): cheapest first, each line the
provider's own row times the hours, at the stated GPUs per instance. Real parser, price table and composers."""

from __future__ import annotations

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


def _totals(lines):
    return [float(m.group(1).replace(",", "")) for line in lines[1:]
            if (m := re.search(r"= \$([0-9,.]+)$", line.strip()))]


@pytest.mark.parametrize("text, first, count", [
    ("our SFT job is ~300 GPU-hours on H100 (measured, 8-gpu node). compare cost: aws p5, gcp a3-highgpu-8g, lambda 8x, "
     "runpod 8x. which is cheapest?", "is cheapest for 300 GPU-hours of H100 SXM", "8× H100 SXM"),
    ("300 H100 GPU-hours: which is cheapest, lambda, runpod or vast?", "Vast.ai is cheapest for 300 GPU-hours", None),
    ("我们要跑 500 卡时的 A100，AWS、RunPod、Lambda 哪家最便宜？", "500 卡时 A100", None),
])
def test_the_work_is_priced_at_every_provider_named(advisor, text, first, count):
    lines = _lines(advisor, text)
    assert first in lines[0], lines[0]
    totals = _totals(lines)
    assert len(totals) >= 3 and totals == sorted(totals), lines  # every named provider, cheapest first
    if count:
        assert all(count in line for line in lines[1:1 + len(totals)])  # the 8-GPU instance the user runs on


def test_each_total_is_the_row_per_gpu_hour_times_the_hours(advisor):
    lines = _lines(advisor, "300 H100 GPU-hours: which is cheapest, lambda, runpod or vast?")
    for line in lines[1:4]:
        rate, hours, total = re.search(r"\$([0-9.]+)/GPU-hour × ([0-9,]+) GPU-hours = \$([0-9,]+)", line).groups()
        assert abs(float(rate) * float(hours.replace(",", "")) - float(total.replace(",", ""))) < 1
