"""`fit` asks ("can X run on Y", "how much VRAM", "how big is the KV cache"): the verdict rules
answer "can it"; this composer answers the asks that want a figure first (the KV cache, the total
memory), and "how many GPUs?" with no model at all (typical counts and the deciding question).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, is_primary
from bot.compose.spec_instance import hardware_first
from bot.compose.explain_capability import compose as capability
from bot.compose.explain_profile import compose as profile
from bot.compose.explain_training import compose as explain_training
from bot.compose.host import compose as host
from bot.sizing.estimate import DEFAULT_CONCURRENT_CONTEXT
from bot.compose.fit_decides import deciding_details
from bot.compose.fit_lead import alternative_line, technique_asked, with_alternative
from bot.compose.fit_single import lora_instead
from bot.compose.open import how_many
from bot.messages import say
from bot.models import Ask, AskAnswer

_KV = re.compile(r"kv[\s-]?cache|\bkv\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"how much (?:vram|memory|gpu memory)|how big|多少显存|显存.{0,4}多大|要多少显存|需要多少显存|多大显存",
                       re.IGNORECASE)
# "…and how much concurrency can it take?" said beside a fit question (the parse may not split it off).
_HOW_MANY_USERS = re.compile(r"多少(?:个)?(?:并发|用户|请求|路)|扛多少|并发(?:能|可以)?(?:有|到)?多少|how many (?:concurrent |simultaneous )?"
                             r"(?:users|requests|sequences|streams|sessions)|how much concurrency", re.IGNORECASE)
# "on H100s, how many?", "要几张": the count of GPUs asked, where no count was stated.
_HOW_MANY_GPUS = re.compile(r"how many(?! (?:concurrent |simultaneous )?(?:users|requests|sequences|streams|sessions|tokens|hours))"
                            r"|几张|几块|多少张|多少块|多少卡|几卡", re.IGNORECASE)
# vLLM's default gpu_memory_utilization: the share of each GPU the engine plans with.
GPU_MEMORY_UTILIZATION = 0.90
_PARTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


# "How much do H800 and H100 differ?": a comparison of the GPUs, not whether the job fits on them.
_DIFFERENCE = re.compile(r"差多少|差在哪|区别|差别|差异|\bdiffer(?:ence)?s?\b|how much (?:faster|slower|better|worse)",
                         re.IGNORECASE)


# "2× L40S or 1× H100 PCIe?": a choice between the named setups, answered by setting them side by side
# even where neither holds the job as asked (the comparison says so and what makes each fit).
_CHOICE = re.compile(r"\bor\b|\bvs\.?|versus|\bwhich\b|\bbetter\b|哪个|哪种|还是", re.IGNORECASE)


def _neither_of_a_choice(ask: Ask, rule: str) -> bool:
    return rule == "verdict.compare-none-fits-stated" and bool(_CHOICE.search(ask.text))


@hardware_first  # "gn8v 是什么卡？…": what the instance holds first (bot/compose/spec_instance.py)
def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req, memory = ctx.requirement, ctx.answer.estimate.memory_gb
    verdict = ctx.answer.verdict
    from bot.compose.fit_context import compose as context_room  # no context stated: the tokens the room holds
    if (roomy := context_room(ask, ctx)) is not None:
        return roomy
    from bot.compose.explain_fits import second_job  # "…full-train a 70B, or at least TP=8 inference?": both jobs
    if (both := second_job(ask, ctx)) is not None:
        return both.model_copy(update={"kind": "fit"})
    from bot.compose.explain import is_generic  # a topic primer answers no "X or Y?"
    from bot.compose.select_deadline import deadline_choice  # "H100 和 A100 各要几台" by a deadline
    if (by_deadline := deadline_choice(ask, ctx)) is not None:
        return by_deadline.model_copy(update={"kind": "fit"})
    from bot.compose.select_value import value_choice  # "哪个性价比最高": only the cards that hold it
    if (valued := value_choice(ask, ctx)) is not None:
        return valued.model_copy(update={"kind": "fit"})
    if _DIFFERENCE.search(ask.text) or (len(req.gpu_options) > 1 and (verdict is None or is_generic(verdict.rule)
                                                                    or _neither_of_a_choice(ask, verdict.rule))):
        from bot.compose.select import compared
        reply = compared(ask, ctx)
        if reply is not None:
            return reply.model_copy(update={"kind": "fit"})
    if (weighed := _after_fit_verdict(ask, ctx)) is not None:  # only one side holds a training job: what the pick costs
        return weighed
    from bot.compose.select_job import gpu_hours_asked  # "how many A100 hours?": the named card's GPU-hours
    chosen = _choice_with_targets(ask, ctx) or gpu_hours_asked(ask, ctx)  # "TTFT < 1s … which would you pick?"
    if chosen is not None:
        return chosen.model_copy(update={"kind": "fit"}) if chosen.kind != "fit" else chosen
    hosted = host(ask, ctx)  # "主机内存要多大", "how big a disk?": the host around the GPUs
    if hosted is not None:
        return hosted
    explained = explain_training(ask, ctx)  # "how much does checkpointing save?" asks for a technique's figure
    if explained is not None:
        verdict = ctx.answer.verdict  # "…and is it enough?": the verdict follows the technique's figure
        details = ([verdict.text] if verdict is not None and (req.model or req.params_b) else []) + explained.details
        if verdict is not None and verdict.answer == "no" and (req.model or req.params_b):
            # "…is it enough?" no: the verdict leads, then what works (the fewest GPUs when the count is
            # asked, a context split, single-card fixes), then the technique's figure and its detail
            from bot.compose.fit_single import context_split, single_card_fixes, stage_lead
            split = context_split(ctx)
            fewest = _fewest(ctx) if "gpu_count" in ask.wants else None
            from bot.render.text import recommendation_line
            first = recommendation_line(fewest, ctx.language) if fewest is not None else None
            staged = stage_lead(ctx)  # "does ZeRO-2 fit?" no: ZeRO-3 on the same GPUs leads, why, and its traffic
            fixes = single_card_fixes(ctx, with_zero3=not staged)
            # "grad ckpt on" said as a setting: its figure is no answer to "does it fit?" (a ZeRO stage named is)
            technique = [explained.lead, *explained.details[:1]] if explained.rule != "training.activation-recompute" \
                or technique_asked(ctx.question or ask.text, explained.rule) else []
            decided = deciding_details(verdict.text, ctx)  # what alone keeps it off the card: states, activations, logits
            clause, after = ([] if split else decided[:1]), decided[1:]  # a sequence split says the activations decide
            if req.zero_stage in (1, 2):  # "ZeRO-2, or do we have to go ZeRO-3?": the stage's answer before the technique's
                details = [d for d in (first, split) if d] + staged[1:] + fixes + technique
            else:
                details = [d for d in (first, *clause, split) if d] + technique + after + fixes
            details += [line for line in [across_nodes(ctx)] if line and is_primary(ask, ctx)]
            figures = {**explained.figures, **({"leads_with_rank": fewest.rank} if fewest is not None else {})}
            counted = _count_lead(ask, ctx, fewest)  # "最少要几张？": the count leads, the stated plan's miss after it
            if counted is not None and first in details:
                details.remove(first)
            lead = counted or (staged[0] if staged else with_alternative(verdict.text, ask, ctx))
            return explained.model_copy(update={"kind": "fit", "lead": lead, "details": details,
                                                "rule": verdict.rule, "figures": figures})
        network = [line for line in [across_nodes(ctx)] if line and is_primary(ask, ctx)]
        details += network
        if verdict is not None and verdict.answer in ("yes", "tight") and (req.model or req.params_b) \
                and is_primary(ask, ctx) and not technique_asked(ctx.question or ask.text, explained.rule):
            # "+ gradient checkpointing … can one card do it?": the verdict leads, the stated setting's figure after
            return explained.model_copy(update={
                "kind": "fit", "lead": with_alternative(verdict.text, ask, ctx), "rule": verdict.rule,
                "details": [*_parts(ctx), *lora_instead(ctx), explained.lead, *_other_stage(explained, req), *network],
                "sources": list(dict.fromkeys([*verdict.sources, *explained.sources]))})
        return _stage_leads(explained, verdict, network) or explained.model_copy(update={"kind": "fit", "details": details})
    if req.model is None and req.params_b is None:
        able = profile(ask, ctx) or capability(ask, ctx)  # "what can an L40S do?": the model sizes it holds
        if able is not None:
            return able.model_copy(update={"kind": "fit"})
        return how_many(ctx) if "gpu_count" in ask.wants and not req.gpu else None
    if memory is None:
        return None
    lang = ctx.language
    if "concurrency" in ask.wants and memory.kv_cache and req.workload in (None, "inference"):
        reply = capacity(ctx)
        if reply is not None:
            return reply
    if "gpu_count" in ask.wants and not is_primary(ask, ctx):
        fewest = next((r for r in ctx.answer.recommendations if r.fits and r.kind in ("more-gpus", "stated", "comfortable")
                       and not (r.kind == "comfortable" and r.precision)),
                      None)  # "…and with 32 users, how many?": the fewest that hold it
        counted = fewest_counts(ctx) if memory.kv_cache and req.workload in (None, "inference") else None
        if fewest is not None and counted is not None:  # "…if not, at least how many?": the fp8 KV count too
            return AskAnswer(kind="fit", lead=counted, rule=fewest.rule,
                             figures={"leads_with_rank": fewest.rank, "count": fewest.count})
        if fewest is not None:
            from bot.render.text import recommendation_line
            return AskAnswer(kind="fit", lead=recommendation_line(fewest, lang), rule=fewest.rule,
                             figures={"leads_with_rank": fewest.rank, "count": fewest.count})
    if _KV.search(ask.text) and memory.kv_cache:
        return kv_answer(ask, ctx)
    if _HOW_MUCH.search(ask.text) and memory is not None:
        parts = [say(f"fit.part_{p}", lang, gb=_gb(getattr(memory, p))) for p in _PARTS if getattr(memory, p)]
        sep = "、" if lang == "zh" else " + "
        return AskAnswer(kind="fit", lead=say("fit.memory_lead", lang, total=_gb(memory.total), parts=sep.join(parts)),
                         # usable-memory notes only where they decide a close call: noise beside a total
                         details=_notes(ctx) if _close_call(ctx) else [], rule="sizing.memory",
                         sources=["zero-paper", "deepspeed-memory"],
                         figures={"total_gb": memory.total})
    verdict = ctx.answer.verdict
    notes = _notes(ctx) if _close_call(ctx) else []
    from bot.nlu.quantity_notes import active_params_note  # "Mixtral only has ~13B active": memory holds all
    active = active_params_note(req.quantities, req.model, ctx.catalog, lang)
    notes = [active, *notes] if active else notes
    option = option_capacity(ask, ctx)  # "int4 fits": with how much room left for the KV cache
    notes = [*notes[:1], option, *notes[1:]] if option else notes
    from bot.compose.fit_single import single_card_fixes  # "don't want more than 1 card": fixes on that card
    from bot.compose.explain_network import tp_over_pcie  # "4 L40S, TP=4 — will PCIe kill it?"
    pcie = tp_over_pcie(ask, ctx) if is_primary(ask, ctx) and verdict is not None and verdict.answer != "no" else None
    if pcie is not None and verdict is not None:
        return AskAnswer(kind="fit", lead=with_alternative(verdict.text, ask, ctx), details=[pcie, *notes][:MAX_NOTES + 1], rule=verdict.rule,
                         sources=list(dict.fromkeys([*verdict.sources, "nvidia-nvlink", "aiperf"])))
    fixes = single_card_fixes(ctx) if is_primary(ask, ctx) and verdict is not None and verdict.answer == "no" else []
    if is_primary(ask, ctx) and verdict is not None and verdict.answer == "no":
        from bot.compose.fit_single import smallest_single  # "…or do I need a 48 GB card?"
        bigger = smallest_single(ctx)
        fixes = [bigger, *fixes] if bigger else fixes
    network = [line for line in [across_nodes(ctx)] if line] if is_primary(ask, ctx) else []
    if is_primary(ask, ctx) and verdict is not None and verdict.answer != "no" and "concurrency" not in ask.wants \
            and _HOW_MANY_USERS.search(ctx.question or ask.text) and memory.kv_cache:
        held = capacity(ctx)  # "does it fit, and how many concurrent users?": the second half, with its number
        network = [held.lead, *network] if held is not None else network
    counted = _count_lead(ask, ctx, _fewest(ctx)) if is_primary(ask, ctx) and verdict is not None \
        and verdict.answer == "no" else None
    if counted is not None and verdict is not None:  # "on H100s, how many?": the count leads, then the fixes
        return AskAnswer(kind="fit", lead=counted, details=[*notes, *fixes][:MAX_NOTES + 2] + network, rule=verdict.rule,
                         sources=verdict.sources)
    decided = deciding_details(verdict.text, ctx) if is_primary(ask, ctx) and verdict is not None else []
    if fixes and verdict is not None:
        return AskAnswer(kind="fit", lead=with_alternative(verdict.text, ask, ctx),
                         details=[*decided, *notes, *fixes][:MAX_NOTES + 2 + len(decided)] + network,
                         rule=verdict.rule,
                         sources=list(dict.fromkeys([*verdict.sources, "zero-offload-paper", "zero-paper"])))
    if is_primary(ask, ctx) and verdict is not None:
        from bot.compose.fit_single import named_near_misses  # "L40S or A100?": the one that misses, by how much
        notes = [*named_near_misses(ctx), *notes][:MAX_NOTES]
    if is_primary(ask, ctx) and verdict is not None and (notes or network):
        # the verdict, with the assumptions that decided it (usable bytes, KV replication, recompute)
        return AskAnswer(kind="fit", lead=with_alternative(verdict.text, ask, ctx), details=decided + notes + network,
                         rule=verdict.rule,
                         sources=list(dict.fromkeys([*verdict.sources, *(["zero-paper", "nccl-tests"] if network else [])])),
                         figures=_said_setup(ctx))
    faster = lora_instead(ctx) if is_primary(ask, ctx) and verdict is not None and verdict.answer == "yes" else []
    if is_primary(ask, ctx) and verdict is not None and (_said_setup(ctx) or alternative_line(ask, ctx) or faster
                                                         or decided):
        return AskAnswer(kind="fit", lead=with_alternative(verdict.text, ask, ctx), details=[*decided, *faster],
                         rule=verdict.rule,
                         sources=verdict.sources, figures=_said_setup(ctx))
    return None


def _parts(ctx: ComposeContext) -> list[str]:
    """"~54 GB in all: weights 39 GB + …": what the verdict's figure is made of, for a training job on one
    GPU (over several, the parts are sharded and the total is not what each holds)."""
    memory = ctx.answer.estimate.memory_gb
    if memory is None or ctx.requirement.workload != "training" or (ctx.requirement.gpu_count or 1) != 1:
        return []
    parts = [say(f"fit.part_{p}", ctx.language, gb=_gb(getattr(memory, p))) for p in _PARTS if getattr(memory, p)]
    return [say("fit.memory_lead", ctx.language, total=_gb(memory.total), parts=("、" if ctx.language == "zh" else " + ").join(parts))]


def _stage_leads(explained: AskAnswer, verdict, network: list[str]) -> AskAnswer | None:
    """"zero2 or zero3? will it even fit": the stage picked on the sizer's plans is the answer, the fit
    verdict and the stages' table after it."""
    at = explained.figures.get("pick_at")
    if explained.rule != "training.zero-stages" or at is None or verdict is None or verdict.answer not in ("yes", "tight"):
        return None
    at = int(at)
    rest = [d for i, d in enumerate(explained.details) if i != at]
    return explained.model_copy(update={"kind": "fit", "lead": explained.details[at],
                                        "details": [verdict.text, explained.lead, *rest, *network]})


