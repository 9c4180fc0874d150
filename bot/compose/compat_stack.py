"""Driver vs toolkit vs the framework's bundled CUDA runtime (the `compat` composer's first look).

Three versions get mixed up: nvidia-smi's "CUDA Version" is the newest CUDA the driver supports
(nvidia-smi-docs), `nvcc -V` is the toolkit that compiles CUDA code, and `torch.version.cuda` (the
`cuXXX` of a wheel) is the CUDA runtime the PyTorch wheel carries with it (pytorch-get-started), so
running a wheel needs only a driver that runs that runtime (cuda-compatibility: the release's own
minimum, or the major's under minor-version compatibility). A toolkit matters only to compile
extensions, and then it should be torch's CUDA version.

Answers, in the question's terms: "do I need Toolkit 12.4?" (no, and why), "can I run cu121 /
cu124 / cu128 wheels on this driver?" (one verdict per wheel), "which one matters?" (each named).
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.compose.cuda_check import check, limits
from bot.knowledge import GpuSpec
from bot.knowledge.models import ArchFloor
from bot.messages import say
from bot.models import Ask, AskAnswer

SOURCES = ["cuda-compatibility", "nvidia-smi-docs", "pytorch-get-started", "cuda-release-notes"]
_WHEEL = re.compile(r"\bcu(1[0-3])([0-9])\b", re.IGNORECASE)
_TORCH_CUDA = re.compile(r"torch\.version\.cuda\D{0,24}?(1[0-3]\.[0-9])", re.IGNORECASE)
_NVCC = re.compile(r"nvcc(?:\s+-V)?\D{0,24}?(1[0-3]\.[0-9])", re.IGNORECASE)
_SMI_CUDA = re.compile(r"CUDA\s+Version\s*:?\s*(1[0-3]\.[0-9])", re.IGNORECASE)
_TOOLKIT_Q = re.compile(r"(?:need|have|install|要不要|需不需要|需要|得|必须|用不用)[^.?？。]{0,24}toolkit|toolkit[^.?？。]{0,12}(?:吗|\?|？)"
                        # "要在宿主机装 CUDA 吗", "do we need CUDA installed on the host?"
                        r"|(?:宿主机|主机|物理机|host)[^.?？。]{0,8}(?:装|安装)\s*cuda|装\s*cuda\s*(?:吗|么|\?|？)"
                        r"|\b(?:need|install)\w*\s+cuda\s+(?:installed\s+)?on\s+the\s+host", re.IGNORECASE)
# "will the container run", "能跑吗": whether it runs on the driver, asked beside the toolkit question
_RUNS_Q = re.compile(r"\b(?:will|would|does|can)\s+(?:it|this|that|the\s+\w+)\s+(?:\w+\s+)?(?:run|work|start)\b|能跑|能不能跑|可以跑|能用吗|跑得起来",
                     re.IGNORECASE)
# The CUDA runtime comes in a container image, not a wheel: the host needs its driver and the NVIDIA Container Toolkit.
_IMAGE = re.compile(r"\bdocker\b|\bcontainers?\b|\bimages?\b|\bpodman\b|nvcr\.io|nvidia/cuda:|镜像|容器", re.IGNORECASE)
_WHICH = re.compile(r"which\s+(?:one|version|of\s+them)\s+(?:matters|counts|is\s+right)|以哪个为准|听哪个|哪个(?:才)?(?:算数|为准|是对的|重要)",
                    re.IGNORECASE)
_BUILD = re.compile(r"\bbuild|compil|flash[\s-]?attn|extension|setup\.py|编译|源码", re.IGNORECASE)
_TORCH = re.compile(r"torch|pytorch|\bwheels?\b|\bcu1[0-3][0-9]\b", re.IGNORECASE)
_UPGRADE = re.compile(r"upgrade|update\s+the\s+driver|升级|更新驱动", re.IGNORECASE)
_RUN_WORDS = {"native": "yes", "minor": "minor", "old": "no"}


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ctx.question or ask.text
    req = ctx.requirement
    smi = req.driver_cuda or _group(_SMI_CUDA, text)
    driver = req.driver or _ceiling_driver(smi, ctx)
    reply = _stack(ask, ctx, text, driver, smi)
    if reply is None or req.driver or not driver or reply.rule not in ("compat.plain-install", "compat.wheel-vs-driver"):
        return reply
    # only nvidia-smi's "CUDA Version 12.2" given: the driver read from it, said before the verdict's details
    minimum = ctx.catalog.cuda_release(smi or "")
    read = say("compat.smi_driver", ctx.language, smi=smi, branch=driver, driver=minimum.min_driver if minimum else driver)
    return reply.model_copy(update={"details": [read, *reply.details]})


def _ceiling_driver(smi: str | None, ctx: ComposeContext) -> str | None:
    """The driver an nvidia-smi "CUDA Version" stands for where the driver itself is not given: that CUDA
    release's minimum (cuda-release-notes), the branch of the oldest driver that prints it (12.2 -> 535)."""
    release = ctx.catalog.cuda_release(smi) if smi else None
    return release.min_driver.split(".")[0] if release is not None else None


