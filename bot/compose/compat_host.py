"""A driver too old, asked about from inside a container ("can I fix it from inside the container?",
"容器里能升级驱动吗"): the kernel driver belongs to the host; nothing installed in the image (a CUDA toolkit, a
newer runtime) changes it (cuda-compatibility; the NVIDIA Container Toolkit mounts the host's driver)."""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.messages import say
from bot.models import AskAnswer

# the fix asked for inside the container ("from inside the container", "能在镜像里修好吗")
_CONTAINER = re.compile(r"\b(?:inside|within|from|in)\s+(?:the\s+|a\s+|my\s+|our\s+|this\s+)?(?:docker\s+)?(?:containers?|images?|pods?)\b"
                        r"|\binside\s+(?:it|docker)\b|容器里|容器内|镜像里|镜像内", re.IGNORECASE)
_DRIVER = re.compile(r"driver|驱动", re.IGNORECASE)


def once(answers: list[AskAnswer], ctx: ComposeContext) -> list[AskAnswer]:
    """The host-driver line said once, under the first compat or diagnose answer that can carry it."""
    line = say("compat.driver_on_host", ctx.language)
    if any(line in a.details for a in answers):
        return answers
    for i, reply in enumerate(answers):
        if reply.kind in ("compat", "diagnose"):
            added = with_host_driver(reply, ctx)
            if added is not None and added is not reply:
                return [*answers[:i], added, *answers[i + 1:]]
    return answers


def with_host_driver(reply: AskAnswer | None, ctx: ComposeContext) -> AskAnswer | None:
    """`reply` with the host-driver line added where a too-old driver is met in a container."""
    text = ctx.question or ""
    paste = ctx.paste if ctx.paste is not None else ctx.requirement.pasted
    too_old = any(e.kind == "driver-too-old" for e in getattr(paste, "errors", None) or [])
    if reply is None or not _CONTAINER.search(text) or not (too_old or (_DRIVER.search(text) and "driver" in (reply.rule or ""))):
        return reply
    line = say("compat.driver_on_host", ctx.language)
    if line in reply.details:
        return reply
    return reply.model_copy(update={"details": [line, *reply.details],
                                    "sources": list(dict.fromkeys([*reply.sources, "cuda-compatibility"]))})
