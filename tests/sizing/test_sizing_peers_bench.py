"""bench/sizing_peers.py (issue #27): every case runs, and the bot is closest to the reference or within
5 points of the closest peer on each. Peers not installed are skipped by the bench itself."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "sizing_peers.py"


def _bench():
    spec = importlib.util.spec_from_file_location("sizing_peers", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("sizing_peers", module)  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_bench_has_at_least_20_cases_each_with_a_named_reference():
    cases = _bench().cases()
    assert len(cases) >= 20
    assert all(c.source and c.reference > 0 for c in cases)


def test_the_bot_is_closest_or_within_5_points_on_every_case(capsys):
    assert _bench().main([]) == 0
    out = capsys.readouterr().out
    assert "cases: the bot is closest or within 5% of the closest" in out
