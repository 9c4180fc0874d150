"""A stated per-card power cap or a form factor ("1U racks, <100W per card", "单卡功耗 75W 以内、半高单槽")
filters the cards before anything is picked: the pick is the fastest catalog card within the cap and
the form factor (board power and form factor from knowledge/gpus.yaml, NVIDIA's spec pages), the other
cards that fit follow with their numbers, and the usual defaults that do not fit are said with the
figure that rules them out. Embedding and reranker services are small encoder models: memory does not
decide there, the envelope does (issue #24)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.compose import ComposeContext
from bot.knowledge.models import GpuSpec
from bot.messages import say
from bot.messages.format import form_factor, gpu_name
from bot.models import Ask, AskAnswer

# "<100W per card", "under 75 W", "at most 150 watts", "单卡不超过 100W", "功耗 75 瓦以内"
_CAP_BEFORE = re.compile(r"(?:<=?|≤|\bunder|\bbelow|\bless than|\bat most|\bmax(?:imum)?(?: of)?|\bno more than"
                         r"|\bwithin|\bup to|不超过|不到|小于|低于|控制在|最多)\s*~?\s*(\d{2,4})\s*(?:w(?:atts?)?\b|瓦)",
                         re.IGNORECASE)
_CAP_AFTER = re.compile(r"(\d{2,4})\s*(?:w(?:atts?)?|瓦)\s*(?:以内|以下|之内|or less|max\b|cap\b)", re.IGNORECASE)
_PSU = re.compile(r"psu|power supply|电源", re.IGNORECASE)
# 1U and low-profile (half-height) need a low-profile card; "single-slot" needs one slot.
_LOW_PROFILE = re.compile(r"\b1\s?U\b|low[\s-]?profile|half[\s-]?height|半高|刀片", re.IGNORECASE)
_SINGLE_SLOT = re.compile(r"single[\s-]?slot|one[\s-]slot|单槽|单宽", re.IGNORECASE)
_ENCODER = re.compile(r"embed\w*|rerank\w*|bge|e5-|gte-|向量|嵌入|重排", re.IGNORECASE)
# The defaults an open question would name, said as out of the envelope where they are.
_USUAL = ("l40s", "a100-80gb-pcie", "h100-sxm", "rtx-4090")


@dataclass(frozen=True)
class Envelope:
    cap_w: int | None
    low_profile: bool
    single_slot: bool

    def admits(self, gpu: GpuSpec) -> bool:
        if self.cap_w is not None and gpu.board_power_w > self.cap_w:
            return False
        if self.low_profile and "low-profile" not in gpu.form_factor.lower():
            return False
        return not ((self.single_slot or self.low_profile) and gpu.slots != 1)


def envelope_of(text: str) -> Envelope | None:
    """The per-card power cap and form factor the message states, or None where it states neither."""
    caps = [int(m.group(1)) for pattern in (_CAP_BEFORE, _CAP_AFTER) for m in pattern.finditer(text)
            if not _PSU.search(text[max(0, m.start() - 16):m.start()])]
    cap = min(caps) if caps else None
    low, single = bool(_LOW_PROFILE.search(text)), bool(_SINGLE_SLOT.search(text))
    if cap is None and not low and not single:
        return None
    return Envelope(cap, low, single)


def _speed(gpu: GpuSpec) -> float:
    return gpu.dense_tflops.get("bf16") or gpu.dense_tflops.get("fp16") or 0.0


def within_envelope(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The fastest card within the stated cap and form factor first, the others that fit, the usual
    defaults ruled out with their figure; None where nothing is stated or no catalog card fits."""
    text = ctx.question or ask.text
    env = envelope_of(text)
    if env is None:
        return None
    lang, catalog = ctx.language, ctx.catalog
    named = [g for g in ask.subjects if g in catalog.gpus]
    pool = [catalog.gpus[g] for g in named] if len(named) >= 2 else [
        g for g in catalog.gpus.values() if g.nvidia_product and g.product_line != "workstation"
        and not (g.gpu_class == "consumer" and (env.low_profile or ctx.requirement.deployment == "datacenter"))]
    fits = sorted((g for g in pool if env.admits(g)), key=lambda g: (-_speed(g), -g.memory_gb))
    if not fits:
        return None
    pick = fits[0]
    lead = say("select.envelope_pick", lang, gpu=gpu_name(catalog, pick.id, lang), power=pick.board_power_w,
               form=form_factor(pick.form_factor, lang), memory=f"{pick.memory_gb:g}", within=_within(env, lang),
               rate=_rate(ctx, pick.id))
    details = [say("select.envelope_also", lang, gpu=gpu_name(catalog, g.id, lang), power=g.board_power_w,
                   form=form_factor(g.form_factor, lang), memory=f"{g.memory_gb:g}",
                   tflops=f"{_speed(g):g}", pick_tflops=f"{_speed(pick):g}") for g in fits[1:3]]
    ruled = [catalog.gpus[g] for g in dict.fromkeys((*named, *_USUAL))
             if g in catalog.gpus and not env.admits(catalog.gpus[g])][:3]
    if ruled:
        over = say("select.envelope_list_sep", lang).join(
            say("select.envelope_over_one" if g.slots else "select.envelope_over_module", lang,
                gpu=gpu_name(catalog, g.id, lang), power=g.board_power_w, slots=g.slots) for g in ruled)
        details.append(say("select.envelope_over", lang, cards=over))
    if _ENCODER.search(text):
        details.append(say("select.envelope_encoder", lang, memory=f"{pick.memory_gb:g}"))
    return AskAnswer(kind="select", lead=lead, details=details, rule="selection.power-form-envelope",
                     sources=["nvidia-gpu-specs", "rental-selection-guide", "skypilot-catalog"],
                     figures={"pick": pick.id, "cap_w": env.cap_w or 0, "fits": len(fits)})


def _within(env: Envelope, lang: str) -> str:
    parts = []
    if env.cap_w is not None:
        parts.append(say("select.envelope_cap", lang, cap=env.cap_w))
    if env.low_profile:
        parts.append(say("select.envelope_low_profile", lang))
    elif env.single_slot:
        parts.append(say("select.envelope_single_slot", lang))
    return say("select.envelope_and", lang).join(parts)


def _rate(ctx: ComposeContext, gpu: str) -> str:
    from bot.advice.options import market_for, typical_row
    if market_for(ctx.requirement, ctx.language, ctx.question) == "china":
        return ""
    row = typical_row(ctx.catalog, gpu)
    if row is None:
        return ""
    from bot.messages.format import money
    return say("open.rate_note", ctx.language, rate=money(row.hourly_rate, "USD"), date=row.quoted_on.isoformat())
