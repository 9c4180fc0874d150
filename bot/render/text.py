"""Plain-text rendering of an Answer, for the terminal."""

from __future__ import annotations

import re

from bot.advice.assemble import option_name, plan_label
from bot.advice.options import TIGHT_PCT, headroom_pct
from bot.advice.words import terms
from bot.knowledge import default_catalog
from bot.models import Answer
from bot.messages import say
from bot.messages.format import count, display_text, gpu_name, money
from bot.render.zh import localise

_LABELS = {
    "en": {
        "understood": "Understood", "assumptions": "Assumptions", "memory": "Memory estimate (GB)",
        "candidates": "Candidates", "fits": "fits", "no_fit": "does not fit", "headroom": "headroom",
        "costs": "Costs", "findings": "Findings", "questions": "To answer better, tell me",
        "because": "because", "sources": "sources", "rule_base": "rule base", "covers": "covers",
        "none": "No other finding (the verdict above is the answer).",
        "need": "need", "have": "have", "per_hour": "/h", "hours": "h", "verdict": "Verdict", "answers": "Answers",
        "origin_quote": "your quote", "origin_catalog": "price table", "origin_example": "example row, not a price",
    },
    "zh": {
        "understood": "理解的需求", "assumptions": "假设", "memory": "显存估算 (GB)",
        "candidates": "候选 GPU", "fits": "可容纳", "no_fit": "放不下", "headroom": "余量",
        "costs": "费用", "findings": "结论", "questions": "请补充以下信息",
        "because": "依据", "sources": "来源", "rule_base": "规则库", "covers": "包含",
        "none": "没有其他结论（以上面的结论为准）。",
        "need": "需要", "have": "共", "per_hour": "/小时", "hours": "小时", "verdict": "结论", "answers": "各问回答",
        "origin_quote": "你的报价", "origin_catalog": "价格表", "origin_example": "示例行，不是报价",
    },
}
_MARK = {"block": "[BLOCK]", "warn": "[WARN] ", "info": "[info] "}


def _brief_mark(severity: str, language: str) -> str:
    """A Watch-out line's marker in the answer's language ("[WARN]", "[警告]")."""
    return say(f"format.mark_{severity}", language)


def _time(candidate, language: str = "en") -> str | None:
    if candidate.hours is not None:
        return f"约 {candidate.hours:,.1f} 小时" if language == "zh" else f"~{candidate.hours:,.1f} h"
    if candidate.tpot_ms is not None:
        return f"约 {candidate.tpot_ms:.0f} 毫秒/token" if language == "zh" else f"~{candidate.tpot_ms:.0f} ms/token"
    return None


# "4.9e+02", "1.2E+06": a number in scientific notation, as a calculator's `:g` or `:.2g` wrote it.
# Not inside an id, a path or a hex run ("GPU-1e5-…", "sm_90a", "0x1e5").
_SCIENTIFIC = re.compile(r"(?<![\w.:/-])([0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+)(?!\w|\.\d|-\w)")


def plain_numbers(line: str) -> str:
    """A line with every number in scientific notation written out for people ('4.9e+02' -> '490')."""
    return _SCIENTIFIC.sub(lambda m: count(float(m.group(1))), line)


def render_text(answer: Answer, full: bool = False, max_candidates: int = 8) -> str:
    """The default answer (verdict, ranked options, key findings, at most three questions; at most
    MAX_LINES lines), or with `full` everything the rules and calculators produced."""
    if not full:
        return render_brief(answer)
    return render_full(answer, max_candidates)