def _stack(ask: Ask, ctx: ComposeContext, text: str, driver: str | None, smi: str | None) -> AskAnswer | None:
    req = ctx.requirement
    nvcc = _group(_NVCC, text)
    torch_cuda = _group(_TORCH_CUDA, text)
    wheels = list(dict.fromkeys(f"{m.group(1)}.{m.group(2)}" for m in _WHEEL.finditer(text)))
    if torch_cuda and torch_cuda not in wheels:
        wheels.insert(0, torch_cuda)
    runtime = wheels[0] if wheels else None  # torch.version.cuda first, else the first wheel named
    named = sum(bool(v) for v in (smi, nvcc, runtime))
    if named >= 2 and (nvcc or _WHICH.search(text)):
        return _which(smi, nvcc, runtime, req.driver, text, ctx)
    if driver and not wheels and _PLAIN.search(text):  # "pip install torch (latest)", "2.11 默认包": the default build judged
        plain = _plain(wheels, driver, text, ctx)
        if plain is not None:
            return plain
    if _TOOLKIT_Q.search(ask.text) or (_TOOLKIT_Q.search(text) and ask.start == 0):
        return _toolkit(wheels[0] if wheels else req.cuda, req.driver, smi, ctx)
    if wheels and driver and _TORCH.search(text):
        return _asked_forward(_wheels(wheels, driver, ctx), text, ctx)
    return None


# "can we use cuda-compat on the 4090s?", "前向兼容包能用吗": the forward-compatibility package asked about by name
_FORWARD_Q = re.compile(r"cuda[\s_-]?compat|forward[\s-]compat\w*|前向兼容", re.IGNORECASE)


def _asked_forward(reply: AskAnswer | None, text: str, ctx: ComposeContext) -> AskAnswer | None:
    """Where the message asks about NVIDIA's forward-compatibility package, its answer leads: data-centre
    GPUs only (cuda-compatibility), so no on a GeForce card, and the builds' verdicts after it."""
    if reply is None or not _FORWARD_Q.search(text) or "no" not in reply.figures.values():  # runs: nothing to get round
        return reply
    from bot.messages.format import gpu_name

    spec = _named_spec(ctx)
    lang = ctx.language
    if spec is None:
        lead = say("compat.forward_asked_unknown", lang)
    else:
        key = "compat.forward_asked_geforce" if spec.gpu_class == "consumer" else "compat.forward_asked_dc"
        lead = say(key, lang, gpu=gpu_name(ctx.catalog, spec.id, lang))
    return reply.model_copy(update={"lead": lead, "details": [reply.lead, *reply.details]})


