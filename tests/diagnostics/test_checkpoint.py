"""The checkpoint-interval calculator (Young 1974) and the providers' spot notices."""

from __future__ import annotations

import math

import pytest

from bot.diagnostics import checkpoint as calc
from bot.knowledge import load_catalog


def test_young_interval_is_the_square_root_of_twice_write_time_times_mtbi():
    assert calc.young_interval_minutes(2, 480) == pytest.approx(math.sqrt(1920))  # ≈ 43.8 min
    with pytest.raises(ValueError):
        calc.young_interval_minutes(0, 480)


def test_young_interval_minimises_the_overhead():
    best = calc.young_interval_minutes(4, 480)
    at_best = calc.overhead_fraction(best, 4, 480)
    assert at_best < calc.overhead_fraction(best / 2, 4, 480)
    assert at_best < calc.overhead_fraction(best * 2, 4, 480)


def test_a_job_on_several_nodes_is_interrupted_as_often_as_all_of_them():
    one, four = calc.plan(2, 8, 1), calc.plan(2, 8, 4)
    assert four.job_mtbi_hours == pytest.approx(2)
    assert four.interval_minutes == pytest.approx(one.interval_minutes / 2)  # √(1/4)
    assert four.overhead_fraction > one.overhead_fraction


def test_a_rate_observed_for_the_job_is_not_divided_again():
    plan = calc.plan(4, None, 4, 15, job_mtbi_hours=8, current_interval_minutes=60)
    assert plan.job_mtbi_hours == 8
    # 4/60 saving + (30 + 15)/480 rework: ~16% of the run
    assert plan.current_overhead_fraction == pytest.approx(4 / 60 + 45 / 480)


def test_defaults_are_used_and_reported_when_nothing_is_given():
    plan = calc.plan()
    assert (plan.write_minutes, plan.node_mtbi_hours, plan.nodes) == (calc.DEFAULT_WRITE_MINUTES,
                                                                     calc.DEFAULT_NODE_MTBI_HOURS, 1)


def test_every_notice_cites_known_sources_and_matches_the_providers_docs():
    known = set(load_catalog().sources)
    notices = calc.notices()
    assert {"aws", "gcp", "azure", "aliyun"} <= set(notices)
    assert notices["aws"].notice_s == 120 and notices["gcp"].notice_s == 30 and notices["azure"].notice_s == 30
    for notice in notices.values():
        assert set(notice.sources) <= known, notice.provider
    assert set(calc.SOURCES) <= known
