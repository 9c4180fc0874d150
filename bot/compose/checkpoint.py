"""Spot notices and checkpoint intervals ("会提前通知吗？提前多久？checkpoint 怎么做", "how often should
we checkpoint?"): the provider's notice, the interval by Young's approximation from the user's
numbers (or stated defaults), the restart scope across nodes, and where and how to save.

Reached from the explain composer (these parts carry explanation cues), before its generic
findings; returns None for a part that asks neither about a notice nor about checkpointing.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.diagnostics import checkpoint as calc
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.nlu.quantity_notes import first

SPOT = re.compile(r"spot|preempt|interrupt|evict|reclaim|抢占|竞价|回收|中断|可中断", re.IGNORECASE)
_CHECKPOINT = re.compile(r"check[\s-]?point|ckpt|检查点|断点|存档|续训|接住|不丢进度|丢进度", re.IGNORECASE)
_NOTICE = re.compile(r"notice|warning|heads[\s-]?up|advance|ahead|提前|通知|多久知道|预警", re.IGNORECASE)
_INTERVAL = re.compile(r"how\s+often|interval|frequency|every\s+how|多久(?:存|保存|做|打)|多长时间(?:存|保存)|频率|间隔"
                       r"|怎么做|怎么办|怎么接|接住|不丢进度|怎么存|怎么保存|怎么打|how\s+(?:do|should)\s+(?:we|i)\s+(?:checkpoint|save|handle|resume)",
                       re.IGNORECASE)
_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_WRITE = re.compile(rf"(?:check[\s-]?point(?:s|ing)?|ckpts?|saves?|saving|writes?|writing)\b[^.,;?]{{0,24}}?"
                    rf"(?:takes?|took|needs?|is|of|~|about)(?:\s+us)?\s*(?:roughly|about|around|approx\w*|nearly|almost)?\s*~?\s*"
                    rf"{_NUM}\s*(s|sec\w*|min\w*|m)\b"
                    rf"|(?:保存|存|写)[^，。,；;？?\d]{{0,16}}?(?:要|需要|耗时|大约|约|大概|差不多|得|花|用时|需)+\s*(?:了\s*)?~?\s*{_NUM}\s*(秒|分钟|分)",
                    re.IGNORECASE)
_EVERY = re.compile(rf"(?:interrupt\w*|preempt\w*|reclaim\w*|evict\w*)\s+(?:about\s+|roughly\s+|around\s+|approximately\s+)?(?:~\s*)?(?:once\s+)?"
                    rf"every\s+~?\s*{_NUM}\s*(h|hrs?|hours?|min\w*|d|days?)\b"
                    rf"|(?:平均)?每\s*{_NUM}\s*(小时|天)\s*(?:左右)?\s*(?:被)?(?:回收|中断|抢占)(?:一次)?", re.IGNORECASE)
# "what should the trainer do?", "被回收了怎么办？", "值不值得": the handling asked, so the notice and the schedule
_HANDLE = re.compile(r"怎么办|咋办|咋整|怎么整|怎么处理|怎么应对|值不值|值得|划算|what\s+(?:do|should)\s+(?:we|i|the\s+\w+)\s+do|handl(?:e|ing)|\bdeal\s+w(?:ith)?\b"
                     r"|worth\s+it|how\s+(?:do|should)\s+(?:we|i)\s+(?:deal|cope|survive)"
                     # "what happens when it gets reclaimed?", "what if we're preempted mid-run?"
                     r"|what\s+(?:happens|if|then)\b[^?.]{0,40}?\b(?:reclaim|preempt|interrupt|evict)\w*"
                     r"|(?:reclaim|preempt|interrupt|evict)\w*[^?.]{0,20}?\bwhat\s+(?:then|happens)", re.IGNORECASE)
# "断了之后怎么续上，别丢进度", "how do we resume without losing progress": carrying on asks for the schedule
_CARRY_ON = re.compile(r"怎么续|怎么恢复|怎么接住|(?:不|别)丢进度|\bresum\w*|without\s+losing", re.IGNORECASE)
_TOTAL = re.compile(r"\bin\s+total\b|\btotal\b|\ball\s+told\b|总共|一共|合计|共\s*[0-9]", re.IGNORECASE)
_MULTI_NODE = re.compile(r"multi[\s-]?node|多机|多节点|跨机", re.IGNORECASE)
# "4 nodes", "2 p5 nodes", "3 台": the count, never the digit of an instance family ("p5 nodes" is not 5)
_NODES = re.compile(rf"(?<![a-z0-9.]){_NUM}\s*(?:[a-z][a-z0-9.-]*\s+)?(?:nodes?\b|台|机(?![器房型柜架]))", re.IGNORECASE)
# Instance families that only AWS sells, for "4 nodes of p5" without the provider named.
_AWS_FAMILY = re.compile(r"\b(?:p4de?|p5e?n?|p6|g5|g6e?|trn1|ec2)\b", re.IGNORECASE)
_PROVIDER_WORDS = (("aws", re.compile(r"\baws\b|amazon", re.I)), ("gcp", re.compile(r"\bgcp\b|google|谷歌", re.I)),
                   ("azure", re.compile(r"azure|微软", re.I)), ("aliyun", re.compile(r"aliyun|alibaba|阿里", re.I)))


def compose(ask: Ask, ctx: ComposeContext, pitfalls: bool = False) -> AskAnswer | None:
    """`pitfalls`: "spot 有什么坑": the notice and the checkpoint plan, both, as spot's pitfalls. Spot for an
    inference job is answered in serving terms (bot.compose.checkpoint_serving), not with a schedule."""
    return _serving(ask, ctx, pitfalls) or _training(ask, ctx, pitfalls)


def _serving(ask: Ask, ctx: ComposeContext, pitfalls: bool) -> AskAnswer | None:
    from bot.compose.checkpoint_serving import serving
    text, whole = ask.text, ctx.question or ask.text
    spot = ctx.requirement.billing == "spot" or bool(SPOT.search(whole))
    if not spot or _WHOLE_JOB.search(text) or not (pitfalls or any(_wants(text, spot))):
        return None
    return serving(ask, ctx, provider_named(ctx, whole))


def _training(ask: Ask, ctx: ComposeContext, pitfalls: bool) -> AskAnswer | None:
    text, whole = ask.text, ctx.question or ask.text
    spot = ctx.requirement.billing == "spot" or bool(SPOT.search(whole))
    wants_notice, wants_interval = (spot, spot) if pitfalls else _wants(text, spot)
    whole_job = spot and bool(_WHOLE_JOB.search(text))  # "if one node is reclaimed, does the whole job die?"
    wants_interval = wants_interval or whole_job
    wants_notice = wants_notice or (spot and bool(_REBALANCE.search(text)))
    if not (wants_notice or wants_interval):
        return None
    lang = ctx.language
    provider = provider_named(ctx, whole)
    notice = calc.notices().get(provider) if provider else None
    sources: list[str] = []
    if wants_notice:
        lead, sources = _notice_line(notice, lang, calc.unpublished().get(provider or ""))
        details = [] if notice is None else [say("checkpoint.on_notice_short", lang, notice=_duration(notice.notice_s, lang))]
        rule = "checkpoint.spot-notice"
        if wants_interval:
            interval_lead, interval_details, plan = _interval(ctx, whole, notice, lang)
            details = [interval_lead, *interval_details, *details]
            sources += calc.SOURCES
        if provider == "aliyun":  # the hour it is held for, before any notice can come
            details.insert(0, say("checkpoint.protection_aliyun", lang))
            sources.append("aliyun-preemptible-protection")
        figures = {"notice_s": notice.notice_s if notice else None}
        if wants_interval:
            figures["overhead_pct"] = round(plan.overhead_fraction * 100)
    else:
        lead, details, plan = _interval(ctx, whole, notice, lang)
        told = any(a.start != ask.start and _NOTICE.search(a.text) for a in ctx.requirement.asks)
        if notice is not None and not told:  # another part asked for the notice: said there
            details.append(_on_notice(notice, lang))
            sources = list(notice.sources)
        sources = [*calc.SOURCES, *sources]
        rule = "checkpoint.young-interval"
        figures = {"interval_minutes": round(plan.interval_minutes), "overhead_pct": round(plan.overhead_fraction * 100)}
    if whole_job:  # asked outright: the yes and the restart scope first among the details
        lead, details = _whole_job(ctx, text, whole, lead, details, wants_notice)
        sources.append("pytorch-elastic")
    if _REBALANCE.search(ask.text) and provider in (None, "aws"):
        # "we got a rebalance recommendation, what is it?": that signal first, the notice and schedule after it
        lead, details = say("checkpoint.rebalance", lang), [lead, *details]
        sources.append("aws-rebalance-recommendations")
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule=rule,
                     sources=list(dict.fromkeys([*sources, "rental-selection-guide"])), figures=figures)


_REBALANCE = re.compile(r"rebalanc\w*", re.IGNORECASE)


def _whole_job(ctx: ComposeContext, text: str, whole: str, lead: str, details: list[str],
               wants_notice: bool) -> tuple[str, list[str]]:
    """"If one node is reclaimed, does the whole job die?": Yes (or "No, the others do not carry on"),
    with the restart scope of the nodes stated and the elastic restart; first among the details where
    the notice leads, else the lead, the schedule after it."""
    lang = ctx.language
    generic = say("checkpoint.scope_multi_generic", lang)
    scope = _scope_line(ctx, whole, max(1, _numbers(ctx, whole).get("nodes", 1)), lang) or generic
    rest = [d for d in details if d != scope]
    elastic = [] if scope == generic else [say("checkpoint.whole_job_elastic", lang)]
    scope = scope[0].lower() + scope[1:] if lang != "zh" else scope
    answer = say("checkpoint.whole_job_no" if _CARRY.search(text) else "checkpoint.whole_job_yes", lang, scope=scope)
    if wants_notice:
        return lead, [answer, *elastic, *rest]
    return answer, [*elastic, lead, *rest]
# "do the other two keep training?": asked the other way round, so the answer is No
_CARRY = re.compile(r"keep|carry|continue|survive|继续|接着", re.IGNORECASE)
# "does the whole job die?", "有一台被回收整个任务是不是就挂了": one node's loss and the job across the nodes
_WHOLE_JOB = re.compile(r"whole\s+(?:job|run|training)|entire\s+(?:job|run|training)|all\s+(?:the\s+)?(?:other\s+)?(?:nodes|ranks|gpus)"
                        r"|(?:job|run|training)\s+(?:die|dies|crash\w*|stop\w*|fail\w*|hang\w*)"
                        r"|(?:the\s+)?(?:rest|others?|other\s+\w+)\s+(?:\w+\s+)?(?:keep|carry|continue|survive)"
                        r"|整个(?:任务|作业|训练|job)|全部(?:挂|停|重启)|都(?:挂|停|会停)|其余(?:节点|机器)?.{0,6}(?:继续|接着)|是不是就挂",
                        re.IGNORECASE)



def _wants(text: str, spot: bool) -> tuple[bool, bool]:
    """(the notice, the checkpoint schedule): what a part asks for."""
    handling = spot and bool(_HANDLE.search(text))
    notice = (bool(_NOTICE.search(text)) or handling) and spot
    interval = (bool(_INTERVAL.search(text)) and (bool(_CHECKPOINT.search(text)) or spot)) or handling
    interval = interval or (bool(_CHECKPOINT.search(text)) and not notice and spot)
    return notice, interval or (spot and bool(_CARRY_ON.search(text)))


def handling(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A spot question about handling reclaims ("被回收了怎么办？值不值得") read as a cost ask: the notice,
    the schedule and its overhead, which is what the worth of spot turns on; None for any other."""
    spot = ctx.requirement.billing == "spot" or bool(SPOT.search(ctx.question or ask.text))
    if not (spot and _HANDLE.search(ask.text)) or _weighed(ask.text):
        return None
    reply = compose(ask, ctx)
    share = _spot_share(ask, ctx)
    if reply is not None and share:  # "spot at ¥3.6/h … reclaimed, then what?": the rate against on-demand's
        reply = reply.model_copy(update={"details": [share, *reply.details]})
    if reply is None or ("overhead_pct" not in reply.figures and not _WORTH.search(ask.text)):
        return reply
    overhead = reply.figures.get("overhead_pct") or _overhead(reply)
    if _WORTH.search(ask.text) and overhead is not None:
        line = say("checkpoint.worth", ctx.language, overhead=f"{float(overhead):.0f}")
        reply = reply.model_copy(update={"details": [*reply.details, line]})
    return reply


