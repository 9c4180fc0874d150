"""The one answer assembler: engine results -> an `Answer` that advises.

Questions (`bot.advisor`) and host checks (`bot.dispatch.judge`) both end here, so every answer
has the same shape, in this order:
1. the verdict: the answer to the question asked, from the verdict rule with the lowest priority;
2. recommendations: the options the recommend rules justified, ranked (the user's setup when it
   works comfortably, then the cheapest changes that make it work, then the cheapest comfortable
   setup; a tight plan never above a comfortable one);
3. findings, each tiered `key` (default answer) or `more` (on request), per-variant repeats merged;
4. at most three follow-up questions (the rest in `more_questions`).
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass, field

from bot.advice.question_gates import GATES, versions_given
from bot.engine.session import EngineResult, RecommendationRecord
from bot.models import Answer, Candidate, Cost, Estimate, Finding, Recommendation, Requirement, Verdict

MAX_RECOMMENDATIONS = 5
MAX_QUESTIONS = 3
# A pick for a model and nothing else ("what gpu to play around with llama 70b"): the default answers,
# and only the two questions that change it most follow (the workload, then how much).
VAGUE_QUESTIONS = 2


def question_limit(req: Requirement) -> int:
    """How many follow-up questions an answer asks: two after a vague pick's default, else MAX_QUESTIONS."""
    from bot.advice.option_changes import vague_serving
    vague = bool(req.asks) and req.asks[0].kind == "select" and vague_serving(req)
    return VAGUE_QUESTIONS if vague else MAX_QUESTIONS

# Changes that make the user's plan work, cheapest change first.
_CHANGE_ORDER = {"batch": 0, "strategy": 0, "method": 1, "precision": 2, "kv-cache": 3, "concurrency": 4, "context": 5, "more-gpus": 6}


@dataclass
class AnswerParts:
    """Everything one answer is assembled from."""

    requirement: Requirement
    result: EngineResult
    language: str
    rule_base_version: str
    estimate: Estimate = field(default_factory=Estimate)
    candidates: list[Candidate] = field(default_factory=list)
    costs: list[Cost] = field(default_factory=list)
    gpu_family: list[str] = field(default_factory=list)


def assemble(parts: AnswerParts) -> Answer:
    result, language = parts.result, parts.language
    findings = _tiered(result, parts.requirement)
    if not result.verdicts:
        # A rule base without verdict rules (a team's own) cannot lead with an answer: show what
        # its rules say instead of hiding it behind "More".
        findings = [f.model_copy(update={"tier": "key"}) for f in findings]
    findings, derivations = _merge_variants(findings, [result.justification(i) for i in range(len(result.findings))],
                                            parts.gpu_family)
    findings, derivations = _collapse_repeats(findings, derivations, language)
    recommendations = rank(result.recommendations, full_ft=parts.requirement.method == "full")
    verdict = _verdict(result, recommendations, language, parts.requirement)
    questions = _questions_that_matter(result, parts.requirement)
    if not sizes_hardware(parts.requirement):
        # A price, a diagnosis, a checklist, an explanation: sizing options and sizing warnings are
        # not what was asked; they stay behind "More". A cost ask keeps its priced options.
        costed = any(a.kind == "cost" for a in parts.requirement.asks)
        # stated setups priced ("4x L40S or 2x H100, which is cheaper?"): whether each holds the job stays
        setups = len(parts.requirement.gpu_option_counts) > 1
        recommendations = [r for r in recommendations if costed and (r.cost is not None or r.cost_per_hour is not None
                                                                     or (setups and r.kind in ("compare", "precision")))]
        findings = [f.model_copy(update={"tier": "more"}) if f.topic in _SIZING_TOPICS else f for f in findings]
    if reads_paste(parts.requirement):
        # a diagnosis of pasted readings: warnings about the plan (eight cards' power and slots) are not about them
        # and with Xids pasted, the generic health primers only say again what the Xid diagnosis says
        # the GPU lines read each host finding of the paste back (throttling, ECC, the link): not said twice
        demoted = (*_PLAN_RULES, *_READ_BACK, *(("health.",) if parts.requirement.pasted.xids else ()))  # type: ignore[union-attr]
        findings = [f.model_copy(update={"tier": "more"}) if f.rule.startswith(demoted) and f.severity != "block"
                    else f for f in findings]
    return Answer(
        requirement=parts.requirement,
        estimate=parts.estimate,
        candidates=parts.candidates,
        costs=parts.costs,
        findings=findings,
        questions=questions[:question_limit(parts.requirement)],
        more_questions=questions[question_limit(parts.requirement):],
        language=language,
        gpu_family=parts.gpu_family,
        rule_base_version=parts.rule_base_version,
        derivations=derivations,
        verdict=verdict,
        recommendations=recommendations,
    )


