"""`gpu-advisor audit`: who asked which question and each dispatch, filtered, as text and as JSON."""

from __future__ import annotations

import datetime as dt
import json

from bot.cli import main
from bot.store import AuditEntry

T0 = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)


def _seed(store) -> None:
    store.add_recent_question("U0ALICE", "can we fine-tune 7B on one L4?", channel="C0ML", now=T0,
                              request_id="req-1")
    store.add_recent_question("U0BOB", "evil \x1b[2J question", now=T0 + dt.timedelta(minutes=1))
    store.append_audit(AuditEntry(at=T0 + dt.timedelta(minutes=2), user="U0ALICE", host="gpu-01", job="check",
                                  parameters={"benchmarks": ["matmul"]}, outcome="ok", duration_s=3.25))
    store.append_audit(AuditEntry(at=T0 + dt.timedelta(minutes=3), user="U0BOB", host="gpu-02", job="check",
                                  outcome="refused", detail="U0BOB may not check gpu-02"))
    store.add_recent_question("U0ALICE", "yesterday's question", now=T0 - dt.timedelta(days=1))


def _env(backend, monkeypatch):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)


def test_audit_prints_questions_and_dispatches_oldest_first_and_inert(backend, store, monkeypatch, capsys):
    _env(backend, monkeypatch)
    _seed(store)
    assert main(["audit", "--since", "2026-12-01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("since 2026-12-01 00:00 UTC: 2 question(s), 2 dispatch(es)")
    assert lines[1] == "2026-12-01 09:00:00  U0ALICE  asked in C0ML: can we fine-tune 7B on one L4?"
    assert lines[2] == "2026-12-01 09:01:00  U0BOB  asked: evil \\x1b[2J question"  # escape shown, not run
    assert lines[3] == '2026-12-01 09:02:00  U0ALICE  check gpu-01: ok (3.2 s) {"benchmarks": ["matmul"]}'
    assert lines[4] == "2026-12-01 09:03:00  U0BOB  check gpu-02: refused — U0BOB may not check gpu-02"
    assert len(lines) == 5


def test_audit_filters_by_user_host_kind_and_window(backend, store, monkeypatch, capsys):
    _env(backend, monkeypatch)
    _seed(store)
    assert main(["audit", "--since", "2026-11-01", "--user", "U0ALICE"]) == 0
    out = capsys.readouterr().out
    assert "2 question(s), 1 dispatch(es)" in out and "yesterday's question" in out and "U0BOB" not in out
    assert main(["audit", "--since", "2026-12-01", "--host", "gpu-02"]) == 0
    out = capsys.readouterr().out
    assert "0 question(s), 1 dispatch(es)" in out and "gpu-02: refused" in out
    assert main(["audit", "--since", "2026-12-01T09:00:30", "--until", "2026-12-01T09:02:30+00:00",
                 "--kind", "questions"]) == 0
    out = capsys.readouterr().out
    assert "1 question(s), 0 dispatch(es)" in out and "U0BOB" in out


def test_audit_json_is_one_object_for_export(backend, store, monkeypatch, capsys):
    _env(backend, monkeypatch)
    _seed(store)
    assert main(["audit", "--since", "2026-12-01", "--json", "--limit", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["truncated"] is True and out["since"] == "2026-12-01T00:00:00+00:00"
    assert [q["question"] for q in out["questions"]] == ["evil \x1b[2J question"]  # the newest one
    assert out["questions"][0]["user"] == "U0BOB" and out["dispatches"][0]["outcome"] == "refused"
    assert main(["audit", "--since", "2026-12-01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [q["request_id"] for q in out["questions"]] == ["req-1", None]
    assert out["dispatches"][0]["parameters"] == {"benchmarks": ["matmul"]}


def test_audit_refuses_bad_input_with_one_line(backend, store, monkeypatch, capsys):
    _env(backend, monkeypatch)
    assert main(["audit", "--since", "last tuesday"]) == 2
    assert "--since: 'last tuesday' is not a date" in capsys.readouterr().err
    assert main(["audit", "--since", "2026-12-02", "--until", "2026-12-01"]) == 2
    assert "--until" in capsys.readouterr().err
    assert main(["audit", "--host", "gpu-01", "--kind", "questions"]) == 2
    assert main(["audit", "--limit", "0"]) == 2
