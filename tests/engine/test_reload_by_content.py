"""Versions by content: the same rules, tests and knowledge in two places are one serving version,
so replicas (or a checkout moved to another path) converge; a changed file is a new version."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.advisor import Advisor
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR
from bot.ruletools.reload import RuleBaseManager, knowledge_digest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"


def _copy(root: Path) -> tuple[Path, Path]:
    rules, knowledge = root / "rules", root / "deeper" / "knowledge"
    shutil.copytree(FIXTURE, rules)
    shutil.copytree(DEFAULT_KNOWLEDGE_DIR, knowledge)
    return rules, knowledge


def test_identical_files_at_two_paths_have_one_version(tmp_path):
    first, second = _copy(tmp_path / "a"), _copy(tmp_path / "elsewhere" / "b")
    assert knowledge_digest(first[1]) == knowledge_digest(second[1])
    managers = [RuleBaseManager(rules, knowledge_dir=knowledge, check_lint=False, check_tests=False,
                                advisor_factory=Advisor) for rules, knowledge in (first, second)]
    try:
        assert managers[0].serving_version == managers[1].serving_version
        assert managers[0]._tests_digest == managers[1]._tests_digest
        # a reload of the second copy finds nothing new: it already serves the first one's version
        assert not managers[1].reload().changed
    finally:
        for manager in managers:
            manager.close()


def test_a_renamed_or_edited_file_changes_the_digest(tmp_path):
    rules, knowledge = _copy(tmp_path)
    before = knowledge_digest(knowledge)
    name = sorted(p for p in knowledge.iterdir() if p.suffix == ".yaml")[0]
    name.rename(name.with_name("renamed-" + name.name))
    renamed = knowledge_digest(knowledge)
    assert renamed != before
    target = knowledge / ("renamed-" + name.name)
    target.write_text(target.read_text() + "\n# edited\n")
    assert knowledge_digest(knowledge) not in (before, renamed)