# A plain install of the current or a named release: "pip install torch", "latest PyTorch", "最新 PyTorch（2.11 默认包）".
_PLAIN = re.compile(r"pip\s+install\s+(?:-U\s+)?torch\b(?!\S*\s+--(?:index|extra-index)-url)(?!\s*==)"
                    r"|(?:latest|newest|current|default)\s+(?:(?:pip|pypi)\s+)?(?:(?:package|wheel|build)s?\s+(?:of\s+)?)?(?:pytorch|torch)|(?:pytorch|torch)\s*\(?(?:latest|newest)"
                    r"|(?:pytorch|torch)\s*[0-9.]*\s+(?:default|stock|plain)\s+(?:wheels?|builds?|packages?|install)"  # "torch 2.8 default wheel"
                    r"|最新(?:版|的)?\s*(?:pytorch|torch)|(?:pytorch|torch)\s*[0-9.]*\s*(?:最新|默认)|默认包|默认的?\s*wheel"
                    # "torch 2.11 from pip", "pytorch via pypi": the default wheel
                    r"|(?:pytorch|torch)\s*[0-9.]*\s+(?:from|via|off|on|through)\s+(?:pip|pypi)\b"
                    # "能装 PyTorch 2.11 吗", "can we install torch 2.11?": a release to install, no build named
                    r"|(?:装|安装|\binstall\s+)(?:上|个|一下)?\s*(?:pytorch|torch)\s*(?:==\s*)?[12]\.[0-9]{1,2}(?![0-9.]*\s*\+?\s*cu)",
                    re.IGNORECASE)
# "torch 2.11", "torch==2.11", "pip install torch pulled 2.11", "2.11 的默认包": the release the plain install took
_RELEASE = re.compile(r"(?:pytorch|torch)\s*(?:==\s*|(?:\s+(?:pulled|installed|got|gave(?:\s+me)?|grabbed|fetched|brought|is|was|version|装了|装的是|拉了|拉到)\s*(?:in\s+|v)?))?"
                      r"([12]\.[0-9]{1,2})(?![0-9])(?!\s*(?:gb|gib|x\b|倍))|(2\.[0-9]{1,2})\s*(?:的)?\s*默认", re.IGNORECASE)
# "without a driver upgrade", "provider won't touch the driver", "不升级驱动": the fix must leave the driver as it is
_KEEP_DRIVER = re.compile(r"without\s+(?:a\s+|the\s+|any\s+)?driver\s+(?:upgrade|update|change)|without\s+(?:upgrading|updating|touching|changing)\s+the\s+driver"
                          r"|(?:won'?t|will\s+not|can'?t|cannot|don'?t|not\s+allowed\s+to)\s+(?:touch|upgrade|update|change)\s+the\s+driver"
                          r"|不(?:能|让|给|准|许)?(?:升级|动|改|更新)驱动|驱动(?:不能|不让|不给|不准|没法)(?:动|升级|改|更新)", re.IGNORECASE)
_BYPASS = re.compile(r"绕过|绕开|\bwork\s*around\b|\bget\s+around\b|\binstead\s+of\s+(?:upgrading|updating)\s+the\s+driver"
                     r"|\bbypass\b|代替(?:升级)?驱动|不升级驱动", re.IGNORECASE)


