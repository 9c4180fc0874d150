"""Every YAML rule test under rules/ runs here, and every rule must have one that fires it."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.engine.rulebase import DEFAULT_RULES_DIR
from bot.ruletools.ruletest import find_test_files, load_cases, run_case
from bot.knowledge import example_prices_catalog

FILES = find_test_files([DEFAULT_RULES_DIR])
CASES = [(path, case) for path in FILES for case in load_cases(path)]


@pytest.fixture(scope="module")
def advisor():
    # Rule cases name the shipped example price rows, not the refreshable SkyPilot snapshot.
    return Advisor(catalog=example_prices_catalog())


@pytest.mark.parametrize("path,case", CASES, ids=[f"{p.parent.name}/{p.name}::{c.name}" for p, c in CASES])
def test_rule_case(advisor, path, case):
    outcome = run_case(advisor, path, case)
    assert outcome.ok, "\n".join(outcome.failures)


def test_every_rule_has_a_test_that_fires_it(advisor):
    covered = {rule for _, case in CASES for rule in case.expect.fires}
    covered |= {f.rule for _, case in CASES for f in case.expect.findings}
    covered |= {r.rule for _, case in CASES for r in case.expect.recommends}
    covered |= {case.expect.verdict.rule for _, case in CASES if case.expect.verdict}
    untested = sorted(set(advisor.engine.rulebase.by_id) - covered)
    assert not untested, f"rules without a test that fires them: {untested}"
