"""The GPU delivered against the GPU ordered (issue #25): a pasted `nvidia-smi nvlink -s` names the product
and lists its links; when that is another catalog card than the one the question orders ("PO: 8x A800 80GB
SXM" and the listing says A100-SXM4-80GB, 12 links), the answer is "do not sign": the names and the link
counts of both, then the acceptance list for once the SKU is settled."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.compose.checklist_accept import acceptance
from bot.compose.checklist_refs import nvlink_links
from bot.diagnostics.nvlink import read_nvlink_status
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask, AskAnswer


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.facts import recognise_gpu

    listed = read_nvlink_status(ctx.question or ask.text)
    ordered = ctx.requirement.gpu
    if not listed or ordered not in ctx.catalog.gpus:
        return None
    first = listed[0]
    got = recognise_gpu(ctx.catalog, first.name)
    if got is not None and got == ordered:
        return _as_designed(first, got, ctx)
    if got is None or got not in ctx.catalog.gpus:
        return None
    spec, want = ctx.catalog.gpus[got], ctx.catalog.gpus[ordered]
    lang = ctx.language
    per_link = first.link_gbs or (nvlink_links(spec)[1] if spec.nvlink_bandwidth_gbs else 25.0)
    per_dir = first.links * per_link
    lead = say("checklist.delivered_other", lang, name=first.name, got=gpu_name(ctx.catalog, got), links=first.links,
               link=f"{per_link:g}", per_dir=count(per_dir), both=count(2 * per_dir), ordered=gpu_name(ctx.catalog, ordered))
    details = []
    if want.nvlink_bandwidth_gbs:
        links, _ = nvlink_links(want)
        details.append(say("checklist.delivered_ordered", lang, ordered=gpu_name(ctx.catalog, ordered), links=links,
                           both=count(want.nvlink_bandwidth_gbs)))
    details.append(say("checklist.delivered_raise", lang))
    listed_all = acceptance(ctx)
    details += [say("checklist.delivered_then", lang), listed_all.lead, *listed_all.details]
    return AskAnswer(kind="checklist", lead=lead, details=details, rule=listed_all.rule,
                     sources=[*listed_all.sources, *(s for s in ["nvidia-smi-docs", "nvidia-nvlink"] if s not in listed_all.sources)],
                     figures=listed_all.figures)


def _as_designed(first, ordered: str, ctx: ComposeContext) -> AskAnswer | None:
    """The listing of the card ordered, every link of its design there, when the message names another board
    of more NVLink ("same as A100", "A100 screenshots show 12"): that the count is the design leads, then the
    link checks and the acceptance list."""
    from bot.compose.checklist_reference import _other_board
    spec = ctx.catalog.gpus[ordered]
    if not spec.nvlink_bandwidth_gbs or (other := _other_board(ctx, spec)) is None:
        return None
    links, per_link = nvlink_links(spec)
    if first.links != links or first.inactive:
        return None
    other_links, _ = nvlink_links(other)
    lang, link = ctx.language, f"{per_link:g}"  # the design's data rate ("26.562 GB/s" is nvidia-smi's line rate)
    per_dir = links * per_link
    lead = say("checklist.delivered_as_designed", lang, got=gpu_name(ctx.catalog, ordered), links=links, link=link,
               per_dir=count(per_dir), both=count(2 * per_dir), other=gpu_name(ctx.catalog, other.id),
               other_links=other_links, other_both=count(other.nvlink_bandwidth_gbs))
    listed_all = acceptance(ctx)
    details = [say("checklist.delivered_link_checks", lang, links=links, link=link, per_dir=count(per_dir)),
               say("checklist.delivered_as_designed_then", lang), listed_all.lead, *listed_all.details]
    return AskAnswer(kind="checklist", lead=lead, details=details, rule=listed_all.rule,
                     sources=[*listed_all.sources, *(s for s in ["nvidia-smi-docs", "nvidia-nvlink"] if s not in listed_all.sources)],
                     figures=listed_all.figures)
