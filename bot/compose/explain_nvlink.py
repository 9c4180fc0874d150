"""NVLink speed between two boards of the same compute (issue #24): "A800's NVLink 400 vs A100's 600, how much
does it matter?", "how much does the H800's 400 GB/s hurt TP=8 serving of a 70B vs the H100's 900?".

- The same compute, so only the exposed communication inside a node grows by the NVLink ratio; with the model
  known, the gradient all-reduce's time on each (training), or, for tensor-parallel serving, the prompt's
  all-reduces against prefill compute (TTFT) and the per-token all-reduces against reading the weights (TPOT),
  with what wins the slower link's time back; across nodes the NIC, not NVLink, is the slower link.
- One cut board named alone (H800, A800) is set against the board it was cut from (uncut_sibling).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.explain_network import GPUS_PER_NODE, MFU, _s, judges_claim, params_b, serving_arch
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import count
from bot.models import Ask, AskAnswer


def nvlink_consequence(ask: Ask, ctx: ComposeContext, gpus: list[GpuSpec]) -> str | None:
    """What an NVLink difference between GPUs of the same compute means for the stated job, or None
    where the GPUs differ in more than NVLink."""
    if len(gpus) != 2:
        return None
    a, b = gpus
    if a.dense_tflops.get("bf16") != b.dense_tflops.get("bf16") or not a.nvlink_bandwidth_gbs \
            or not b.nvlink_bandwidth_gbs or a.nvlink_bandwidth_gbs == b.nvlink_bandwidth_gbs:
        return None
    slow, fast = sorted((a, b), key=lambda g: g.nvlink_bandwidth_gbs or 0.0)
    slow_link, fast_link = slow.nvlink_bandwidth_gbs or 0.0, fast.nvlink_bandwidth_gbs or 0.0  # both set (checked above)
    lang = ctx.language
    from bot.messages.format import gpu_name
    names = {"slow": gpu_name(ctx.catalog, slow.id), "fast": gpu_name(ctx.catalog, fast.id),
             "slow_bw": count(slow_link), "fast_bw": count(fast_link), "ratio": count(round(fast_link / slow_link, 2))}
    req = ctx.requirement
    if req.workload == "inference":  # serving: TP's all-reduces, small per token, large per prompt
        return _nvlink_serving(ctx, slow, slow_link, fast_link, names)
    tp_step = _tp_training(ctx, ctx.question or ask.text, slow, fast, names)
    if tp_step is not None:  # "TP=8 inside each node": NVLink carries the activations' all-reduces of every layer
        return tp_step
    if req.gpu_count and req.gpu_count > GPUS_PER_NODE:
        # "colleague says the NVLink cut will kill us: true?": the claim judged first
        key = "explain.nvlink_multinode_claim" if judges_claim(ctx.question or ask.text) else "explain.nvlink_multinode"
        return say(key, lang, gpus=count(req.gpu_count), **names)
    size = params_b(ctx)
    if size:
        n = min(req.gpu_count or GPUS_PER_NODE, GPUS_PER_NODE)
        grads = size * 2
        moved = 2 * grads * (n - 1) / n  # a ring all-reduce sends this much per GPU
        # the listed NVLink figure counts both directions; an all-reduce streams one way per link
        fast_bw, slow_bw = fast.nvlink_bandwidth_gbs or 0.0, slow.nvlink_bandwidth_gbs or 0.0  # both set (checked above)
        t_fast, t_slow = moved / (fast_bw / 2), moved / (slow_bw / 2)
        return say("explain.nvlink_allreduce", lang, params=count(size), grads=count(round(grads)), n=n,
                   t_fast=_s(t_fast), t_slow=_s(t_slow), **names)
    return say("explain.nvlink_general", lang, **names)


def nvlink_measure(ctx: ComposeContext, gpus: list[GpuSpec]) -> list[str]:
    """For two SXM boards of the same compute and different NVLink: the single-node busbw each should
    reach (what to measure on the one rented) and how to turn the ratio into this job's cost."""
    from bot.compose.checklist_refs import busbw_figures, is_sxm
    from bot.messages.format import gpu_name
    if len(gpus) != 2 or not all(g.nvlink_bandwidth_gbs and is_sxm(g) for g in gpus) \
            or gpus[0].dense_tflops.get("bf16") != gpus[1].dense_tflops.get("bf16") \
            or gpus[0].nvlink_bandwidth_gbs == gpus[1].nvlink_bandwidth_gbs or (ctx.requirement.gpu_count or 0) > GPUS_PER_NODE:
        return []
    slow, fast = sorted(gpus, key=lambda g: g.nvlink_bandwidth_gbs or 0.0)
    lang = ctx.language
    return [say("explain.nvlink_measure", lang, slow=gpu_name(ctx.catalog, slow.id), fast=gpu_name(ctx.catalog, fast.id),
                slow_busbw=busbw_figures(slow, lang)["busbw"], fast_busbw=busbw_figures(fast, lang)["busbw"],
                ratio=f"{(fast.nvlink_bandwidth_gbs or 0.0) / (slow.nvlink_bandwidth_gbs or 1.0):.2f}".rstrip("0").rstrip("."),
                cut=f"{100 * (1 - (slow.nvlink_bandwidth_gbs or 0.0) / (fast.nvlink_bandwidth_gbs or 1.0)):.0f}")]


