"""'Is the H20 worth renting?', 'H20 值得租吗', 'what is the L20 good for?', 'RTX 4090 适合干什么': one GPU named
with no job, answered by the card's profile from its catalog entry (knowledge/gpus.yaml), not by a request
for the model: what it is good at and bad at, each with its number, a price reference where the price
table has one, and the one question that decides it (the job).

The profile weighs the two figures that bound LLM work against a reference card (H100 SXM; A100 80GB SXM
for an H100 itself): decode reads every weight once per token, so its speed follows memory bandwidth;
training and prefill are matrix multiplies, so they follow dense tensor TFLOPS (BF16). A card at least
REFERENCE_NEAR of the reference's bandwidth but under WEAK of its compute is a decode card (the H20); near
on both, an all-round one; otherwise it is priced against its share of the reference's speed.
"""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer
from bot.nlu.slots.ask_routes import PROFILE_ASKED, PROFILE_JOB

REFERENCE, REFERENCE_OF_H100 = "h100-sxm", "a100-80gb-sxm"
REFERENCE_NEAR = 0.8  # at least this share of the reference's figure: strong at what that figure bounds
WEAK = 0.5  # under this share: weak at it


def asked(ask: Ask, ctx: ComposeContext) -> bool:
    """Whether the part asks for one card's profile: the cue, and no job, model or size of its own."""
    req = ctx.requirement
    return bool(PROFILE_ASKED.search(ask.text)) and not (req.model or req.params_b or req.costs or req.dataset_tokens_b) \
        and not PROFILE_JOB.search(ask.text)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    if not asked(ask, ctx):
        return None
    spec = _one_card(ask, ctx)
    if spec is None:
        return None
    ref = ctx.catalog.gpus.get(REFERENCE_OF_H100 if spec.family == "h100" else REFERENCE)
    bf16, ref_bf16 = spec.dense_tflops.get("bf16"), ref.dense_tflops.get("bf16") if ref is not None else None
    if ref is None or not bf16 or not ref_bf16:
        return None
    lang, catalog = ctx.language, ctx.catalog
    bandwidth, compute = spec.bandwidth_gbs / ref.bandwidth_gbs, bf16 / ref_bf16
    kind = "decode" if bandwidth >= REFERENCE_NEAR and compute < WEAK else (
        "allround" if bandwidth >= REFERENCE_NEAR and compute >= REFERENCE_NEAR else "priced")
    refname = gpu_name(catalog, ref.id, lang)
    link = say("capability.profile_nvlink", lang, gbs=f"{spec.nvlink_bandwidth_gbs:,.0f}") if spec.nvlink and \
        spec.nvlink_bandwidth_gbs else say("capability.profile_pcie", lang, gen=spec.pcie_gen)
    params = {"gpu": gpu_name(catalog, spec.id, lang), "memory": f"{spec.memory_gb:g}", "memory_type": spec.memory_type.split(" with ")[0],
              "bandwidth": _rate(spec.bandwidth_gbs), "bw_vs": _versus(bandwidth, refname, lang), "link": link,
              "bf16": f"{bf16:,.0f}", "bf16_vs": _versus(compute, refname, lang), "ref": refname,
              "bw_share": f"{bandwidth * 100:.0f}", "bf16_share": f"{compute * 100:.0f}"}
    fp8 = spec.dense_tflops.get("fp8")
    params["fp8"] = say("capability.profile_fp8", lang, fp8=f"{fp8:,.0f}") if fp8 else ""
    lead = say(f"capability.profile_{kind}", lang, **params)
    details = [say("capability.profile_why", lang, **params)]
    from bot.compose.explain_capability import compose as sizes

    held = sizes(ask.model_copy(update={"text": "what can it do", "subjects": [spec.id]}), ctx)
    if held is not None:
        details.append(held.lead)
    details.append(say("capability.profile_multi_nvlink" if spec.nvlink else "capability.profile_multi_pcie", lang,
                       **params))
    variants = [g for g in catalog.gpus.values() if g.family == spec.family and g.id != spec.id]
    if variants:
        sep = "；" if lang == "zh" else "; "
        details.append(say("capability.profile_variants", lang, items=sep.join(
            say("capability.profile_variant", lang, gpu=gpu_name(catalog, g.id, lang), memory=f"{g.memory_gb:g}",
                bandwidth=_rate(g.bandwidth_gbs)) for g in variants[:3])))
    if spec.gpu_class == "consumer":
        details.append(say("capability.geforce", lang))
    price = _price(ctx, spec)
    details += price
    details.append(say("capability.profile_question", lang))
    return AskAnswer(kind="explain", lead=lead, details=details, rule="capability.profile",
                     sources=list(dict.fromkeys([*spec.sources[:2], *ref.sources[:1]])),
                     figures={"bandwidth_vs_reference": round(bandwidth, 2), "bf16_vs_reference": round(compute, 2),
                              "profile": kind, "reference": ref.id})


def _one_card(ask: Ask, ctx: ComposeContext) -> GpuSpec | None:
    """The one card (or family, by its representative board) the part names."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    req = ctx.requirement
    named = list(dict.fromkeys(s for s in ask.subjects if s != req.model)) or ([req.gpu] if req.gpu else [])
    if len(named) != 1 or len(req.gpu_options) > 1:
        return None
    try:
        return ctx.catalog.gpus.get(named[0]) or representative(ctx.catalog, named[0])
    except UnknownNameError:
        return None


def _price(ctx: ComposeContext, spec: GpuSpec) -> list[str]:
    """The cheapest on-demand row of the card in the price table (the price composer's line and its
    source), or the table's nearest listed card where it has none."""
    from bot.compose.price import _cheapest

    family = [g.id for g in ctx.catalog.gpus.values() if g.family == spec.family] or [spec.id]
    reply = _cheapest(ctx, family, "on-demand", None)
    return [say("capability.profile_price", ctx.language, line=reply.lead), *reply.details[-1:]]


def _rate(gbs: float) -> str:
    return f"{gbs / 1000:.1f} TB/s" if gbs >= 1000 else f"{gbs:,.0f} GB/s"


def _versus(ratio: float, ref: str, lang: str) -> str:
    if ratio >= 1.05:
        return say("capability.profile_times", lang, x=f"{ratio:.1f}", ref=ref)
    return say("capability.profile_share", lang, pct=f"{ratio * 100:.0f}", ref=ref)
