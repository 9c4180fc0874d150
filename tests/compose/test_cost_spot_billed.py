"""'is spot worth it?' with both rates given, however they are written, leads with the verdict and both totals
(400 GPU-hours on an 8-GPU instance is 50 instance-hours), never asks for the rates, and warns of the Spot quota."""

from __future__ import annotations

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text

SPOT_Q = ("SFT job needs about 400 H100 GPU-hours. p5.48xlarge on-demand $55.04/h vs spot ~$17.63/h (use1-az6). we "
          "checkpoint every 45 min, restart+reload takes ~15 min, and we guess one interruption every ~6h. is spot worth the hassle?")


def _text(advisor, text):
    return render_text(Conversations(advisor).ask("t", text))


@pytest.mark.parametrize("text, lead", [
    (SPOT_Q, "Spot is worth it: $984 with your losses ($17.63/h x 55.8 h) against $2,752 on-demand ($55.04/h x 50 h)"),
    ("400 GPU-hours of H100 fine-tuning on p5.48xlarge. on-demand is $55.04, spot is $17.63. checkpoint every hour, restart "
     "takes 20 min, roughly one interruption every 8 hours. should we go spot?",
     "Spot is worth it: $984 with your losses ($17.63/h x 55.8 h) against $2,752 on-demand ($55.04/h x 50 h)"),
    ("fine-tune needs 400 H100 GPU-hours on p5.48xlarge: $55.04 on demand / $17.63 spot; ckpt every 30 min, restart 10 min, "
     "about 3 interruptions a day. spot worth it?", "Spot is worth it: $930 with your losses"),
    ("SFT 要 400 个 H100 卡时，8 卡机按量 ¥300，抢占式 ¥100，每 45 分钟存一次 checkpoint，重启 15 分钟，估计每 6 小时被回收一次。值得用抢占式吗？",
     "抢占式实例划算：算上中断损失要 ¥5,581（¥100/小时 × 55.8 小时），按量 ¥15,000（¥300/小时 × 50 小时）"),
])
def test_spot_worth_it_with_both_rates_leads_with_both_totals(advisor, text, lead):
    body = _text(advisor, text)
    assert body.splitlines()[0].startswith(lead), body
    assert "give both rates" not in body and "给出两种单价" not in body


def test_the_quota_warned_of_is_the_spot_one(advisor):
    body = _text(advisor, SPOT_Q)
    assert "All P Spot Instance Requests" in body and "Running On-Demand P instances" not in body
    plain = _text(advisor, "p5.48xlarge on-demand $55.04/h vs spot $17.63/h for 50 hours: which is cheaper?")
    assert "Running On-Demand P instances" in plain