# -- findings ----------------------------------------------------------------------------------------


def _tiered(result: EngineResult, req: Requirement) -> list[Finding]:
    """A finding is key when its rule says so, or (undeclared) when it warns or blocks, or when its
    topic is one the question asked about; primers, spec cards and checklists are declared `more`."""
    asked = set(req.topics)
    out = []
    for finding, declared in zip(result.findings, result.finding_tiers, strict=True):
        tier = declared or ("key" if finding.severity != "info" or finding.topic in asked else "more")
        out.append(finding.model_copy(update={"tier": tier}))
    return out


def _merge_variants(findings: list[Finding], derivations: list[dict],
                    family: list[str]) -> tuple[list[Finding], list[dict]]:
    """One finding for the variants of a family: "h100 (h100-sxm, h100-pcie, h100-nvl): …" instead of
    the same advice printed once per variant."""
    if len(family) < 2:
        return findings, derivations
    pattern = re.compile("|".join(re.escape(v) for v in sorted(family, key=len, reverse=True)))
    groups: dict[tuple[str, str], list[int]] = {}
    for i, f in enumerate(findings):
        groups.setdefault((f.rule, pattern.sub("\0", f.message)), []).append(i)
    out, out_derivations = [], []
    for (rule, shape), indexes in groups.items():
        first = findings[indexes[0]]
        if len(indexes) > 1:
            variants = [v for v in family if any(v in findings[i].message for i in indexes)]
            label = f"{_common_prefix(variants)} ({', '.join(variants)})"
            first = first.model_copy(update={"message": shape.replace("\0", label, 1).replace("\0", label)})
        out.append(first)
        out_derivations.append(derivations[indexes[0]])
    return out, out_derivations


# A rule that fires once per GPU of a host (power throttling on all eight) is said once, with a count.
_REPEATS_SHOWN = 2
_AND_MORE = {"en": " (and {n} more like it)", "zh": "（另有 {n} 条相同情况）"}


def _collapse_repeats(findings: list[Finding], derivations: list[dict],
                      language: str) -> tuple[list[Finding], list[dict]]:
    """Findings of one rule whose messages differ only in numbers and bus ids (the same throttling on
    GPUs 0-7) become the first of them with a count; findings that say different things stay apart."""
    def shape(f: Finding) -> tuple[str, str]:
        return f.rule, _NUMBERS.sub("#", f.message)

    shapes = [shape(f) for f in findings]
    counts: dict[tuple[str, str], int] = {}
    for key in shapes:
        counts[key] = counts.get(key, 0) + 1
    out, out_derivations, seen = [], [], set()
    for f, d, key in zip(findings, derivations, shapes, strict=True):
        n = counts[key]
        if n <= _REPEATS_SHOWN:
            out.append(f)
            out_derivations.append(d)
            continue
        if key in seen:
            continue
        seen.add(key)
        more = _AND_MORE.get(language, _AND_MORE["en"]).format(n=n - 1)
        out.append(f.model_copy(update={"message": f.message.rstrip() + more}))
        out_derivations.append(d)
    return out, out_derivations


_NUMBERS = re.compile(r"[0-9][0-9a-fA-F:.,]*")


def _common_prefix(variants: list[str]) -> str:
    prefix = variants[0].split("-")[0]
    return prefix if all(v.startswith(prefix) for v in variants) else "/".join(variants)


# -- recommendations -----------------------------------------------------------------------------------


_ADAPTER_METHODS = frozenset({"lora", "qlora"})