_TP_STATED = re.compile(r"\btp\s*[=x×:]?\s*([2-8])\b|tensor[\s-]?parallel(?:ism)?\s*(?:=|of|x|×|degree)?\s*([2-8])\b"
                        r"|\b([2-8])[\s-]?way\s+tensor|张量并行\s*(?:=|为|度)?\s*([2-8])|([2-8])\s*路张量并行", re.IGNORECASE)
TP_TOKENS = 4096  # tokens per micro-batch of a TP group where the message states no sequence length (one 4k sequence)


def tp_stated(text: str) -> int | None:
    """The tensor-parallel degree the message states ("TP=8", "8-way tensor parallel", "张量并行 8"), inside a node."""
    found = _TP_STATED.search(text or "")
    return int(next(g for g in found.groups() if g)) if found else None


def _tp_training(ctx: ComposeContext, text: str, slow: GpuSpec, fast: GpuSpec, names: dict) -> str | None:
    """Training with TP stated inside the node: per micro-batch each GPU all-reduces the layer activations twice
    forward and twice backward (tokens x hidden x 2 bytes, 2(N-1)/N of it per GPU) at the busbw each board should
    reach (bot.compose.checklist_refs), set against the micro-batch's compute (6 x params x tokens over the TP
    group at MFU): the communication share of a step on the faster board and the slower board's step, no overlap."""
    from bot.compose.checklist_refs import BUSBW_PASS, NVLS_SHORTFALL, NVLS_TYPICAL_GBS, nvls_board

    tp = tp_stated(text)
    arch, _ = serving_arch(ctx)
    size = params_b(ctx)
    peak = fast.dense_tflops.get("bf16")
    if tp is None or arch is None or not arch.hidden or not arch.layers or not size or not peak:
        return None

    def busbw(spec: GpuSpec) -> float:
        return NVLS_TYPICAL_GBS[0] * NVLS_SHORTFALL if nvls_board(spec) else (spec.nvlink_bandwidth_gbs or 0.0) / 2 * BUSBW_PASS

    tokens = ctx.requirement.context or TP_TOKENS
    moved = 4 * arch.layers * tokens * arch.hidden * 2 * 2 * (tp - 1) / tp / 1e9  # GB per GPU per micro-batch
    compute = 6 * size * 1e9 * tokens / (tp * peak * 1e12 * MFU)
    t_fast, t_slow = moved / busbw(fast), moved / busbw(slow)
    return say("explain.nvlink_tp_training", ctx.language, tp=tp, params=count(size), layers=arch.layers,
               hidden=count(arch.hidden), tokens=count(tokens), gb=count(round(moved, 1)), t_fast=_s(t_fast),
               t_slow=_s(t_slow), bw_fast=count(round(busbw(fast), -1)), bw_slow=count(round(busbw(slow), -1)),
               compute=_s(compute), mfu=round(MFU * 100), share=round(100 * t_fast / (compute + t_fast)),
               pct=round(100 * (t_slow - t_fast) / (compute + t_fast)), lower=max(tp // 2, 1), **names)


SERVING_BATCH = 64  # concurrent requests a decode step is judged at where the message states none


def _nvlink_serving(ctx: ComposeContext, spec: GpuSpec, slow_bw: float, fast_bw: float, names: dict) -> str:
    """Tensor-parallel serving on two NVLink speeds of the same compute: TPOT's and TTFT's growth on the
    slower link (bot.compose.explain_network._serving_figures), or the general line where the model's shape
    is unknown."""
    figures = _serving_figures(ctx, spec, slow_bw, fast_bw)
    if figures is None:
        return say("interconnect.nvlink_serving_general", ctx.language, **names)
    key = "interconnect.nvlink_serving" if figures["tpot_pct"] < 10 else "interconnect.nvlink_serving_batch"
    return say(key, ctx.language, **names, **figures)


def nvlink_serving_details(ctx: ComposeContext, gpus: list[GpuSpec]) -> list[str]:
    """Under the serving lead of two boards that differ only in NVLink: where the figures come from, and what
    wins the slower link's time back."""
    if ctx.requirement.workload != "inference" or len(gpus) != 2:
        return []
    slow, fast = sorted(gpus, key=lambda g: g.nvlink_bandwidth_gbs or 0.0)
    if not slow.nvlink_bandwidth_gbs or not fast.nvlink_bandwidth_gbs or slow.nvlink_bandwidth_gbs == fast.nvlink_bandwidth_gbs:
        return []
    figures = _serving_figures(ctx, slow, slow.nvlink_bandwidth_gbs, fast.nvlink_bandwidth_gbs)
    if figures is None:
        return []
    from bot.messages.format import gpu_name
    names = {"slow": gpu_name(ctx.catalog, slow.id), "fast": gpu_name(ctx.catalog, fast.id)}
    size = params_b(ctx) or figures["size"]
    return [say("interconnect.nvlink_serving_maths", ctx.language, **names, **figures),
            _serving_mitigations(ctx, slow, size, figures["n"], names)]


def _serving_figures(ctx: ComposeContext, spec: GpuSpec, slow_bw: float, fast_bw: float) -> dict | None:
    """Decode all-reduces a few KB per request per layer (latency-bound, so TPOT barely moves at small
    batches); a prompt's prefill all-reduces prompt x hidden x 2 bytes twice per layer, 2(N-1)/N of it per
    GPU, at half the bidirectional NVLink figure, set against the prefill's compute (2 x params x tokens at
    40% MFU) and, at decode, against reading each GPU's share of the bf16 weights at its memory bandwidth."""
    req, lang = ctx.requirement, ctx.language
    arch, named = serving_arch(ctx)
    n = min(req.gpu_count or GPUS_PER_NODE, GPUS_PER_NODE)
    peak = spec.dense_tflops.get("bf16")
    if arch is None or not arch.hidden or not arch.layers or n < 2 or not peak:
        return None
    size = params_b(ctx) or arch.params_b
    ring = 2 * (n - 1) / n
    prompt = req.context or 8192
    batch = req.concurrency or SERVING_BATCH
    moved = 2 * arch.layers * prompt * arch.hidden * 2 * ring / 1e9  # GB per GPU per prompt
    t_fast, t_slow = moved / (fast_bw / 2), moved / (slow_bw / 2)
    prefill = 2 * size * 1e9 * prompt / (n * peak * 1e12 * MFU)
    decode = 2 * arch.layers * batch * arch.hidden * 2 * ring / 1e9  # GB per GPU per decode step
    d_fast, d_slow = decode / (fast_bw / 2), decode / (slow_bw / 2)
    weights = size * 2 / n  # GB of bf16 weights per GPU (1e9 bytes, as the bandwidth is)
    read = weights / spec.bandwidth_gbs
    shape = say("interconnect.serving_named" if named else "interconnect.serving_shaped", lang, model=arch.name,
                params=count(size), layers=arch.layers, hidden=count(arch.hidden))
    return {"n": n, "size": size, "prompt": count(prompt), "batch": count(batch), "t_fast": _s(t_fast), "t_slow": _s(t_slow),
            "prefill": _s(prefill), "ttft_pct": round(100 * (t_slow - t_fast) / (prefill + t_fast)),
            "tpot_pct": round(100 * (d_slow - d_fast) / (read + d_fast)), "kb": count(round(arch.hidden * 2 / 1024)),
            "allreduces": 2 * arch.layers, "gbytes": count(round(moved, 1)), "d_fast": f"{d_fast * 1e3:.2f}",
            "d_slow": f"{d_slow * 1e3:.2f}", "read_ms": f"{read * 1e3:.1f}", "wgb": count(round(weights, 1)),
            "membw": count(spec.bandwidth_gbs), "shape": shape, "hidden": count(arch.hidden), "model": arch.name}


def _serving_mitigations(ctx: ComposeContext, spec: GpuSpec, size: float, n: int, names: dict) -> str:
    """What wins the slower link's time back: half the TP degree as two replicas where its weights fit,
    FP8 weights where the card has FP8 tensor cores (else weight-only INT8), and batching that overlaps."""
    lang = ctx.language
    half = max(n // 2, 1)
    w_half, w8 = size * 2 / half, size / half
    fits_half = w_half <= 0.75 * spec.memory_gb
    fp8 = bool(spec.dense_tflops.get("fp8"))
    key = "interconnect.serving_fix_tp" if fits_half else "interconnect.serving_fix_fp8_tp" if w8 <= 0.75 * spec.memory_gb \
        else "interconnect.serving_fix_batch"
    quant = say("interconnect.serving_fp8" if fp8 else "interconnect.serving_int8", lang, w=count(round(size)))
    return say(key, lang, half=half, replicas=n // half, w_half=count(round(w_half)), w8=count(round(w8)), quant=quant,
               mem=count(spec.memory_gb), **names)


_NVLINK_WORDS = re.compile(r"nvlink|nvswitch|interconnect|互联|互连", re.IGNORECASE)
_IMPACT_WORDS = re.compile(r"hurt|matter|slow|big\s+deal|how\s+much|impact|affect|penalt|cost\s+us|worse|bottleneck|means?\s+for"
                           r"|影响|慢|差多少|拖|代价|损失|阉割|砍", re.IGNORECASE)
# "…对并行策略有啥影响", "what does it mean for how we split TP/PP/DP?": the layout of the job asked
_PLAN_ASKED = re.compile(r"parallel\w*|strateg\w*|\bsplit\b|\btp\b|\bpp\b|layout|并行|策略|切分|拆分", re.IGNORECASE)


def uncut_sibling(ctx: ComposeContext, spec: GpuSpec) -> GpuSpec | None:
    """The board a cut-NVLink part was cut from: an SXM board of the same dense BF16 compute, memory and memory
    bandwidth with more NVLink (H800 SXM -> H100 SXM, A800 SXM4 -> A100 SXM); None for a board nothing outruns."""
    if not spec.nvlink_bandwidth_gbs or not spec.form_factor.upper().startswith("SXM"):
        return None
    same = [g for g in ctx.catalog.gpus.values() if g.id != spec.id and g.form_factor.upper().startswith("SXM")
            and g.dense_tflops.get("bf16") == spec.dense_tflops.get("bf16") and g.memory_gb == spec.memory_gb
            and g.bandwidth_gbs == spec.bandwidth_gbs and (g.nvlink_bandwidth_gbs or 0) > spec.nvlink_bandwidth_gbs]
    return max(same, key=lambda g: g.nvlink_bandwidth_gbs or 0.0, default=None)


def nvlink_cut_alone(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"How much will the H800's NVLink slow our 70B TP=8 inference?": one cut-NVLink board named, judged against
    the board it was cut from, as when both are named (nvlink_consequence, with its derivation and the busbw
    to measure)."""
    from bot.compose.checklist_refs import _spec
    req, text = ctx.requirement, ask.text or ctx.question
    # "A800 80G … A800 NVLink": one card named twice (its board, then its family) is one card
    cards = {getattr(ctx.catalog.gpus.get(g), "family", None) or g for g in req.gpu_options}
    if len(cards) > 1 or not (_NVLINK_WORDS.search(text) and _IMPACT_WORDS.search(text)):
        return None
    spec = _spec(ctx)
    sibling = uncut_sibling(ctx, spec) if spec is not None else None
    if spec is None or sibling is None:
        return None
    lead = nvlink_consequence(ask, ctx, [spec, sibling])
    if lead is None:
        return None
    details = [*nvlink_serving_details(ctx, [spec, sibling]), *nvlink_measure(ctx, [spec, sibling])]
    planned = bool(_PLAN_ASKED.search(text)) or (req.gpu_count or 0) > GPUS_PER_NODE
    if planned:  # how to lay the job out on the cut link
        details.append(say("explain.nvlink_cut_plan", ctx.language, per_node=GPUS_PER_NODE))
    plan_sources = ["megatron-paper", "pytorch-fsdp"] if planned else []
    return AskAnswer(kind="explain", lead=lead, details=details, rule="explain.nvlink-cut",
                     sources=list(dict.fromkeys(["nvidia-nvlink", "nccl-tests", *plan_sources, *spec.sources, *sibling.sources]))[:8])