def render_full(answer: Answer, max_candidates: int = 8) -> str:
    t = _LABELS.get(answer.language, _LABELS["en"])
    lines: list[str] = []
    req = {k: v for k, v in answer.requirement.model_dump().items() if v not in (None, [], {})}
    if req:
        lines.append(f"{t['understood']}: " + ", ".join(f"{k}={v}" for k, v in req.items()))
    if answer.gpu_family:
        lines.append(f"  {answer.requirement.gpu} {t['covers']}: {', '.join(answer.gpu_family)}")
    if answer.estimate.memory_gb:
        m = answer.estimate.memory_gb
        lines.append(f"{t['memory']}: {m.sum_text()} = {m.total:.1f}")
    if answer.estimate.assumptions:
        lines.append(f"{t['assumptions']}:")
        lines += [f"  - {localise(a, answer.language)}" for a in answer.estimate.assumptions]
    if answer.candidates:
        lines.append(f"{t['candidates']}:")
        for c in answer.candidates[:max_candidates]:
            verdict = t["fits"] if c.fits else t["no_fit"]
            extra = [localise(x, answer.language) for x in (c.plan or c.strategy, _time(c, answer.language)) if x]
            if c.interconnect_note:
                extra.append(localise(c.interconnect_note, answer.language))
            detail = f"; {'; '.join(extra)}" if extra else ""
            lines.append(f"  {c.count} x {c.gpu}: {verdict} ({t['need']} {c.need_gb:.1f} / {t['have']} {c.have_gb:.0f}, "
                         f"{t['headroom']} {c.headroom_gb:+.1f}{detail})")
        if len(answer.candidates) > max_candidates:
            lines.append(f"  … +{len(answer.candidates) - max_candidates}")
    if answer.costs:
        lines.append(f"{t['costs']}:")
        for cost in answer.costs:
            gpu = f" [{cost.gpu}]" if cost.gpu else ""
            note = f" ({localise(cost.note, answer.language)})" if cost.note else ""
            lines.append(f"  {cost.label}{gpu}: {count(cost.hourly_rate)}{t['per_hour']} x {count(cost.hours)} {t['hours']} = "
                         f"{cost.total:,.2f} {cost.currency}{note} [{t['origin_' + cost.origin]}]")
    if answer.verdict:
        v = answer.verdict
        lines.append(f"{t['verdict']}: {v.text}")
        lines.append(f"      {v.rule}; {t['because']}: {'; '.join(v.because)}")
        if v.sources:
            lines.append(f"      {t['sources']}: {', '.join(v.sources)}")
    if answer.answers:
        lines.append(f"{t['answers']}:")
        for reply in answer.answers:
            lines.append(f"  {reply.label + ' ' if reply.label else ''}{reply.lead}")
            lines += [f"      {d}" for d in reply.details]
            if reply.rule:
                lines.append(f"      {reply.rule}; {t['sources']}: {', '.join(reply.sources)}")
    lines.append(f"{t['findings']}:")
    if not answer.findings:
        lines.append(f"  {t['none']}")
    for f in answer.findings:
        lines.append(f"  {_MARK[f.severity]} {f.message}")
        lines.append(f"      {f.rule} ({f.topic}); {t['because']}: {'; '.join(f.because)}")
        lines.append(f"      {t['sources']}: {', '.join(f.sources)}")
    if answer.questions or answer.more_questions:
        lines.append(f"{t['questions']}:")
        lines += [f"  ? {q}" for q in answer.questions + answer.more_questions]
    lines.append(f"({t['rule_base']} {answer.rule_base_version})")
    return "\n".join(plain_numbers(line) for line in lines)


MAX_LINES = 20


_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "approx", "incl")


def _sentence_end(text: str, end: str) -> int:
    """Where the first sentence ends at `end` ("e.g. " and "vs. " do not end one)."""
    start = 0
    while (i := text.find(end, start)) != -1:
        if not any(text[:i].lower().endswith(a) for a in _ABBREVIATIONS):
            return i
        start = i + 1
    return -1


# What ends a sentence: a full stop, question or exclamation mark, each followed by a space in English.
_SENTENCE_ENDS = (". ", "? ", "! ", "。", "？", "！")


