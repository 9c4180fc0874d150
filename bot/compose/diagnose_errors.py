"""Error messages in a diagnosis (issue #25): each pasted PyTorch/CUDA/NCCL error mapped to its cause
and fix with the versions that matter, and the no-root fixes for a driver too old for the build (a
wheel of the driver's CUDA major; after a plain `pip install torch`, the release's default build
against the driver, bot.compose.cuda_check.plain_install)."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.diagnostics.models import ErrorReading
from bot.knowledge import Catalog
from bot.messages import say

_ERROR_SOURCES = {
    "arch-unsupported": ["pytorch-2-7-release", "pytorch-get-started", "cuda-gpus", "cuda-release-notes"],
    "no-kernel-image": ["pytorch-2-7-release", "pytorch-get-started", "cuda-gpus"],
    "driver-too-old": ["cuda-compatibility", "cuda-release-notes"],
    "oom": ["pytorch-cuda-memory"],
    "illegal-address": ["nvidia-xid"], "ecc": ["nvidia-row-remapping", "nvidia-xid"],
    "device-assert": ["cuda-docs"], "no-device": ["k8s-device-plugin", "cuda-docs"],
    "cpu-build": ["pytorch-get-started"], "missing-library": ["pytorch-get-started"],
    "smi-no-driver": ["nvidia-smi-docs"],
    "nccl-error": ["nccl-troubleshooting", "nccl-env", "nccl-tests"],
    "nccl-timeout": ["nccl-troubleshooting", "nccl-tests"],
    "nccl-ib-completion": ["ibv-poll-cq", "nccl-troubleshooting", "nccl-env", "nccl-tests"],
}
# ibv_wc_status values with a meaning of their own (ibv-poll-cq); any other gets the general reading
_IB_STATUS_KEYS = {12: "retry", 13: "rnr", 5: "flush", 10: "access", 4: "access"}


def error_part(error: ErrorReading, lang: str, catalog: Catalog | None = None) -> tuple[str, list[str], str | None, list[str]]:
    sources = _ERROR_SOURCES.get(error.kind, ["cuda-docs"])
    if error.kind == "arch-unsupported":
        arch = error.arch or "sm_?"
        digits = re.sub(r"\D", "", arch)
        cc = f"{digits[:-1]}.{digits[-1]}" if len(digits) >= 2 else arch
        ships = say("diagnose.err_arch_ships", lang, archs=" ".join(error.supported_archs)) if error.supported_archs else ""
        from bot.compose.cuda_check import arch_floor

        floor = arch_floor(catalog, cc) if catalog is not None else None
        if floor is not None:  # knowledge/cuda.yaml's floor for the arch: the CUDA, PyTorch and driver it needs
            text = say("diagnose.err_arch_floor", lang, gpu=error.gpu_name or "This GPU", arch=arch, cc=cc, ships=ships,
                       cuda=floor.min_cuda, tag="cu" + floor.min_cuda.replace(".", ""), torch=floor.min_torch,
                       driver=floor.min_driver, family=floor.arch)
        else:
            text = say("diagnose.err_arch_unsupported", lang, gpu=error.gpu_name or "This GPU", arch=arch, cc=cc,
                       ships=ships)
    elif error.kind == "driver-too-old":
        found = say("diagnose.err_driver_found", lang, cuda=error.driver_cuda) if error.driver_cuda else ""
        text = say("diagnose.err_driver_too_old", lang, found=found)
    elif error.kind == "oom":
        numbers = ""
        if error.tried_gib is not None and error.total_gib is not None and error.free_gib is not None:
            numbers = say("diagnose.err_oom_numbers", lang, tried=f"{error.tried_gib:g}", free=f"{error.free_gib:g}",
                          total=f"{error.total_gib:g}", index=error.gpu_index if error.gpu_index is not None else 0)
        if error.allocated_gib is not None and error.reserved_gib is not None:
            numbers += say("diagnose.err_oom_reserved", lang, allocated=f"{error.allocated_gib:g}",
                           reserved=f"{error.reserved_gib:g}")
        text = say("diagnose.err_oom", lang, numbers=numbers)
    elif error.kind == "nccl-ib-completion":
        key = _IB_STATUS_KEYS.get(error.ib_status if error.ib_status is not None else -1, "other")
        text = say(f"diagnose.err_ib_status_{key}", lang, status=error.ib_status if error.ib_status is not None else "?")
        return text, say("diagnose.err_ib_status_steps", lang).splitlines(), None, sources
    else:
        text = say(f"diagnose.err_{error.kind.replace('-', '_')}", lang)
    return text, [], None, sources


_WHEEL = re.compile(r"\bcu(1[0-3])([0-9])\b", re.IGNORECASE)
# PyTorch's wheel index per CUDA major (pytorch-get-started): cu118 is its CUDA 11 build, cu126 a 12.x one.
_INDEX_TAG = {11: "cu118", 12: "cu126"}
_TORCH_VERSION = re.compile(r"\btorch\s*(?:==\s*)?([0-9]\.[0-9]+(?:\.[0-9]+)?)", re.IGNORECASE)


def plain_install_fix(ctx: ComposeContext) -> str | None:
    """'driver too old' after a plain `pip install torch` (no cuXXX named) on a stated driver: the release's
    default build does not run on it; the build to take instead (bot.compose.cuda_check.plain_install)."""
    from bot.compose.compat_stack import _PLAIN
    from bot.compose.cuda_check import plain_install

    driver, text = ctx.requirement.driver, ctx.question or ""
    if not driver or _WHEEL.search(text) or not _PLAIN.search(text):
        return None
    reply = plain_install(driver, ctx.catalog, ctx.language)
    return reply.lead if reply is not None and reply.figures["works"] == "no" else None


def wheel_for_driver(ctx: ComposeContext) -> str | None:
    """'driver too old' with the driver and a cuXXX wheel stated: the newest CUDA major the driver runs
    under minor-version compatibility, as the wheel to take instead, or the driver the wheel needs."""
    from bot.compose.cuda_check import _version

    driver, text = ctx.requirement.driver, ctx.question or ""
    wheel = _WHEEL.search(text)
    if not driver or wheel is None:
        return None
    have = _version(driver)
    runs = [m for m in ctx.catalog.cuda.majors if _version(m.min_driver) <= have]
    wanted = ctx.catalog.cuda_major(int(wheel.group(1)))
    if not runs or wanted is None or int(wheel.group(1)) <= max(m.major for m in runs):
        return None
    best = max(runs, key=lambda m: m.major)
    tag = _INDEX_TAG.get(best.major)
    if tag is None:
        return None
    torch = _TORCH_VERSION.search(text)
    return say("diagnose.err_driver_wheel_fix", ctx.language, driver=driver, major=best.major, major_min=best.min_driver,
               wheel=f"cu{wheel.group(1)}{wheel.group(2)}", wanted_min=wanted.min_driver, wanted_major=wanted.major,
               torch=f"=={torch.group(1)}" if torch else "", tag=tag)


def default_wheel_note(error: ErrorReading, ctx: ComposeContext) -> str | None:
    """For a GPU newer than the build ("sm_120 is not compatible"): what a plain `pip install torch` of the
    newest release takes (pytorch-release-matrix) and the driver it needs, where it carries the arch."""
    from bot.compose.cuda_check import _short, _tag, _version, arch_floor, torch_release

    digits = re.sub(r"\D", "", error.arch or "")
    floor = arch_floor(ctx.catalog, f"{digits[:-1]}.{digits[-1]}") if len(digits) >= 2 else None
    release = torch_release(ctx.catalog)
    if floor is None or release is None or _version(release.default) < _version(floor.min_cuda):
        return None
    major = ctx.catalog.cuda_major(int(release.default.split(".")[0]))
    need = _short(major.min_driver) if major is not None else "?"
    return say("diagnose.err_arch_default_wheel", ctx.language, release=release.version, cuda=release.default,
               tag=_tag(release.default), arch=error.arch, need=need, floor_driver=floor.min_driver)


def with_named_arch(error: ErrorReading, ctx: ComposeContext) -> ErrorReading:
    """"no kernel image is available" on a GPU the message names, with a stated build older than the
    CUDA release that first builds for its arch (a 5090 on cu121): the build lacks the arch for certain,
    so it is read as the arch error, with the GPU's sm_XY, and answered with the arch's floor."""
    from bot.compose.cuda_check import _version, arch_floor
    from bot.messages.format import gpu_name

    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    cuda = ctx.requirement.cuda
    if error.kind != "no-kernel-image" or spec is None or not spec.compute_capability or not cuda:
        return error
    floor = arch_floor(ctx.catalog, spec.compute_capability)
    if floor is None or _version(cuda) >= _version(floor.min_cuda):
        return error
    return error.model_copy(update={"kind": "arch-unsupported", "arch": "sm_" + spec.compute_capability.replace(".", ""),
                                    "gpu_name": gpu_name(ctx.catalog, spec.id, ctx.language)})


def arch_driver_note(error: ErrorReading, ctx: ComposeContext) -> str | None:
    """The arch error with the driver stated ("驱动是 575，要不要重装驱动"): whether that driver already runs
    the build the arch needs (its floor, knowledge/cuda.yaml arch_floors), so only the wheel changes, or
    is below it and has to be upgraded too."""
    from bot.compose.cuda_check import _version, arch_floor

    digits = re.sub(r"\D", "", error.arch or "")
    floor = arch_floor(ctx.catalog, f"{digits[:-1]}.{digits[-1]}") if len(digits) >= 2 else None
    driver = ctx.requirement.driver
    if floor is None or not driver:
        return None
    key = "diagnose.err_arch_driver_ok" if _version(driver) >= _version(floor.min_driver) else "diagnose.err_arch_driver_low"
    return say(key, ctx.language, driver=driver, need=floor.min_driver, tag="cu" + floor.min_cuda.replace(".", ""),
               cuda=floor.min_cuda)


# "要不要重装驱动", "do I need to upgrade the driver?": the driver is what the question asks about.
_DRIVER_ASKED = re.compile(r"(?:重装|升级|更新|换|降级).{0,4}驱动|驱动.{0,6}(?:重装|升级|更新|降级)"
                           r"|\b(?:reinstall|upgrade|update|downgrade)\s+(?:the\s+|my\s+|our\s+)?(?:nvidia\s+)?drivers?\b"
                           r"|\bdrivers?\s+(?:upgrade|update|reinstall)", re.IGNORECASE)


def arch_lines(error: ErrorReading, ctx: ComposeContext, lead: str, details: list[str]) -> tuple[str, list[str]]:
    """The arch error's lines: the stated driver judged for the build the arch needs (first, where the
    question asks whether to touch the driver), then what today's default wheel takes."""
    driver = arch_driver_note(error, ctx)
    default = default_wheel_note(error, ctx)
    if driver is not None and _DRIVER_ASKED.search(ctx.question or ""):
        lead, details = driver, [lead, *details]
    elif driver is not None:
        details = [*details, driver]
    return lead, [*details, *([default] if default else [])]


