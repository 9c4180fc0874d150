"""`gpu-advisor history HOST`: the trend as text (with the rules' findings) and as a PNG chart."""

from __future__ import annotations

import datetime as dt
import json

from bot.cli import main
from bot.store import GpuCounters, HostCheck
from bot.store.migrations import HEAD

T0 = dt.datetime(2025, 3, 1, 6, 0, tzinfo=dt.timezone.utc)


def _seed(store) -> None:
    for day, (ecc, remapped, xids) in enumerate([(0, 0, {}), (0, 0, {13: 1}), (2, 1, {13: 1, 79: 1})]):
        store.record_check(HostCheck(host="gpu-01", checked_at=T0 + dt.timedelta(days=day), gpus=[
            GpuCounters(index=0, uuid="GPU-a", name="NVIDIA H100 80GB HBM3", ecc_uncorrected=ecc, ecc_corrected=5,
                        remapped_uncorrectable=remapped, remapped_correctable=0, xids=xids),
            GpuCounters(index=1, uuid="GPU-b", name="NVIDIA H100 80GB HBM3", ecc_uncorrected=0, ecc_corrected=0,
                        remapped_uncorrectable=0, remapped_correctable=0),
        ]))


def test_history_prints_the_table_and_the_findings_of_the_last_change(backend, store, monkeypatch, capsys, tmp_path):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    _seed(store)
    chart = tmp_path / "out" / "gpu-01.png"
    assert main(["history", "gpu-01", "--chart", str(chart)]) == 0
    out = capsys.readouterr().out
    assert "Check history of gpu-01: 3 check(s), 2025-03-01 06:00 to 2025-03-03 06:00 UTC" in out
    last_row = [line for line in out.splitlines() if line.startswith("  2025-03-03 06:00")][0]
    assert "2↑" in last_row and "13×1, 79×1" in last_row
    assert "[warn] GPU 0 on gpu-01: uncorrectable ECC errors rose from 0 to 2" in out
    assert "logged Xid 79" in out and "logged Xid 13" not in out
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000


def test_history_json_holds_every_check(backend, store, monkeypatch, capsys):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    _seed(store)
    assert main(["history", "gpu-01", "--json", "--limit", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["gpus"][0]["ecc_uncorrected"] for c in doc["checks"]] == [0, 2]
    assert {f["rule"] for f in doc["findings"]} >= {"health.history-ecc-uncorrected-rising", "health.history-new-xid"}


def test_a_host_without_checks_says_so_and_has_no_chart(backend, store, monkeypatch, capsys, tmp_path):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    assert main(["history", "never-checked"]) == 1  # an unknown host is not a success (#29)
    assert "No checks of never-checked are stored yet" in capsys.readouterr().out
    assert main(["history", "never-checked", "--chart", str(tmp_path / "x.png")]) == 2
    assert "nothing to chart" in capsys.readouterr().err


def test_db_status_and_upgrade(backend, monkeypatch, capsys):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    assert main(["db", "status"]) == 1
    assert f"{HEAD} migration(s) pending" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0
    assert f"applied migration(s) {list(range(1, HEAD + 1))}" in capsys.readouterr().out
    assert main(["db", "status"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_db_upgrade_sql_prints_the_migration_for_a_dba(backend, monkeypatch, capsys):
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    assert main(["db", "upgrade", "--sql"]) == 0
    sql = capsys.readouterr().out
    assert "CREATE TABLE conversations" in sql and "CREATE TABLE button_payloads" in sql
    assert main(["db", "status"]) == 1  # printing the SQL changed nothing
    capsys.readouterr()
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    assert main(["db", "upgrade", "--sql"]) == 0
    assert capsys.readouterr().out == ""  # up to date: nothing left to run


def test_history_prints_an_agents_gpu_name_inert(backend, store, monkeypatch, capsys):
    # A rented host's agent reports the GPU name: a terminal escape in it must not clear the screen.
    for name, value in backend.env().items():
        monkeypatch.setenv(name, value)
    store.record_check(HostCheck(host="gpu-01", checked_at=T0, gpus=[
        GpuCounters(index=0, name="H100\x1b[2J\u202echecks out", ecc_uncorrected=0)]))
    assert main(["history", "gpu-01"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "H100\\x1b[2J\\u202echecks out" in out
    assert main(["history", "gpu-01", "--json"]) == 0
    raw = capsys.readouterr().out
    assert "\u202e" not in raw and json.loads(raw)["checks"][0]["gpus"][0]["name"].startswith("H100\x1b")