_WORTH = re.compile(r"值不值|划算|worth", re.IGNORECASE)
# their own prices or discount ("spot at $1.20 vs $3.00", "40% cheaper"): the cost composer weighs them
_STATED_PRICE = re.compile(r"[$¥￥]\s*[0-9]|[0-9]\s*(?:元|块|美元|usd|cny|%|％)", re.IGNORECASE)


def _weighed(text: str) -> bool:
    """Prices the cost composer weighs: two or more stated, or a discount, or reclaims at a stated rate
    ("spot at $1.20 vs $3.00", "40% cheaper", "reclaimed every 6 h"); one rate said beside the reclaim
    question ("spot at ¥3.6/h, what if it's reclaimed?") is the setting of that question."""
    return len(_STATED_PRICE.findall(text)) > 1 or bool(re.search(r"[0-9]\s*[%％]", text)) or bool(_EVERY.search(text))


def _spot_share(ask: Ask, ctx: ComposeContext) -> str | None:
    """"¥3.60/h is 30% of the ¥12.00/h on-demand rate": the part's spot rate against an on-demand rate the
    message states in the same currency and unit, or None."""
    from bot.messages.format import money
    spot = next((q for q in ctx.requirement.quantities if q.kind == "money" and q.role == "quote" and q.option == "spot"
                 and q.per in ("gpu-hour", "instance-hour") and ask.start <= q.start < ask.end), None)
    # the on-demand rate of the message's stated costs (another labelled part's numbers are not this part's quantities)
    base = next((c for c in ctx.requirement.costs if spot is not None and c.billing == "on-demand" and c.hourly_rate
                 and c.currency == spot.currency and c.per_gpu == (spot.per == "gpu-hour")), None)
    if spot is None or base is None or not base.hourly_rate or spot.value >= base.hourly_rate:
        return None
    lang = ctx.language
    return say("checkpoint.spot_share", lang, spot=money(spot.value, spot.currency or "USD", lang),
               base=money(base.hourly_rate, base.currency or "USD", lang), pct=f"{spot.value / base.hourly_rate * 100:.0f}")


