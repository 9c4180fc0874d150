"""Whether a build of one CUDA release has kernels for the GPU named ("we got B200 nodes, will our torch
2.5.1+cu124 image work?", "does cu118 pytorch run on H100?", "5090 上 torch 2.5 + cu124 能用吗"): the
arch decides before the driver does.

An architecture is first supported by one CUDA release (knowledge/cuda.yaml arch_floors: sm_120 and
sm_100 from CUDA 12.8, sm_90 and sm_89 from 11.8; cuda-release-notes, cuda-gpus), so a build of an
older release has no native code for it and fails with "no kernel image is available" (PyTorch's own
wheels carry the arch from the release in `min_torch`, pytorch-2-7-release). A build at or above the
floor carries it, and the driver is then what is left to check (bot.compose.cuda_check): with a driver
stated, its verdict leads, the GPU's line follows, then the ways round an old driver (cuda_check.limits).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, compat_builds
from bot.compose.cuda_check import CUDA_NAMED, DRIVER_NAMED, _tag, _version, arch_floor, check, limits
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer, Requirement

# "will it work", "does cu118 run on H100", "能用吗", "能不能跑": whether the stack runs on the GPU
_RUNS = re.compile(r"\b(?:work|works|run|runs|running|support\w*|compatible|ok|okay|fine)\b|能用|能跑|能不能|可以用|可以跑|跑得|支持|兼容"
                   r"|跑.{0,30}?(?:没问题|行吗|行不行|可以吗)|能装|可以装|装得上",
                   re.IGNORECASE)
SOURCES = ["cuda-release-notes", "cuda-gpus", "pytorch-2-7-release"]


# "(c) and the rtx 5090 workstation?", "what about a 5090 box?", "那 5090 呢": a part that carries the run
# question of the message over to the GPU it names
_FOLLOW_ON = re.compile(r"^\W*(?:and|also|same\s+for|what\s+about|how\s+about)\b|(?:那|还有|至于).{0,24}呢|呢\s*[?？]?\s*$",
                        re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext, driver: bool = True) -> AskAnswer | None:
    """The build against the GPU's arch (and, with `driver`, the message's driver: False for a later part
    that asks the GPU alone, "…能跑吗？H20 支持 CUDA 13 吗", whose driver verdict the first part gave)."""
    spec = _named(ask, ctx)
    if spec is None or (not _RUNS.search(ask.text) and not (_FOLLOW_ON.search(ask.text) and _RUNS.search(ctx.question or ""))):
        return None
    req = _stated(ask, ctx, driver)
    if not req.cuda:  # "RTX 5090 上 torch 2.4 能跑吗": the release's builds judged, its default first
        judged = compat_builds.release_only(ask, ctx, spec)
        if judged is None:
            return None
        return AskAnswer(kind="compat", lead=judged[0], rule="compat.arch-build", sources=[*SOURCES, "pytorch-cuda-arch-matrix"],
                         figures={"works": judged[1], "sm": "sm_" + spec.compute_capability.replace(".", "")})
    floor = arch_floor(ctx.catalog, spec.compute_capability)
    by_build = compat_builds.judged(ask, ctx, spec, req)  # the build's own arch list, where it is recorded
    below = floor is not None and _version(req.cuda) < _version(floor.min_cuda)
    if by_build is not None and not by_build[0] and not below:  # "V100 with torch cu128": no sm_70 in 2.11's cu128
        lead, lines = compat_builds.not_carried(ctx, spec, by_build[1], req)
        return AskAnswer(kind="compat", lead=lead, details=lines, rule="compat.arch-build",
                         sources=[*SOURCES, "pytorch-cuda-arch-matrix"],
                         figures={"works": "no", "sm": "sm_" + spec.compute_capability.replace(".", "")})
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
        if by_build is not None:  # what that build does carry
            details.append(compat_builds.carried_line(by_build[1], req.cuda, lang))
        sources = [*SOURCES, *floor.sources, *(["pytorch-cuda-arch-matrix"] if by_build is not None else [])]
        return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.arch-floor",
                         sources=list(dict.fromkeys(sources)), figures={"works": "no", "sm": params["sm"]})
    if req.driver and _version(req.driver) < _version(floor.min_driver):  # the driver predates the arch itself
        # a GeForce card has no forward-compatibility path (cuda-compat is for data-centre GPUs): the upgrade is the way
        extra = [say("compat.arch_driver_geforce", lang, **params)] if spec.gpu_class == "consumer" else []
        return AskAnswer(kind="compat", lead=say("compat.arch_driver_too_old", lang, have=req.driver, **params),
                         details=extra, rule="compat.arch-floor", sources=list(dict.fromkeys([*SOURCES, *floor.sources])),
                         figures={"works": "no", "sm": params["sm"]})
    lead, details = _carried(ask, ctx, spec, req, params)
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.arch-floor",
                     sources=list(dict.fromkeys([*SOURCES, *floor.sources])), figures={"works": "yes", "sm": params["sm"]})


def _carried(ask: Ask, ctx: ComposeContext, spec: GpuSpec, req: Requirement, params: dict[str, str]) -> tuple[str, list[str]]:
    """A build that carries the GPU's arch: with a driver stated, the driver is the question left, so its
    verdict leads, the GPU's line follows, then the ways round an old driver; else the GPU's line and the
    release's minimum driver."""
    lang = ctx.language
    ran = check(req.cuda, req.driver, ctx.catalog, lang) if req.cuda and req.driver else None
    if ran is not None:
        gpu_asked_later = any(a.kind == "compat" and a.start > ask.start and a.subjects and not DRIVER_NAMED.search(a.text)
                              for a in ctx.requirement.asks)  # "…？H20 支持 CUDA 13 吗": that part says the GPU's line
        return ran.lead, [*([] if gpu_asked_later else [say("compat.arch_build_yes_after", lang, **params)]),
                          *limits(ran, spec.gpu_class, ctx.catalog, lang)]
    details = []
    release, major = ctx.catalog.cuda_release(req.cuda or ""), ctx.catalog.cuda_major(int((req.cuda or "0").split(".")[0]))
    if release is not None and major is not None:
        details.append(say("compat.min_driver", lang, cuda=req.cuda, release_min=release.min_driver,
                           major=major.major, major_min=major.min_driver))
    return say("compat.arch_build_yes", lang, **params), details