def _rank_key(record: RecommendationRecord, full_ft: bool = False) -> tuple:
    """`full_ft`: full fine-tuning was asked, so a full fine-tuning setup that fits ranks before a change
    of method to LoRA or QLoRA (another job, with its own quality trade-off)."""
    o = record.option
    kind = o["option"]
    if kind == "compare":
        # Options the user compares: those that fit first, tensor parallel over more than two PCIe
        # cards last (every layer waits on PCIe), then by cost, time, fewer GPUs.
        pcie_tp = o.get("strategy") in ("tp", "tp-pp") and o["count"] > 2 and o.get("form") != "sxm"
        return (0, not o["fits"], o.get("tight", False), pcie_tp, o.get("cost") or o.get("cost_per_hour") or float("inf"),
                o.get("hours") or float("inf"), o["count"], -o["headroom_pct"])
    if kind == "stated":
        group = 0
    elif kind in _CHANGE_ORDER:
        group = 1
    else:
        group = 2
    # A tight plan is never ranked above a comfortable one.
    adapter = full_ft and o.get("method") in _ADAPTER_METHODS
    return (1, o.get("tight", False), adapter, group, _CHANGE_ORDER.get(kind, 9), record.priority, o["need_gb"])


def rank(records: list[RecommendationRecord], full_ft: bool = False) -> list[Recommendation]:
    seen: set[tuple] = set()
    out: list[Recommendation] = []
    for record in sorted(records, key=lambda r: _rank_key(r, full_ft)):
        o = record.option
        # The same setup reached two ways (more GPUs of the user's type that is also the cheapest
        # comfortable one) is listed once, under its better-ranked reason.
        ident = (o["gpu"], o["count"], o.get("method"), o.get("precision"), o.get("kv_precision"),
                 o.get("concurrency"), o.get("context"), o.get("batch_size"))
        if ident in seen or (not o["fits"] and o["option"] != "compare"):
            continue
        if o["option"] == "comfortable" and o.get("tight"):
            continue  # "the cheapest setup with room to spare" at under 10% free is no such setup
        seen.add(ident)
        out.append(Recommendation(
            rank=len(out) + 1, kind=o["option"], gpu=o["gpu"], count=o["count"], method=o.get("method"),
            precision=o.get("precision") or (f"kv {o['kv_precision']}" if o.get("kv_precision") else None),
            plan=o.get("plan"), strategy=o.get("strategy"), batch_size=o.get("batch_size"),
            accumulation=o.get("accumulation"), fits=o["fits"], tight=o.get("tight", False), need_gb=o["need_gb"],
            have_gb=o["have_gb"], rated_gb=o.get("rated_gb"), headroom_pct=o["headroom_pct"], hours=o.get("hours"), cost=o.get("cost"),
            cost_per_hour=o.get("cost_per_hour"),
            currency=o.get("currency"), why=record.why, rule=record.rule,
        ))
        if len(out) == MAX_RECOMMENDATIONS:
            break
    return out


# -- questions ------------------------------------------------------------------------------------------

# Details of a training plan: they move the estimate by tens of percent, never by a factor of two.
_DETAIL_QUESTIONS = frozenset({"selection.ask-training-precision", "selection.ask-optimizer"})
_FAR_OFF = 2.0
_ROOMY_PCT = 40.0


# Asks about fitting or choosing hardware for a job: only they get sizing options and sizing questions.
SIZING_ASKS = frozenset({"fit", "select", "open"})
_SIZING_TOPICS = frozenset({"memory", "parallelism", "precision"})
# Questions that size a job, and the slot each asks for (never asked when the message gave it).
_SIZING_QUESTIONS = {
    "selection.ask-workload": ("workload",), "selection.ask-model-size": ("params_b", "model"),
    "selection.ask-training-precision": ("precision",), "selection.ask-optimizer": ("optimizer",),
    "benchmark.ask-request-mode": ("request_mode", "concurrency"),
    "benchmark.ask-concurrency": ("concurrency",), "training.checklist-goal": ("method",),
    "training.checklist-model-size": ("params_b", "model"), "training.checklist-accelerator": ("gpu",),
}
_DRIVER_FREE_VERDICTS = frozenset({"verdict.cuda-drops-gpu"})


# Words saying the cards are rented from someone else's cloud or platform: where they run is the
# provider's business, so "where will the GeForce cards run?" is a question about what was given.
_RENTED_WORDS = re.compile(r"\brent(?:s|ed|ing|al)?\b|\bcloud\b|\bon[\s-]demand\b|\bspot\b|\bmarketplace\b"
                           r"|租|云|按量|算力平台|平台", re.IGNORECASE)
