"""Parser quality and speed on the question sets (issue #3).

    python bench/nlu.py [--corpus PATH ...] [--rounds 20] [--failures]

By default it scores tests/nlu/corpus.yaml (the set the parser was developed on),
tests/nlu/heldout.yaml (written before the parser was read) and tests/nlu/probe.yaml (written after
the parser was changed for heldout), each on its own and then combined. For each it prints per-slot
precision and recall, overall slot accuracy and crashes. Then parse latency per question in-process (p50/p99 over every question, `rounds` times each, after
one warm-up pass that builds the catalog patterns). Goals, per set: >= 95% of slots right, 0
crashes; p99 < 5 ms. The exit status is 0 only when every set meets them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.knowledge import default_catalog  # noqa: E402
from bot.nlu.evaluate import Report, load_corpus, score  # noqa: E402
from bot.nlu.model import ParseError  # noqa: E402
from bot.nlu.parser import parse  # noqa: E402

SETS = [ROOT / "tests" / "nlu" / name for name in ("corpus.yaml", "heldout.yaml", "probe.yaml")]
GOAL = 0.95


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, action="append", help="a question set; repeat for several (default: corpus, heldout, probe)")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--failures", action="store_true", help="list each wrong slot")
    args = ap.parse_args()

    catalog = default_catalog()
    sets = {path: load_corpus(path) for path in (args.corpus or SETS)}
    ok = True
    for path, questions in sets.items():
        report = score(questions, catalog)
        _print_report(f"{_name(path)} ({report.questions} questions)", report, args.failures)
        ok = ok and report.accuracy >= GOAL and not report.crashes
    if len(sets) > 1:
        combined = [item for questions in sets.values() for item in questions]
        _print_report(f"combined ({len(combined)} questions)", score(combined, catalog), failures=False)

    texts = [item["text"] for questions in sets.values() for item in questions]
    for text in texts:  # warm-up: builds the catalog's patterns once
        _parse(text, catalog)
    wall, cpu = [], []
    for _ in range(args.rounds):
        for text in texts:
            start, start_cpu = time.perf_counter(), time.thread_time()
            _parse(text, catalog)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
    # Wall time includes time the OS gave to other processes; CPU time is the parser's own cost.
    for name, samples in (("wall", wall), ("cpu", cpu)):
        samples.sort()
        p50 = statistics.median(samples)
        p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
        print(f"parse latency ({name}) over {len(samples)} parses: p50 {p50:.3f} ms, p99 {p99:.3f} ms, "
              f"max {samples[-1]:.3f} ms (goal p99 < 5 ms)")
    print(f"load average while measuring: {' '.join(f'{x:.2f}' for x in _loadavg())} on {_cpus()} CPUs")
    return 0 if ok else 1


def _name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _print_report(title: str, report: Report, failures: bool) -> None:
    print(f"== {title}")
    print(f"{'slot':<18}{'precision':>10}{'recall':>8}{'tp':>6}{'fp':>5}{'fn':>5}")
    for slot, s in sorted(report.per_slot.items()):
        print(f"{slot:<18}{s.precision:>10.1%}{s.recall:>8.1%}{s.true_positive:>6}{s.false_positive:>5}{s.false_negative:>5}")
    print(f"slot accuracy: {report.accuracy:.1%} ({report.slots_right}/{report.slots_total}); "
          f"crashes: {len(report.crashes)}")
    for line in report.crashes + (report.failures if failures else []):
        print("  " + line)
    print()


def _loadavg() -> tuple[float, float, float]:
    import os

    return os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


def _parse(text: str, catalog) -> None:
    try:
        parse(text, catalog)
    except ParseError:
        pass


if __name__ == "__main__":
    sys.exit(main())
