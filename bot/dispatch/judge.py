"""Judge a host: its probe report and benchmark results as engine facts, findings as an Answer.

The facts (`host`, `host_gpu`, `host_xid`, `benchmark_result`, `host_expect`, and `cuda_release`
for the team's CUDA) are built by `bot.facts.host_facts` and go through the same Engine as `ask`,
so a host check's findings have the same shape and justification as any other answer. Rules live
in rules/health/host-*.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel

from bot.advice.assemble import AnswerParts, assemble
from bot.engine.fact_kinds import HostGpuFact
from bot.facts import host_facts
from bot.host_report import BenchmarkResult, ProbeReport
from bot.models import Answer, Requirement
from bot.seams import JudgingAdvisor


def judge(advisor: JudgingAdvisor, name: str, deployment: str, team_cuda: str | None, report: ProbeReport,
          benchmarks: list[BenchmarkResult] | None = None, expect_gpu: str | None = None,
          expect_count: int | None = None, language: str = "en", extra_facts: Sequence[BaseModel] | None = None) -> Answer:
    """Run the host's facts through the advisor's engine; an Answer shaped like `ask`'s."""
    # extra: e.g. host_trend facts from the check history (bot.store.trends)
    facts: list[BaseModel] = [*host_facts(advisor.catalog, name, deployment, team_cuda, report, benchmarks,
                                          expect_gpu, expect_count), *(extra_facts or [])]
    result = advisor.engine.run(facts, language=language)
    first = next((f for f in facts if isinstance(f, HostGpuFact)), None)  # type: ignore[misc]  # a derived model
    requirement = Requirement(
        gpu=first.gpu if first else None, gpu_count=len(report.gpus) or None,
        deployment=deployment, cuda=team_cuda,
        driver=report.driver if report.driver and re.fullmatch(r"\d+(\.\d+){0,2}", report.driver) else None,
        topics=["health", "verification"],
    )
    return assemble(AnswerParts(requirement=requirement, result=result, language=language,
                                rule_base_version=advisor.version))