def _plain(wheels: list[str], driver: str, text: str, ctx: ComposeContext) -> AskAnswer | None:
    """A plain install judged on the driver (the default build of the release named, else the newest),
    each cuXXX build the message also names, and "a toolkit in the container gets around it?" answered."""
    from bot.compose.cuda_check import plain_install

    lang = ctx.language
    named = _RELEASE.search(text)
    floor = _floor(ctx)
    plain = plain_install(driver, ctx.catalog, lang, (named.group(1) or named.group(2)) if named else None,
                          floor.min_cuda if floor else None)
    if plain is None:
        return None
    lines = []
    builds = [*wheels, *([ctx.requirement.cuda] if ctx.requirement.cuda and ctx.requirement.cuda not in wheels else [])]
    for cuda in builds[:3]:  # "vLLM built with CUDA 12.4": each build the message names, on the same driver
        run = _run(cuda, driver, ctx)
        if run is not None:
            lines.append(run[1].lead)
    if _BYPASS.search(text) and re.search(r"toolkit|容器|container|docker|镜像", text, re.IGNORECASE):
        lines.append(say("compat.toolkit_no_bypass", lang))
    if floor is not None:
        lines.append(_floor_line(floor, driver, ctx))
    lines.append(say("compat.wheel_runtime", lang))
    lines.append(say("compat.wheel_test", lang))
    lead = plain.lead
    if plain.figures["works"] == "no" and plain.figures.get("fit") and _KEEP_DRIVER.search(text):
        why = say("compat.keep_driver_why", ctx.language, release=plain.figures.get("release") or "",
                  cuda=plain.figures["default"], tag="cu" + str(plain.figures["default"]).replace(".", ""),
                  need=plain.figures.get("need") or "?")
        lead, lines = _keep_driver(plain, driver, ctx), [why, *_forward(plain, ctx), *lines]  # that way first
    return AskAnswer(kind="compat", lead=lead, details=lines, rule="compat.plain-install",
                     sources=[*SOURCES, "pytorch-release-matrix", "pytorch-cuda13-stable-2-11"], figures=plain.figures)


def _keep_driver(plain: AskAnswer, driver: str, ctx: ComposeContext) -> str:
    """"…without a driver upgrade?": yes, with the build of the driver's CUDA major (minor-version
    compatibility, cuda-compatibility)."""
    fit = str(plain.figures["fit"])
    major = ctx.catalog.cuda_major(int(fit.split(".")[0]))
    return say("compat.keep_driver_yes", ctx.language, driver=driver, fit=fit, fit_tag="cu" + fit.replace(".", ""),
               pin=str(plain.figures.get("pin") or ""), major=fit.split(".")[0],
               major_min=major.min_driver if major is not None else "?")


def _forward(plain: AskAnswer, ctx: ComposeContext) -> list[str]:
    """On a data-centre GPU the default build itself can run on the old driver through NVIDIA's
    forward-compatibility package, which leaves the kernel driver as it is (cuda-compatibility; not GeForce)."""
    spec = _named_spec(ctx)
    if spec is None or spec.gpu_class != "datacenter":
        return []
    from bot.messages.format import gpu_name

    default = str(plain.figures["default"])
    return [say("compat.keep_driver_forward", ctx.language, gpu=gpu_name(ctx.catalog, spec.id, ctx.language),
                cuda=default, pkg="cuda-compat-" + default.replace(".", "-"))]