def _overhead(reply: AskAnswer) -> int | None:
    m = re.search(r"([0-9]+)\s*%", " ".join([reply.lead, *reply.details]))
    return int(m.group(1)) if m else None


def provider_named(ctx: ComposeContext, text: str) -> str | None:
    """The provider the requirement or the text names ("p5" is AWS), or None."""
    if ctx.requirement.provider:
        return ctx.requirement.provider
    for pid, pattern in _PROVIDER_WORDS:
        if pattern.search(text):
            return pid
    return "aws" if _AWS_FAMILY.search(text) else None


def _duration(seconds: int, lang: str) -> str:
    if seconds < 60:
        return say("checkpoint.seconds", lang, n=seconds)
    minutes = seconds // 60
    return say("checkpoint.minutes" if minutes <= 2 else "checkpoint.about_minutes", lang, n=minutes)


def _name(provider: str, lang: str) -> str:
    return say(f"checkpoint.provider_{provider}", lang)


def _notice_line(notice: calc.SpotNotice | None, lang: str,
                 unpublished: calc.SpotSignal | None = None) -> tuple[str, list[str]]:
    if unpublished is not None:  # the provider named sets no warning time: plan on none
        how = unpublished.how_zh if lang == "zh" else unpublished.how_en
        return (say("checkpoint.notice_unpublished", lang, provider=_name(unpublished.provider, lang), how=how),
                list(unpublished.sources))
    if notice is not None:
        how = notice.how_zh if lang == "zh" else notice.how_en
        return (say("checkpoint.notice_one", lang, provider=_name(notice.provider, lang),
                    notice=_duration(notice.notice_s, lang), how=how), list(notice.sources))
    every = calc.notices().values()
    items = ("、" if lang == "zh" else ", ").join(
        say("checkpoint.notice_item", lang, provider=_name(n.provider, lang), notice=_duration(n.notice_s, lang)) for n in every)
    return say("checkpoint.notice_all", lang, notices=items), [s for n in every for s in n.sources]