def _other_stage(explained: AskAnswer, req) -> list[str]:
    """"ZeRO-3 on 8 cards": the stage that also fits with less traffic (ZeRO-2), where it is not the stated one."""
    pick = explained.figures.get("pick")
    if explained.rule != "training.zero-stages" or not pick or pick == f"ZeRO-{req.zero_stage}":
        return []
    return explained.details[-1:]


def _said_setup(ctx: ComposeContext) -> dict:
    """"Yes — it needs about 18 of 24 GB on 1× RTX 4090": the user's own setup the verdict already judged
    is not listed again as option 1 ("your setup as planned"), only the other options are."""
    verdict = ctx.answer.verdict
    stated = [r for r in ctx.answer.recommendations if r.kind == "stated" and r.fits and not r.tight]
    if verdict is None or verdict.answer != "yes" or len(stated) != 1:
        return {}
    return {"leads_with_rank": stated[0].rank}


def _choice_with_targets(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A serving job with TTFT/TPOT targets that asks how many GPUs, or names several to choose from: the
    fewest GPUs whose estimates meet the targets (bot.compose.latency), not only whether the memory holds."""
    from bot.advice.options import stated_targets
    req = ctx.requirement
    if req.workload not in (None, "inference") or not ({"ttft_s", "tpot_ms"} & set(stated_targets(req))):
        return None
    if "gpu_count" not in ask.wants and len(req.gpu_options) < 2:
        return None
    from bot.compose.latency import meeting_targets
    reply = meeting_targets(ask, ctx)
    return reply.model_copy(update={"kind": "fit"}) if reply is not None else None


def kv_answer(ask: Ask, ctx: ComposeContext) -> AskAnswer:
    """"How big is the KV cache?": the figure first; "will it fit on our cards?": the verdict on that
    setup with the KV figure as its reason, then how many full-length sequences the setup holds."""
    req, lang, verdict = ctx.requirement, ctx.language, ctx.answer.verdict
    memory = ctx.answer.estimate.memory_gb
    assert memory is not None
    context = f"{req.context:,}" if req.context else "?"
    precision = (req.kv_precision or "bf16").upper()
    lead = say("fit.kv_lead", lang, kv=_gb(memory.kv_cache), sequences=req.concurrency or 1, context=context,
               precision=precision, weights=_gb(memory.weights), total=_gb(memory.total))
    details: list[str] = []
    if req.gpu and verdict is not None and verdict.answer in ("yes", "no", "tight") and is_primary(ask, ctx):
        lead = say("fit.kv_verdict", lang, verdict=verdict.text, kv=_gb(memory.kv_cache),
                   sequences=req.concurrency or 1, context=context, precision=precision, weights=_gb(memory.weights))
        held = capacity(ctx) if req.workload in (None, "inference") else None
        if held is not None and int(held.figures.get("sequences") or 0) < (req.concurrency or 1):
            details = [held.lead, *held.details]
        fewest = fewest_counts(ctx) if verdict.answer != "yes" and _FEWEST_ASKED.search(ctx.question or ask.text) else None
        if fewest is not None:  # "if not, what's the smallest H100 count that works?": the count, plainly
            details = [fewest, *details]
    return AskAnswer(kind="fit", lead=lead, details=details, rule="sizing.kv-cache", sources=["vllm-fp8-weight-only"],
                     figures={"kv_cache_gb": memory.kv_cache, "total_gb": memory.total})


# "the smallest H100 count that works", "最少几张": the fewest GPUs asked, whatever the words.
_FEWEST_ASKED = re.compile(r"\b(?:smallest|fewest|minimum|min|least)\b[^.?]{0,24}?\b(?:count|number|gpus?|cards?|setup|h100s?)\b"
                           r"|how many|最少|至少.{0,4}(?:几|多少)|几张|几块|多少张|多少块|多少卡|几卡", re.IGNORECASE)


def fewest_counts(ctx: ComposeContext) -> str | None:
    """The fewest GPUs of the stated type that serve the job with room to spare: with the stated KV cache
    (the more-gpus option), and with an FP8 KV cache where that takes fewer (the kv-cache option above the
    stated count); None where neither is offered."""
    req, lang = ctx.requirement, ctx.language
    recs = [r for r in ctx.answer.recommendations if r.fits and not r.tight and r.count and r.gpu
            and r.count >= (req.gpu_count or 1)]
    more = min((r for r in recs if r.kind == "more-gpus"), key=lambda r: r.count or 0, default=None)
    if more is None:
        return None
    # an FP8 KV cache (and FP8 weights) on fewer GPUs, the stated count included: the smallest count that works
    cached = min((r for r in recs if r.kind in ("kv-cache", "precision") and r.gpu == more.gpu
                  and (r.count or 0) < (more.count or 0)), key=lambda r: r.count or 0, default=None)
    from bot.messages.format import gpu_name
    names = {"gpu": gpu_name(ctx.catalog, more.gpu or ""), "count": more.count, "need": f"{more.need_gb:.0f}",
             "rated": f"{more.rated_gb or more.have_gb:g}", "precision": (req.kv_precision or "bf16").upper()}
    if cached is None:
        return say("fit.kv_fewest", lang, **names)
    from bot.advice.assemble import option_name
    from bot.messages.format import display_text
    return say("fit.kv_fewest_fp8", lang, fp8_count=cached.count, fp8_need=f"{cached.need_gb:.0f}",
               change=display_text(option_name(cached, lang), ctx.catalog, lang), **names)


def option_capacity(ask: Ask, ctx: ComposeContext) -> str | None:
    """A serving job that does not fit the stated setup, offered a lighter weight precision on that same
    setup (int4, fp8) with no concurrency stated: how much of each GPU is left for the KV cache beside
    the lighter weights (vLLM's 90%), and how many sequences of the context that buys, bf16 and fp8 KV."""
    req, verdict = ctx.requirement, ctx.answer.verdict
    serving = req.workload in (None, "inference") and not req.concurrency
    if not (serving and is_primary(ask, ctx) and verdict is not None and verdict.answer == "no"):
        return None
    from bot.compose.fit_single import stated_spec
    spec = stated_spec(ctx, req.gpu)
    stated = next((c for c in ctx.answer.candidates if spec is not None and c.gpu == spec.id
                   and c.count == (req.gpu_count or 1)), None)
    arch = ctx.catalog.models.get(req.model or "")
    if stated is None or stated.memory_gb is None or not stated.memory_gb.kv_cache or arch is None:
        return None
    option = _lighter_weights(ctx, stated.gpu, stated.count)
    if option is None or option.need_gb is None or option.have_gb is None:
        return None
    kv = stated.memory_gb.kv_cache  # one sequence at the sized context, per GPU
    sized = req.context or arch.max_context
    context = req.context or min(sized, DEFAULT_CONCURRENT_CONTEXT)
    per_seq = kv * context / sized
    free = option.have_gb * GPU_MEMORY_UTILIZATION - (option.need_gb - kv)
    if free < per_seq:
        return None
    from bot.messages.format import gpu_setup
    return say("fit.capacity_option", ctx.language, precision=option.precision,
               setup=gpu_setup(ctx.catalog, stated.gpu, stated.count, ctx.language), free=_gb(free),
               sequences=int(free // per_seq), fp8=int(free // (per_seq / 2)), context=f"{context:,}")


def _lighter_weights(ctx: ComposeContext, gpu: str, count: int):
    """The option that keeps the stated GPUs with lighter weights (int4, int8, fp8), or None."""
    return next((r for r in ctx.answer.recommendations if r.fits and r.kind == "precision" and r.gpu == gpu
                 and r.count == count and r.precision in ("int4", "int8", "fp8")), None)


def across_nodes(ctx: ComposeContext) -> str | None:
    """For full training sharded over several 8-GPU nodes (the user's count, or the count the answer
    offers), the bytes each step moves through each node's network at RDMA and at 100 Gb/s Ethernet;
    with a network speed stated, that speed's seconds per step (explain_network); None on one node."""
    from bot.compose.explain_network import GPUS_PER_NODE, RDMA_NODE_GBPS, params_b
    req = ctx.requirement
    size = params_b(ctx)
    if req.network_gbps is not None:  # the stated network judged: its seconds per step, unless a part asks it
        from bot.compose.explain_network import stated_network_line
        return stated_network_line(ctx)
    if req.workload != "training" or req.method in ("lora", "qlora") or not size:
        return None
    offered = next((r for r in ctx.answer.recommendations if r.fits and r.kind in ("more-gpus", "stated")
                    and r.method in (None, "full") and r.gpu == req.gpu), None)
    count = max(req.gpu_count or 0, offered.count if offered and offered.count else 0)
    if count <= GPUS_PER_NODE or not (req.zero_stage == 3 or (offered is not None and offered.strategy == "zero3")):
        return None  # one node, or a plan that is not ZeRO-3 (its traffic is the gradient all-reduce)
    traffic = 3 * size * 2  # GB: two all-gathers of the bf16 weights and a reduce-scatter of the gradients
    return say("fit.network_across_nodes", ctx.language, nodes=-(-count // GPUS_PER_NODE), traffic=f"{traffic:,.0f}",
               params=f"{size:g}", fast=f"{traffic / (RDMA_NODE_GBPS / 8):.1f}", slow=f"{traffic / (100 / 8):.0f}")


MAX_NOTES = 2


def _fewest(ctx: ComposeContext):
    """The fewest GPUs of the user's type that hold the job ("how many?"), an option, or None."""
    return next((r for r in ctx.answer.recommendations if r.fits and r.kind == "more-gpus"), None)


def _count_lead(ask: Ask, ctx: ComposeContext, fewest) -> str | None:
    """"How many X at least? we hoped for N": the fewest that hold it leads, with why N does not, where the
    count is asked and the stated count falls short."""
    req = ctx.requirement
    wanted = "gpu_count" in ask.wants or (req.gpu_count is None and _HOW_MANY_GPUS.search(ask.text))
    if fewest is None or not wanted or not req.gpu or not fewest.count or not fewest.gpu:
        return None
    stated = next((c for c in ctx.answer.candidates if c.gpu == fewest.gpu and c.count == (req.gpu_count or 1)), None)
    if stated is None or stated.fits:
        return None
    from bot.messages.format import gpu_setup
    lang = ctx.language
    nodes = -(-fewest.count // 8)
    total = ctx.answer.estimate.memory_gb.total if ctx.answer.estimate.memory_gb else None
    if req.gpu_count is None and total:  # no count stated: the fewest with room, of what the job needs in all
        return say("fit.fewest_lead_total", lang, setup=gpu_setup(ctx.catalog, fewest.gpu, fewest.count, lang),
                   need=f"{fewest.need_gb or 0:.0f}", have=f"{fewest.have_gb or 0:.0f}", total=f"{total:,.0f}",
                   nodes=say("fit.fewest_nodes", lang, nodes=nodes) if nodes > 1 else "")
    return say("fit.fewest_lead", lang, setup=gpu_setup(ctx.catalog, fewest.gpu, fewest.count, lang),
               need=f"{fewest.need_gb or 0:.0f}", have=f"{fewest.have_gb or 0:.0f}", stated=stated.count,
               stated_need=f"{stated.need_gb:.0f}", stated_have=f"{stated.have_gb:.0f}",
               nodes=say("fit.fewest_nodes", lang, nodes=nodes) if nodes > 1 else "")
# Within this share of the memory either way, the assumptions (usable bytes, KV replication, recompute)
# decide the verdict, so the answer says them; far from it they are detail for --full.
CLOSE_CALL = 0.15


def _close_call(ctx: ComposeContext) -> bool:
    req = ctx.requirement
    stated = [c for c in ctx.answer.candidates if c.gpu == req.gpu and (req.gpu_count is None or c.count == req.gpu_count)]
    return any(c.have_gb and abs(c.need_gb / c.have_gb - 1) <= CLOSE_CALL for c in stated[:1])


def _notes(ctx: ComposeContext) -> list[str]:
    """The sizing notes that decided the estimate, in the answer's language (bot.sizing.notes)."""
    from bot.sizing.notes import notes_text
    return notes_text(ctx.answer.estimate.notes[:MAX_NOTES], ctx.language)


def _gb(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}" if value >= 0.1 else f"{value:.2f}"


def capacity(ctx: ComposeContext) -> AskAnswer | None:
    """How many sequences of the stated context fit beside the weights on the stated setup, per GPU:

    free = usable GB x 0.90 (vLLM's default share) - (the GPU's need - its KV cache); sequences =
    floor(free / the GPU's KV cache of one sequence). Per GPU, so KV heads replicated under tensor
    parallelism (and an MLA latent held on every rank) count as they are held."""
    from bot.messages.format import gpu_setup
    req, lang = ctx.requirement, ctx.language
    stated = next((c for c in ctx.answer.candidates if c.gpu == req.gpu and c.count == (req.gpu_count or 1)), None)
    arch = ctx.catalog.models.get(req.model or "")
    if stated is None or stated.memory_gb is None or not stated.memory_gb.kv_cache or (not req.context and arch is None):
        return None
    per_gpu = stated.memory_gb
    # the KV cache was sized at the stated context, else the sizer's default; capacity is said at the
    # stated context, else at DEFAULT_CONCURRENT_CONTEXT per request
    sized = req.context or (arch.max_context if (req.concurrency or 1) == 1 else
                            min(arch.max_context, DEFAULT_CONCURRENT_CONTEXT))
    context_tokens = req.context or min(sized, DEFAULT_CONCURRENT_CONTEXT)
    per_seq = per_gpu.kv_cache / max(req.concurrency or 1, 1) * context_tokens / sized
    free = stated.have_gb * GPU_MEMORY_UTILIZATION - (per_gpu.total - per_gpu.kv_cache)
    setup = gpu_setup(ctx.catalog, stated.gpu, stated.count, lang)
    context = f"{context_tokens:,}"
    weights = per_gpu.weights * stated.count
    if free < per_seq:
        return AskAnswer(kind="fit", lead=say("fit.capacity_none", lang, context=context, setup=setup,
                                              weights=_gb(weights), free=_gb(max(free, 0) * stated.count)),
                         rule="sizing.kv-capacity", figures={"sequences": 0})
    sequences = int(free // per_seq)
    precision = (req.kv_precision or "bf16").upper()
    details = []
    if precision in ("BF16", "FP16"):
        details.append(say("fit.capacity_fp8", lang, sequences=int(free // (per_seq / 2))))
    return AskAnswer(kind="fit", lead=say("fit.capacity_lead", lang, sequences=sequences, context=context, setup=setup,
                                          free=_gb(free), weights=_gb(per_gpu.weights), per_seq=_gb(per_seq),
                                          precision=precision),
                     details=details, rule="sizing.kv-capacity", sources=["vllm-fp8-weight-only"],
                     figures={"sequences": sequences, "free_gb_per_gpu": round(free, 1),
                              "per_sequence_gb_per_gpu": round(per_seq, 3)})


def _after_fit_verdict(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"16x H20 across two servers, or one 8x H800 box?" for training, answered by the verdict that only one
    side holds it: that verdict leads, and what the pick costs follows it."""
    from bot.advice.compare import compare
    from bot.compose.compare_cost import choice_cost
    from bot.compose.explain_compare import subject_ids

    verdict, req = ctx.answer.verdict, ctx.requirement
    if verdict is None or verdict.rule != "verdict.compare-only-one-fits" or req.workload != "training":
        return None
    ids = subject_ids(ask, ctx)
    if len(ids) != 2:
        return None
    answer = ctx.answer
    time = answer.estimate.time if answer.estimate else None
    c = compare(ctx.catalog, ids, req, candidates=answer.candidates, recommendations=answer.recommendations,
                costs=answer.costs, flops=time.flops if time else None, **({"mfu": time.mfu} if time else {}))
    lines = choice_cost(c, ctx, 1 - c.pick) if c.pick is not None else []
    if not lines:
        return None
    return AskAnswer(kind=ask.kind, lead=verdict.text, details=lines, rule=verdict.rule,
                     sources=list(dict.fromkeys([*verdict.sources, "zero-offload-paper"])))
