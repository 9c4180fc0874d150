"""Whether one PyTorch wheel build carries kernels for the GPU named, from the arch list PyTorch built
that build with (knowledge/cuda.yaml torch arch, pytorch-cuda-arch-matrix), not from a floor rule.

The lists change per release: 2.7's cu128 build has no sm_70 (V100) kernels, 2.8-2.10 put sm_70 back
in cu128, 2.11 drops it again, and from 2.8 only the cu126 builds carry Maxwell and Pascal (sm_50,
sm_60). So "V100 with torch cu128", "P100 on torch 2.8" are judged on the release the message names
(else the newest release that ships the build), with the build of that release that does carry the GPU.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cuda_check import _tag, _version, builds_carrying, carried_sms, carries, check, torch_release
from bot.knowledge import GpuSpec
from bot.knowledge.models import TorchRelease
from bot.messages import say
from bot.models import Ask, Requirement

# a PyTorch wheel (the lists are PyTorch's builds, not a CUDA image's)
_TORCH = re.compile(r"torch|pytorch|\bwheels?\b|\bcu1[0-3][0-9]\b", re.IGNORECASE)


def release_of(ask: Ask, ctx: ComposeContext, cuda: str) -> TorchRelease | None:
    """The release the part or message names ("torch 2.5.1+cu124"), else the newest one shipping `cuda`."""
    from bot.compose.compat_stack import _RELEASE

    text = ctx.question or ask.text
    if not _TORCH.search(text):
        return None
    named = _RELEASE.search(ask.text) or _RELEASE.search(text)
    if named is not None:
        release = torch_release(ctx.catalog, named.group(1) or named.group(2))
        return release if release is not None and cuda in release.cuda else None
    shipping = [t for t in ctx.catalog.cuda.torch if cuda in t.cuda]
    return max(shipping, key=lambda t: _version(t.version)) if shipping else None


def judged(ask: Ask, ctx: ComposeContext, spec: GpuSpec, req: Requirement) -> tuple[bool, TorchRelease] | None:
    """(whether the build carries the GPU, the release judged), None where the build's list is not recorded."""
    if not req.cuda:
        return None
    release = release_of(ask, ctx, req.cuda)
    if release is None:
        return None
    carried = carries(release, req.cuda, spec.compute_capability)
    return None if carried is None else (carried, release)


def carried_line(release: TorchRelease, cuda: str, lang: str) -> str:
    """"PyTorch 2.5's cu121 build carries sm_50-sm_90 kernels" for an answer that already says no."""
    return say("compat.build_carries", lang, release=release.version, tag=_tag(cuda), sms=carried_sms(release, cuda))


def not_carried(ctx: ComposeContext, spec: GpuSpec, release: TorchRelease, req: Requirement) -> tuple[str, list[str]]:
    """The lead and details for a build without the GPU's kernels: what it carries, the build to take
    (the same release's first, else the newest that carries it), and the releases whose same build does."""
    lang, cc, cuda = ctx.language, spec.compute_capability, req.cuda or ""
    from bot.messages.format import gpu_name

    same = [c for c in sorted(release.cuda, key=_version, reverse=True) if carries(release, c, cc)]
    fix_release, fix = (release, same[0]) if same else next(iter(builds_carrying(ctx.catalog, cc)), (None, None))
    params = {"gpu": gpu_name(ctx.catalog, spec.id, lang), "sm": "sm_" + cc.replace(".", ""), "arch": spec.architecture,
              "release": release.version, "tag": _tag(cuda), "sms": carried_sms(release, cuda), "cc": cc}
    if fix is None or fix_release is None:
        return say("compat.build_lacks_none", lang, **params), []
    key = "compat.build_lacks_same" if fix_release is release else "compat.build_lacks_other"
    lead = say(key, lang, **params, fix_tag=_tag(fix), fix_release=fix_release.version)
    details: list[str] = []
    others = [t.version for t in ctx.catalog.cuda.torch if t is not release and carries(t, cuda, cc)]
    if others:
        details.append(say("compat.build_others_carry", lang, releases=", ".join(others), tag=_tag(cuda), sm=params["sm"]))
    if req.driver and (ran := check(fix, req.driver, ctx.catalog, lang)) is not None:
        details.append(ran.lead)
    return lead, details


