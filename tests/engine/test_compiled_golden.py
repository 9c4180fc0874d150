"""Golden files of the compiled durable-rules JSON for representative conditions, the way
ansible-rulebook tests its AST: a compiler change shows up in review as a diff of these files.

Regenerate after an intended change: GPU_ADVISOR_UPDATE_GOLDEN=1 python -m pytest tests/engine/test_compiled_golden.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.engine.compiler import compile_rule
from bot.engine.rulebase import load_rulebase

GOLDEN = Path(__file__).resolve().parent / "golden"
# One rule per shape of condition: equality on two facts, a reference to a bound fact, not_in with
# other tests, exists false, a numeric comparison against a reference, a set (in), a derived fact.
REPRESENTATIVE = {
    "license.geforce-datacenter": "two facts, equality",
    "memory.exceeds-one-gpu": "a reference to a bound fact",
    "host.xid-hardware": "not_in next to other tests",
    "selection.ask-workload": "exists: false",
    "verdict.compare-faster": "lt against a reference",
    "verdict.driver-ok": "gte against a reference across facts",
    "advice.int-weights": "in",
    "verdict.host-blocked": "a derived fact",
}


@pytest.fixture(scope="module")
def rules():
    return {loaded.rule.id: loaded.rule for loaded in load_rulebase().rules}


@pytest.mark.parametrize("rule_id", sorted(REPRESENTATIVE))
def test_compiled_form_matches_its_golden_file(rules, rule_id):
    if rule_id not in rules:
        # the rule ids above name real rules; a rename must update this table
        pytest.fail(f"{rule_id} is not in the rule base")
    compiled = json.dumps(compile_rule(rules[rule_id]), indent=2, sort_keys=True) + "\n"
    path = GOLDEN / f"{rule_id}.json"
    if os.environ.get("GPU_ADVISOR_UPDATE_GOLDEN"):
        path.write_text(compiled, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with GPU_ADVISOR_UPDATE_GOLDEN=1"
    assert compiled == path.read_text(encoding="utf-8"), f"compiled {rule_id} changed; review and regenerate"