def _named_spec(ctx: ComposeContext) -> GpuSpec | None:
    """The GPU the question names, a family ("H100") as the advisor judges it."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    gpu = ctx.requirement.gpu
    if not gpu:
        return None
    try:
        return ctx.catalog.gpus.get(gpu) or representative(ctx.catalog, gpu)
    except UnknownNameError:
        return None


def _floor(ctx: ComposeContext) -> ArchFloor | None:
    """The architecture floor of the GPU the question names (sm_120 for an RTX 5090), where it has one."""
    from bot.compose.cuda_check import arch_floor

    spec = _named_spec(ctx)
    return arch_floor(ctx.catalog, spec.compute_capability) if spec is not None else None


def _floor_line(floor: ArchFloor, driver: str | None, ctx: ComposeContext) -> str:
    """"sm_120 is supported from CUDA 12.8: PyTorch ≥ 2.7 cu128, driver ≥ 570.26 — your 570.124.06 meets it"."""
    from bot.compose.cuda_check import _tag, _version

    lang = ctx.language
    yours = ""
    if driver:
        ok = _version(driver) + (999, 999)[: 3 - len(_version(driver))] >= _version(floor.min_driver)
        yours = say("compat.arch_floor_yours_ok" if ok else "compat.arch_floor_yours_old", lang, have=driver)
    return say("compat.arch_floor_ok", lang, arch=floor.arch, sm="sm_" + floor.cc.replace(".", ""), cuda=floor.min_cuda,
               torch=floor.min_torch, tag=_tag(floor.min_cuda), driver=floor.min_driver, yours=yours)


def _group(pattern: re.Pattern, text: str) -> str | None:
    m = pattern.search(text)
    return m.group(1) if m else None


def _run(cuda: str, driver: str | None, ctx: ComposeContext) -> tuple[str, AskAnswer] | None:
    """('yes' | 'minor' | 'no', the driver check) for a CUDA runtime on the driver, or None."""
    if not driver:
        return None
    reply = check(cuda, driver, ctx.catalog, ctx.language)
    return (_RUN_WORDS[str(reply.figures["how"])], reply) if reply is not None else None


def _which(smi, nvcc, runtime, driver, text: str, ctx: ComposeContext) -> AskAnswer:
    lang = ctx.language
    parts = []
    if smi:
        parts.append(say("compat.which_smi", lang, smi=smi, driver=driver or "?"))
    if nvcc:
        parts.append(say("compat.which_nvcc", lang, nvcc=nvcc))
    if runtime:
        parts.append(say("compat.which_torch", lang, torch=runtime))
    lead = say("compat.which_lead", lang, parts=("；" if lang == "zh" else "; ").join(parts))
    details = []
    run = _run(runtime, driver, ctx) if runtime else None
    if run is not None:
        details.append(run[1].lead)
    if _BUILD.search(text) and nvcc and runtime and nvcc != runtime:
        details.append(say("compat.build_mismatch", lang, nvcc=nvcc, torch=runtime, arch=_arch(ctx)))
    elif _BUILD.search(text) and runtime:
        details.append(say("compat.build_match", lang, torch=runtime, arch=_arch(ctx)))
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.driver-toolkit-runtime", sources=SOURCES,
                     figures={"driver_cuda": smi, "nvcc": nvcc, "runtime": runtime})


def _arch(ctx: ComposeContext) -> str:
    """TORCH_CUDA_ARCH_LIST for the GPU the question names ("9.0" for H100), else the placeholder."""
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    if spec is None:
        from bot.advice.options import representative
        from bot.knowledge import UnknownNameError

        try:
            spec = representative(ctx.catalog, ctx.requirement.gpu) if ctx.requirement.gpu else None
        except UnknownNameError:
            spec = None
    return f"{spec.cc_number:.1f}" if spec is not None else "<your GPU's compute capability>"


def _toolkit(runtime: str | None, driver: str | None, smi: str | None, ctx: ComposeContext) -> AskAnswer:
    lang = ctx.language
    if runtime is None:
        lead = say("compat.toolkit_build_only", lang)
        return AskAnswer(kind="compat", lead=lead, details=[say("compat.toolkit_when", lang, torch="torch.version.cuda")],
                         rule="compat.toolkit-not-needed", sources=SOURCES)
    run = _run(runtime, driver, ctx)
    if run is None and smi and not driver:
        # only nvidia-smi's CUDA: the same major runs under minor-version compatibility
        same = smi.split(".")[0] == runtime.split(".")[0]
        host = say("compat.toolkit_host_smi_ok" if same else "compat.toolkit_host_smi_newer", lang, smi=smi, torch=runtime,
                   major=runtime.split(".")[0])
    elif run is None:
        host = say("compat.toolkit_host_unknown", lang, torch=runtime)
    else:
        host = run[1].lead
    image = bool(_IMAGE.search(ctx.question or "")) and not _TORCH.search(ctx.question or "")
    lead = say("compat.toolkit_no_image" if image else "compat.toolkit_no", lang, torch=runtime,
               wheel="cu" + runtime.replace(".", ""))
    when = say("compat.toolkit_when_image" if image else "compat.toolkit_when", lang, torch=runtime)
    details = [host, when]
    asked_run, asked_toolkit = _RUNS_Q.search(ctx.question or ""), _TOOLKIT_Q.search(ctx.question or "")
    if run is not None and asked_run and asked_toolkit and asked_run.start() < asked_toolkit.start():
        lead, details = host, [lead, when]  # "will it run, and do we need the toolkit?": the answers in that order
    return AskAnswer(kind="compat", lead=lead, details=details,
                     rule="compat.toolkit-not-needed", sources=SOURCES, figures={"needs_toolkit": "no", "runtime": runtime})


def _wheel_items(groups: dict[tuple[str, str], list[tuple[str, AskAnswer]]], lang: str) -> list[str]:
    """One line per (verdict, major) group, yes before minor-compat before no."""
    comma = "、" if lang == "zh" else ", "
    items = []
    order = {"yes": 0, "minor": 1, "no": 2}
    for word, major in sorted(groups, key=lambda k: (order[k[0]], k[1])):
        group = groups[(word, major)]
        first = group[0][1].figures
        items.append(say(f"compat.wheel_{word}", lang, wheel=comma.join("cu" + c.replace(".", "") for c, _ in group),
                         major=major, major_min=first["major_min"],
                         release_min=comma.join(str(r.figures["release_min"]) for _, r in group),
                         newest=first.get("newest") or "?"))
    return items


def _minor_ways(groups: dict[tuple[str, str], list[tuple[str, AskAnswer]]], ctx: ComposeContext) -> list[str]:
    """What fails under minor-version compatibility and the ways to the full release, for the newest wheel
    that runs only under it (its ways cover the older ones)."""
    minor = max((r for (w, _), g in groups.items() if w == "minor" for _, r in g),
                key=lambda r: tuple(int(p) for p in str(r.figures["cuda"]).split(".")), default=None)
    if minor is None:
        return []
    spec = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
    return limits(minor, spec.gpu_class if spec else None, ctx.catalog, ctx.language)


def _wheels(wheels: list[str], driver: str, ctx: ComposeContext) -> AskAnswer | None:
    """One verdict per wheel, wheels with the same verdict said together ("cu121, cu124 — yes, …")."""
    lang = ctx.language
    groups: dict[tuple[str, str], list[tuple[str, AskAnswer]]] = {}  # (verdict, major) -> wheels
    for cuda in wheels[:4]:
        run = _run(cuda, driver, ctx)
        if run is not None:
            groups.setdefault((run[0], cuda.split(".")[0]), []).append((cuda, run[1]))
    if not groups:
        return None
    items = _wheel_items(groups, lang)
    words = {word for word, _ in groups}
    upgrade = "no" not in words and _UPGRADE.search(ctx.question or "")
    lead = say("compat.wheels_lead_no_upgrade" if upgrade else "compat.wheels_lead", lang, driver=driver,
               items=("；" if lang == "zh" else "; ").join(items))
    details = [say("compat.wheel_runtime", lang)]
    details += _minor_ways(groups, ctx)
    from bot.compose.cuda_check import plain_install

    plain = plain_install(driver, ctx.catalog, lang)
    concrete = plain is not None and plain.figures["works"] == "no"  # what the plain install would take, said
    details.append(say("compat.wheel_pin_index" if concrete else "compat.wheel_pin", lang,
                       wheel="cu" + wheels[0].replace(".", ""), driver=driver))
    if concrete and plain is not None:
        details.append(plain.lead)
    details.append(say("compat.wheel_test", lang))
    paste = ctx.paste if ctx.paste is not None else ctx.requirement.pasted
    if paste is not None and any(t.compute_mode in ("E. Process", "Prohibited") for t in getattr(paste, "thresholds", [])):
        mode = next(t.compute_mode for t in paste.thresholds if t.compute_mode in ("E. Process", "Prohibited"))
        details.append(say("compat.paste_exclusive", lang, mode=mode))  # what else the pasted box shows
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.wheel-vs-driver", sources=SOURCES,
                     figures={"driver": driver, **{f"cu{c.replace('.', '')}": w for (w, _), g in groups.items() for c, _ in g}})