def release_only(ask: Ask, ctx: ComposeContext, spec: GpuSpec) -> tuple[str, str] | None:
    """A release named without a build ("RTX 5090 上 torch 2.4 能跑吗", "torch 2.7 on B200?"): (lead, "no" or
    "only") where the release's default build lacks the GPU — none of its builds carries it, or only a
    non-default one does (2.7's default cu126 has no sm_120; its cu128 does); (lead, "yes") where the default
    carries it ("torch 2.5 on H20"); None where the lists are not recorded."""
    from bot.compose.compat_stack import _RELEASE
    from bot.messages.format import gpu_name

    text = ctx.question or ask.text
    named = _RELEASE.search(ask.text) or _RELEASE.search(text)
    release = torch_release(ctx.catalog, named.group(1) or named.group(2)) if named is not None else None
    cc = spec.compute_capability
    if release is None and named is not None:  # "H20 上 torch 2.1 能用吗": a release the table does not list
        return _unlisted(named.group(1) or named.group(2), spec, ctx)
    if release is None or any(carries(release, c, cc) is None for c in release.cuda):
        return None
    lang = ctx.language
    params = {"gpu": gpu_name(ctx.catalog, spec.id, lang), "sm": "sm_" + cc.replace(".", ""), "arch": spec.architecture,
              "release": release.version, "default": _tag(release.default), "sms": carried_sms(release, release.default),
              "builds": ", ".join(_tag(c) for c in release.cuda)}
    if carries(release, release.default, cc):  # "torch 2.5 支持 H20 吗": the plain install carries the arch
        return say("compat.release_default_carries", lang, **params), "yes"
    same = [c for c in sorted(release.cuda, key=_version, reverse=True) if carries(release, c, cc)]
    if same:
        return say("compat.release_only_build", lang, **params, fix_tag=_tag(same[0])), "only"
    fix_release, fix = _first_carrying(ctx, cc)
    if fix_release is None or fix is None:
        return None
    return say("compat.release_no_build", lang, **params, fix_release=fix_release.version, fix_tag=_tag(fix)), "no"


def _unlisted(version: str, spec: GpuSpec, ctx: ComposeContext) -> tuple[str, str] | None:
    """A release whose builds are not recorded, judged by the arch floor (knowledge/cuda.yaml arch_floors): older
    than the floor's first release, no; else its builds of the floor's CUDA or newer carry it, to check on the box."""
    from bot.compose.cuda_check import arch_floor
    from bot.messages.format import gpu_name

    floor = arch_floor(ctx.catalog, spec.compute_capability)
    if floor is None:
        return None
    params = {"gpu": gpu_name(ctx.catalog, spec.id, ctx.language), "sm": "sm_" + floor.cc.replace(".", ""),
              "arch": floor.arch, "release": version, "min_torch": floor.min_torch, "tag": _tag(floor.min_cuda)}
    if _version(version) < _version(floor.min_torch):
        return say("compat.release_unlisted_too_old", ctx.language, **params), "no"
    return say("compat.release_unlisted", ctx.language, **params), "check"


def _first_carrying(ctx: ComposeContext, cc: str) -> tuple[TorchRelease | None, str | None]:
    """The build to move to: the arch floor's (sm_120: PyTorch 2.7's cu128, the oldest driver it needs),
    else the newest release's default build that carries it, else the newest build that does."""
    from bot.compose.cuda_check import arch_floor

    floor = arch_floor(ctx.catalog, cc)
    if floor is not None and (t := torch_release(ctx.catalog, floor.min_torch)) is not None and carries(t, floor.min_cuda, cc):
        return t, floor.min_cuda
    found = builds_carrying(ctx.catalog, cc)
    return next(((t, c) for t, c in found if c == t.default), next(iter(found), (None, None)))