# "(2) and the RTX 5090 box on 575?": a driver branch the part puts its GPU on
_ON_DRIVER = re.compile(r"\bon\s+([3-6][0-9]{2}(?:\.[0-9]+){0,2})(?![0-9.])(?!\s*(?:gb|gib|w\b|mhz|tflops|g\b|nodes?|gpus?|cards?))",
                        re.IGNORECASE)


def _stated(ask: Ask, ctx: ComposeContext, driver: bool = True) -> Requirement:
    """The CUDA build and driver for this part: its own where it states them ("(c) the 5090 box on 560?"),
    else the message's ("…on the same driver"; without `driver`, none)."""
    req = ctx.requirement if driver else ctx.requirement.model_copy(update={"driver": None})
    cuda_m = CUDA_NAMED.search(ask.text)
    driver_m = DRIVER_NAMED.search(ask.text) or _ON_DRIVER.search(ask.text)
    update: dict[str, str] = {}
    if cuda_m is not None:
        update["cuda"] = cuda_m.group(1) or f"{cuda_m.group(2)}.{cuda_m.group(3)}"
    if driver_m is not None:
        update["driver"] = driver_m.group(1) or driver_m.group(2) or driver_m.group(3)
    return req.model_copy(update=update) if update else req


def _named(ask: Ask, ctx: ComposeContext) -> GpuSpec | None:
    """The one GPU this part names ("(c) and the rtx 5090 workstation?" in a message that also names
    A100s), else the one the message names; a family ("H100") as the advisor judges it."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    subjects = list(dict.fromkeys(ask.subjects))
    gpu = subjects[0] if len(subjects) == 1 else ctx.requirement.gpu
    if not gpu or (len(subjects) != 1 and len(set(ctx.requirement.gpu_options)) > 1):
        return None
    try:
        return ctx.catalog.gpus.get(gpu) or representative(ctx.catalog, gpu)
    except UnknownNameError:
        return None
