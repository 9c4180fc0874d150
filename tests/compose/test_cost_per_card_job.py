"""Two quoted cards for a training run with a deadline, and the count of machines asked ("两周内…选哪个，租几台？",
"how many nodes?"): the lead gives each card's 8-GPU machines that finish in time, with their days and totals, and
the options list those counts, not the one machine that misses the deadline."""

from __future__ import annotations

import re

import pytest

from bot.conversation import Conversations
from bot.render.text import render_text


def _lines(advisor, text):
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


ZH_08 = "两周内要把 Llama-3-8B 继续预训练 200B tokens。能租到 A800（¥8/卡时）或 H800（¥14/卡时），都是 8 卡机。 选哪个，租几台？"


@pytest.mark.parametrize("text, lead, options", [
    (ZH_08, "选 H800 SXM5 80GB：租 3 台 8 卡机（24 张），约 11.7 天跑完，赶得上你的 14 天，总价约 ¥94,725",
     ["24 张 H800 SXM5 80GB", "64 张 A800 SXM4 80GB"]),
    ("we need to continue pretraining Llama-3-8B on 200B tokens within 2 weeks. A800 at ¥8/GPU-hour or H800 at ¥14/GPU-hour, "
     "both 8-GPU machines. which one and how many machines?",
     "H800 SXM5 80GB: 3 nodes of 8 (24 GPUs) finish in ~11.7 days, inside your 14 days, for about ¥94,725",
     ["24× H800 SXM5 80GB", "64× A800 SXM4 80GB"]),
    ("pretrain a 13B model on 300B tokens, must be done in 30 days. H100 at $2.50/GPU-hour or A100 at $1.30/GPU-hour, "
     "8-GPU nodes. which is cheaper and how many nodes?",
     "H100 SXM: 4 nodes of 8 (32 GPUs) finish in ~21.4 days, inside your 30 days, for about $41,077",
     ["32× H100 SXM", "80× A100 80GB SXM"]),
    ("Need 7B on 1T tokens done within 21 days; H100 $2.4/GPU-hr vs A100 $1.2/GPU-hr — how many 8-GPU servers of each?",
     "H100 SXM: 10 nodes of 8 (80 GPUs) finish in ~20.5 days, inside your 21 days", ["80× H100 SXM", "248× A100 80GB SXM"]),
    ("一个月内要训完 7B 模型 500B tokens，H800 ¥15/卡时，A800 ¥9/卡时，各要多少台 8 卡机？哪个便宜？",
     "选 H800 SXM5 80GB：租 4 台 8 卡机（32 张），约 25.6 天跑完，赶得上你的 30 天",
     ["32 张 H800 SXM5 80GB", "88 张 A800 SXM4 80GB"]),
])
def test_machines_per_card_by_the_deadline_lead(advisor, text, lead, options):
    lines = _lines(advisor, text)
    assert lines[0].startswith(lead), lines
    assert re.search(r"(?:A800|A100)[^;；]*(?:需要|要|needs) \d+ (?:台|nodes)", lines[0]), lines[0]
    listed = [line for line in lines if re.match(r"\s+\d\. ", line)]
    assert [o in line for o, line in zip(options, listed)] == [True, True], listed
    assert not any("misses your" in line or "赶不上" in line for line in listed)


def test_without_a_count_asked_the_lead_prices_the_run(advisor):
    lines = _lines(advisor, "7B on 1T tokens from scratch; H800 ¥16/卡时, A800 ¥9/卡时; is A800 cheaper?")
    assert lines[0].startswith("H800 SXM5 80GB is cheaper for this run: about 29,491 GPU-hours")
    assert "nodes of 8" not in lines[0]


@pytest.mark.parametrize("text, lead", [
    # quotes written per node ("8 GPUs per node") reach the per-card run pricing before the setups comparison
    ("we need to finish continued pretraining of a 13B on 300B tokens within 3 weeks. options: H100 nodes at $2.40/GPU-h "
     "or A100 nodes at $1.30/GPU-h, 8 GPUs per node. which one and how many nodes?",
     "H100 SXM: 5 nodes of 8 (40 GPUs) finish in ~17.1 days, inside your 21 days"),
    ("一个月内要把 Qwen2.5-14B 在 500B token 上继续预训练完，H20 ¥6/卡时，H800 ¥15/卡时，8 卡一台，要几台，哪个便宜",
     "选 H800 SXM5 80GB：租 6 台 8 卡机（48 张）"),
])
def test_node_quotes_with_a_deadline_get_the_node_count(advisor, text, lead):
    assert _lines(advisor, text)[0].startswith(lead), _lines(advisor, text)[0]