def _first_sentence(text: str) -> str:
    """One line of a finding or question: its whole first sentence, never cut mid-sentence (a reader
    of "…so…" cannot tell what was left out; the rest of the text is behind --full / "More")."""
    text = " ".join(text.split())
    ends = [i for i in (_sentence_end(text, end) for end in _SENTENCE_ENDS) if i > 0]
    return text[:min(ends) + 1].rstrip() if ends else text


_QUESTION_LINE = 200


def _question_line(question: str) -> str:
    """A follow-up question with the reason it gives, where both fit one line; else the question alone."""
    text = " ".join(question.split())
    return text if len(text) <= _QUESTION_LINE else _first_sentence(text)


def _memory_numbers(rec, language: str) -> list[str]:
    """'fits', 'tight' or 'does not fit', then '62/80 GB (22% free)'. Under TIGHT_PCT free is tight whoever
    built the recommendation (a composer's own pick carries need and have, not the flag): never "fits,
    47/47 GB (0% free)"."""
    pct = rec.headroom_pct
    if pct is None and rec.need_gb is not None and rec.have_gb:
        pct = headroom_pct(rec.need_gb, rec.have_gb)
    tight = rec.tight or (bool(rec.fits) and pct is not None and pct < TIGHT_PCT)
    numbers = [say("format.short" if rec.fits is False else ("format.tight" if tight else "format.fits"), language)]
    if rec.need_gb is not None and rec.have_gb is not None:
        used = f"{rec.need_gb:.0f}/{rec.rated_gb or rec.have_gb:.0f} GB"
        numbers.append((f"{used}（空余 {pct:.0f}%）" if language == "zh" else f"{used} ({pct:.0f}% free)")
                       if rec.fits and pct is not None else used)
    return numbers


def _missed(rec, language: str) -> list[str]:
    """What the setup misses of the deadline or budget the user stated (its judged objectives), said on its
    line: the user's own setup stays listed, marked, where it takes longer than they have."""
    out = []
    for check in getattr(rec, "objectives", None) or []:
        if check.met is False and check.objective == "deadline" and check.target:
            days = round(check.target / 24, 1)
            out.append(say("format.misses_deadline", language, days=f"{days:g}"))
        elif check.met is False and check.objective == "budget":
            out.append(say("format.over_budget", language))
    return out


def recommendation_line(rec, language: str) -> str:
    """'LoRA @ 1 x rtx-4090 (single GPU): fits, 17 of 24 GB (29% free), ~12 h, $1,234 — why' (ids become
    display names in `render_brief`; the rule is in --full and --json)."""
    zh = language == "zh"
    plan = plan_label(rec.strategy, rec.count, language, rec.plan)
    setup = f"{rec.count} 张 {rec.gpu}" if zh else f"{rec.count} x {rec.gpu}"
    if plan:
        setup += f"（{plan}）" if zh else f" ({plan})"
    if rec.kind in ("batch", "method", "precision", "kv-cache"):
        setup = f"{setup}，用 {option_name(rec, language)}" if zh else f"{option_name(rec, language)} @ {setup}"
    numbers = _memory_numbers(rec, language)
    if rec.hours is not None:
        numbers.append(f"约 {rec.hours:,.0f} 小时" if zh else f"~{rec.hours:,.0f} h")
    numbers += _missed(rec, language)
    if rec.cost is not None:
        numbers.append(money(rec.cost, rec.currency, language))
    elif rec.cost_per_hour is not None:
        numbers.append(f"{money(rec.cost_per_hour, rec.currency, language)}/{'小时' if zh else 'h'}")
    if zh:
        return f"{setup}：{'，'.join(numbers)} —— {rec.why}"
    return f"{setup}: {', '.join(numbers)} — {rec.why}"


