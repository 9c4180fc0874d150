"""#28 item 6 / #29 item 3: a live reload tests a candidate on the data its rule tests pin (the
example price table), not on the serving table, so a good edit of the shipped rules reloads on
every configuration: with the SkyPilot snapshot serving, as with the example table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager, rule_test_catalog
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, EXAMPLE_PRICES_NAME, SNAPSHOT_PRICES_NAME, load_catalog

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME


def rules_test_failures(rules: Path) -> set[str]:
    """The `file::case` ids `gpu-advisor rules test` fails on `rules` (it runs on the example table)."""
    from bot.ruletools.reload import run_rule_tests
    from bot.ruletools.ruletest import find_test_files
    from bot.knowledge import example_prices_catalog
    from bot.services import Services

    run = run_rule_tests(find_test_files([rules]), Services(rules_dir=[rules], catalog=example_prices_catalog()).advisor())
    return {f"{case.file}::{case.case.name}" for case in run.results if not case.ok}


@pytest.mark.skipif(not SNAPSHOT.is_file(), reason="the shipped SkyPilot snapshot is not in this checkout")
@pytest.mark.parametrize("serving", [SNAPSHOT_PRICES_NAME, EXAMPLE_PRICES_NAME])
def test_a_good_edit_of_the_shipped_rules_reloads_whichever_price_table_serves(tmp_path, monkeypatch, serving):
    monkeypatch.setenv("GPU_ADVISOR_PRICES", str(DEFAULT_KNOWLEDGE_DIR / serving))
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    manager = RuleBaseManager(rules, advisor_factory=Advisor)
    try:
        edited = next(p for p in sorted(rules.rglob("*.yaml"))
                      if not p.name.endswith(".tests.yaml") and p.read_text().lstrip().startswith(("#", "rules")))
        edited.write_text(edited.read_text() + "\n# an operator's comment: a good edit\n")
        result = manager.reload()
        # What `gpu-advisor rules test` says about the same files (the example table): the reload
        # must agree with it, whichever table serves. (Green on a green rule base; a case the
        # rule base itself fails is rejected on every configuration alike.)
        failing = rules_test_failures(rules)
        if not failing:
            assert result.ok, result.problems[:5]
        else:
            assert not result.ok
        assert all(any(problem.startswith(case) for case in failing) for problem in result.problems), (
            [p for p in result.problems if not any(p.startswith(case) for case in failing)][:5])
    finally:
        manager.close()


def test_the_test_catalog_pins_the_example_table_and_keeps_a_fixed_catalog():
    serving = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / EXAMPLE_PRICES_NAME)
    assert rule_test_catalog(serving, DEFAULT_KNOWLEDGE_DIR) is serving  # already the example table
    if SNAPSHOT.is_file():
        live = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=SNAPSHOT)
        pinned = rule_test_catalog(live, DEFAULT_KNOWLEDGE_DIR)
        assert pinned.prices_are_example and not live.prices_are_example
        assert rule_test_catalog(live, None) is live  # handed in without a folder: the caller's data
