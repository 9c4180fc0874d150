"""Rendering and video work beside the compute ("CV 训练，也有渲染/视频转码", "training plus Blender renders
and ffmpeg transcodes: L40S or A100?"): the RT cores and the NVENC / NVDEC engines decide that half, so
the lead says which of the compared cards has them, from the catalog's own figures (knowledge/gpus.yaml:
NVIDIA spec pages and the Video Encode and Decode GPU Support Matrix); the compute comparison follows,
and a card without the engines is said for what it is better at (memory, NVLink, MIG). Issue #24."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge.models import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

_GRAPHICS = re.compile(r"\brender\w*|ray[\s-]?trac\w*|transcod\w*|\bvideos?\b|\bnvenc\b|\bffmpeg\b|\bblender\b"
                       r"|\bencod(?:e|ing)\s+(?:video|streams?)|\bstreaming\b|渲染|光追|光线追踪|转码|视频|硬件编码|硬编|推流|直播",
                       re.IGNORECASE)


def graphics_work(text: str) -> bool:
    return bool(_GRAPHICS.search(text))


def _engines(gpu: GpuSpec) -> tuple[int, int]:
    return (1 if gpu.rt_cores else 0, gpu.nvenc or 0)


def with_graphics(ask: Ask, ctx: ComposeContext, ids: list[str], reply: AskAnswer) -> AskAnswer:
    """The rendering/encode verdict as the lead where the question has graphics or video work and the compared
    cards differ in RT cores or NVENC; the reply unchanged otherwise (or where the catalog does not say)."""
    if not graphics_work(ctx.question or ask.text):
        return reply
    sides = [ctx.catalog.gpus[g] for g in ids if g in ctx.catalog.gpus]
    if len(sides) < 2 or any(g.rt_cores is None or g.nvenc is None for g in sides):
        return reply
    ranked = sorted(sides, key=_engines, reverse=True)
    best = ranked[0]
    others = [g for g in ranked[1:] if _engines(g) < _engines(best)]
    if not others:
        return reply
    lang = ctx.language
    lead = say("select.graphics_pick", lang, gpu=gpu_name(ctx.catalog, best.id, lang), engines=_said(best, lang),
               others="; ".join(say("select.graphics_other", lang, gpu=gpu_name(ctx.catalog, g.id, lang),
                                    engines=_said(g, lang)) for g in others))
    details = [reply.lead, *reply.details]
    for other in others:
        strengths = _strengths(other, best, lang)
        if strengths:
            details.append(say("select.graphics_other_when", lang, gpu=gpu_name(ctx.catalog, other.id, lang),
                               strengths=strengths))
    sources = list(dict.fromkeys([*reply.sources, "nvidia-video-codec-matrix", "nvidia-gpu-specs"]))
    return reply.model_copy(update={"lead": lead, "details": details, "sources": sources,
                                    "figures": {**reply.figures, "graphics_pick": best.id}})


def _said(gpu: GpuSpec, lang: str) -> str:
    rt = say("select.graphics_rt_yes" if gpu.rt_cores else "select.graphics_rt_no", lang)
    enc = say("select.graphics_nvenc", lang, nvenc=gpu.nvenc, nvdec=gpu.nvdec or 0) if gpu.nvenc else \
        say("select.graphics_no_nvenc", lang, nvdec=gpu.nvdec or 0)
    return say("select.graphics_join", lang, rt=rt, enc=enc)


def _strengths(other: GpuSpec, best: GpuSpec, lang: str) -> str:
    """What the card without the engines is better at: more memory, NVLink, MIG ('' where none)."""
    parts = []
    if other.memory_gb > best.memory_gb:
        parts.append(say("select.graphics_more_memory", lang, memory=f"{other.memory_gb:g}", best=f"{best.memory_gb:g}"))
    if other.nvlink_bandwidth_gbs and not best.nvlink:
        parts.append(say("select.graphics_nvlink", lang, bw=f"{other.nvlink_bandwidth_gbs:g}"))
    if other.mig_max_instances and not best.mig_max_instances:
        parts.append(say("select.graphics_mig", lang, mig=other.mig_max_instances))
    return say("select.envelope_list_sep", lang).join(parts)