# Words saying the job serves requests: "training or inference?" is answered by them.
_SERVING_WORDS = re.compile(r"\bserv(?:e|es|ed|ing)\b|\b[0-9.]+\s*b\b[^.?]{0,20}?\b(?:inference\s+)?server\b|\b(?:inference|model|llm|chat)\s+server\b|\bchat(?:bot)?s?\b|\bonline\s+service|\bconcurren\w*|\bqps\b"
                            r"|\brps\b|\bendpoint|\binference\b|\blatency\b|\bttft\b|\btokens?/s\b|\busers\b"
                            r"|\bapis?\b|\bassistants?\b|\bdeploy\w*|\bhost(?:s|ed|ing)?\s+(?!(?:driver|runs?|has|is)\b)"
                            r"|上线|客服|推理|在线服务|并发|对外服务|部署|延迟|首字|问答|助手|接口|机器人", re.IGNORECASE)
# Words asking how fast the service runs: how requests arrive changes what to measure only for them.
_LOAD_WORDS = re.compile(r"\blatenc\w*|\bthroughput\b|\bttft\b|\btpot\b|\btokens?/s|\bbenchmark\w*|\bmlperf\b|\bqps\b"
                         r"|延迟|吞吐|首字|基准|压测|每秒", re.IGNORECASE)
# "one request", "一个请求": the load is given, one sequence.
_ONE_REQUEST = re.compile(r"\b(?:one|a\s+single|a|per|each)\s+request\b|(?:一个|单个|每个)请求", re.IGNORECASE)
_LICENCE_WORDS = re.compile(r"licen[cs]|eula|data[\s-]?cent(?:er|re)|colo\b|授权|许可|合规|数据中心|机房", re.IGNORECASE)
# A licence question about GeForce cards matters to an ask that puts them in a plan.
_LICENCE_ASKS = frozenset({"fit", "select", "compat"})


def _serves(req: Requirement) -> bool:
    """The message says the job serves requests (a concurrency, a request mode or serving words)."""
    return (req.workload is not None or req.concurrency is not None or req.request_mode is not None
            or any(_SERVING_WORDS.search(a.text) for a in req.asks))


def _geforce_in_plan(result: EngineResult, req: Requirement, kinds: Set[str]) -> bool:
    """Whether "where will the GeForce cards run?" can change the answer: an ask that plans hardware or
    asks about the licence, cards the user runs themselves (not rented from a cloud or platform), and
    a GeForce card the answer still offers (one that holds the job, where the job was sized)."""
    if not kinds & _LICENCE_ASKS or any(_RENTED_WORDS.search(a.text) for a in req.asks):
        return False
    if reads_paste(req) and not any(_LICENCE_WORDS.search(a.text) for a in req.asks):
        return False  # the cards pasted are running already: where they run is no question of this diagnosis
    consumer = {f.data.get("gpu") for f in result.facts.values() if f.kind == "consumer_gpu"}
    sized = [f.data for f in result.facts.values() if f.kind == "option" and f.data.get("gpu") in consumer]
    # the user's own setup (or the one compared) decides where they gave one ("one card only": four of
    # them are no plan of theirs)
    stated = [o for o in sized if o.get("option") in ("stated", "compare")]
    return not sized or any(o.get("fits") for o in stated or sized)


def _slot_given(req: Requirement, slots: tuple[str, ...]) -> bool:
    return any(getattr(req, slot, None) not in (None, [], "") for slot in slots) or ("gpu" in slots and _gpu_given(req))


def _gpu_given(req: Requirement) -> bool:
    """A GPU is given by name (also with a stated price or GPU-hours), as options, by an instance
    type, by a pasted nvidia-smi that lists it, or by the memory of the card ("is 24GB of VRAM enough…")."""
    pasted = req.pasted.report if req.pasted is not None else None
    return bool(req.gpu or req.gpu_options or req.instance or req.instance_options or (pasted is not None and pasted.gpus)
                or req.unknown_gpu or req.gpu_hours_gpu or any(c.gpu for c in req.costs)
                or any(q.role == "memory" for q in req.quantities))


# Rules about a plan's hardware (power and cooling of several cards, spec cards, the licence, training primers)
_PLAN_RULES = ("power.multi-", "power.consumer-", "power.datacenter-", "license.", "selection.", "training.")


# Host findings of a paste that bot.compose.diagnose reads back on each GPU's line (its meanings)
_READ_BACK = ("host.power-throttle", "host.thermal-throttle", "host.power-limit-low", "host.pcie-downgraded",
              "host.xid-", "host.volatile-dbe", "host.remap", "host.retire", "host.persistence-off")


