"""`explain` asks ("X vs Y", "will 100GbE hurt?", "what does Server vs Offline mean?"): the gist
first, in the question's own terms, then the detail.

- Two or more GPUs named: the side-by-side comparison (bot/compose/explain_compare.py).
- A yes/no verdict to a question framed the other way round ("will X hurt?", "do we need IB?"):
  the verdict's "No — 100 Gb/s is far below…" answers "is it fast enough?"; here it is said as
  "Yes, badly — 100 Gb/s is far below…".
- A verdict that only asks for a model (nothing to size was asked): the most relevant findings of
  the question's topics lead instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.compose import ComposeContext, is_primary
from bot.compose.checkpoint import compose as checkpoint
from bot.compose.explain_benchmark import compose as mlperf
from bot.compose.explain_capability import compose as capability, nvlink as card_nvlink
from bot.compose.explain_duration import compose as duration
from bot.compose.explain_kv import compose as kv_formula
from bot.compose.explain_network import inference_across_nodes, network_exchange, slow_network_training, tp_over_pcie
from bot.compose.explain_nvlink import nvlink_cut_alone
from bot.compose.explain_profile import compose as profile
from bot.compose.latency import expected
from bot.compose.explain_training import compose as explain_training
from bot.compose.select import compared
from bot.advice.words import terms
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer, Finding

# Questions whose "yes" means "the thing is a problem / is required".
_HURT = re.compile(r"hurt|big deal|bottleneck|拖死|拖慢|影响大|影响.{0,4}大吗|matter", re.IGNORECASE)
_NEED = re.compile(r"(?:do|would) (?:we|i|you) (?:really )?need|need (?:infiniband|ib|nvlink|rdma)|要不要上|要不要|需不需要|必须",
                   re.IGNORECASE)
_LEADING_ANSWER = re.compile(r"^(?:yes|no)\b[^—:：,，]*[—:：,，]\s*|^(?:可以|不行|不够|够|是|否|能|不能)[^——，：]*[——，：]+\s*",
                             re.IGNORECASE)
# Verdicts that only ask for something to size, or size a job nobody asked about.
_GENERIC_VERDICTS = frozenset({"verdict.ask-what-to-run", "verdict.need-model-size", "verdict.recommend-needs-workload",
                               "verdict.topic-general", "verdict.cheapest-setup", "verdict.need-model-size-compare"})
def is_generic(rule: str) -> bool:
    """A verdict that primes a topic or asks for a model rather than answering."""
    return rule in _GENERIC_VERDICTS or rule.startswith("verdict.topic-")


_SEVERITY_ORDER = {"block": 0, "warn": 1, "info": 2}
MAX_DETAILS = 3


# a number format named, in Chinese too ("的FP8版本": no \b between a CJK character and a letter)
PRECISION = re.compile(r"(?<![a-z0-9])(fp8|fp4|bf16|tf32)(?![a-z0-9])", re.IGNORECASE)


# "like the H800 does", "像 H800 那样", "跟 H800 一样": the card named is the yardstick, not the subject
_LIKE = re.compile(r"\blike\s+(?:the\s+|an?\s+|on\s+(?:the\s+)?)?[\w-]+\s*(?:does|do|can)?\b|像\s*\S{1,16}?\s*(?:那样|一样|那么)|跟\s*\S{1,16}?\s*一样",
                   re.IGNORECASE)


def _cards(subjects: list[str], ctx: ComposeContext) -> list[str]:
    """The catalog GPUs among an ask's subjects; a family named ("the A100") is its first entry."""
    gpus = ctx.catalog.gpus
    return [g for g in subjects if g in gpus] or [next(g.id for g in gpus.values() if g.family == s) for s in subjects
                                                  if any(g.family == s for g in gpus.values())]


