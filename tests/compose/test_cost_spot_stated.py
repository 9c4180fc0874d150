"""Spot against on-demand 'worth it?' with both rates, the reclaim pattern, the job and the save time stated
(bot.compose.cost, issue #23): both totals and the verdict lead, priced from the stated numbers only."""

from __future__ import annotations

import pytest

from tests.compose.test_cost import cost_answer

# on-demand / spot a machine-hour, a reclaim about every 6 h, a 50 h job, 10 min to save a checkpoint
WORTH_IT = [
    ("on-demand $2.50/h, spot $0.90/h, reclaimed ~every 6 h, a 50 h job, ckpt takes 10 min. Worth it?", 2.50, 0.90),
    ("Our 50-hour run: on-demand is $2.50/h, spot $0.90/h but we get kicked off about every 6 hours, checkpoint takes "
     "10 min. Is spot worth it?", 2.50, 0.90),
    ("按量 ¥28/小时，竞价 ¥9/小时，差不多 6 小时被抢一次，训练 50 小时，ckpt 一次要 10 分钟，用竞价值吗？", 28.0, 9.0),
    ("竞价实例 0.9 美元/小时，按需 2.5 美元/小时，平均 6 小时中断一次，50 小时的训练，每次保存 ckpt 10 分钟，划算吗", 2.50, 0.90),
]


@pytest.mark.parametrize("text, od, spot", WORTH_IT)
def test_spot_worth_it_leads_with_both_totals_and_the_verdict(advisor, text, od, spot):
    reply, lines = cost_answer(advisor, text)
    every = (2 * 10 * 360) ** 0.5  # Young/Daly: only the save time is stated
    assert reply.figures["checkpoint_every_min"] == round(every)
    assert reply.figures["on_demand"] == pytest.approx(od * 50)
    # spot pays for the work, the half interval redone at each reclaim and the saves
    lost_h = round(every) / 2 / 60
    wall = 50 / ((1 - 4 * lost_h / 24) * (round(every) / (round(every) + 10)))
    assert reply.figures["spot_effective"] == pytest.approx(spot * wall, rel=1e-3)
    assert reply.figures["lost_gpu_hours"] > 0  # never "0 min of work" lost
    english = text.isascii()
    assert lines[0].startswith(("Spot is worth it:",) if english else ("竞价实例划算", "抢占式实例划算", "Spot 实例划算")), lines
    symbol = "¥" if "¥" in text else "$"
    assert f"{symbol}{od * 50:,.0f}" in lines[0] and f"{wall:.1f}" in lines[0] and "50" in lines[0]
    assert not any(("both rates" if english else "两种单价") in line for line in lines)
    assert any("Young/Daly" in line and "85" in line for line in lines)
    assert "young-1974" in reply.sources


def test_spot_whose_losses_eat_the_discount_is_not_worth_it(advisor):
    _, lines = cost_answer(advisor, "on-demand $2.50/h, spot $2.20/h, reclaimed every 2 h, 50 h job, checkpoint takes 20 min. "
                                    "Is spot worth it?")
    assert lines[0].startswith("Spot is not worth it here:"), lines
    assert "$125" in lines[0]  # on-demand $2.50/h x 50 h


def test_a_per_gpu_rate_shows_the_gpus_it_is_multiplied_by(advisor):
    _, lines = cost_answer(advisor, "8x H100 at $2.99/GPU-hr on-demand or $1.10/GPU-hr spot. Spot gets reclaimed roughly "
                                    "every 6 h. The job is 50 h, checkpointing takes 10 min. Worth it?")
    assert "($2.99/GPU-hour x 8 GPUs x 50 h)" in lines[0] and "$1,196" in lines[0], lines


@pytest.mark.parametrize("text, od, spot", [
    ("spot at 60% off on-demand $3/h, preempted every 6h, 50h job, ckpt 10 min to save. worth it?", 3.0, 1.2),
    ("spot is $1.20/h, 60% cheaper than on-demand; reclaimed every 6 h; 50 h job; checkpoint takes 10 min. worth it?", 3.0, 1.2),
    ("竞价比按量便宜 70%，按量 ¥10/小时，大约每 6 小时被回收一次，任务 50 小时，保存 ckpt 要 10 分钟，值得吗？", 10.0, 3.0),
])
def test_one_rate_and_the_discount_price_both_sides(advisor, text, od, spot):
    reply, lines = cost_answer(advisor, text)
    assert reply.figures["on_demand"] == pytest.approx(od * 50)
    assert reply.figures["spot_effective"] is not None and reply.figures["spot_effective"] > spot * 50  # losses on top
    assert reply.figures["checkpoint_every_min"] == round((2 * 10 * 360) ** 0.5)  # "10 min to save" is the save time
    assert not any("both rates" in line or "两种单价" in line for line in lines), lines
    assert lines[0].startswith(("Spot is worth it", "竞价实例划算", "抢占式实例划算")), lines