def reads_paste(req: Requirement) -> bool:
    """The message diagnoses pasted readings (nvidia-smi, a kernel log) and sizes nothing."""
    return req.pasted is not None and bool(req.asks) and req.asks[0].kind == "diagnose" and not sizes_hardware(req)


def sizes_hardware(req: Requirement) -> bool:
    """Whether the message asks to fit or choose hardware for a job (or asks nothing typed)."""
    return not req.asks or any(a.kind in SIZING_ASKS for a in req.asks)


def _sizing_matters(slots: tuple[str, ...], req: Requirement, kinds: Set[str], wanted: Set[str]) -> bool:
    """A sizing question matters to a sizing ask whose slot the message did not give and the answer does
    not compute ("how many users can we hold?", "租什么卡合适？": the GPU is what is being chosen)."""
    if wanted & set(slots) or ("gpu" in slots and "select" in kinds):
        return False
    return not _slot_given(req, slots) and bool(kinds & SIZING_ASKS)


def _questions_that_matter(result: EngineResult, req: Requirement | None = None) -> list[str]:
    """The follow-up questions, without the plan details that cannot change a verdict this clear: a
    job that needs more than twice the memory it has does not fit whatever the optimizer; without
    sizing questions where nothing is being sized, version questions where nothing is about versions,
    and never a question whose slot the message already gave."""
    # Every recommended option is bound from an option fact, so the facts alone hold all stated options.
    stated = [f.data for f in result.facts.values() if f.kind == "option" and f.data.get("option") == "stated"]
    far_off = any(not o["fits"] and o["need_gb"] > _FAR_OFF * o["have_gb"] for o in stated)
    # a plan with this much memory to spare fits whatever the batch size or optimizer turns out to be
    far_off = far_off or (bool(stated) and all(o["fits"] and o.get("headroom_pct", 0) >= _ROOMY_PCT for o in stated))
    rules = result.question_rules or [""] * len(result.questions)
    kinds = {a.kind for a in req.asks} if req is not None else set()
    wanted = {slot for a in req.asks for slot in a.wants} if req is not None else set()
    primary = next((i for i, a in enumerate(req.asks) if a.text.strip()), 0) if req is not None else 0
    # a verdict no driver version changes (the CUDA release dropped this GPU's generation)
    decided = any(v.rule in _DRIVER_FREE_VERDICTS for v in result.verdicts)

    def matters(rule: str) -> bool:
        if far_off and rule in _DETAIL_QUESTIONS:
            return False
        if req is None or not kinds:
            return True
        if req.asks[0].kind == "open":
            return False  # the default answer asks its own two questions
        if rule == "license.ask-deployment":
            return _geforce_in_plan(result, req, kinds)
        if rule == "selection.ask-workload" and _serves(req):
            return False  # "serve", "chat", "QPS", "上线": the message says inference
        if rule in _DETAIL_QUESTIONS and req.asks[primary].kind not in ("fit", "select"):
            return False  # precision, optimizer and batch size do not change a price, link or diagnosis
        if rule == "benchmark.ask-request-mode" and not any(_LOAD_WORDS.search(a.text) for a in req.asks):
            return False  # a memory fit or a price: how requests arrive changes what to measure, not this
        if rule == "benchmark.ask-concurrency" and (req.asks[primary].kind == "price"
                                                     or any(_ONE_REQUEST.search(a.text) for a in req.asks)):
            return False
        if rule == "cuda.ask-driver" and decided:
            return False  # "CUDA 13 does not support this GPU": no driver changes that
        if rule in _SIZING_QUESTIONS:
            return _sizing_matters(_SIZING_QUESTIONS[rule], req, kinds, wanted)
        if versions_given(req, rule):
            return False  # "which driver?" after the message or its pasted nvidia-smi said it
        gate = GATES.get(rule)  # version questions, billing-mode questions: each matters to its own asks
        return gate(req) if gate is not None else True

    return [q for q, rule in zip(result.questions, rules, strict=True) if matters(rule)]


# -- verdict ------------------------------------------------------------------------------------------

_ALSO = {
    "en": {"fit": " {options} fit on it.", "fits": " {options} fits on it.", "or": " or ", "gb": "{name} (≈{gb:.0f} GB)"},
    "zh": {"fit": "改用 {options} 即可放下。", "fits": "改用 {options} 即可放下。", "or": " 或 ", "gb": "{name}（约 {gb:.0f} GB）"},
}
_METHOD_NAMES = {"en": {"lora": "LoRA", "qlora": "QLoRA"}, "zh": {"lora": "LoRA", "qlora": "QLoRA"}}


