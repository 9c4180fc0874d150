"""What a price question asks beside the cheapest row, each said where the rows alone skip it:

- every provider it names is priced ("4090 hourly on vast / runpod? is a 5090 much more?": RunPod's
  4090 row, and that RunPod has no 5090 row), not only the cheapest of them;
- moving to a card of an architecture the current toolchain only just reached (Blackwell's sm_120 beside
  an Ada 4090): the CUDA, driver and PyTorch floor of its architecture (knowledge/cuda.yaml arch_floors),
  since the old card's image does not run on it;
- a stated fabric requirement ("要带 IB 的", "multi-node with InfiniBand"): the rows priced are single
  nodes and the catalog says nothing of their InfiniBand, so what to ask the provider for, and the
  two-node nccl-tests check before the term starts (nccl-tests, training-servers-guide).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.models import AskAnswer
from bot.prices.lookup import PriceBilling, cheapest, provider_name

# "要带 IB 的", "with InfiniBand", "RDMA", "多机训练": the interconnect between nodes is part of what is wanted
_FABRIC = re.compile(r"\binfini[\s-]?band\b|(?<![a-z])ib(?![a-z])|\brdma\b|\broce\b|多机|跨机|多节点|multi[\s-]?node",
                     re.IGNORECASE)
_SOURCE_PREFIXES = ("Source:", "来源：")


def annotate(ctx: ComposeContext, reply: AskAnswer | None, gpu_groups: list[list[str]], billing: PriceBilling,
             region: str | None, provider: str | frozenset[str] | None, text: str) -> AskAnswer | None:
    """The reply with the lines on what the question asks beside its rows, before the source lines."""
    if reply is None or reply.kind != "price" or not gpu_groups:
        return reply
    said = " ".join([reply.lead, *reply.details])
    lines = [*_named_providers(ctx, gpu_groups, billing, region, provider, said), *_new_architecture(ctx, gpu_groups),
             *(_fabric(ctx, text) if "InfiniBand" not in said else [])]
    if not lines:
        return reply
    at = next((i for i, d in enumerate(reply.details) if d.startswith(_SOURCE_PREFIXES)), len(reply.details))
    details = [*reply.details[:at], *lines, *reply.details[at:]]
    fabric = any(line in lines for line in _fabric(ctx, text))
    sources = list(dict.fromkeys([*reply.sources, *(["nccl-tests", "training-servers-guide"] if fabric else []),
                                  *(["cuda-release-notes", "pytorch-2-7-release"] if _new_architecture(ctx, gpu_groups)
                                    else [])]))
    return reply.model_copy(update={"details": details, "sources": sources})


def _named_providers(ctx: ComposeContext, groups: list[list[str]], billing: PriceBilling, region: str | None,
                     provider: str | frozenset[str] | None, said: str) -> list[str]:
    """'RunPod: RTX 4090 from $0.69 (1x_RTX4090_SECURE); no RTX 5090 row': the figure for each card at each named
    provider the reply does not quote yet, where two or more providers are named."""
    if not isinstance(provider, frozenset) or len(provider) < 2:
        return []
    unsaid = [p for p in provider if provider_name(ctx.catalog, p) not in said]
    if not unsaid:
        return []
    lang, parts = ctx.language, []
    sep = "；" if lang == "zh" else "; "
    for p in sorted(unsaid, key=lambda name: provider_name(ctx.catalog, name)):
        items = []
        for gpus in groups[:3]:
            best = next(iter(cheapest(ctx.catalog, gpus, billing=billing, region=region, provider=p, limit=1)), None)
            rate = best.per_gpu(billing) if best is not None else None
            name = gpu_name(ctx.catalog, gpus[0]) if len(gpus) == 1 else (ctx.catalog.gpus[gpus[0]].family or gpus[0]).upper()
            items.append(say("price.named_provider_row", lang, gpu=name, price=money(rate, best.currency, lang),
                             instance=best.instance_type or "-") if best is not None and rate is not None else
                         say("price.named_provider_none", lang, gpu=name))
        parts.append(say("price.named_provider", lang, provider=provider_name(ctx.catalog, p),
                         rows=("，" if lang == "zh" else ", ").join(items)))
    which = say("price.named_which_one" if len(unsaid) == 1 else "price.named_which_many", lang)
    return [say("price.named_providers", lang, which=which, billing=say(f"price.billing_{billing}", lang),
                parts=sep.join(parts))]


def _new_architecture(ctx: ComposeContext, groups: list[list[str]]) -> list[str]:
    """The software floor of a card whose architecture only the newest toolchain has, priced beside a card of an
    older one (the user moving from it): its CUDA, driver and PyTorch minimums."""
    from bot.compose.cuda_check import arch_floor
    if len(groups) < 2:
        return []
    specs = [ctx.catalog.gpus[g[0]] for g in groups if g and g[0] in ctx.catalog.gpus]
    floors = [(s, arch_floor(ctx.catalog, s.compute_capability)) for s in specs if s.compute_capability]
    new = [(s, f) for s, f in floors if f is not None and _major(f.min_torch) >= (2, 7)]
    old = [s for s, f in floors if f is None or _major(f.min_torch) < (2, 7)]
    if not new or not old:
        return []
    spec, floor = new[0]
    return [say("price.new_arch_software", ctx.language, gpu=gpu_name(ctx.catalog, spec.id), arch=spec.architecture,
                sm="sm_" + spec.compute_capability.replace(".", ""), cuda=floor.min_cuda, driver=floor.min_driver,
                torch=floor.min_torch, tag="cu" + floor.min_cuda.replace(".", ""), old=gpu_name(ctx.catalog, old[0].id))]


def _fabric(ctx: ComposeContext, text: str) -> list[str]:
    """A stated InfiniBand / multi-node requirement: the rows are single nodes, with what to ask for."""
    if not _FABRIC.search(text or ""):
        return []
    return [say("price.fabric_not_priced", ctx.language)]


def _major(version: str) -> tuple[int, int]:
    major, minor = [*version.split("."), "0"][:2]
    return int(major), int(minor)