# "is the gpu dead?", "bad card?", "是显卡有问题吗": the question blames the hardware for an error message
_GPU_BLAMED = re.compile(r"\b(?:is|was)\s+(?:the|my|our|this|it|that)\s+(?:gpu|card|hardware)?\s*(?:dead|bad|broken|faulty|failing|dying)\b"
                         r"|\b(?:bad|dead|broken|faulty|defective)\s+(?:gpu|card)s?\b|\bhardware\s+(?:issue|problem|fault)"
                         r"|(?:显卡|卡|GPU|gpu)(?:是不是|是否)?(?:坏了|有问题|出问题|故障)|是(?:不是)?(?:显卡|硬件|卡)(?:的)?(?:问题|故障)|硬件问题",
                         re.IGNORECASE)
# Errors whose cause is the software stack or the job, never the board (each message's own text says which).
_NOT_THE_GPU = frozenset({"smi-no-driver", "driver-too-old", "oom", "illegal-address", "cpu-build", "missing-library",
                          "arch-unsupported", "no-kernel-image", "device-assert"})


def blamed_gpu_answer(error: ErrorReading, ctx: ComposeContext) -> str:
    """"No, not the GPU: " before an error whose cause is software or the job, where the question asks whether
    the GPU is at fault; else nothing."""
    if error.kind in _NOT_THE_GPU and _GPU_BLAMED.search(ctx.question or ""):
        return say("diagnose.verdict_not_gpu", ctx.language)
    return ""


