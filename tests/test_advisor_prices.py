"""Price facts in answers: only for questions about money, with their currency, and an EXAMPLE
warning given once per answer when the rows come from the shipped example table."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Requirement


@pytest.fixture(scope="module")
def example_advisor():
    return Advisor(catalog=load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml"))


def _rules(answer) -> list[str]:
    return [f.rule for f in answer.findings]


def test_example_warning_is_given_once_however_many_rows(example_advisor):
    answer = example_advisor.answer(Requirement(gpu="h100-sxm", topics=["cost"]))
    rules = _rules(answer)
    rows = rules.count("cost.price-table-not-current") + rules.count("cost.stale-price")
    assert rows >= 3  # runpod, aws on-demand, aws capacity block, cherry
    assert rules.count("cost.example-prices") == 1
    assert all(" USD/GPU-hour" in f.message for f in answer.findings
               if f.rule in ("cost.price-table-not-current", "cost.stale-price"))


def test_team_price_table_gets_no_example_warning(tmp_path):
    prices = tmp_path / "team-prices.yaml"
    prices.write_text(
        "prices:\n  - {gpu: l40s, provider: runpod, hourly_rate: 0.8, currency: EUR, quoted_on: 2026-11-01}\n",
        encoding="utf-8",
    )
    advisor = Advisor(catalog=load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=prices))
    answer = advisor.answer(Requirement(gpu="l40s", provider="runpod"))
    assert "cost.example-prices" not in _rules(answer)
    [price] = [f for f in answer.findings if f.rule in ("cost.price-table-not-current", "cost.stale-price")]
    assert "0.8 EUR/GPU-hour" in price.message


@pytest.mark.parametrize("requirement", [
    {"gpu": "h100-sxm", "xids": [79]},
    {"gpu": "h100", "symptoms": ["cuda-error"], "cuda": "12.4"},
    {"gpu": "rtx-4090", "workload": "inference", "params_b": 7},
])
def test_questions_not_about_money_get_no_price_findings(example_advisor, requirement):
    answer = example_advisor.answer(Requirement(**requirement))
    assert not [r for r in _rules(answer) if r.startswith("cost.")]


def test_each_cost_line_says_where_its_rate_came_from(example_advisor, tmp_path):
    """A cost line's origin is typed: a row of the example table, a row of the team's own table, or
    the user's quote (which the renderers call 'your quote')."""
    job = dict(workload="training", method="lora", params_b=7, dataset_tokens_b=0.5, gpu="h100-sxm", topics=["cost"])
    example = example_advisor.answer(Requirement(**job))
    assert example.costs and {c.origin for c in example.costs} == {"example"}
    prices = tmp_path / "team-prices.yaml"
    prices.write_text(
        "prices:\n  - {gpu: h100-sxm, provider: runpod, hourly_rate: 2.5, currency: USD, quoted_on: 2026-11-01}\n",
        encoding="utf-8",
    )
    team = Advisor(catalog=load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=prices)).answer(Requirement(**job))
    assert team.costs and {c.origin for c in team.costs} == {"catalog"}
    quoted = example_advisor.answer(Requirement(**job, costs=[{"label": "ours", "hourly_rate": 2.0, "hours": 10}]))
    assert [(c.label, c.origin) for c in quoted.costs] == [("ours", "quote")]
