"""Issue 15 items 6 and 7 at the engine: numbers Python writes in exponent form reach durable-rules
intact (it used to fail with "Could not assert fact, error code: 204"), infinite ones are refused
by name, and message templates cannot pad a finding to megabytes."""

from __future__ import annotations

import json
import textwrap

import pytest

from bot.engine.encoding import plain_numbers
from bot.engine.rulebase import MAX_RENDERED_CHARS, RuleBaseError, load_rulebase
from bot.engine.session import Engine, render
from bot.errors import InputError
from tests.engine.typed import typed

RULES = """\
rules:
  - id: test.tiny-model
    title: A model under a thousandth of a billion parameters
    topic: memory
    severity: info
    priority: 10
    when:
      - fact: requirement
        as: req
        where: {params_b: {lt: 0.001}}
    then:
      finding:
        en: "tiny model of {req.params_b}B"
        zh: "tiny model of {req.params_b}B"
    sources: [training-servers-guide]
  - id: test.huge-price
    title: A price from ten quadrillion
    topic: cost
    severity: info
    priority: 10
    when:
      - fact: requirement
        as: req
        where: {dataset_tokens_b: {gte: 10000000000000000}}
    then:
      finding:
        en: "budget {req.dataset_tokens_b:.0f}"
        zh: "budget {req.dataset_tokens_b:.0f}"
    sources: [training-servers-guide]
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rules")
    (folder / "numbers.yaml").write_text(RULES)
    eng = Engine(load_rulebase([folder]))
    yield eng
    eng.close()


@pytest.mark.parametrize("value", [0.00001, 1e-5, 3.5e-9, -2e-7])
def test_exponent_form_small_numbers_are_asserted_and_compared(engine, value):
    result = engine.run(typed([("requirement", {"params_b": value})]))
    assert [f.rule for f in result.findings] == ["test.tiny-model"]
    assert result.findings[0].message == f"tiny model of {value}B"


@pytest.mark.parametrize("value", [1e16, 2.5e17, 1e300])
def test_exponent_form_large_numbers_are_asserted_and_compared(engine, value):
    result = engine.run(typed([("requirement", {"dataset_tokens_b": value})]))
    assert [f.rule for f in result.findings] == ["test.huge-price"]


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_infinite_numbers_are_refused_naming_the_field(engine, value):
    with pytest.raises(InputError, match=r"requirement\.params_b: .* is not a finite number"):
        engine.run(typed([("requirement", {"params_b": value})]))


def test_plain_numbers_leave_strings_alone():
    text = json.dumps({"a": 1e-5, "b": 'says "1e-5" and 2E+16', "c": [1e16, 7]})
    assert json.loads(plain_numbers(text)) == json.loads(text)
    assert plain_numbers(text) == ('{"a": 0.00001, "b": "says \\"1e-5\\" and 2E+16", '
                                   '"c": [10000000000000000.0, 7]}')


def test_a_huge_template_width_is_refused_at_load(tmp_path):
    (tmp_path / "wide.yaml").write_text(RULES.replace("tiny model of {req.params_b}B",
                                                      "tiny model of {req.params_b:>50000000}B", 1))
    with pytest.raises(RuleBaseError) as caught:
        load_rulebase([tmp_path])
    assert any("format width 50000000 is over" in p and "wide.yaml:" in p for p in caught.value.problems)


def test_lint_rejects_a_huge_template_width(tmp_path):
    from bot.ruletools.lint import lint_paths

    (tmp_path / "wide.yaml").write_text(RULES.replace("budget {req.dataset_tokens_b:.0f}", "budget {req.dataset_tokens_b:.500f}", 1))
    report = lint_paths([tmp_path])
    assert any("format precision 500 is over" in issue.message for issue in report.errors)


def test_rendering_is_bounded_even_for_a_rule_that_skipped_the_checks():
    assert render("{req.params_b:>50000000}", {"req": {"params_b": 7}}) == "7"
    long = render("{req.name}" * 10, {"req": {"name": "x" * 1000}})
    assert len(long) == MAX_RENDERED_CHARS and long.endswith("…")
    assert textwrap.shorten(render("{req.params_b:>8.2f}", {"req": {"params_b": 7}}), 20) == "7.00"
