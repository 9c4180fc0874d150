"""Issue 15 item 6 through the live reload: a rule file nested 999 deep or a YAML alias bomb is a
rejected reload reported to the subscribers, the watcher keeps running, and a later valid edit is
picked up."""

from __future__ import annotations

import time

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager
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


# -- #28 item 7: special files in the rules folder -------------------------------------------------

import os  # noqa: E402
import threading  # noqa: E402

import pytest  # noqa: E402

from bot.ruletools.lint import lint_paths  # noqa: E402


def bounded(call, seconds: float = 20.0):
    """`call()` on a daemon thread: its result, or a failure (not a hung test) past `seconds`."""
    box: dict = {}

    def run() -> None:
        try:
            box["result"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s (a FIFO or device was read)"
    if "error" in box:
        raise box["error"]
    return box["result"]


def lint_messages(report) -> str:
    return "\n".join(f"{i.file} {i.code}: {i.message}" for i in report.issues)


@pytest.mark.parametrize("kind, expected", [
    ("fifo", "not a regular file"),
    ("dev-zero", "links outside"),
    ("outside", "links outside"),
    ("latin-1", "not UTF-8 text"),
])
def test_lint_reports_a_special_or_undecodable_file_per_file_and_never_hangs(rules_dir, tmp_path, kind,  # noqa: F811
                                                                             expected):
    bad = rules_dir / "bad.yaml"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "dev-zero":
        bad.symlink_to("/dev/zero")
    elif kind == "outside":
        secret = tmp_path / "outside.yaml"
        secret.write_text("rules: []\n")
        bad.symlink_to(secret)
    else:
        bad.write_bytes("rules: []  # caf\xe9\n".encode("latin-1"))
    report = bounded(lambda: lint_paths([rules_dir], check_tests=False))
    shown = lint_messages(report)
    assert "bad.yaml" in shown and expected in shown, shown
    # Only the bad file is reported: the others still lint.
    assert all("bad.yaml" in i.file or i.code != "yaml-syntax" for i in report.issues)


def test_a_fifo_rejects_the_reload_and_a_good_edit_after_it_is_served(rules_dir):  # noqa: F811
    results = []
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, on_reload=results.append)
    try:
        serving = manager.version
        os.mkfifo(rules_dir / "pipe.yaml")
        os.mkfifo(rules_dir / "pipe.tests.yaml")
        result = bounded(manager.reload)
        assert not result.ok and manager.version == serving
        assert any("pipe.yaml" in p and "not a regular file" in p for p in result.problems), result.problems
        (rules_dir / "pipe.yaml").unlink()
        (rules_dir / "pipe.tests.yaml").unlink()
        write_generation(rules_dir, 7)
        result = bounded(manager.reload)
        assert result.ok and manager.version != serving, result.problems
    finally:
        manager.close()


def test_a_file_growing_past_the_limit_is_refused_without_reading_all_of_it(tmp_path):
    from bot.yamlio import MAX_YAML_BYTES, YamlError, load_yaml

    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_YAML_BYTES + 10))
    with pytest.raises(YamlError, match="read up to"):
        load_yaml(big)