def ask_lines(answer: Answer) -> list[str]:
    """Each ask's answer, in the order asked: its lead (labelled as the user labelled the part), then
    its details indented. The verdict leads instead where the primary ask's composer added nothing."""
    lines: list[str] = []
    # A paste's own ask (no words of its own) is not the primary one when a question follows it.
    primary = next((i for i, a in enumerate(answer.requirement.asks) if a.text.strip()), 0)
    if answer.verdict and not any(a.ask_index <= primary for a in answer.answers):
        first = answer.requirement.asks[0].label if answer.requirement.asks else None
        lines.append(f"{first} {answer.verdict.text}" if first and answer.answers else answer.verdict.text)
    # Several asks share MAX_LINES: each keeps its lead and as many details as its share allows.
    share = max(MIN_DETAILS, (MAX_LINES - 6) // len(answer.answers) - 1) if len(answer.answers) > 1 else MAX_LINES
    for reply in answer.answers:
        lead = f"{reply.label} {reply.lead}" if reply.label else reply.lead
        lines.append(lead)
        shown = _kept(reply.details, share, answer.language)
        lines += [f"  {d}" for d in shown]
        if len(reply.details) > len(shown):
            lines.append("  " + say("format.cut", answer.language, n=len(reply.details) - len(shown)))
    return [plain_numbers(line) for line in lines]  # the Slack card reads these lines too


MIN_DETAILS = 2


def _kept(details: list[str], share: int, language: str) -> list[str]:
    """The details a part shows in its share; a price's source line (where and when it was read, "confirm
    before buying") is kept in place of the last one cut, so no price is shown without it."""
    if len(details) <= share:
        return details
    source = say("price.source_catalog", language, name="\0", date="").split("\0")[0]
    last = next((d for d in reversed(details[share:]) if d.startswith(source)), None)
    return details[:share] if last is None or share < 1 else [*details[:share - 1], last]
# A warning whose words the answer above already says, this share of them or more, restates it. A
# Chinese one is read by character pairs, and the pairs that straddle two words ("可限" in "许可限制")
# match nothing whoever wrote them, so a smaller share of its pairs already says the same thing.
_RESTATED = 0.7
_RESTATED_CJK = 0.45
_CJK_PAIR = re.compile(r"^[\u4e00-\u9fff]{2}$")


def _restated_share(words: set[str]) -> float:
    pairs = sum(1 for w in words if _CJK_PAIR.match(w))
    return _RESTATED_CJK if pairs * 2 > len(words) else _RESTATED


# The verdicts that say the user's setup is short of the job, and the warnings that only say it again
# (the need against the memory, "check your framework's parallelism" for the sharded plans listed).
_SHORT_VERDICTS = frozenset({"verdict.does-not-fit", "verdict.does-not-fit-aside", "verdict.does-not-fit-usable",
                             "verdict.does-not-fit-usable-aside", "verdict.just-short"})
_RESTATE_A_SHORT_VERDICT = frozenset({"memory.single-gpu-too-small", "memory.planned-count-short",
                                      "selection.framework-parallelism"})


_NAME_TERMS: dict[int, frozenset[str]] = {}
_MIN_CONTENT = 3


def _content_terms(text: str, said: set[str]) -> set[str]:
    """A finding's terms less those of GPU names the lines above do not use, where enough are left to
    judge by: "GPU 0 (NVIDIA H100 80GB HBM3) is power-throttled" says what the line "GPU 0 (H100 SXM):
    HW power brake" says, whichever name each gives the card."""
    catalog = default_catalog()
    names = _NAME_TERMS.get(id(catalog))
    if names is None:
        names = frozenset().union(*(terms(" ".join([gpu_id, spec.name, spec.name_zh or "", spec.memory_type, *spec.aliases]))
                                    for gpu_id, spec in catalog.gpus.items()))
        _NAME_TERMS[id(catalog)] = names
    words = terms(text)
    content = words - (names - said)
    return content if len(content) >= _MIN_CONTENT else words


# "Xid 63", "Xid 48, 63", "Xid 48、63", "Xids 31 and 95": the Xid codes a line speaks of.
_XID_LIST = re.compile(r"\bXids?\s+(\d+(?:\s*(?:,|、|/|and|和)\s*\d+)*)", re.IGNORECASE)


def _xids(text: str) -> set[str]:
    return {code for m in _XID_LIST.finditer(text) for code in re.findall(r"\d+", m.group(1))}


_SAYS_SHORT = ("does not fit", "doesn't fit", "放不下", "装不下")


def watch_outs(answer: Answer, lines: list[str]) -> list:
    """The key findings worth a "Watch out" line under these answer lines: warnings and blocks (an
    info line is a primer, behind "More"; only a rule base without verdicts and answers shows them),
    each said once, and none that restates what the lines above already say."""
    said = {line.strip() for line in lines}
    said_terms = terms(" ".join(said))
    said_xids = _xids(" ".join(said))
    bare = answer.verdict is None and not answer.answers
    # the verdict, or a line above ("1× RTX 4090: does not fit, 37/24 GB"), already says a setup is short
    short = (answer.verdict is not None and answer.verdict.rule in _SHORT_VERDICTS) or any(
        w in line for line in said for w in _SAYS_SHORT)
    out, seen = [], set()
    for f in answer.findings:
        if f.tier != "key" or (f.severity == "info" and not bare):
            continue
        first = _first_sentence(f.message)
        if first in seen:
            continue
        if short and f.rule in _RESTATE_A_SHORT_VERDICT:
            continue  # "this GPU is too small / still short": the verdict's own numbers, said again
        if first in said or any(first in line for line in said):
            continue  # already given as an ask's answer
        if _xids(first) and _xids(first) <= said_xids:
            continue  # "Xid 63: ECC page retirement …" under an answer that already judged Xid 63
        words = _content_terms(first, said_terms)
        if words and len(words & said_terms) >= _restated_share(words) * len(words):
            continue
        seen.add(first)
        out.append(f)
    return _merge_named(out)


_GPU_NAMES: dict[int, re.Pattern] = {}


def _gpu_names() -> re.Pattern:
    """Every way an answer writes a GPU: its id, its catalog name with or without the brand, its
    Chinese name; the longest first, so "GeForce RTX 4090" is one name, not "RTX 4090" in it."""
    catalog = default_catalog()
    pattern = _GPU_NAMES.get(id(catalog))
    if pattern is None:
        names = {n for gpu_id, spec in catalog.gpus.items()
                 for n in (gpu_id, spec.name, spec.name_zh, gpu_name(catalog, gpu_id)) if n}
        names |= {f"{brand}{n}" for n in list(names) for brand in ("NVIDIA ", "GeForce ", "NVIDIA GeForce ")}
        pattern = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, sorted(names, key=lambda n: (-len(n), n)))) + r")(?![\w-])")
        _GPU_NAMES[id(catalog)] = pattern
    return pattern