def precision_support(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"L20 能不能用 FP8": whether the one card the part names has tensor cores for that format."""
    found = PRECISION.search(ask.text)
    gpus = _cards(ask.subjects, ctx)
    if len(gpus) == 1 and _LIKE.search(ask.text):
        # "能像 H800 那样靠 FP8 加速吗？" after "手上只有 A800": the user's card (another part's), not the yardstick
        own = [g for a in ctx.requirement.asks if a.start != ask.start for g in _cards(a.subjects, ctx) if g != gpus[0]]
        gpus = own[:1] or gpus
    if found is None or len(gpus) != 1:
        return None
    spec, precision = ctx.catalog.gpus[gpus[0]], found.group(1).lower()
    tflops = {str(k): v for k, v in spec.dense_tflops.items()}.get(precision)
    params = {"gpu": gpu_name(ctx.catalog, spec.id, ctx.language), "arch": spec.architecture, "precision": precision.upper(),
              "cc": spec.compute_capability, "tflops": f"{tflops:,.0f}" if tflops else "", "bf16": f"{spec.dense_tflops.get('bf16', 0):,.0f}"}
    key = "explain.precision_yes" if tflops else "explain.precision_no"
    return AskAnswer(kind=ask.kind, lead=say(key, ctx.language, **params), rule="explain.precision-support",
                     sources=list(spec.sources), figures={"tflops": tflops})


# "how do I make the job auto-resume next time", "挂了之后怎么自动续训": restarting after a failure.
_RESUME = re.compile(r"auto[\s-]?resum\w*|resum\w*\s+(?:automatically|on\s+its\s+own|by\s+itself)|restart\w*\s+(?:itself|automatically|on\s+its\s+own)"
                     r"|auto[\s-]?restart\w*|自动(?:恢复|续训|续跑|重启|拉起)|断点续训|怎么续(?:训|跑|上)", re.IGNORECASE)


# "do we keep paying while it's broken?", "坏了期间还要付钱吗": billing while the hardware is down.
BILLED_WHILE_BROKEN = re.compile(r"(?:keep|still|continue)\s+(?:to\s+)?(?:pay(?:ing)?|being\s+(?:billed|charged)|get(?:ting)?\s+(?:billed|charged))"
                                 r"|(?:billed|charged|pay(?:ing)?)\s+(?:for\s+it\s+)?while\s+(?:it(?:'s|\s+is)\s+)?(?:broken|down|dead|failed)"
                                 r"|坏了?.{0,10}(?:付钱|收费|计费|扣费)|(?:还|继续)(?:要|得)?(?:付钱|收费|计费|扣费)", re.IGNORECASE)




@dataclass(frozen=True)
class FixedAnswer:
    """An answer that is the same whenever its cue is asked: catalog messages, its rule and sources."""

    cue: re.Pattern
    lead: str
    details: tuple[str, ...]
    rule: str
    sources: tuple[str, ...]


FIXED_ANSWERS = (
    # a job that should carry on by itself after a crash or a lost GPU: checkpoint, restart, check the node
    FixedAnswer(_RESUME, "explain.auto_resume_lead", ("explain.auto_resume_restart", "explain.auto_resume_health"),
                "explain.auto-resume", ("pytorch-distributed-checkpoint", "young-1974", "dcgm-health")),
    # a rented node bills while a GPU on it is broken: yes, while it is allocated; ask for a credit
    FixedAnswer(BILLED_WHILE_BROKEN, "explain.billed_while_broken", ("explain.billed_while_broken_credit",),
                "explain.billed-while-broken", ("aws-ec2-on-demand", "aliyun-gpu-billing")),
)


def fixed_answer(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The first fixed answer whose cue the part carries."""
    found = next((f for f in FIXED_ANSWERS if f.cue.search(ask.text)), None)
    if found is None:
        return None
    lang = ctx.language
    return AskAnswer(kind="explain", lead=say(found.lead, lang), details=[say(d, lang) for d in found.details],
                     rule=found.rule, sources=list(found.sources))


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose import checklist_quota, compat_nvlink, explain_fits

    # The specific answers, first match wins: each returns None unless the part asks its question.
    # a job the stated GPUs cannot hold leads with its fit even where the card's link is asked about
    for specific in (checklist_quota.capacity, explain_fits.compose, card_nvlink, duration, compat_nvlink.compose, nvlink_cut_alone, checkpoint,
                     fixed_answer, mlperf, compared,
                     explain_training, profile, capability, kv_formula, expected, _expected_where_it_fits):
        reply = specific(ask, ctx)
        if reply is not None:
            return reply
    if not is_primary(ask, ctx):  # the message's verdict answers its first ask, not this one
        return slow_network_training(ask, ctx) or relevant_findings(ask.text, ctx)
    verdict = ctx.answer.verdict
    nodes = inference_across_nodes(ask, ctx)  # "two 8-GPU nodes serving one model: IB or RoCE?"
    if nodes is not None:
        return nodes
    pcie = tp_over_pcie(ask, ctx)  # "will PCIe hurt our TP=4 L40S box?": its cost per token, estimated
    if pcie is not None:
        fit = [verdict.text] if verdict is not None and verdict.answer in ("yes", "tight") else []
        return AskAnswer(kind="explain", lead=pcie, details=fit, rule="sizing.latency",
                         sources=["nvidia-nvlink", "aiperf"])
    if verdict is not None and verdict.answer in ("yes", "no"):
        framed = _framed(ask.text, verdict.answer == "no", ctx.language)
        exchange = network_exchange(ask, ctx, framed) if framed is not None and verdict.answer == "no" else None
        if exchange is not None:
            return exchange  # the bytes and seconds per step decide it, not the primer
        if framed is not None:
            body = _LEADING_ANSWER.sub("", verdict.text, count=1)
            return AskAnswer(kind="explain", lead=framed + body, rule=verdict.rule, sources=verdict.sources)
    if verdict is None or is_generic(verdict.rule):
        return _from_findings(ctx, ask.text)
    # an RDMA fabric or whether the plan works, asked in words no framing reads ("要上 InfiniBand 吗？"): the stated link's exchange per step
    fabric = re.search(r"infiniband|\bib\b|roce|rdma|行不行|能行|可行|行吗|workable|feasible|doable|will\s+it\s+work", ask.text,
                       re.IGNORECASE)
    return _more_relevant_than_verdict(ask.text, ctx) or (slow_network_training(ask, ctx) if fabric else None)


def _expected_where_it_fits(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"(3) rough tok/s per user?" on a GPU named by its family ("2x H100"), or after a count the job does
    not fit: the estimate on the stated count, else the fewest GPUs of that type that hold it (the sizer
    estimates only setups that fit)."""
    req = ctx.requirement
    def stated(gpu: str) -> bool:  # the GPU named, or its family's board ("H100": the SXM one rented)
        spec = ctx.catalog.gpus.get(gpu)
        return gpu == req.gpu or (spec is not None and spec.family == req.gpu)

    fitting = sorted((c for c in ctx.answer.candidates if stated(c.gpu) and c.fits and c.tpot_ms is not None),
                     key=lambda c: (c.count != (req.gpu_count or 1), c.count))  # the count stated where it fits
    if not req.gpu or not fitting:
        return None
    from bot.compose import ComposeContext as Context

    moved = Context(requirement=req.model_copy(update={"gpu": fitting[0].gpu, "gpu_count": fitting[0].count}), answer=ctx.answer,
                    catalog=ctx.catalog, language=ctx.language, question=ctx.question, today=ctx.today, paste=ctx.paste)
    return expected(ask, moved)


def _framed(text: str, verdict_says_no: bool, language: str) -> str | None:
    """The answer word for a question framed as "is it a problem" or "is it required"."""
    if _HURT.search(text):
        return say("explain.yes_hurts" if verdict_says_no else "explain.no_hurts", language)
    if _NEED.search(text):
        return say("explain.yes_needed" if verdict_says_no else "explain.no_needed", language)
    return None


# Primers that define a topic's terms (each link's role, each parallelism's trade-off): background, never the
# answer to a concrete question ("8x 4090 without NVLink, 70B full training or TP=8 inference?", "does Cherry
# Servers include NVLink on their A100 boxes?").
GENERIC_PRIMERS = frozenset({"interconnect.roles", "parallelism.strategies"})


def is_concrete(ctx: ComposeContext) -> bool:
    """Whether the message names a job (a model, a size, a workload) or the hardware it is about."""
    req = ctx.requirement
    return bool(req.model or req.params_b or req.workload or req.gpu or req.gpu_options or req.instance)


def _answerable(findings: list[Finding], ctx: ComposeContext) -> list[Finding]:
    """The findings that may answer the question: a topic's primer only where nothing concrete is named."""
    return [f for f in findings if f.rule not in GENERIC_PRIMERS] if is_concrete(ctx) else findings


def _from_findings(ctx: ComposeContext, text: str = "") -> AskAnswer | None:
    asked = set(ctx.requirement.topics)
    findings = _answerable(ctx.answer.findings, ctx)
    relevant: list[Finding] = [f for f in findings if f.topic in asked] or \
                              [f for f in findings if f.tier == "key"]
    if not relevant:
        return None
    words = terms(text)
    relevant.sort(key=lambda f: (-len(words & terms(f.message)), f.tier != "key", _SEVERITY_ORDER[f.severity]))
    first, rest = relevant[0], relevant[1:1 + MAX_DETAILS]
    return AskAnswer(kind="explain", lead=_first_sentence(first.message), details=[_first_sentence(f.message) for f in rest],
                     rule=first.rule, sources=first.sources)


def _first_sentence(text: str) -> str:
    from bot.render.text import _first_sentence as first  # one sentence splitter for every brief line
    return first(text)


# How much a finding speaks to the words of the ask (bot.advice.words.terms): a finding that shares
# clearly more than the verdict leads instead.
_LEAD_MARGIN = 2


def _more_relevant_than_verdict(text: str, ctx: ComposeContext) -> AskAnswer | None:
    verdict = ctx.answer.verdict
    words = terms(text)
    if not words or verdict is None:
        return None
    best = max(_answerable(ctx.answer.findings, ctx), key=lambda f: len(words & terms(f.message)), default=None)
    if best is None or len(words & terms(best.message)) < len(words & terms(verdict.text)) + _LEAD_MARGIN:
        return None
    return AskAnswer(kind="explain", lead=_first_sentence(best.message), details=[_first_sentence(verdict.text)],
                     rule=best.rule, sources=best.sources)


MIN_SHARED_TERMS = 2


def relevant_findings(text: str, ctx: ComposeContext, kind: str = "explain",
                      exclude: set[str] | None = None) -> AskAnswer | None:
    """The findings that share the most words with a later part of a message ("Q2: do we need NVLink?"),
    or None when none shares at least MIN_SHARED_TERMS; findings of the rules in `exclude` (another
    part's answer) are not offered."""
    words = terms(text)
    scored = sorted(((len(words & terms(f.message)), i, f) for i, f in enumerate(_answerable(ctx.answer.findings, ctx))
                     if f.rule not in (exclude or ())),
                    key=lambda t: (-t[0], t[1]))
    needed = 1 if len(words) <= 6 else MIN_SHARED_TERMS  # a short part ("Q2 do we need nvlink?") names one thing
    # the lead may share one word of a short part; a line under it is a key finding or shares two
    chosen = [f for n, (score, _, f) in enumerate(s for s in scored if s[0] >= needed)
              if n == 0 or f.tier == "key" or score >= MIN_SHARED_TERMS][:MAX_DETAILS]
    if not chosen:
        return None
    first, rest = chosen[0], chosen[1:]
    return AskAnswer(kind=kind, lead=_first_sentence(first.message), details=[_first_sentence(f.message) for f in rest],
                     rule=first.rule, sources=first.sources)