def _on_notice(notice: calc.SpotNotice, lang: str) -> str:
    return say("checkpoint.on_notice", lang, how=notice.how_zh if lang == "zh" else notice.how_en,
               notice=_duration(notice.notice_s, lang))


def _minutes(value: str, unit: str) -> float:
    unit = unit.lower()
    number = float(value)
    if unit.startswith(("s", "秒")):
        return number / 60
    if unit.startswith(("h", "小")):
        return number * 60
    if unit.startswith(("d", "天")):
        return number * 1440
    return number


# "our storage writes ~2 GB/s", "写盘 1.5 GB/s", "a 300 GB checkpoint": the write from its size and rate
_RATE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(GB|MB)\s*/\s*(?:s|sec|秒)\b", re.IGNORECASE)
_SIZE = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\s*(TB|GB)\b(?!\s*/)", re.IGNORECASE)
_CKPT_WORD = re.compile(r"check[\s-]?point|ckpt|检查点|存档", re.IGNORECASE)


def _write_from_rate(ctx: ComposeContext, text: str) -> tuple[float, tuple[float, float]] | None:
    """Minutes to write one checkpoint from a stated write rate and the checkpoint's stated size (else a
    full fine-tune's 14 bytes a parameter), with (GB, GB/s) it came from; None without a rate."""
    rate_m = _RATE.search(text)
    if rate_m is None:
        return None
    rate = float(rate_m.group(1)) / (1000 if rate_m.group(2).upper() == "MB" else 1)
    size = None
    for m in _SIZE.finditer(text):
        near = text[max(0, m.start() - 40):m.end() + 40]
        if _CKPT_WORD.search(near) and not (rate_m.start() <= m.start() < rate_m.end()):
            size = float(m.group(1).replace(",", "")) * (1000 if m.group(2).upper() == "TB" else 1)
            break
    req = ctx.requirement
    if size is None and req.params_b and req.method not in ("lora", "qlora"):
        size = req.params_b * STATE_BYTES_PER_PARAM
    if not size or rate <= 0:
        return None
    return size / rate / 60, (size, rate)