def _merge_named(findings: list) -> list:
    """One line for a rule's warnings that differ only in the GPU they name and its numbers ("RTX 5090
    cannot be assumed …", "RTX 4090 cannot be assumed …"): the first, with each place that differs
    giving every value ("RTX 5090 / RTX 4090"); names and numbers the messages share stay as written."""
    pattern = _varying()
    groups: dict[tuple[str, str], list] = {}
    for f in findings:
        groups.setdefault((f.rule, pattern.sub("\0", _first_sentence(f.message))), []).append(f)
    out = []
    for (_, shape), group in groups.items():
        first = group[0]
        if len(group) > 1 and "\0" in shape:
            places = zip(*([m.group(0) for m in pattern.finditer(_first_sentence(f.message))] for f in group), strict=True)
            values = [" / ".join(dict.fromkeys(place)) for place in places]
            pieces = shape.split("\0")
            message = pieces[0] + "".join(value + piece for value, piece in zip(values, pieces[1:], strict=True))
            first = first.model_copy(update={"message": message})
        out.append(first)
    return out


def _varying() -> re.Pattern:
    """A GPU's name or a number: what one rule's warnings may differ in and still say one thing."""
    names = _gpu_names()
    cached = _VARYING.get(id(names))
    if cached is None:
        # a negative number keeps its sign ("余量 -103.2 / -119.2 GB", not "-103.2 / 119.2")
        cached = re.compile(f"{names.pattern}|(?<![\\w.])-?[0-9][0-9,.]*[0-9]|(?<![\\w.])-?[0-9](?![\\w])")
        _VARYING[id(names)] = cached
    return cached


