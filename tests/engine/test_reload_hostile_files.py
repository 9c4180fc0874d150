"""Issue 15 item 6 through the live reload: a rule file nested 999 deep or a YAML alias bomb is a
rejected reload reported to the subscribers, the watcher keeps running, and a later valid edit is
picked up."""

from __future__ import annotations

import time

from bot.advisor import Advisor
from bot.engine.reload import RuleBaseManager
from tests.engine.test_reload import QUESTION, rules_dir, write_generation  # noqa: F401 (a fixture)
from tests.test_yamlio import alias_bomb


def wait_for(condition, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_hostile_rule_files_are_rejected_and_the_watcher_lives_on(rules_dir):  # noqa: F811
    results = []
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, on_reload=results.append)
    try:
        serving = manager.version
        manager.watch(interval=0.05)
        (rules_dir / "deep.yaml").write_text("rules: " + "[" * 999 + "]" * 999 + "\n")
        assert wait_for(lambda: any(not r.ok for r in results)), "the deep file was never reported"
        rejected = [r for r in results if not r.ok][-1]
        assert any("nested more than 64 levels deep" in p for p in rejected.problems)
        assert manager.version == serving

        (rules_dir / "deep.yaml").write_text(alias_bomb())
        started = time.monotonic()
        assert wait_for(lambda: any("aliases are expanded" in p for r in results for p in r.problems))
        assert time.monotonic() - started < 15

        (rules_dir / "deep.yaml").unlink()
        write_generation(rules_dir, 9)
        assert wait_for(lambda: manager.version != serving), "a valid edit after the attack was not picked up"
        assert "generation 9 answered" in " ".join(f.message for f in manager.answer(QUESTION).findings)
    finally:
        manager.close()
