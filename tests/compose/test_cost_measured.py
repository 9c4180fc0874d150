"""bot.compose.cost_measured: two priced cards with the user's own speed between them are compared per unit of
that work (each hour's price ÷ its speed) and, with hours a month stated, on the month's bill for the same
work; never on the hourly price alone or spec-sheet TFLOPS."""

from __future__ import annotations

from tests.compose.answering import answer_of


def _cost(advisor, text):
    answer = answer_of(advisor, text)
    replies = [a for a in answer.answers if a.kind == "cost"]
    assert replies, [a.lead for a in answer.answers]
    return replies[0]


def test_quotes_with_a_measured_speed_are_priced_per_unit_of_work(advisor):
    reply = _cost(advisor, "H100 $2.49/h or A100 $1.29/h for batch inference; we measured the H100 at 2.3x the "
                           "A100's tokens/s. Which is cheaper per token? About 300 h a month.")
    assert reply.lead.startswith("Per token, H100 SXM is cheaper at your 2.3×")
    assert "$2.49/h ÷ 2.3 = $1.08" in reply.lead
    assert reply.figures["cheaper_per_work"] == "h100-sxm"
    month = next(d for d in reply.details if "300 h a month" in d)
    assert "$387" in month and "130 h" in month and "$325" in month  # 300 × 1.29; 300 ÷ 2.3 × 2.49
    assert not any("PFLOPS" in d for d in [reply.lead, *reply.details])


def test_the_same_in_chinese_where_the_faster_card_loses_per_image(advisor):
    reply = _cost(advisor, "SD 出图：L40S 每小时 ¥4.5，4090 每小时 ¥1.98，我们实测 L40S 出图速度是 4090 的 1.4 倍，"
                           "每月跑 500 小时，哪个便宜？")
    assert reply.lead.startswith("按你们给的 1.4 倍速度算每张图的成本，RTX 4090 更便宜")
    assert "¥4.50/小时 ÷ 1.4 = ¥3.21" in reply.lead
    assert any("¥990" in d and "357 小时" in d and "¥1,607" in d for d in reply.details)


def test_named_rows_with_a_benchmark_use_it_and_do_not_ask_for_the_model(advisor):
    reply = _cost(advisor, "text-to-image batch jobs, 1,000 gpu hours a month: AWS g6e.xlarge or a RunPod 4090? "
                           "we benchmarked the L40S at 1.3x the 4090. cheaper per image?")
    assert reply.lead.startswith("Per image, 1× RTX 4090 is cheaper at your 1.3×")
    assert "tell me the model" not in reply.lead
    assert any("1,000 h a month" in d and "769 h" in d for d in reply.details)


def test_without_a_speed_the_hourly_comparison_stands(advisor):
    reply = _cost(advisor, "L40S $0.86/h vs RTX 4090 $0.34/h, which is better value for SDXL?")
    assert "speedup" not in reply.figures
