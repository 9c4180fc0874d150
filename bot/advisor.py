"""The advisor facade: Requirement -> engine facts -> findings -> Answer.

`Advisor` is the one entry point the CLI, the Slack app and the host-check path share. It
resolves names against the knowledge catalog, runs the calculators, turns everything into
facts, lets the rule base chain over them, and assembles the `Answer`.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field

from bot.engine.rulebase import RuleBase, load_rulebase
from bot.engine.session import Engine, EngineResult
from bot.knowledge import Catalog, GpuSpec, UnknownNameError, default_catalog, version_number
from bot.models import Answer, Candidate, Cost, Estimate, Requirement
from bot.sizing.cost import TOTAL_COST_FORMULA
from bot.sizing.estimate import ModelShape
from bot.sizing.sizer import SizingResult, shape_from_arch, size_requirement

Fact = tuple[str, dict]


class InputError(ValueError):
    """A requirement the advisor cannot work with. `field` names the offending input."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


@dataclass
class AdvisorConfig:
    today: dt.date = field(default_factory=dt.date.today)
    price_max_age_days: int = field(
        default_factory=lambda: int(os.environ.get("GPU_ADVISOR_PRICE_MAX_AGE_DAYS", "90"))
    )


@dataclass
class Resolved:
    """A requirement with its names resolved against the catalog."""

    requirement: Requirement
    gpus: list[GpuSpec]
    family: str | None
    shape: ModelShape | None


