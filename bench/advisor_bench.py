"""Answer latency of the full advisor vs durable-rules' bare cost, and `ask` cold start.

    python bench/advisor_bench.py [--rounds 200]

Prints the median and p99 per answer over a fixed set of requirements, answered in one process
with the full rule base; then the bare engine doing the same number of rule firings with no-op
actions (the ratio is our overhead); then the cold start of `gpu-advisor ask` as a subprocess.
Targets (issue #2): p99 <= 20 ms per answer; overhead <= 3x bare; cold start <= 1 s.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from durable import engine as durable  # noqa: E402

from bot.advisor import Advisor  # noqa: E402
from bot.models import Requirement  # noqa: E402

REQUIREMENTS = [
    {"workload": "training", "method": "full", "params_b": 7, "gpu": "rtx-4090", "deployment": "datacenter"},
    {"workload": "training", "method": "qlora", "model": "llama-2-70b", "gpu": "a100-80gb-sxm"},
    {"workload": "inference", "model": "llama-3-70b", "concurrency": 16, "context": 8192, "gpu": "H100"},
    {"workload": "training", "params_b": 13, "gpu": "h100-sxm", "gpu_count": 8, "provider": "aws", "billing": "spot"},
    {"cuda": "13.0", "driver": "535.104.05", "gpu": "l40s"},
    {"provider": "aliyun", "billing": "subscription", "topics": ["billing", "cost"]},
    {"topics": ["verification"], "xids": [79, 13], "symptoms": ["ecc-errors"]},
    {"costs": [{"label": "A", "hourly_rate": 1.2, "hours": 80}, {"label": "B", "hourly_rate": 2.4, "hours": 35}]},
    {"workload": "inference", "model": "mixtral-8x7b", "precision": "int4", "gpu": "rtx-3090", "gpu_count": 2,
     "psu_watts": 750},
    {},
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class _BareHost(durable.Host):
    def _run(self):
        return None

    def get_action(self, name):
        return lambda c: None


class BareEngine:
    """Bare durable-rules doing the same work per question as ours: the same number of facts
    asserted one by one and the same number of rule firings, with no-op actions."""

    def __init__(self, facts_per_question: int, firings_per_question: int):
        self.facts, self.firings = facts_per_question, firings_per_question
        self.host = _BareHost()
        rules = {f"r{i}": {"all": [{"m": {"$and": [{"kind": "x"}, {"n": i}]}}], "run": "noop"}
                 for i in range(max(1, firings_per_question))}
        rules["sink"] = {"all": [{"m": {"kind": "y"}}, {"z": {"kind": "never"}}], "run": "noop"}
        self.host.set_rulesets(copy.deepcopy({"bare": rules}))
        self._sid = 0

    def question(self) -> float:
        self._sid += 1
        sid = str(self._sid)
        start = time.perf_counter()
        for i in range(self.facts):
            kind = "x" if i < self.firings else "y"
            self.host.assert_fact("bare", {"sid": sid, "kind": kind, "n": i, "payload": "x" * 40})
        self.host.delete_state("bare", sid)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()

    advisor = Advisor()
    requirements = [Requirement.model_validate(r) for r in REQUIREMENTS]
    for req in requirements:  # warm up
        advisor.answer(req)

    times, firings = [], 0
    for _ in range(args.rounds):
        for req in requirements:
            start = time.perf_counter()
            answer = advisor.answer(req)
            times.append(time.perf_counter() - start)
    fact_count, engine_times, prepared = 0, [], []
    for req in requirements:
        facts = advisor.facts(advisor.resolve(req))[0]
        prepared.append(facts)
        fact_count += len(facts)
        firings += len(advisor.engine.run(facts).firings)
    per_question = round(firings / len(requirements))
    facts_per_question = round(fact_count / len(requirements))

    # Interleave ours and the bare engine question by question, so load on the machine
    # affects both alike and the ratio stays meaningful.
    bare_engine, bare = BareEngine(facts_per_question, per_question), []
    for _ in range(args.rounds):
        for facts in prepared:
            start = time.perf_counter()
            advisor.engine.run(facts)
            engine_times.append(time.perf_counter() - start)
            bare.append(bare_engine.question())

    median, p99 = statistics.median(times) * 1e3, percentile(times, 0.99) * 1e3
    bare_median = statistics.median(bare) * 1e3
    print(f"rule base: {len(advisor.engine.rulebase)} rules, version {advisor.version}")
    print(f"answers: {len(times)} ({len(requirements)} requirements x {args.rounds} rounds)")
    print(f"answer latency: median {median:.2f} ms, p99 {p99:.2f} ms (target p99 <= 20 ms)")
    print(f"rule firings per answer (mean): {firings / len(requirements):.1f}")
    print(f"bare durable-rules, {facts_per_question} facts and {per_question} firings per question: "
          f"median {bare_median:.2f} ms")
    engine_median = statistics.median(engine_times) * 1e3
    print(f"rule layer alone (Engine.run on prepared facts): median {engine_median:.2f} ms, "
          f"p99 {percentile(engine_times, 0.99) * 1e3:.2f} ms")
    print(f"overhead ratio, rule layer / bare (medians): {engine_median / bare_median:.2f}x (target <= 3x)")
    print(f"ratio, whole answer incl. sizing and rendering / bare (medians): {median / bare_median:.2f}x")

    cold = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bot.cli", "ask", "gpu=4090", "params=7", "workload=training"],
                       check=True, capture_output=True)
        cold.append(time.perf_counter() - start)
    print(f"`gpu-advisor ask` cold start: median {statistics.median(cold):.3f} s, max {max(cold):.3f} s "
          "(target <= 1 s)")


if __name__ == "__main__":
    main()
