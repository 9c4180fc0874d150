"""What an instance holds, asked as part of a message (issue #22): "阿里云 gn8v 是什么卡？32B 全参微调要几台？",
"what GPUs does a p5.48xlarge have?", "g6e.12xlarge 是什么配置？". The instance part is answered from the
catalog's instance rows (knowledge/instances.yaml, instances.china.yaml): its GPUs, their memory, vCPUs and
RAM where listed; a family written without a size ("gn8v") lists the GPUs per instance across its sizes;
a provider page that does not name the GPU is said so, with the card its profile matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.compose import ComposeContext
from bot.knowledge.models import InstanceType
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer

# "what GPU(s) does X have", "which GPU is in X", "what's inside X", "X 是什么卡", "用的什么卡", "什么配置"
_HARDWARE_ASKED = re.compile(
    r"\bwhat\s+(?:gpus?|cards?|hardware|accelerators?|config\w*|specs?)\s+(?:does|do|is|are|comes?|has|have)\b"
    r"|\bwhich\s+(?:gpus?|cards?|accelerators?)\s+(?:does|do|is|are|comes?)\b|\bwhat(?:'s|\s+is)\s+(?:in|inside)\b"
    r"|\bwhat\s+(?:gpus?|cards?)\s+(?:in|on)\b"
    r"|(?:是|用的是?|配的是?|带的是?|装的是?)?\s*(?:什么|啥|哪种|哪款|哪个)\s*(?:卡|gpu|显卡|配置|型号)",
    re.IGNORECASE)


def hardware_asked(text: str) -> bool:
    return bool(_HARDWARE_ASKED.search(text))


def _members(ctx: ComposeContext, inst: InstanceType, question: str) -> list[InstanceType]:
    """The instance as written ("g6e.12xlarge"), or every size of its family where only the family is
    written ("gn8v")."""
    short = inst.name.lower().removeprefix("ecs.")
    if short in question.lower():
        return [inst]
    family = inst.family
    members = [i for i in ctx.catalog.instances.values() if i.provider == inst.provider and i.family == family]
    return sorted(members, key=lambda i: (i.count, i.vcpus or 0)) or [inst]


def instance_hardware(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The instance's GPUs and memory where the ask asks what an instance holds, else None."""
    req, lang = ctx.requirement, ctx.language
    if not req.instance or not hardware_asked(ask.text):
        return None
    inst = ctx.catalog.instances.get(req.instance.lower())
    if inst is None:
        return None
    if inst.gpu is None or inst.gpu not in ctx.catalog.gpus:  # "g5.xlarge": the provider's name for its GPU
        host = say("spec.held_host", lang, vcpus=count(inst.vcpus), memory=count(inst.memory_gib)) \
            if inst.vcpus and inst.memory_gib else ""
        return AskAnswer(kind=ask.kind, lead=say("spec.held_uncatalogued", lang, instance=inst.name, count=inst.count,
                                                 accelerator=inst.accelerator, host=host),
                         rule="spec.instance-hardware", sources=list(inst.sources)[:6],
                         figures={"instance": inst.name, "count": inst.count})
    spec = ctx.catalog.gpus[inst.gpu]
    members = _members(ctx, inst, ctx.question or ask.text)
    name = gpu_name(ctx.catalog, spec.id, lang)
    if len(members) == 1:
        extra = say("spec.held_host", lang, vcpus=count(inst.vcpus), memory=count(inst.memory_gib)) \
            if inst.vcpus and inst.memory_gib else (say("spec.held_vcpus", lang, vcpus=count(inst.vcpus)) if inst.vcpus else "")
        lead = say("spec.held_gpus", lang, instance=inst.name, count=inst.count, gpu=name,
                   memory=f"{spec.memory_gb:g}", total=f"{spec.memory_gb * inst.count:g}", host=extra)
    else:
        counts = sorted({m.count for m in members})
        lead = say("spec.held_family", lang, family=inst.family, gpu=name, memory=f"{spec.memory_gb:g}",
                   low=counts[0], high=counts[-1], largest=members[-1].name)
    details = []
    if any(not m.gpu_named for m in members):
        details.append(say("spec.held_unnamed", lang, gpu=name, memory=f"{spec.memory_gb:g}",
                           bandwidth=count(spec.bandwidth_gbs)))
    sources = list(dict.fromkeys([*inst.sources, *spec.sources]))[:6]
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="spec.instance-hardware", sources=sources,
                     figures={"instance": inst.name, "gpu": spec.id, "count": inst.count})


def with_instance_hardware(ask: Ask, ctx: ComposeContext, reply: AskAnswer | None) -> AskAnswer | None:
    """The reply to the rest of the part, after what the instance holds where the part asks that first."""
    hardware = instance_hardware(ask, ctx)
    if hardware is None:
        return reply
    lang = ctx.language
    verdict = ctx.answer.verdict
    if not (ctx.requirement.model or ctx.requirement.params_b):
        return hardware.model_copy(update={"kind": ask.kind})  # no job: what the instance holds is the answer
    if reply is None and verdict is not None:
        fewest = next((r for r in ctx.answer.recommendations if r.fits and r.kind == "more-gpus"), None)
        if "gpu_count" in ask.wants and fewest is not None:  # "…要几台？": the fewest that hold the job
            from bot.render.text import recommendation_line  # the one way a recommendation reads
            reply = AskAnswer(kind=ask.kind, lead=recommendation_line(fewest, lang), rule=fewest.rule,
                              figures={"leads_with_rank": fewest.rank, "count": fewest.count})
        else:
            reply = AskAnswer(kind=ask.kind, lead=verdict.text, rule=verdict.rule, sources=verdict.sources)
    if reply is None:
        return hardware.model_copy(update={"kind": ask.kind})
    return reply.model_copy(update={"lead": hardware.lead, "details": [*hardware.details, reply.lead, *reply.details],
                                    "sources": list(dict.fromkeys([*hardware.sources, *reply.sources]))})


def hardware_first(composer: Callable[[Ask, ComposeContext], AskAnswer | None]) -> Callable[[Ask, ComposeContext], AskAnswer | None]:
    """A composer whose part may first ask what an instance holds ("gn8v 是什么卡？32B 全参微调要几台？")."""
    def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
        return with_instance_hardware(ask, ctx, composer(ask, ctx))
    return compose
