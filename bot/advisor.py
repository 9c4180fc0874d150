"""The advisor facade: Requirement -> engine facts -> findings -> Answer.

`Advisor` is the one entry point the CLI, the Slack app and the host-check path share. It
resolves names against the knowledge catalog, runs the calculators, turns everything into
facts, lets the rule base chain over them, and assembles the `Answer`.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field

from bot.advice.assemble import AnswerParts, assemble
from bot.advice.options import (
    Objectives,
    OptionContext,
    default_precision,
    judge_recommendation,
    stated_targets,
    comfortable_option,
    in_time,
    compare_options,
    fewest_that_fit,
    representative,
    quantised_options,
    stated_options,
    typical_rate,
)
from bot.advice.option_changes import vague_serving
from bot.advice.option_prices import priced
from bot.advice.quotes import break_even, quoted_costs
from bot.compose import ComposeContext, compose_all
from bot.engine.fact_kinds import FactModel
from bot.engine.rulebase import RuleBase, load_rulebase
from bot.engine.session import Engine
from bot.errors import InputError
from bot.facts import cost_facts, price_fact, question_facts
from bot.knowledge import Catalog, GpuSpec, InstanceType, UnknownNameError, default_catalog
from bot.models import Answer, Ask, AskAnswer, Candidate, Cost, Estimate, Requirement
from bot.sizing.cost import TOTAL_COST_FORMULA, cheapest_rows
from bot.sizing.estimate import ModelShape
from bot.sizing.sizer import SizingResult, shape_from_arch, size_requirement


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
    options: list[str] = field(default_factory=list)  # GPUs compared, as named (a family stays a family)
    instance: InstanceType | None = None


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
        instance = self.catalog.instance(req.instance) if req.instance else None
        if req.instance and instance is None:
            raise InputError("instance", f"unknown instance type {req.instance!r}")
        if instance is not None:
            req.instance = instance.name
            req.provider = req.provider or instance.provider
            if not req.gpu and instance.gpu:
                req.gpu = instance.gpu
            if req.gpu_count is None and not self._family_stand_in(instance):
                req.gpu_count = instance.count
        if req.gpu:  # as named, or the instance's GPU
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
            if arch.active_params_b and req.params_b and abs(req.params_b / arch.active_params_b - 1) < ACTIVE_MATCH:
                # "Mixtral only activates ~13B": memory holds every expert, so the model's total counts
                req.params_b = arch.params_b
            if req.params_b is None:
                req.params_b = arch.params_b
            shape = shape_from_arch(arch, req.params_b)
            req.precision = default_precision(req, self.catalog)  # DeepSeek-V3/R1 were released in FP8
        elif req.params_b is not None:
            shape = ModelShape(params_b=req.params_b)
        if req.provider:
            req.provider = _resolved("provider", self.catalog.resolve_provider, req.provider)
        req.provider_options = [_resolved("provider_options", self.catalog.resolve_provider, p)
                                for p in req.provider_options]
        for name in req.gpu_options:
            _resolved("gpu_options", self.catalog.resolve_gpu, name)  # an unknown name is an input error
        options = list(req.gpu_options)
        req.gpu_options = [representative(self.catalog, name).id for name in options]
        req.gpu_option_counts = {representative(self.catalog, name).id: n for name, n in req.gpu_option_counts.items()
                                 if name in options}
        quoted_counts = {c.gpu_count for c in req.costs if c.gpu_count}
        if req.gpu_count is None and len(quoted_counts) == 1:
            req.gpu_count = quoted_counts.pop()  # "8x H100 at $2.49 vs 8x A100 at $1.29": the plan is 8 GPUs
        if req.workload is None and req.dataset_tokens_b is not None and shape is not None:
            req.workload = "training"  # a job that finishes on a token count trains
        for cost in req.costs:
            if cost.gpu:
                ids = _resolved("costs.gpu", self.catalog.resolve_gpu, cost.gpu)
                cost.gpu = ids[0] if len(ids) == 1 else cost.gpu
        return Resolved(requirement=req, gpus=gpus, family=family, shape=shape, options=options, instance=instance)

    def _family_stand_in(self, instance: InstanceType) -> bool:
        """An Alibaba family named bare ("gn8v", "gn7i") is read as its smallest size, which stands for the
        family's GPU, not for its count: the sizes run from one GPU to eight and the job decides how many."""
        if instance.provider != "aliyun":
            return False
        sizes = [i for i in self.catalog.instances.values() if i.provider == "aliyun" and i.family == instance.family]
        return len({i.count for i in sizes}) > 1 and instance.count == min(i.count for i in sizes)

    # -- facts ----------------------------------------------------------------------
    def facts(self, resolved: Resolved, objectives: Objectives | None = None,
              ) -> tuple[list[FactModel], SizingResult | None, list[Candidate], list[Cost]]:
        req = resolved.requirement
        # A family ("H100") is judged on one variant, the SXM module clouds rent, so the answer does not
        # repeat each finding per variant; the variants are still listed (gpu_variants).
        judged = [representative(self.catalog, req.gpu)] if resolved.family else resolved.gpus
        selected = {g.id for g in judged} | set(req.gpu_options)
        estimate, candidates, sized_costs = None, [], []
        if resolved.shape is not None:
            estimate = size_requirement(req, resolved.shape, self.catalog, selected, self.config.today,
                                        self.config.price_max_age_days)
            candidates, sized_costs = estimate.candidates, estimate.costs
            if req.costs:  # the user's own prices win over the price table
                sized_costs = []
        facts = question_facts(self.catalog, req, named=resolved.gpus, selected=selected, family=resolved.family,
                               instance=resolved.instance, sizing=estimate)

        context = None
        if estimate is not None:
            context = OptionContext(req=req, shape=resolved.shape, catalog=self.catalog, sizing=estimate,
                                    workload=req.workload or "inference",
                                    consumer_named=any(g.gpu_class == "consumer" for g in resolved.gpus),
                                    objectives=objectives)
        costs = self._stated_costs(req, context, resolved)
        facts += cost_facts(costs, stated=True)
        even = break_even(req.costs, req.gpu_count, req.usage_hours_per_month)
        if even is not None:
            facts.append(even)
        if context is not None:
            facts += priced(self._options(context, resolved, costs), self.catalog, costs + sized_costs)
        facts += self._price_facts(req, selected | {c.gpu for c in sized_costs if c.gpu})
        return facts, estimate, candidates, costs + sized_costs

    def _options(self, context: OptionContext, resolved: Resolved, costs: list[Cost]) -> list[FactModel]:
        req = resolved.requirement
        compared = list({g.id: g for g in (representative(self.catalog, name) for name in resolved.options)}.values())
        if len(compared) > 1:
            named = [n for n in (req.instance, *req.instance_options) if n]
            counts = {i.gpu: i.count for i in map(self.catalog.instance, named) if i is not None and i.gpu}
            counts = {**req.gpu_option_counts, **counts}  # "8x L4 or 2x L40S": each at its own count
            from bot.advice.option_deadline import in_time_options  # a compared count that misses the deadline
            return in_time_options(context, compared, compare_options(context, compared, req.gpu_count, costs, counts),
                                   costs)
        out: list[FactModel] = []
        if resolved.gpus:
            gpu = representative(self.catalog, req.gpu) if resolved.family else resolved.gpus[0]
            count = req.gpu_count or 1
            computed = req.intent == "how-many" and req.gpu_count is None
            if computed:
                count = fewest_that_fit(context, gpu) or 1  # "how many A100s do I need?"
            stated = stated_options(context, gpu, count)
            if computed:  # our count, not the user's plan
                stated[0] = stated[0].model_copy(update={"stated": False})
            out += stated
            if stated[0].fits and not stated[0].tight and in_time(context, count, gpu):
                return out  # their setup works (in time, where a deadline was stated): no other catalog GPU to sell them
        if req.unknown_gpu and req.gpu_count and req.intent != "recommend":
            return out  # they have hardware we cannot judge: no other GPU to sell them
        comfortable = comfortable_option(context)
        if comfortable is not None:
            out.append(comfortable)
            if comfortable.count > 1 and vague_serving(req):  # one card in FP8 or 4-bit beside the 16-bit default
                out += quantised_options(context)
        return out

    def _stated_costs(self, req: Requirement, context: OptionContext | None, resolved: Resolved) -> list[Cost]:
        """The user's quotes priced: as given, or over the job's estimated hours on the quoted GPUs."""
        def hours_for(gpu: str | None, count: int) -> tuple[float | None, int]:
            spec = representative(self.catalog, gpu) if gpu else (resolved.gpus[0] if len(resolved.gpus) == 1 else None)
            if context is None or spec is None:
                return None, count
            if not context.plan(spec, count).fits:
                count = fewest_that_fit(context, spec) or count  # priced on a count that holds the job
            return context.hours(spec, count), count

        def speed(gpu: str | None) -> float | None:
            if not gpu:
                return None
            tflops = representative(self.catalog, gpu).dense_tflops
            return tflops.get("bf16") or tflops.get("fp16")

        return quoted_costs(self._per_gpu_where_obvious(req), req.gpu_count, hours_for, req.gpu_hours,
                            req.gpu_hours_gpu, speed, req.usage_hours_per_month)

    def _per_gpu_where_obvious(self, req: Requirement) -> list:
        """A quote that names a GPU (not an instance) for a multi-GPU plan, at a rate near what one GPU
        of that type costs in the price table, is per GPU-hour ("RunPod H100 $2.39/hr" for 8 GPUs). A quote
        that counts its own GPUs ("2x H100 at $5.98/h") is read as the answer's lead reads it: per machine,
        unless the message's quotes were written per card (bot.advice.quotes.read_per_gpu)."""
        from bot.advice.quotes import read_per_gpu
        out = []
        per_card = read_per_gpu(self.catalog, req.costs)  # as the stated-setups lead reads them
        for quote in req.costs:
            count = req.gpu_count or 1
            if per_card and quote.gpu and quote.hourly_rate and (quote.gpu_count or 1) > 1:
                quote = quote.model_copy(update={"per_gpu": True})
            elif quote.gpu and not quote.per_gpu and not quote.gpu_count and quote.hourly_rate and count > 1 \
                    and quote.currency == "USD":
                typical = typical_rate(self.catalog, representative(self.catalog, quote.gpu).id)
                if typical and quote.hourly_rate < 3 * typical:
                    quote = quote.model_copy(update={"per_gpu": True})
            out.append(quote)
        return out

    def _price_facts(self, req: Requirement, gpus: set[str]) -> list[FactModel]:
        """Rows of the price table for `gpus`, only when the question is about money and the user gave
        no prices of their own (their numbers win).

        A question about an Xid or a CUDA error must not get price findings just for naming a GPU.
        """
        about_money = (
            bool(_MONEY_TOPICS.intersection(req.topics)) or req.provider or req.billing
            or req.dataset_tokens_b is not None  # the sizer computes cost-to-complete from it
        )
        if not about_money or req.costs:
            return []
        out: list[FactModel] = []
        # Each provider's cheapest row per GPU and billing mode: an imported catalog has hundreds of regions.
        providers = {req.provider, *req.provider_options} if req.provider else None
        # Only the asked GPUs' rows (in the table's order per GPU, as cheapest_rows groups them).
        rows = [r for gpu in gpus for r in self.catalog.prices_by_gpu.get(gpu, ())
                if providers is None or r.provider in providers]
        for row in cheapest_rows(rows, gpus, None, req.billing):
            age = (self.config.today - row.quoted_on).days
            out.append(price_fact(row, age_days=age, stale=age > self.config.price_max_age_days,
                                  example=self.catalog.prices_are_example))
        return out

    # -- answering ------------------------------------------------------------------
    def answer(self, requirement: Requirement, language: str = "en") -> Answer:
        resolved = self.resolve(requirement)
        req = resolved.requirement
        if req.pasted is not None and not any(a.kind == "diagnose" for a in req.asks):
            # pasted output is diagnosed whatever else was asked (a follow-up or flags may carry no asks)
            req.asks = [Ask(kind="diagnose"), *req.asks]
        question = " ".join(a.text for a in req.asks)
        objectives = Objectives.of(req, language, question, **stated_targets(req, question))
        facts, estimate, candidates, costs = self.facts(resolved, objectives)
        result = self.engine.run(facts, language=language)
        est = Estimate(assumptions=[TOTAL_COST_FORMULA] if costs else [])
        if estimate is not None:
            est = estimate.estimate
        answer = assemble(AnswerParts(
            requirement=resolved.requirement, result=result, language=language, rule_base_version=self.version,
            estimate=est, candidates=candidates, costs=costs,
            gpu_family=[g.id for g in resolved.gpus] if resolved.family else [],
        ))
        if objectives != Objectives.of(req, "en") or objectives.market != "global" or objectives.budget is not None:
            # what each recommendation meets of the stated budget, deadline, latency and market (JSON)
            answer.recommendations = [judge_recommendation(self.catalog, r, objectives, candidates, costs)
                                      for r in answer.recommendations]
        if resolved.requirement.asks:
            context = ComposeContext(requirement=resolved.requirement, answer=answer, catalog=self.catalog,
                                     language=language, today=self.config.today, question=question,
                                     paste=resolved.requirement.pasted)
            answer.answers = compose_all(
                context, lambda answers: self._parts_on_their_own_load(requirement, answers, language),
                alone=lambda index: self._part_alone(requirement, index, language))
        return answer

    def _part_alone(self, requirement: Requirement, index: int, language: str) -> AskAnswer | None:
        """A labelled part no composer answered as part of the whole, answered as a message of its own
        (with the job and hardware the message named where it names none), never refused."""
        from bot.advice.part_scope import standalone_requirement
        part = standalone_requirement(requirement, index, self.catalog)
        return None if part is None else self._first_reply(part, requirement.asks[index], index, language)

    def _first_reply(self, part: Requirement, ask: Ask, index: int, language: str) -> AskAnswer | None:
        """The answer of a one-part requirement, as part `index`: its composer's, else its verdict."""
        answer = self.answer(part, language)
        if answer.answers:
            reply = answer.answers[0]
        elif answer.verdict is not None:  # its composer had nothing better than its own verdict
            reply = AskAnswer(kind=ask.kind, lead=answer.verdict.text, rule=answer.verdict.rule)
        else:
            return None
        return reply.model_copy(update={"ask_index": index, "label": ask.label})

    def _parts_on_their_own_load(self, requirement: Requirement, answers: list, language: str) -> list:
        """A fit part whose load a later part stated ("2) and for 32 users at 8k?") is sized again on its own."""
        from bot.advice.part_scope import own_card, scoped_requirements
        from bot.advice.parts import fits_better, own_load, part_requirement
        loads = own_load(requirement)
        parts = {index: part_requirement(requirement, index, clear) for index, clear in loads.items()}
        # a labelled part whose own words read otherwise than the whole message ("(1) … on 2x H100?" before
        # "(3) would 4x L40S be cheaper?"): answered on what it and the parts before it state
        # (its reading up to its end leaves out the loads of later parts as well)
        scoped = scoped_requirements(requirement, self.catalog)
        parts.update(scoped)
        last = own_card(requirement, self.catalog)  # "c) and those 48GB modded 4090s?": its own card
        if last is not None:  # on its own card, with what the part states of its own (its number format)
            last = last.model_copy(update=loads.get(len(requirement.asks) - 1, {}))
            parts[len(requirement.asks) - 1] = last
        replaced: dict[str, int] = {}  # the whole message's lead each re-answered part gave up, by part
        for index, part in sorted(parts.items()):
            reply = self._first_reply(part, requirement.asks[index], index, language)
            if reply is None or (part is last and not _names(reply.lead, part.gpu, self.catalog)):
                parts.pop(index)  # a part on its own card is answered so only where the answer speaks of that card
                continue
            at = next((i for i, a in enumerate(answers) if a.ask_index == index), None)
            if at is None:
                answers.insert(0 if index == 0 else len(answers), reply)
                answers.sort(key=lambda a: a.ask_index if a.ask_index is not None else 0)
            else:
                if index in scoped:  # (a load cleared keeps the whole message's reading of the later parts)
                    replaced.setdefault(answers[at].lead, index)
                answers[at] = reply
        # a later part that led with the same line as an earlier part did on the whole message ("(c) and the
        # RTX 5090?" after "(b) … on 535?") was that part's twin: it is answered as a part left unanswered
        return [a for a in answers if not (a.ask_index not in parts and a.lead in replaced
                                           and (a.ask_index or 0) > replaced[a.lead]
                                           and not fits_better(a.lead, requirement.asks, a.ask_index or 0,
                                                               replaced[a.lead]))]


# A stated size within this share of a mixture-of-experts model's active count is that active count.
ACTIVE_MATCH = 0.25


# Topics whose questions are about money; only they get rows of the price table.
_MONEY_TOPICS = frozenset({"cost", "billing", "provider", "spot"})


def _names(line: str, gpu: str | None, catalog: Catalog) -> bool:
    """Whether `line` names the card `gpu` (its display name or its id)."""
    from bot.messages.format import gpu_name
    if not gpu:
        return False
    return gpu in line or (gpu in catalog.gpus and gpu_name(catalog, gpu) in line)


def _resolved(field: str, resolve, name: str):
    """Resolve a name against the catalog; an unknown name is an InputError naming `field`."""
    try:
        return resolve(name)
    except UnknownNameError as exc:
        raise InputError(field, str(exc)) from exc


