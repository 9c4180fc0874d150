"""Plain-text rendering of an Answer, for the terminal."""

from __future__ import annotations

from bot.models import Answer

_LABELS = {
    "en": {
        "understood": "Understood", "assumptions": "Assumptions", "memory": "Memory estimate (GB)",
        "candidates": "Candidates", "fits": "fits", "no_fit": "does not fit", "headroom": "headroom",
        "costs": "Costs", "findings": "Findings", "questions": "To answer better, tell me",
        "because": "because", "sources": "sources", "rule_base": "rule base", "covers": "covers",
        "none": "No rule matched this question.",
    },
    "zh": {
        "understood": "理解的需求", "assumptions": "假设", "memory": "显存估算 (GB)",
        "candidates": "候选 GPU", "fits": "可容纳", "no_fit": "放不下", "headroom": "余量",
        "costs": "费用", "findings": "结论", "questions": "请补充以下信息",
        "because": "依据", "sources": "来源", "rule_base": "规则库", "covers": "包含",
        "none": "没有规则匹配这个问题。",
    },
}
_MARK = {"block": "[BLOCK]", "warn": "[WARN] ", "info": "[info] "}


def _time(candidate) -> str | None:
    if candidate.hours is not None:
        return f"~{candidate.hours:,.1f} h"
    if candidate.tpot_ms is not None:
        return f"~{candidate.tpot_ms:.0f} ms/token"
    return None


def render_text(answer: Answer, max_candidates: int = 8) -> str:
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
        lines += [f"  - {a}" for a in answer.estimate.assumptions]
    if answer.candidates:
        lines.append(f"{t['candidates']}:")
        for c in answer.candidates[:max_candidates]:
            verdict = t["fits"] if c.fits else t["no_fit"]
            extra = [x for x in (c.plan or c.strategy, _time(c)) if x]
            if c.interconnect_note:
                extra.append(c.interconnect_note)
            detail = f"; {'; '.join(extra)}" if extra else ""
            lines.append(f"  {c.count} x {c.gpu}: {verdict} (need {c.need_gb:.1f} / have {c.have_gb:.0f}, "
                         f"{t['headroom']} {c.headroom_gb:+.1f}{detail})")
        if len(answer.candidates) > max_candidates:
            lines.append(f"  … +{len(answer.candidates) - max_candidates}")
    if answer.costs:
        lines.append(f"{t['costs']}:")
        for c in answer.costs:
            gpu = f" [{c.gpu}]" if c.gpu else ""
            lines.append(f"  {c.label}{gpu}: {c.hourly_rate:g}/h x {c.hours:g} h = {c.total:g} {c.currency}")
    lines.append(f"{t['findings']}:")
    if not answer.findings:
        lines.append(f"  {t['none']}")
    for f in answer.findings:
        lines.append(f"  {_MARK[f.severity]} {f.message}")
        lines.append(f"      {f.rule} ({f.topic}); {t['because']}: {'; '.join(f.because)}")
        lines.append(f"      {t['sources']}: {', '.join(f.sources)}")
    if answer.questions:
        lines.append(f"{t['questions']}:")
        lines += [f"  ? {q}" for q in answer.questions]
    lines.append(f"({t['rule_base']} {answer.rule_base_version})")
    return "\n".join(lines)