def _numbers(ctx: ComposeContext, text: str) -> dict:
    """The user's own figures: write time, the job's interruption interval, restart time, node count."""
    req = ctx.requirement
    quantities = req.quantities
    out: dict = {}
    if m := _WRITE.search(text):
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out["write"] = _minutes(value, unit)
    elif q := first(quantities, "save-minutes"):
        out["write"] = q.value
    elif (from_rate := _write_from_rate(ctx, text)) is not None:
        out["write"], out["write_from"] = from_rate
    if m := _EVERY.search(text):
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out["job_mtbi_h"] = _minutes(value, unit) / 60
    elif (q := first(quantities, "interruptions-per-day")) and q.value > 0:
        out["job_mtbi_h"] = 24 / q.value
    if q := first(quantities, "restart-minutes"):
        out["restart"] = q.value
    current = req.checkpoint_minutes
    if current and out.get("write") and abs(current - out["write"]) < 1e-9:
        current = None  # "a checkpoint takes 3 min" read as the interval
    out["current"] = current
    # the job's node count: the largest stated ("4 机多卡 … 有一台被回收": 4, not the one reclaimed)
    stated = [int(q.value) for q in quantities if q.role == "nodes"] + [int(float(m.group(1))) for m in _NODES.finditer(text)]
    if stated:
        out["nodes"] = max(stated)
    elif req.gpu_count and req.gpu_count > calc.GPUS_PER_NODE:
        out["nodes"] = -(-req.gpu_count // calc.GPUS_PER_NODE)
    return out


def _interval(ctx: ComposeContext, text: str, notice: calc.SpotNotice | None, lang: str):
    got = _numbers(ctx, text)
    nodes = max(1, got.get("nodes", 1))
    plan = calc.plan(got.get("write"), None, nodes, got.get("restart"), got.get("job_mtbi_h"), got.get("current"))
    write_note = "" if "write" in got else say("checkpoint.write_assumed", lang)
    if "write_from" in got:  # "a 300 GB checkpoint at 2 GB/s": the write said with where it came from
        size, rate = got["write_from"]
        write_note = say("checkpoint.write_from_rate", lang, gb=f"{size:,.0f}", rate=f"{rate:g}")
    if "job_mtbi_h" in got:
        mtbi_note = ""
    elif nodes > 1:
        mtbi_note = say("checkpoint.mtbi_per_node_assumed", lang, node=_num(plan.node_mtbi_hours), nodes=nodes)
    else:
        mtbi_note = say("checkpoint.mtbi_assumed", lang)
    if plan.restart_minutes:
        mtbi_note += say("checkpoint.restart_note", lang, restart=_num(plan.restart_minutes))
    interval = round(plan.interval_minutes)
    lead = say("checkpoint.interval_lead", lang, interval=interval, write=_num(plan.write_minutes), write_note=write_note,
               mtbi=_num(plan.job_mtbi_hours), mtbi_note=mtbi_note, mtbi_min=_num(plan.job_mtbi_hours * 60),
               overhead=round(plan.overhead_fraction * 100))
    details = []
    if plan.current_interval_minutes and plan.current_overhead_fraction is not None:
        key = "checkpoint.current_ok" if plan.current_overhead_fraction - plan.overhead_fraction < 0.01 else "checkpoint.current_change"
        details.append(say(key, lang, current=_num(plan.current_interval_minutes),
                           current_overhead=round(plan.current_overhead_fraction * 100), interval=interval,
                           overhead=round(plan.overhead_fraction * 100)))
    if (size := _state_line(ctx, notice, nodes, lang)) is not None:
        details.append(size)
    storage = (notice.storage_zh if lang == "zh" else notice.storage_en) if notice else say("checkpoint.storage_generic", lang)
    details.append(say("checkpoint.how", lang, storage=storage))
    if (scope := _scope_line(ctx, text, nodes, lang)) is not None:
        details.append(scope)
    return lead, details, plan


def _scope_line(ctx: ComposeContext, text: str, nodes: int, lang: str) -> str | None:
    """Across nodes: one node's loss restarts the whole job (with the GPUs where the count is known)."""
    if nodes > 1:
        req = ctx.requirement
        # "2 p5 nodes": the instance's GPUs are one node's, so the job has them on every node
        # "3 机 8 卡": a count no larger than one node's is each node's, unless written as the total
        per_node = (req.gpu_count if req.gpu_count and req.gpu_count <= calc.GPUS_PER_NODE
                    and (req.instance or not _TOTAL.search(text)) else None)
        gpus = per_node * nodes if per_node else (req.gpu_count or nodes * calc.GPUS_PER_NODE)
        return say("checkpoint.scope_multi", lang, nodes=nodes, gpus=gpus)
    return say("checkpoint.scope_multi_generic", lang) if _MULTI_NODE.search(text) else None


# A full fine-tune's checkpoint to resume from: bf16 weights, the fp32 master copy and Adam's two moments
# (2 + 12 bytes a parameter, the ZeRO paper's count; gradients are not saved).
STATE_BYTES_PER_PARAM = 14


def _state_line(ctx: ComposeContext, notice: calc.SpotNotice | None, nodes: int, lang: str) -> str | None:
    """For full training of a known size: the checkpoint's size and, beside a notice, the write rate
    each node needs to save its share (sharded) within the notice."""
    req = ctx.requirement
    if req.workload not in (None, "training") or req.method in ("lora", "qlora", "inference") or not req.params_b:
        return None
    if req.workload is None and req.method is None:
        return None
    gb = req.params_b * STATE_BYTES_PER_PARAM
    if notice is None:
        return say("checkpoint.state_size", lang, params=_num(req.params_b), gb=f"{gb:,.0f}")
    rate = f"{gb / nodes / notice.notice_s:.2f}".rstrip("0").rstrip(".")
    where = say("checkpoint.state_per_node", lang, nodes=nodes, share=f"{gb / nodes:,.0f}") if nodes > 1 else ""
    return say("checkpoint.state_size_notice", lang, params=_num(req.params_b), gb=f"{gb:,.0f}",
               notice=_duration(notice.notice_s, lang), rate=rate, where=where)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value < 10 else f"{value:,.0f}"
