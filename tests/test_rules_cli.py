"""`gpu-advisor rules …` end to end, through the real CLI entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from bot.cli import main
from bot.ruletools.lint import lint_paths
from bot.engine.rulebase import rule_files
from bot.engine.vocabulary import README, SCHEMA_PATH, rule_schema, schema_text, update_readme
from bot.yamlio import load_yaml

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "fixtures" / "broken_rules"
LICENSE = ROOT / "rules" / "license"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_lint_broken_fixtures_exits_1_with_locations(capsys):
    code, out, _ = run(capsys, "rules", "lint", str(BROKEN))
    assert code == 1
    assert "tests/fixtures/broken_rules/unknown_gpu.yaml:9:17: [unknown-gpu]" in out
    assert out.index("errors (") < out.index("warnings (")


def test_lint_json_and_github_formats(capsys):
    code, out, _ = run(capsys, "rules", "lint", "--format", "json", str(BROKEN / "unknown_source.yaml"))
    data = json.loads(out)
    assert code == 1 and {e["code"] for e in data["errors"]} == {"unknown-source", "untested"}
    code, out, _ = run(capsys, "rules", "lint", "--format", "github", str(BROKEN / "missing_header.yaml"))
    lines = out.splitlines()
    assert "::warning file=tests/fixtures/broken_rules/missing_header.yaml,line=1,col=1,title=schema-header::" \
        in out
    assert all(line.startswith(("::error ", "::warning ")) for line in lines)


def test_lint_clean_file_exits_0(capsys):
    code, out, _ = run(capsys, "rules", "lint", str(LICENSE / "geforce.yaml"))
    assert code == 0, out


def test_rule_tests_pass_and_fail(capsys, tmp_path):
    code, out, _ = run(capsys, "rules", "test", str(LICENSE / "geforce.tests.yaml"))
    assert code == 0 and "0 failed" in out
    shutil.copy(LICENSE / "geforce.yaml", tmp_path / "geforce.yaml")
    (tmp_path / "geforce.tests.yaml").write_text(
        "tests:\n  - name: RTX 4090 in a data centre\n    requirement: {gpu: rtx-4090, deployment: datacenter}\n"
        "    expect: {fires: [license.geforce-datacenter]}\n"
        "  - name: A100 is not GeForce\n    requirement: {gpu: a100-sxm4-80gb, deployment: datacenter}\n"
        "    expect: {fires: [license.geforce-datacenter]}\n")
    code, out, _ = run(capsys, "rules", "test", str(tmp_path))
    assert code == 1
    assert "1 passed, 1 failed" in out
    assert "FAIL" in out and "expected license.geforce-datacenter to fire" in out
    # which condition failed, and what the fact held
    assert "when[0]: no consumer_gpu fact" in out


def test_explain_and_dot(capsys):
    code, out, _ = run(capsys, "rules", "explain", "license.geforce-datacenter")
    assert code == 0 and "Fed by" in out and "license.consumer-gpu" in out and "geforce-eula" in out
    code, out, _ = run(capsys, "rules", "explain", "license.geforce-datacenter", "--dot")
    assert code == 0 and out.startswith("digraph rules {")
    code, _, err = run(capsys, "rules", "explain", "license.no-such-rule")
    assert code == 2 and "no rule 'license.no-such-rule'" in err


def test_why_prints_the_derivation_tree(capsys):
    code, out, _ = run(capsys, "rules", "why", "gpu=rtx-4090 deployment=datacenter")
    assert code == 0
    assert "rule license.geforce-datacenter fired because:" in out
    assert "[derived by license.consumer-gpu]" in out


def test_schema_is_generated_and_committed(capsys):
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), \
        "rules/rule.schema.json is stale: run `gpu-advisor rules schema -o rules/rule.schema.json`"
    code, out, _ = run(capsys, "rules", "schema", "--check")
    assert code == 0


def test_schema_accepts_every_real_rule_file_and_rejects_a_broken_one():
    validator = jsonschema.Draft202012Validator(rule_schema())
    for path in rule_files([ROOT / "rules"]):
        errors = [e.message for e in validator.iter_errors(load_yaml(path).data)]
        assert not errors, f"{path}: {errors}"
    assert list(validator.iter_errors(load_yaml(BROKEN / "unknown_topic.yaml").data))
    assert list(validator.iter_errors(load_yaml(BROKEN / "schema_error.yaml").data))


def test_readme_vocabulary_is_current(capsys):
    text = README.read_text(encoding="utf-8")
    assert update_readme(text) == text, "run `gpu-advisor rules vocabulary --write`"
    assert "#### `requirement`" in text and "#### `concern`" in text


def test_schema_stamp_adds_the_header(capsys, tmp_path):
    shutil.copy(BROKEN / "missing_header.yaml", tmp_path / "x.yaml")
    code, out, _ = run(capsys, "rules", "schema", "--stamp", str(tmp_path))
    assert code == 0 and "1 file(s) stamped" in out
    first = (tmp_path / "x.yaml").read_text().splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=") and first.endswith("rules/rule.schema.json")
    assert (tmp_path / first.split("=", 1)[1]).resolve() == SCHEMA_PATH.resolve()
    assert "schema-header" not in lint_paths([tmp_path], check_tests=False).codes()
    code, out, _ = run(capsys, "rules", "schema", "--stamp", str(tmp_path))
    assert "0 file(s) stamped" in out
    assert (tmp_path / "x.yaml").read_text().count("yaml-language-server") == 1


def test_new_scaffolds_a_rule_that_lints_and_passes(capsys, tmp_path):
    code, out, _ = run(capsys, "rules", "new", "spot.checkpoint-often", "--topic", "spot", "--dir", str(tmp_path))
    assert code == 0
    rule, test = tmp_path / "spot" / "checkpoint-often.yaml", tmp_path / "spot" / "checkpoint-often.tests.yaml"
    assert rule.exists() and test.exists()
    report = lint_paths([tmp_path])
    assert report.ok, [i.message for i in report.errors]
    assert report.codes() == {"placeholder"}  # only the TODO warning
    code, out, _ = run(capsys, "rules", "test", str(tmp_path))
    assert code == 0 and "1 passed, 0 failed" in out
    code, _, err = run(capsys, "rules", "new", "spot.checkpoint-often", "--topic", "spot", "--dir", str(tmp_path))
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "rules", "new", "spot.x", "--topic", "nope", "--dir", str(tmp_path))
    assert code == 2 and "not a topic" in err


@pytest.mark.parametrize("argv", [["rules", "lint", "no/such/dir"], ["rules", "test", "no/such/dir"]])
def test_missing_paths_do_not_crash(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code in (1, 2) and "Traceback" not in out + err