_VARYING: dict[int, re.Pattern] = {}


def said_ranks(answer: Answer) -> set:
    """The ranks of the options an ask's answer already says (its lead, `leads_with_rank`, and the lines
    under it, `also_said_ranks` as "2 3", or its own words: bot.advice.option_scope) and those outside what
    the user stated: not listed again under "What to do"."""
    led = {a.figures.get("leads_with_rank") for a in answer.answers}
    for a in answer.answers:
        led |= {int(n) for n in str(a.figures.get("also_said_ranks") or "").split() if n.isdigit()}
    from bot.advice.option_scope import left_out_ranks  # said above in other words, or outside what was stated
    return led | left_out_ranks(answer)


def render_brief(answer: Answer) -> str:
    language = answer.language
    lines: list[str] = ask_lines(answer)
    # An option already given as an ask's answer is not listed again.
    led = said_ranks(answer)
    options = [r for r in answer.recommendations if r.rank not in led]
    if options:
        lines.append(say("format.options", language))
        # numbered as shown: the option a part already led with leaves no gap ("2." with no "1.")
        lines += [f"  {n}. {recommendation_line(r, language)}" for n, r in enumerate(options, start=1)]
    key = watch_outs(answer, lines)
    questions = answer.questions[:3]
    # Key findings get what the verdict, options, questions and the closing line leave of MAX_LINES.
    room = MAX_LINES - len(lines) - (1 + len(questions) if questions else 0) - 2
    shown = key[:max(room, 0)]
    if shown:
        lines.append(say("format.watch", language))
        lines += [f"  {_brief_mark(f.severity, language)} {_first_sentence(f.message)}" for f in shown]
    if questions:
        lines.append(say("format.ask", language))
        lines += [f"  ? {_question_line(q)}" for q in questions]
    # The pointer to --full only where it hides a warning this plan needs (one the room left out):
    # primers, spec cards and warnings the lines above already say are no reason to read on.
    if len(key) > len(shown):
        lines.append(say("format.more", language, n=len(key) - len(shown)))
    catalog = default_catalog()
    return "\n".join(plain_numbers(_in_chinese_names(display_text(line, catalog, language), language))
                     for line in _cut(lines, language))


def _cut(lines: list[str], language: str) -> list[str]:
    """The first MAX_LINES lines, without a section heading the cut left with nothing under it
    ("Watch out:" or "To sharpen this, tell me:" as the last line)."""
    headings = {say(key, language) for key in ("format.options", "format.watch", "format.ask")}
    kept = lines[:MAX_LINES]
    while kept and kept[-1] in headings:
        kept.pop()
    return kept


_ZH_NAMES: dict[int, tuple[re.Pattern, dict[str, str]]] = {}


def _in_chinese_names(line: str, language: str) -> str:
    """A Chinese line names a card with a Chinese name by it ("RTX 4090 48GB 魔改卡"), not by the
    English catalog name a rule wrote ("Modified RTX 4090 48GB (aftermarket)")."""
    if language != "zh":
        return line
    catalog = default_catalog()
    cached = _ZH_NAMES.get(id(catalog))
    if cached is None:
        names = {n: spec.name_zh for gpu_id, spec in catalog.gpus.items() if spec.name_zh
                 for n in (spec.name, gpu_name(catalog, gpu_id)) if n and n != spec.name_zh}
        pattern = re.compile("|".join(map(re.escape, sorted(names, key=lambda n: (-len(n), n)))) or "(?!)")
        cached = _ZH_NAMES[id(catalog)] = (pattern, names)
    pattern, names = cached
    return pattern.sub(lambda m: names[m.group(0)], line)
