"""`compat` asks (driver, CUDA, wheels, compute capability, licence): the cuda and licence verdict
rules answer the first; every part that names a CUDA version and a driver of its own ("反过来，
12.4 的镜像放到 470 的机器上呢？") is checked against NVIDIA's table here, since the requirement
holds one pair only. Where the verdict only primes a topic, the findings of the question lead.

A driver runs a CUDA release when it is at least that release's minimum (cuda-release-notes), and
any release of the same major under minor-version compatibility when it is at least the major's
minimum (cuda-compatibility), without the features that need the newer driver.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext, is_primary
from bot.compose.cuda_check import CUDA_NAMED as _CUDA
from bot.compose.cuda_check import DRIVER_NAMED as _DRIVER
from bot.compose.cuda_check import check, limits
from bot.compose.explain import PRECISION, _from_findings, is_generic, precision_support, relevant_findings
from bot.knowledge import Catalog
from bot.messages import say
from bot.models import Ask, AskAnswer, Verdict

SOURCES = ["cuda-release-notes", "cuda-compatibility"]


# words that ask something: a part without any ("Driver 550, CUDA 12.4.") states the versions, it asks nothing
_ASKS = re.compile(r"[?？]|\b(?:can|could|does|do|did|is|are|will|would|should|which|what|how|ok|okay|work\w*|run\w*|support\w*)\b"
                   r"|吗|呢|能不能|能否|可不可以|是否|有没有|哪个|哪些|多少|怎么|行不行|支持|兼容", re.IGNORECASE)


def states_only(ask: Ask, ctx: ComposeContext) -> bool:
    """A part beside pasted output that only states versions the paste also shows ("…74C, is it throttling?
    Driver 550, CUDA 12.4."): context for the diagnosis, no compatibility question of its own."""
    return (ctx.paste is not None or ctx.requirement.pasted is not None) and bool(ask.text.strip()) and not _ASKS.search(ask.text) \
        and any(a.kind == "diagnose" for a in ctx.requirement.asks)


# a part naming a version of its own ("cu121", "CUDA 12.8", "torch 2.5"): judged on that version, not the paste's
_OWN_VERSION = re.compile(r"\bcu1[0-3][0-9]|\d+\.\d+|\bsm_?\d{2,3}", re.IGNORECASE)
_STACK_WORDS = re.compile(r"driver|cuda|驱动", re.IGNORECASE)


def pasted_driver(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"驱动和 CUDA 有没有问题？" beside a pasted nvidia-smi: the pasted driver and the CUDA it runs, judged
    (the "CUDA Version" nvidia-smi prints is the driver's ceiling, nvidia-smi-docs), never a question asking
    for the versions the paste shows."""
    paste = ctx.paste if ctx.paste is not None else ctx.requirement.pasted
    driver, ceiling = getattr(paste, "driver", None), getattr(paste, "driver_cuda", None)
    if not (driver and ceiling and _STACK_WORDS.search(ask.text) and _ASKS.search(ask.text)) \
            or _OWN_VERSION.search(ask.text) or not any(a.kind == "diagnose" for a in ctx.requirement.asks):
        return None
    return AskAnswer(kind="compat", lead=say("compat.pasted_driver_ok", ctx.language, driver=driver, newest=ceiling),
                     rule="compat.pasted-driver", sources=[*SOURCES, "nvidia-smi-docs"],
                     figures={"driver": driver, "cuda": ceiling})


def _pair_beside_paste(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"is the driver on this box ok for CUDA 12.4?" beside its nvidia-smi: that release on the pasted driver."""
    if ctx.paste is None and ctx.requirement.pasted is None:
        return None
    return _with_limits(_stated_pair(ask, ctx), ctx)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose.compat_fabric import with_fabric_manager  # a new NVSwitch server: Fabric Manager too
    return with_fabric_manager(_compose(ask, ctx), ask, ctx)


def _compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    from bot.compose import compat_arch, compat_licence, compat_stack

    if states_only(ask, ctx):
        return None
    if (pasted := pasted_driver(ask, ctx)) is not None:
        return pasted
    arch = compat_arch.compose(ask, ctx) if not _MIN_DRIVER.search(ask.text) else None
    specific = _specific(ask, ctx, arch)
    if specific is not None:
        return specific
    first = is_primary(ask, ctx) or _first_compat(ask, ctx)
    stack = (compat_stack.compose(ask, ctx) or compat_licence.compose(ask, ctx)) if first else None
    if stack is not None:
        return stack
    if arch is not None and first:  # "does cu118 pytorch run on H100?": the arch is carried, the driver is left
        return arch
    if not is_primary(ask, ctx):
        return _later_part(ask, ctx, arch)
    if (pair := _pair_beside_paste(ask, ctx)) is not None:
        return pair  # "is the driver on this box ok for CUDA 12.4?" beside its nvidia-smi: that pair
    return _by_verdict(ask, ctx)


def _later_part(ask: Ask, ctx: ComposeContext, arch: AskAnswer | None) -> AskAnswer | None:
    """A part after the message's first: its own CUDA/driver pair, the GPU it names, the format it asks."""
    from bot.compose import compat_arch

    if ask.subjects and not _DRIVER.search(ask.text) and not _MIN_DRIVER.search(ask.text) \
            and (gpu_only := compat_arch.compose(ask, ctx, driver=False)) is not None:
        return gpu_only  # "…能跑吗？H20 支持 CUDA 13 吗": the GPU this part asks about, the driver said before
    return (_with_limits(driver_check(ask.text, ctx.catalog, ctx.language) or _stated_pair(ask, ctx), ctx)
            or arch  # "(2) and the RTX 5090 box on 575?": the GPU of that part judged for the build
            or precision_support(ask, ctx) or relevant_findings(ask.text, ctx, "compat"))


def _by_verdict(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The message's first part where the composers above said nothing: the verdict rule's answer, added to."""
    verdict = ctx.answer.verdict
    if verdict is not None and verdict.rule == "verdict.cuda-drops-gpu" and _TORCH_WORDS.search(ctx.question or ask.text):
        line = _torch_drops(ctx)  # "…and the new PyTorch builds?": what a plain install takes, and the build to pin
        if line is not None:
            return AskAnswer(kind="compat", lead=verdict.text, details=[line], rule=verdict.rule,
                             sources=[*verdict.sources, "pytorch-release-matrix"])
    if verdict is not None and verdict.rule in _DRIVER_VERDICTS:
        return _driver_verdict(verdict, ctx)  # "…will it start?": the rule's driver verdict, with the ways round
    if verdict is None or is_generic(verdict.rule):
        reply = _from_findings(ctx, ask.text)
        return reply.model_copy(update={"kind": "compat"}) if reply else None
    return None


def _specific(ask: Ask, ctx: ComposeContext, arch: AskAnswer | None) -> AskAnswer | None:
    """The answers that decide a part before the driver/toolkit/runtime look: NVLink's need, a precision
    for each card named, a build with no kernels for the GPU's arch, a release's minimum driver."""
    from bot.compose import compat_nvlink

    nvlink = compat_nvlink.compose(ask, ctx)  # "does LoRA need NVLink?": the decision and its bytes
    if nvlink is not None:
        return nvlink
    each = _precision_each(ask, ctx)  # "A800、H800、L20 哪个能 FP8": every card named, judged
    if each is not None:
        return each
    verdict = ctx.answer.verdict
    # "is FP4 supported on H100?": no verdict rule judges that format; "…fix? also does the 5090 do FP8?": a
    # later part asks the card's format, not the build the message's verdict judged
    if PRECISION.search(ask.text) and not _OWN_VERSION.search(ask.text) and (
            verdict is None or is_generic(verdict.rule) or not is_primary(ask, ctx)):
        single = precision_support(ask, ctx)
        if single is not None:
            return single.model_copy(update={"kind": "compat"})
    if arch is not None and arch.figures["works"] == "no":  # "B200 nodes, will our cu124 image work?": no kernels
        return arch
    minimum = min_driver(ask.text, ctx.catalog, ctx.language)
    if minimum is not None:
        req = ctx.requirement
        ran = _with_limits(check(req.cuda, req.driver, ctx.catalog, ctx.language), ctx) if req.cuda and req.driver else None
        if ran is not None:  # "…需要什么驱动？我们机器是 535，能不能跑": their driver checked too
            return minimum.model_copy(update={"details": [ran.lead, *ran.details]})
    return minimum


_RUN_Q = re.compile(r"能不能|能跑|可以跑|能用|\brun\b|\bwork|compatible|兼容|\bok\b|\bokay\b|\bfine\b(?![\s-]?tun)|\bsupport\w*|支持|没问题|行吗",
                    re.IGNORECASE)


def _stated_pair(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"我们机器是 535，能不能直接跑用 12.8 编的程序": the message's CUDA and driver, for a part that asks to run."""
    req = ctx.requirement
    if not (_RUN_Q.search(ask.text) and req.cuda and req.driver):
        return None
    return check(req.cuda, req.driver, ctx.catalog, ctx.language)


def _with_limits(reply: AskAnswer | None, ctx: ComposeContext) -> AskAnswer | None:
    """A 'yes, under minor-version compatibility' says what the driver runs natively, what fails and the
    ways to the full release; a 'no' says the one way round it without a driver upgrade (cuda-compat,
    data-centre GPUs only): bot.compose.cuda_check.limits."""
    if reply is None:
        return None
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    extra = limits(reply, spec.gpu_class if spec else None, ctx.catalog, ctx.language)
    return reply.model_copy(update={"details": [*reply.details, *extra]}) if extra else reply


_DRIVER_VERDICTS = ("verdict.driver-ok", "verdict.driver-too-old")


def _driver_verdict(verdict: Verdict, ctx: ComposeContext) -> AskAnswer | None:
    """The verdict rule's driver-vs-CUDA answer, followed by what fails under minor-version compatibility
    and the ways to the full release, or round a driver too old (bot.compose.cuda_check.limits)."""
    req = ctx.requirement
    ran = check(req.cuda, req.driver, ctx.catalog, ctx.language) if req.cuda and req.driver else None
    extra = _with_limits(ran, ctx)
    if ran is None or extra is None or not extra.details or (verdict.answer == "no") != (ran.figures["works"] == "no"):
        return None  # no ways to add, or a driver the two read differently ("525.60" against 525.60.13)
    return AskAnswer(kind="compat", lead=verdict.text, details=extra.details, rule=verdict.rule,
                     sources=list(dict.fromkeys([*verdict.sources, *SOURCES])), figures=dict(ran.figures))


def _first_compat(ask: Ask, ctx: ComposeContext) -> bool:
    """The message's first compat part: the one the driver/toolkit/runtime answer is given to."""
    return next((a for a in ctx.requirement.asks if a.kind == "compat"), ask).start == ask.start


# "min driver for 12.8", "which driver does it need", "最低要装哪个版本的驱动", "至少要什么驱动"
_MIN_DRIVER = re.compile(r"min(?:imum)?\.?\s+driver|(?:lowest|oldest|earliest)\s+driver|which\s+driver|what\s+driver"
                         r"|driver\s+(?:version\s+)?(?:do\s+(?:i|we)|does\s+it)\s+need|driver\s+(?:is|are)\s+required"
                         r"|需要什么驱动|驱动.{0,4}(?:版本|要求)|(?:哪个|什么|哪一?版)版?本?的?驱动|最低.{0,4}驱动|至少.{0,4}驱动",
                         re.IGNORECASE)


def min_driver(text: str, catalog: Catalog, language: str) -> AskAnswer | None:
    """'min driver for CUDA 12.8?', 'CUDA 12.8 需要什么驱动': the release's minimum and its major's."""
    cuda_m = _CUDA.search(text)
    if not _MIN_DRIVER.search(text) or cuda_m is None:
        return None
    cuda = cuda_m.group(1) or f"{cuda_m.group(2)}.{cuda_m.group(3)}"
    release, major = catalog.cuda_release(cuda), catalog.cuda_major(int(cuda.split(".")[0]))
    if release is None or major is None:
        return None
    return AskAnswer(kind="compat", lead=say("compat.min_driver", language, cuda=cuda, release_min=release.min_driver,
                                             major=major.major, major_min=major.min_driver),
                     rule="compat.min-driver", sources=SOURCES, figures={"min_driver": release.min_driver})


def driver_check(text: str, catalog: Catalog, language: str) -> AskAnswer | None:
    """The verdict for the CUDA version and driver one part names, or None without both."""
    cuda_m, driver_m = _CUDA.search(text), _DRIVER.search(text)
    if cuda_m is None or driver_m is None:
        return None
    cuda = cuda_m.group(1) or f"{cuda_m.group(2)}.{cuda_m.group(3)}"
    driver = driver_m.group(1) or driver_m.group(2) or driver_m.group(3)
    return check(cuda, driver, catalog, language)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


_TORCH_WORDS = re.compile(r"pytorch|\btorch\b|\bwheels?\b", re.IGNORECASE)


def _torch_drops(ctx: ComposeContext) -> str | None:
    """A GPU the newest CUDA major dropped (V100 on CUDA 13): the newest PyTorch's default build cannot
    carry it, and the builds of an older major in that release are the ones to pin (pytorch-release-matrix)."""
    from bot.compose.cuda_check import _tag, carries, torch_release

    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    release = torch_release(ctx.catalog)
    if spec is None or release is None:
        return None
    major = ctx.catalog.cuda_major(int(release.default.split(".")[0]))
    if major is None or spec.compute_capability not in major.dropped_cc:
        return None
    # the builds of an older major that carry the arch (2.11's cu128 has no sm_70; its cu126 does), where recorded
    older = [c for c in release.cuda if int(c.split(".")[0]) < major.major
             and carries(release, c, spec.compute_capability) is not False]
    if not older:
        return None
    sm = spec.compute_capability.replace(".", "")
    return say("compat.torch_drops_arch", ctx.language, release=release.version, cuda=release.default,
               tag=_tag(release.default), sm=sm, builds=", ".join(_tag(c) for c in older),
               index=_tag(max(older, key=lambda c: _version(c))))


def _precision_each(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """A precision asked of several named cards: yes or no for each (its tensor cores for the format, the
    card's own spec), the cards that can said first, then one line per card."""
    replies = [(g, precision_support(ask.model_copy(update={"subjects": [g]}), ctx)) for g in dict.fromkeys(ask.subjects)]
    judged = [(g, r) for g, r in replies if r is not None]
    if len(judged) < 2:
        return None
    lang = ctx.language
    comma = "、" if lang == "zh" else ", "
    precision = PRECISION.search(ask.text)
    yes = [gpu_label(ctx, g) for g, r in judged if r.figures.get("tflops")]
    no = [gpu_label(ctx, g) for g, r in judged if not r.figures.get("tflops")]
    key = "compat.precision_each" if yes and no else "compat.precision_each_all" if yes else "compat.precision_each_none"
    lead = say(key, lang, precision=precision.group(1).upper() if precision else "?", yes=comma.join(yes),
               no=comma.join(no), all=comma.join(yes or no))
    sources = list(dict.fromkeys(s for _, r in judged for s in r.sources))
    return AskAnswer(kind="compat", lead=lead, details=[r.lead for _, r in judged], rule="explain.precision-support",
                     sources=sources, figures={"supported": ",".join(yes)})




def gpu_label(ctx: ComposeContext, gpu: str) -> str:
    """A subject's display name: the catalog entry, or a family ("H800") as written in capitals."""
    from bot.messages.format import gpu_name

    return gpu_name(ctx.catalog, gpu, ctx.language) if gpu in ctx.catalog.gpus else gpu.upper()