def plan_label(strategy: str | None, count: int | None, language: str, fallback: str | None = None) -> str | None:
    """'ZeRO-3 / FSDP over 16 GPUs', '张量并行 x4' in the user's language."""
    zh = language == "zh"
    n = count or 1
    if strategy == "single":
        return "单卡" if zh else "single GPU"
    if strategy in ("zero1", "zero2", "zero3"):
        name = {"zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3 / FSDP"}[strategy]
        return f"{name} 分片，{n} 卡" if zh else f"{name} over {n} GPUs"
    if strategy in ("zero2-offload", "zero3-offload"):
        if n == 1:
            return "优化器卸载到 CPU（ZeRO-Offload），单卡" if zh else "optimizer offloaded to CPU (ZeRO-Offload), single GPU"
        stage = strategy[4]
        return f"ZeRO-{stage} + 优化器卸载到 CPU，{n} 卡" if zh else f"ZeRO-{stage} with the optimizer offloaded to CPU over {n} GPUs"
    if strategy == "tp":
        return f"张量并行 x{n}" if zh else f"tensor parallel x{n}"
    if strategy == "tp-pp":
        return (f"张量并行 x8 × 流水线并行 x{n // 8}" if zh else f"tensor parallel x8 x pipeline parallel x{n // 8}")
    return None if zh else fallback


def option_name(rec: Recommendation, language: str) -> str:
    """'LoRA', 'int8 weights', 'fp8 KV cache', '8 requests at a time' in the user's language."""
    zh = language == "zh"
    if rec.kind == "method":
        return _METHOD_NAMES[language if language in _METHOD_NAMES else "en"].get(rec.method or "", rec.method or "")
    if rec.kind == "precision":
        return f"{rec.precision} 权重" if zh else f"{rec.precision} weights"
    if rec.kind == "kv-cache":
        if rec.precision == "fp8":  # weights and cache both in fp8 (bot.advice.options.stated_options)
            return "fp8 权重 + fp8 KV 缓存" if zh else "fp8 weights + an fp8 KV cache"
        return "fp8 KV 缓存" if zh else "an fp8 KV cache"
    if rec.kind == "batch":
        return (f"micro-batch {rec.batch_size} × 梯度累积 {rec.accumulation}" if zh else
                f"micro-batch {rec.batch_size} x {rec.accumulation} accumulation steps")
    if rec.kind == "more-gpus":
        return f"{rec.count} 张 {rec.gpu}" if zh else f"{rec.count} x {rec.gpu}"
    if rec.kind == "strategy" and (rec.strategy or "").endswith("offload"):
        return "优化器 ZeRO-Offload 到 CPU" if zh else "ZeRO-Offload of the optimizer to CPU"
    if rec.kind == "strategy":
        return "同样卡上的 ZeRO-3 / FSDP" if zh else "ZeRO-3 / FSDP on the same GPUs"
    return f"{rec.count} x {rec.gpu}"


def _second(text: str, language: str) -> str:
    """'No — X' -> 'Also, X' for a second blocker."""
    for lead, also in (("No — ", "Also, "), ("Not ", "Also not "), ("不行——", "另外，")):
        if text.startswith(lead):
            rest = text[len(lead):]
            return also + (rest[:1].lower() + rest[1:] if also.endswith(", ") else rest)
    return text


# Verdicts that answer "does it fit / what fits": they lead only where the message asks to size a job.
_SIZING_VERDICT = re.compile(r"^verdict\.(?:does-not-fit|fits|cheapest-setup|how-many|context-|unknown-gpu-|compare-(?:only|none|roomier))")


def is_sizing_verdict(rule: str) -> bool:
    """Whether a verdict answers "does it fit / what fits" (a fit or choice part can be answered by it)."""
    return bool(_SIZING_VERDICT.match(rule))


