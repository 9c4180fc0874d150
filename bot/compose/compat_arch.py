"""Whether a build of one CUDA release has kernels for the GPU named ("we got B200 nodes, will our torch
2.5.1+cu124 image work?", "does cu118 pytorch run on H100?", "5090 上 torch 2.5 + cu124 能用吗"): the
arch decides before the driver does.

An architecture is first supported by one CUDA release (knowledge/cuda.yaml arch_floors: sm_120 and
sm_100 from CUDA 12.8, sm_90 and sm_89 from 11.8; cuda-release-notes, cuda-gpus), so a build of an
older release has no native code for it and fails with "no kernel image is available" (PyTorch's own
wheels carry the arch from the release in `min_torch`, pytorch-2-7-release). A build at or above the
floor carries it, and the driver is then what is left to check (bot.compose.cuda_check).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cuda_check import _tag, _version, arch_floor, check
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

# "will it work", "does cu118 run on H100", "能用吗", "能不能跑": whether the stack runs on the GPU
_RUNS = re.compile(r"\b(?:work|works|run|runs|running|support\w*|compatible)\b|能用|能跑|能不能|可以用|可以跑|跑得|支持|兼容",
                   re.IGNORECASE)
SOURCES = ["cuda-release-notes", "cuda-gpus", "pytorch-2-7-release"]


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    req = ctx.requirement
    spec = _named(ctx)
    if spec is None or not req.cuda or not _RUNS.search(ask.text):
        return None
    floor = arch_floor(ctx.catalog, spec.compute_capability)
    if floor is None:
        return None
    lang = ctx.language
    params = {"gpu": gpu_name(ctx.catalog, spec.id, lang), "sm": "sm_" + floor.cc.replace(".", ""), "arch": floor.arch,
              "cuda": req.cuda, "min_cuda": floor.min_cuda, "torch": floor.min_torch, "tag": _tag(floor.min_cuda),
              "driver": floor.min_driver, "cc": floor.cc}
    details: list[str] = []
    if _version(req.cuda) < _version(floor.min_cuda):
        lead = say("compat.arch_build_no", lang, **params)
        if req.driver:
            ok = _version(req.driver) >= _version(floor.min_driver)
            details.append(say("compat.arch_build_driver_ok" if ok else "compat.arch_build_driver_old", lang,
                               have=req.driver, **params))
        return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.arch-floor",
                         sources=list(dict.fromkeys([*SOURCES, *floor.sources])), figures={"works": "no", "sm": params["sm"]})
    if req.driver and _version(req.driver) < _version(floor.min_driver):  # the driver predates the arch itself
        return AskAnswer(kind="compat", lead=say("compat.arch_driver_too_old", lang, have=req.driver, **params),
                         rule="compat.arch-floor", sources=list(dict.fromkeys([*SOURCES, *floor.sources])),
                         figures={"works": "no", "sm": params["sm"]})
    lead = say("compat.arch_build_yes", lang, **params)
    ran = check(req.cuda, req.driver, ctx.catalog, lang) if req.driver else None
    if ran is not None:
        details.append(ran.lead)
    else:
        release, major = ctx.catalog.cuda_release(req.cuda), ctx.catalog.cuda_major(int(req.cuda.split(".")[0]))
        if release is not None and major is not None:
            details.append(say("compat.min_driver", lang, cuda=req.cuda, release_min=release.min_driver,
                               major=major.major, major_min=major.min_driver))
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.arch-floor",
                     sources=list(dict.fromkeys([*SOURCES, *floor.sources])), figures={"works": "yes", "sm": params["sm"]})


def _named(ctx: ComposeContext) -> GpuSpec | None:
    """The one GPU the message names, a family ("H100") as the advisor judges it."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    gpu = ctx.requirement.gpu
    if not gpu or len(set(ctx.requirement.gpu_options)) > 1:
        return None
    try:
        return ctx.catalog.gpus.get(gpu) or representative(ctx.catalog, gpu)
    except UnknownNameError:
        return None
