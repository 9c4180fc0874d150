"""A new NVSwitch server being set up ("新到的 8 卡 H20 服务器 … 还需要装别的吗？", "fresh HGX H100 box, what do I
install besides the driver?"): beside the driver, the 8-GPU HGX board needs NVIDIA Fabric Manager of exactly the
driver's version, running, or CUDA fails to initialise (nvidia-fabric-manager); and the container toolkit for
images, whose CUDA runtime is their own while the driver stays on the host."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge.catalog import UnknownNameError
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer

# the question is about setting a machine up: what to install, a new box
_SETUP = re.compile(r"装|安装|部署|新到|新买|新机|刚到|what (?:else )?(?:to|do i|should i|should we|do we) install|"
                    r"\binstall\w*\b|\bset(?:ting)?[\s-]?up\b|\bnew (?:server|box|node|machine)|\bfresh (?:server|box|node|install)",
                    re.IGNORECASE)
# NVIDIA's 8-GPU HGX baseboards carry NVSwitch chips (a 4-GPU board links its GPUs directly).
_HGX = re.compile(r"HGX", re.IGNORECASE)
_NVSWITCH_WORDS = re.compile(r"nvswitch|\bhgx\b|\bdgx\b", re.IGNORECASE)


def nvswitch_setup(ask: Ask, ctx: ComposeContext) -> str | None:
    """The Fabric Manager line for a stated NVSwitch system being set up; None otherwise."""
    req, text = ctx.requirement, ctx.question or ask.text
    spec = ctx.catalog.gpus.get(req.gpu or "")
    if spec is None and req.gpu:  # a family named ("H20"): its members share the board
        try:
            members = ctx.catalog.resolve_gpu(req.gpu)
        except UnknownNameError:  # an unknown name is no NVSwitch system
            members = []
        spec = ctx.catalog.gpus.get(members[0]) if members else None
    if spec is None or not spec.nvlink or not _SETUP.search(text):
        return None
    board = bool(_HGX.search(spec.form_factor or "")) and (req.gpu_count or 0) >= 8
    if not (board or (_NVSWITCH_WORDS.search(text) and _HGX.search(spec.form_factor or ""))):
        return None
    return say("compat.fabric_manager_setup", ctx.language, gpu=gpu_name(ctx.catalog, spec.id, ctx.language),
               count=req.gpu_count or 8)


def with_fabric_manager(reply: AskAnswer | None, ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    line = nvswitch_setup(ask, ctx)
    if reply is None or line is None or line in reply.details:
        return reply
    return reply.model_copy(update={"details": [*reply.details, line],
                                    "sources": list(dict.fromkeys([*reply.sources, "nvidia-fabric-manager"]))})