# The verdict families that answer each kind of ask, where one of them fired.
_PREFERRED_VERDICTS = {
    "compat": re.compile(r"^verdict\.(?:license|driver|cuda|toolkit|fp8|bf16|no-kernel)"),
    "diagnose": re.compile(r"^verdict\.(?:xid|health|memory-errors|remap|host|no-kernel)"),
    "cost": re.compile(r"^verdict\.(?:cheapest-quote|subscription|compare-cheaper|one-quote|within-budget|over-budget"
                       r"|cheaper-per-hour|cheapest-setup-priced|billing|spot|compare-providers-priced)"),
}


# Verdicts that forbid the plan whatever fits (the GeForce licence in a data centre): they keep the lead.
_BLOCKS = re.compile(r"^verdict\.license-")
# Verdicts that only ask for something: never preferred over one that answers.
_ONLY_ASKS = re.compile(r"^verdict\.(?:ask-|need-model-size|recommend-needs-workload|topic-general)")


def _verdict(result: EngineResult, recommendations: list[Recommendation], language: str,
             req: Requirement | None = None) -> Verdict | None:
    if not result.verdicts:
        return None
    verdict = result.verdicts[0]
    preferred = _PREFERRED_VERDICTS.get(req.asks[0].kind) if req is not None and req.asks else None
    chosen = next((v for v in result.verdicts if preferred.match(v.rule)), None) if preferred else None
    if chosen is not None:
        # "授权有问题吗" on a message that also mentions a fee: the licence verdict answers the ask.
        verdict = chosen
    elif req is not None and not sizes_hardware(req):
        # "Will 100GbE hurt?" on a plan that also fits tightly: the network verdict answers what was asked.
        verdict = next((v for v in result.verdicts if not _SIZING_VERDICT.match(v.rule)
                        and not _ONLY_ASKS.match(v.rule)), verdict)
    elif req is not None and req.asks and req.asks[0].kind in ("fit", "select") and not _BLOCKS.match(verdict.rule):
        # "It OOMs — will it fit with checkpointing?", "FP8 on 2 H100s: how many users?": the fit verdict
        # answers, not the symptom or precision verdict the same words also trigger.
        verdict = next((v for v in result.verdicts if _SIZING_VERDICT.match(v.rule)), verdict)
    also_no = next((v for v in result.verdicts[1:] if verdict.answer == v.answer == "no" and v.rule != verdict.rule), None)
    if verdict.answer in ("no", "tight"):
        changes = [r for r in recommendations if r.kind in ("batch", "strategy", "method", "precision", "kv-cache")
                   and not r.tight]
        if req is not None and req.gpu:  # "fits on it": a change on the stated count, not on more GPUs
            changes = [r for r in changes if r.count == (req.gpu_count or 1)]
        if req is not None and req.method == "full" and any(r.kind == "strategy" for r in changes):
            changes = [r for r in changes if r.kind != "method"]  # full fine-tuning asked: the same job first
        changes = changes[:2]
        if changes:
            words = _ALSO.get(language, _ALSO["en"])
            names = [words["gb"].format(name=option_name(r, language), gb=r.need_gb) for r in changes]
            verdict = verdict.model_copy(update={
                "text": f"{verdict.text}{words['fit' if len(names) > 1 else 'fits'].format(options=words['or'].join(names))}"})
    if also_no is not None:
        # Two blockers (too big, and a GeForce card in a data centre): both are the answer.
        joined = f"{verdict.text}{'' if language == 'zh' else ' '}{_second(also_no.text, language)}"
        verdict = verdict.model_copy(update={"text": joined, "because": [*verdict.because, *also_no.because]})
    return verdict


def with_parse(answer: Answer, stated) -> Answer:
    """The answer with the question's parse attached, and the parser's notices (names it does not
    know) first among the follow-up questions, still at most MAX_QUESTIONS."""
    # a provider the price answer already said the table lacks ("no AutoDL prices in the catalog") is no question
    said = {str(a.figures.get("missing_provider")).lower() for a in answer.answers if a.figures.get("missing_provider")}
    req = answer.requirement  # an unknown provider's billing: a question only where money or billing is asked
    billed = not req.asks or any(a.kind in ("price", "cost") for a in req.asks) or req.billing is not None \
        or bool(set(req.topics) & {"billing", "spot", "quota"})
    notices = [n for n in stated.notices(billed) if not any(name in n.lower() for name in said)]
    questions = list(dict.fromkeys([*notices, *answer.questions, *answer.more_questions]))
    limit = question_limit(answer.requirement)
    return answer.model_copy(update={"parse": stated.summary(), "questions": questions[:limit],
                                     "more_questions": questions[limit:]})