# flash-attn named beside the error ("自己编译的 flash-attn", "flash_attn_2_cuda", "FlashAttention2").
_FLASH_ATTN = re.compile(r"flash[\s_-]?attn|flash[\s_-]?attention|flashattention", re.IGNORECASE)
# FlashAttention 2's oldest arch (flash-attention-readme: Ampere, Ada, Hopper).
_FLASH_MIN_CC = (8, 0)


def _cc(value: str) -> tuple[int, int]:
    major, _, minor = value.partition(".")
    return int(major), int(minor or 0)


def flash_attn_lines(error: ErrorReading, ctx: ComposeContext) -> tuple[str, list[str], list[str]] | None:
    """"no kernel image" from flash-attn on a named card older than Ampere (a V100): FlashAttention 2 has no
    kernels below sm_80, so a rebuild cannot help and the driver is not the cause; what runs there instead
    (PyTorch SDPA's memory-efficient backend, xformers) and the arch list for the other extensions."""
    from bot.messages.format import gpu_name

    req, lang = ctx.requirement, ctx.language
    named = [ctx.catalog.gpus[g] for g in dict.fromkeys([req.gpu, *req.gpu_options]) if g in ctx.catalog.gpus]
    named = [g for g in named if g.compute_capability]
    old = [g for g in named if _cc(g.compute_capability) < _FLASH_MIN_CC]
    flash = req.attention == "flash" or bool(_FLASH_ATTN.search(ctx.question or ""))
    if error.kind not in ("no-kernel-image", "arch-unsupported") or not flash or not old:
        return None
    card = old[0]
    name = gpu_name(ctx.catalog, card.id, lang)
    ccs = sorted({g.compute_capability for g in named}, key=_cc)
    driver = say("diagnose.err_flash_attn_driver", lang, driver=req.driver) if req.driver else ""
    lead = say("diagnose.err_flash_attn_pre_ampere", lang, gpu=name, cc=card.compute_capability,
               sm=card.compute_capability.replace(".", ""), driver=driver)
    fallback = say("diagnose.err_flash_attn_fallback", lang, gpu=name, archs=";".join(ccs))
    return lead, [fallback], ["flash-attention-readme", "pytorch-sdpa", "cuda-gpus"]
