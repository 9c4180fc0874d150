"""Lint finds each kind of problem in the deliberately broken files, at the right line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.ruletools.lint import CODES, format_github, format_human, format_json, lint_paths
from bot.engine.rulebase import DEFAULT_RULES_DIR

BROKEN = Path(__file__).resolve().parents[1] / "fixtures" / "broken_rules"

# file -> (code, line, column) of the one problem it holds
EXPECTED = {
    "yaml_syntax.yaml": ("yaml-syntax", 6, 1),
    "schema_error.yaml": ("schema", 7, 5),
    "unknown_topic.yaml": ("unknown-topic", 5, 5),
    "duplicate_id.yaml": ("duplicate-id", 12, 5),
    "unknown_field.yaml": ("unknown-field", 8, 33),
    "unknown_fact.yaml": ("unknown-fact", 7, 9),
    "unknown_source.yaml": ("unknown-source", 11, 29),
    "unknown_gpu.yaml": ("unknown-gpu", 9, 17),
    "unknown_knowledge.yaml": ("unknown-knowledge", 8, 17),
    "template_unbound.yaml": ("template-unbound", 11, 9),
    "never_fires_derived.yaml": ("never-fires", 7, 9),
    "never_fires_value.yaml": ("never-fires", 9, 17),
    "shadowed.yaml": ("shadowed", 17, 5),
    "cycle.yaml": ("cycle", 14, 5),
    "untested.yaml": ("untested", 4, 5),
    "missing_header.yaml": ("schema-header", 1, 1),
}


def test_every_fixture_is_expected():
    assert sorted(p.name for p in BROKEN.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lint_finds_the_problem(name):
    code, line, col = EXPECTED[name]
    report = lint_paths([BROKEN / name], check_tests=(code == "untested"))
    found = [(i.code, i.line, i.col) for i in report.issues]
    assert (code, line, col) in found, format_human(report)
    # the fixture holds that problem and nothing else
    assert {i.code for i in report.issues} == {code}, format_human(report)
    assert report.ok == (CODES[code][0] == "warning")


def test_schema_error_lists_every_field():
    report = lint_paths([BROKEN / "schema_error.yaml"], check_tests=False)
    messages = " | ".join(i.message for i in report.errors)
    assert "sources: Field required" in messages and "severity:" in messages


def test_cycle_names_the_loop_and_spares_the_entry():
    report = lint_paths([BROKEN / "cycle.yaml"], check_tests=False)
    (issue,) = report.issues
    assert "broken.cycle-ping --concern--> broken.cycle-pong" in issue.message
    assert "broken.cycle-pong --concern--> broken.cycle-ping" in issue.message
    assert "broken.cycle-entry" not in issue.message


def test_never_fires_propagates_through_dead_feeders(tmp_path):
    text = (BROKEN / "never_fires_value.yaml").read_text()
    text = text.replace("      finding: {en: \"fine-tuning\", zh: \"微调\"}",
                        "      assert:\n        - fact: goal\n          set: {name: finetune}")
    text += """  - id: broken.needs-finetune-goal
    title: Consumes the goal only the dead rule asserts
    topic: memory
    when:
      - fact: goal
        where: {name: finetune}
    then:
      finding: {en: "x", zh: "x"}
    sources: [rental-selection-guide]
"""
    (tmp_path / "chain.yaml").write_text(text)
    report = lint_paths([tmp_path], check_tests=False)
    by_rule = {i.rule: i.message for i in report.issues if i.code == "never-fires"}
    assert "broken.never-fires-value" in by_rule
    assert "only from rules that never fire (broken.never-fires-value)" in by_rule["broken.needs-finetune-goal"]


def test_a_broken_file_does_not_hide_problems_elsewhere(tmp_path):
    for name in ("yaml_syntax.yaml", "schema_error.yaml", "unknown_field.yaml"):
        shutil.copy(BROKEN / name, tmp_path / name)
    report = lint_paths([tmp_path], check_tests=False)
    assert {"yaml-syntax", "schema", "unknown-field"} <= report.codes()


def test_valid_rules_in_a_partly_broken_file_are_still_checked(tmp_path):
    good = (BROKEN / "unknown_source.yaml").read_text()
    bad_rule = (BROKEN / "unknown_topic.yaml").read_text().split("rules:\n", 1)[1]
    (tmp_path / "mixed.yaml").write_text(good + bad_rule)
    report = lint_paths([tmp_path], check_tests=False)
    assert {"unknown-source", "unknown-topic"} <= report.codes()


def test_tests_naming_unknown_rules_are_reported(tmp_path):
    shutil.copy(BROKEN / "untested.yaml", tmp_path / "untested.yaml")
    (tmp_path / "untested.tests.yaml").write_text(
        "tests:\n  - name: typo\n    requirement: {gpu: rtx-4090}\n    expect: {fires: [broken.untestd]}\n")
    report = lint_paths([tmp_path])
    assert {"bad-test", "untested"} <= report.codes()
    assert any("broken.untestd" in i.message for i in report.issues)


def test_missing_path_is_an_error_not_a_crash(tmp_path):
    report = lint_paths([tmp_path / "nope"])
    assert not report.ok and report.codes() == {"no-rules"}


def test_real_rule_base_lints_without_crashing():
    report = lint_paths([DEFAULT_RULES_DIR])
    assert report.rules, "the real rule base has rules"
    assert all(i.code in CODES for i in report.issues)


def test_linting_one_file_sees_the_rules_it_chains_with():
    # geforce-datacenter needs consumer_gpu, asserted by a rule in the same base: linting just that
    # file must not call it never-firing
    report = lint_paths([DEFAULT_RULES_DIR / "license" / "geforce.yaml"])
    assert "never-fires" not in report.codes()
    assert {i.file for i in report.issues} <= {"rules/license/geforce.yaml", "rules/license/geforce.tests.yaml"}


def test_output_formats():
    report = lint_paths([BROKEN / "unknown_gpu.yaml", BROKEN / "shadowed.yaml"], check_tests=False)
    data = json.loads(format_json(report))
    assert data["ok"] is False
    assert [e["code"] for e in data["errors"]] == ["unknown-gpu"]
    assert [w["code"] for w in data["warnings"]] == ["shadowed"]
    assert data["errors"][0]["line"] == 9 and data["errors"][0]["col"] == 17
    github = format_github(report).splitlines()
    assert github[0].startswith("::error file=tests/fixtures/broken_rules/unknown_gpu.yaml,line=9,col=17,")
    assert github[1].startswith("::warning file=tests/fixtures/broken_rules/shadowed.yaml,line=17,col=5,")
    human = format_human(report)
    assert human.index("errors (1):") < human.index("warnings (1):")