class Advisor:
    def __init__(
        self,
        catalog: Catalog | None = None,
        rulebase: RuleBase | None = None,
        config: AdvisorConfig | None = None,
        engine: Engine | None = None,
    ):
        self.catalog = catalog or default_catalog()
        self.config = config or AdvisorConfig()
        if engine is None:
            rulebase = rulebase or load_rulebase(known_sources=set(self.catalog.sources))
            engine = Engine(rulebase)
        self.engine = engine

    @property
    def version(self) -> str:
        return f"{self.engine.version}+{self.catalog.content_hash}"

    # -- resolution ------------------------------------------------------------------
    def resolve(self, requirement: Requirement) -> Resolved:
        req = requirement.model_copy(deep=True)
        gpus: list[GpuSpec] = []
        family = None
        if req.gpu:
            ids = _resolved("gpu", self.catalog.resolve_gpu, req.gpu)
            gpus = [self.catalog.gpus[i] for i in ids]
            if len(ids) == 1:
                req.gpu = ids[0]
            else:
                family = gpus[0].family
                req.gpu = family
        if req.cuda and self.catalog.cuda_major(int(req.cuda.split(".")[0])) is None:
            majors = ", ".join(f"{m.major}.x" for m in self.catalog.cuda.majors)
            raise InputError("cuda", f"unknown CUDA release {req.cuda!r}; NVIDIA's table covers {majors}")
        shape = None
        if req.model:
            arch = _resolved("model", self.catalog.resolve_model, req.model)
            req.model = arch.id
            if req.params_b is None:
                req.params_b = arch.params_b
            shape = shape_from_arch(arch, req.params_b)
        elif req.params_b is not None:
            shape = ModelShape(params_b=req.params_b)
        if req.provider:
            req.provider = _resolved("provider", self.catalog.resolve_provider, req.provider)
        for cost in req.costs:
            if cost.gpu:
                ids = _resolved("costs.gpu", self.catalog.resolve_gpu, cost.gpu)
                cost.gpu = ids[0] if len(ids) == 1 else cost.gpu
        return Resolved(requirement=req, gpus=gpus, family=family, shape=shape)

    # -- facts ----------------------------------------------------------------------
    def facts(self, resolved: Resolved) -> tuple[list[Fact], SizingResult | None, list[Candidate], list[Cost]]:
        req = resolved.requirement
        facts: list[Fact] = [("requirement", self._requirement_fact(resolved))]
        selected = {g.id for g in resolved.gpus}
        for gpu in self.catalog.gpus.values():
            facts.append(("gpu", _gpu_fact(gpu, gpu.id in selected)))

        estimate, candidates, sized_costs = None, [], []
        if resolved.shape is not None:
            estimate = size_requirement(req, resolved.shape, self.catalog, selected, self.config.today,
                                        self.config.price_max_age_days)
            candidates, sized_costs = estimate.candidates, estimate.costs
            facts += estimate.facts

        if req.cuda:
            facts += self._cuda_facts(req.cuda)
        if req.provider:
            provider = self.catalog.providers[req.provider]
            facts.append(("provider", {
                "provider": provider.id, "name": provider.name, "provider_kind": provider.kind,
                "billing_granularity_s": provider.billing_granularity_s,
                "minimum_billed_s": provider.minimum_billed_s,
            }))
        facts += [("topic", {"name": t}) for t in req.topics]
        facts += [("symptom", {"name": s}) for s in req.symptoms]
        for code in req.xids:
            entry = self.catalog.xids.get(code)
            facts.append(("xid", {
                "code": code,
                "meaning": entry.meaning if entry else "not in NVIDIA's catalog as known to this advisor",
                "action": entry.action if entry else "look the code up in NVIDIA's Xid catalog",
                "app_error": entry.app_error if entry else False,
                "known": entry is not None,
            }))
        costs = self._stated_costs(req)
        facts += [("cost", c) for c in self._cost_facts(costs, stated=True)]
        facts += self._price_facts(req, selected | {c.gpu for c in sized_costs if c.gpu})
        return facts, estimate, candidates, costs + sized_costs

    def _requirement_fact(self, resolved: Resolved) -> dict:
        req = resolved.requirement
        data = req.model_dump(exclude={"topics", "xids", "symptoms", "costs"})
        data["has_size"] = req.params_b is not None
        data["gpu_named"] = bool(resolved.gpus)
        data["multi_gpu"] = (req.gpu_count or 1) > 1
        data["has_symptoms"] = bool(req.xids or req.symptoms)
        if resolved.family:
            data["gpu_variants"] = ", ".join(g.id for g in resolved.gpus)
        if req.cuda:
            data["cuda_num"] = version_number(req.cuda)
            data["cuda_major"] = int(req.cuda.split(".")[0])
        if req.driver:
            data["driver_num"] = version_number(req.driver)
            data["driver_major"] = int(req.driver.split(".")[0])
        return data

    def _cuda_facts(self, cuda: str) -> list[Fact]:
        major = int(cuda.split(".")[0])
        family = self.catalog.cuda_major(major)
        if family is None:
            return []
        release = self.catalog.cuda_release(cuda)
        exact = release.min_driver if release else family.min_driver
        return [("cuda_release", {
            "version": cuda, "major": major,
            "min_driver": exact, "min_driver_num": version_number(exact),
            "compat_min_driver": family.min_driver, "compat_min_driver_num": version_number(family.min_driver),
            "min_cc": float(family.min_cc), "max_cc": float(family.max_cc),
            "known_release": release is not None,
        })]

    @staticmethod
    def _stated_costs(req: Requirement) -> list[Cost]:
        return [
            Cost(label=c.label, gpu=c.gpu, hourly_rate=c.hourly_rate, hours=c.hours,
                 total=round(c.hourly_rate * c.hours, 2), currency=c.currency)
            for c in req.costs
        ]

    @staticmethod
    def _cost_facts(costs: list[Cost], stated: bool) -> list[dict]:
        if not costs:
            return []
        cheapest = min(c.total for c in costs)
        fastest = min(c.hours for c in costs)
        return [
            {**c.model_dump(), "cheapest": c.total == cheapest, "fastest": c.hours == fastest,
             "stated": stated}
            for c in costs
        ]

    def _price_facts(self, req: Requirement, gpus: set[str]) -> list[Fact]:
        """Rows of the price table for `gpus`, only when the question is about money.

        A question about an Xid or a CUDA error must not get price findings just for naming a GPU.
        """
        about_money = (
            bool(_MONEY_TOPICS.intersection(req.topics)) or req.provider or req.billing or req.costs
            or req.dataset_tokens_b is not None  # the sizer computes cost-to-complete from it
        )
        if not about_money:
            return []
        out = []
        for row in self.catalog.prices:
            if (row.gpu not in gpus or (req.provider and row.provider != req.provider)
                    or (req.billing and row.billing != req.billing)):
                continue
            age = (self.config.today - row.quoted_on).days
            out.append(("price", {
                "gpu": row.gpu, "provider": row.provider, "billing": row.billing, "hourly_rate": row.hourly_rate,
                "currency": row.currency, "quoted_on": row.quoted_on.isoformat(), "age_days": age,
                "stale": age > self.config.price_max_age_days, "example": self.catalog.prices_are_example,
            }))
        return out

    # -- answering ------------------------------------------------------------------
    def answer(self, requirement: Requirement, language: str = "en") -> Answer:
        resolved = self.resolve(requirement)
        facts, estimate, candidates, costs = self.facts(resolved)
        result = self.engine.run(facts, language=language)
        return self._assemble(resolved, estimate, candidates, costs, result, language)

    def _assemble(self, resolved, estimate, candidates, costs, result: EngineResult, language: str) -> Answer:
        est = Estimate(assumptions=[TOTAL_COST_FORMULA] if costs else [])
        if estimate is not None:
            est = estimate.estimate
        return Answer(
            requirement=resolved.requirement,
            estimate=est,
            candidates=candidates,
            costs=costs,
            findings=result.findings,
            questions=result.questions,
            language=language,
            gpu_family=[g.id for g in resolved.gpus] if resolved.family else [],
            rule_base_version=self.version,
            derivations=[result.justification(i) for i in range(len(result.findings))],
        )


# Topics whose questions are about money; only they get rows of the price table.
_MONEY_TOPICS = frozenset({"cost", "billing", "provider", "spot"})


def _resolved(field: str, resolve, name: str):
    """Resolve a name against the catalog; an unknown name is an InputError naming `field`."""
    try:
        return resolve(name)
    except UnknownNameError as exc:
        raise InputError(field, str(exc)) from exc


def _gpu_fact(gpu: GpuSpec, selected: bool) -> dict:
    return {
        "gpu": gpu.id, "name": gpu.name, "family": gpu.family, "gpu_class": gpu.gpu_class,
        "architecture": gpu.architecture, "cc": gpu.cc_number, "memory_gb": gpu.memory_gb,
        "memory_type": gpu.memory_type, "bandwidth_gbs": gpu.bandwidth_gbs, "board_power_w": gpu.board_power_w,
        "psu_w": gpu.psu_w, "form_factor": gpu.form_factor, "slots": gpu.slots, "ecc": gpu.ecc,
        "nvlink": gpu.nvlink, "mig_max_instances": gpu.mig_max_instances,
        "fp8": "fp8" in gpu.tensor_precisions, "fp4": "fp4" in gpu.tensor_precisions,
        "bf16": "bf16" in gpu.tensor_precisions, "tf32": "tf32" in gpu.tensor_precisions,
        "selected": selected,
    }

