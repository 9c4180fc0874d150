"""Static checks of bot/ (issue #30): mypy and ruff against the committed baseline, which may only
shrink (.ci/static_check.py), no module over 600 lines, no function over cyclomatic complexity 25.

The size and complexity limits name today's offenders below, each with why it is still there; an
entry goes when its code is split (the test says so when one no longer needs it)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"
CHECKER = ROOT / ".ci" / "static_check.py"

MAX_LINES = 600
MAX_COMPLEXITY = 25

# module -> why it is longer than MAX_LINES (issue #30 step 4 splits them)
LONG_MODULES = {
}

# "path::function" -> why its cyclomatic complexity (radon) is over MAX_COMPLEXITY
COMPLEX_FUNCTIONS = {
    "bot/advice/assemble.py::_verdict": "one branch per verdict kind and ask; wants a table of verdict builders",
    "bot/advice/bill.py::bill": "one branch per kind of stated line item (rent, power, staff, ...)",
    "bot/advice/compare.py::_side": "one branch per spec compared; wants a table of spec rows",
    "bot/advice/compare.py::_pick": "ranks the compared GPUs by each criterion the user named",
    "bot/advice/options.py::stated_options": "each way a stated setup can be made to fit (count, precision, method)",
    "bot/advice/options.py::comfortable_option": "filters the catalog by every constraint the user stated",
    "bot/advice/options.py::compare_options": "each GPU named, at each count the user gave or implied",
    "bot/advice/quotes.py::quoted_costs": "the user's own numbers first, each quote field a fallback of its own",
    "bot/advisor.py::Advisor.resolve": "resolves every kind of name a requirement holds (instance, family, GPU, model)",
    "bot/compose/cost_buy.py::compose": "one branch per cost line of buying against renting",
    "bot/compose/cost.py::_bill": "one branch per line of a monthly bill",
    "bot/compose/cost_spot.py::compose": "spot savings from each combination of interruption, restart and checkpoint numbers",
    "bot/compose/diagnose.py::compose": "dispatches over every kind of pasted output and described symptom",
    "bot/compose/diagnose.py::_reading": "one clause per reading nvidia-smi can show (clocks, power, throttle)",
    "bot/compose/diagnose.py::_meanings": "one branch per thing that can be wrong with one GPU",
    "bot/compose/diagnose.py::_gpus": "per-GPU findings from each kind of pasted table",
    "bot/compose/diagnose.py::_symptom": "one branch per described symptom of a slow or failing job",
    "bot/compose/diagnose.py::_measurement": "one branch per benchmark kind quoted against its spec",
    "bot/compose/explain_compare.py::lead": "the lead sentence for each outcome of a comparison",
    "bot/compose/explain_compare.py::_latency_rows": "one row per latency number a comparison can state (TTFT, TPOT, per GPU)",
    "bot/compose/latency.py::meeting_targets": "the fewest GPUs meeting each stated TTFT, TPOT and throughput target",
    "bot/compose/fit.py::compose": "the fit answer for each verdict, stated setup and ask kind",
    "bot/compose/fit_single.py::smallest_single": "moved out of fit.py's compose: the smallest single GPU per constraint",
    "bot/compose/price.py::compose": "a price answer for each kind of price ask (GPU, instance, spot, region)",
    "bot/compose/price.py::_job_cost": "the cost-to-complete line from each kind of priced row",
    "bot/diagnostics/paste.py::_find_blocks": "one pattern per kind of pasted block (nvidia-smi, dmesg, NCCL, ...)",
    "bot/diagnostics/paste.py::_read": "reads each kind of block found",
    "bot/diagnostics/query_gpu.py::parse_query_csv": "one branch per nvidia-smi --query-gpu column",
    "bot/nlu/numbers.py::zh_number": "Chinese numerals: one branch per unit and digit form",
    "bot/nlu/parser.py::_read_paste": "one branch per slot a paste can fill",
    "bot/nlu/quantities.py::_classify": "one branch per unit and keyword a number can be read with; wants a pattern table",
    "bot/nlu/quantities.py::_money_quantity": "currencies, units and per-period forms of a money amount",
    "bot/nlu/slots/asks.py::read_asks": "splits a message into asks over each separator and cue",
    "bot/nlu/slots/asks.py::_kind": "one cue test per ask kind; wants a table of cues",
    "bot/prices/skypilot.py::_import_cloud": "one branch per catalog column and cloud quirk",
    "bot/render/text.py::render_full": "one section per part of the full answer",
    "bot/sizing/estimate.py::_training": "each training method and parallelism plan",
    "bot/sizing/notes.py::decision_notes": "one note per deciding assumption",
    "bot/sizing/sizer.py::size_requirement": "memory, candidates, time and cost for each kind of requirement",
    "bot/sizing/sizer.py::_precision_support": "each precision against each GPU generation",
    "bot/slack/cards.py::answer_card": "one block per part of the answer card: step 2 splits the Slack package",
}


def _load_checker():
    spec = importlib.util.spec_from_file_location("static_check", CHECKER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["static_check"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


static_check = _load_checker()


# -- mypy and ruff against the baseline ------------------------------------------------------


def test_no_type_or_lint_error_beyond_the_baseline():
    """The real run (the README's test command runs it, so .ci/run fails on a new error)."""
    proc = subprocess.run([sys.executable, str(CHECKER)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _err(path: str, line: int, tool: str = "mypy", code: str = "arg-type", message: str = "bad") -> object:
    return static_check.Error(path, line, static_check._key(tool, code, message))


def test_an_error_that_moved_lines_is_not_new():
    base = static_check.counts([_err("bot/a.py", 10)])
    assert static_check.compare([_err("bot/a.py", 42)], base).new == []


def test_one_more_of_an_error_is_new_and_every_occurrence_is_shown():
    base = static_check.counts([_err("bot/a.py", 10)])
    result = static_check.compare([_err("bot/a.py", 10), _err("bot/a.py", 20), _err("bot/b.py", 5)], base)
    assert [(e.path, e.line) for e in result.new] == [("bot/a.py", 10), ("bot/a.py", 20), ("bot/b.py", 5)]
    assert result.grown[("bot/a.py", "[mypy arg-type] bad")] == (1, 2)


def test_a_fixed_error_says_the_baseline_can_shrink():
    base = static_check.counts([_err("bot/a.py", 10), _err("bot/a.py", 11, code="union-attr")])
    result = static_check.compare([_err("bot/a.py", 10)], base)
    assert result.new == [] and list(result.shrunk.values()) == [(1, 0)]


def test_line_numbers_inside_a_message_do_not_make_it_new():
    assert static_check._key("mypy", "no-redef", 'Name "x" already defined on line 12') == \
        static_check._key("mypy", "no-redef", 'Name "x" already defined on line 40')


def test_update_refuses_growth_unless_allowed(tmp_path, monkeypatch, capsys):
    baseline = tmp_path / "baseline.json"
    static_check.write_baseline(static_check.counts([_err("bot/a.py", 1)]), baseline)
    monkeypatch.setattr(static_check, "run_mypy", lambda: [_err("bot/a.py", 1), _err("bot/a.py", 2, message="worse")])
    monkeypatch.setattr(static_check, "run_ruff", lambda: [])

    assert static_check.main(["--update", "--baseline", str(baseline)]) == 1
    assert "refusing to grow" in capsys.readouterr().err
    assert static_check.load_baseline(baseline)[0] == static_check.counts([_err("bot/a.py", 1)])

    assert static_check.main(["--update", "--allow-growth", "--baseline", str(baseline)]) == 0
    assert sum(static_check.load_baseline(baseline)[0].values()) == 2


def test_the_check_fails_on_a_new_error_and_passes_on_a_shrunk_one(tmp_path, monkeypatch, capsys):
    baseline = tmp_path / "baseline.json"
    static_check.write_baseline(static_check.counts([_err("bot/a.py", 1), _err("bot/b.py", 1)]), baseline)
    monkeypatch.setattr(static_check, "run_ruff", lambda: [])

    monkeypatch.setattr(static_check, "run_mypy", lambda: [_err("bot/a.py", 7, message="new")])
    assert static_check.main(["--baseline", str(baseline)]) == 1
    assert "bot/a.py: [mypy arg-type] new" in capsys.readouterr().out

    monkeypatch.setattr(static_check, "run_mypy", lambda: [_err("bot/a.py", 3)])
    assert static_check.main(["--baseline", str(baseline)]) == 0
    assert "the baseline can shrink" in capsys.readouterr().out


def test_a_checker_that_cannot_run_fails_the_check(monkeypatch, capsys):
    def broken():
        raise static_check.ToolFailure("mypy exited 2: bad config")

    monkeypatch.setattr(static_check, "run_mypy", broken)
    assert static_check.main([]) == 2
    assert "bad config" in capsys.readouterr().err


# -- size and complexity ---------------------------------------------------------------------


def _modules() -> list[Path]:
    return sorted(p for p in BOT.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_no_module_over_600_lines():
    lengths = {_rel(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    too_long = {p: n for p, n in lengths.items() if n > MAX_LINES and p not in LONG_MODULES}
    assert not too_long, f"split these modules (at most {MAX_LINES} lines): {too_long}"
    stale = sorted(p for p in LONG_MODULES if lengths.get(p, 0) <= MAX_LINES)
    assert not stale, f"remove from LONG_MODULES in {Path(__file__).name}, now short enough or gone: {stale}"


def _functions(path: Path) -> Iterator[tuple[str, int]]:
    """("Class.method" or "function.inner", complexity) for every function, closures included
    (radon counts a closure apart from the function around it)."""
    from radon.complexity import cc_visit
    from radon.visitors import Function

    def walk(block, name):
        yield name, block.complexity
        for inner in block.closures:
            yield from walk(inner, f"{name}.{inner.name}")

    for block in cc_visit(path.read_text(encoding="utf-8")):
        if isinstance(block, Function):
            yield from walk(block, block.fullname)


def test_no_function_over_complexity_25():
    found = {f"{_rel(p)}::{name}": cc for p in _modules() for name, cc in _functions(p)}
    too_complex = {f: cc for f, cc in found.items() if cc > MAX_COMPLEXITY and f not in COMPLEX_FUNCTIONS}
    assert not too_complex, f"split these functions (cyclomatic complexity at most {MAX_COMPLEXITY}): {too_complex}"
    stale = sorted(f for f in COMPLEX_FUNCTIONS if found.get(f, 0) <= MAX_COMPLEXITY)
    assert not stale, f"remove from COMPLEX_FUNCTIONS in {Path(__file__).name}, now simple enough or gone: {stale}"


@pytest.mark.parametrize("table", [LONG_MODULES, COMPLEX_FUNCTIONS], ids=["modules", "functions"])
def test_each_exception_gives_a_one_line_reason(table):
    assert all(reason.strip() and "\n" not in reason for reason in table.values())
