"""bot.compose.cost_runs: quoted runs beside the time left for them. The cheaper run is not the pick when it
misses the time left, or leaves less slack than one more run of itself while a dearer run has that room; each
run's slack is said in hours."""

from __future__ import annotations

from tests.compose.answering import reply_by_rule


def _reply(advisor, text):
    return reply_by_rule(advisor, text, "cost-quote-totals")


def test_a_cheaper_run_with_no_room_to_rerun_loses_to_a_dearer_one_that_has_it(advisor):
    reply = _reply(advisor, "L40S at $0.90/h would take 40 hours, H100 at $2.50/h about 15 hours. "
                            "We have to deliver the model in 50 hours. Which is better value?")
    assert reply.lead.startswith("Take H100")
    assert "35 h to spare" in reply.lead and "10 h" in reply.lead  # 50 - 15 and 50 - 40
    assert reply.figures["deadline_hours"] == 50 and reply.figures["pick"] == "h100"
    assert "L40S is cheaper" in reply.details[0]  # the saving is still said


def test_the_same_in_chinese_with_days_left(advisor):
    reply = _reply(advisor, "A10 每小时 ¥3，要跑 40 小时；A100 每小时 ¥9，15 小时。下周一要交付，还剩 2 天，选哪个？")
    assert reply.lead.startswith("选 A100")
    assert "余量 33 小时" in reply.lead and "只剩 8 小时余量" in reply.lead


def test_a_run_that_misses_the_time_left_is_not_the_pick(advisor):
    reply = _reply(advisor, "option A: 8x A100 at $14/h takes 60 h, option B: 8x H100 at $30/h takes 30 h. "
                            "only 50 hours left before the demo, which one?")
    assert reply.lead.startswith("Take H100")
    assert "misses the 50 h left by 10 h" in reply.lead


def test_both_with_room_keep_the_cheaper_run_and_say_the_slack(advisor):
    reply = _reply(advisor, "A100 ¥8/小时要跑 20 小时，H100 ¥15/小时 10 小时，3 天后交付，选哪个？")
    assert reply.lead.startswith("H100 更便宜")
    assert any("余量 52 小时" in d and "余量 62 小时" in d for d in reply.details)
    assert reply.figures["pick"] == "h100"


def test_without_a_time_left_the_runs_are_priced_as_before(advisor):
    reply = _reply(advisor, "4090 $0.69/h needs 40 hours, H100 $2.99/h needs 10 hours. which is cheaper?")
    assert reply.lead.startswith("RTX 4090 is cheaper")
    assert "deadline_hours" not in reply.figures
