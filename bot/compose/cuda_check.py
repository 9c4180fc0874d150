"""Whether a build of one CUDA release runs on one driver (NVIDIA's table, cuda-release-notes, and
minor-version compatibility, cuda-compatibility), shared by the compat composers."""

from __future__ import annotations

import re

from bot.knowledge import Catalog
from bot.knowledge.models import ArchFloor, TorchRelease
from bot.messages import say
from bot.models import AskAnswer

SOURCES = ["cuda-release-notes", "cuda-compatibility"]
# "CUDA 12.8", "cu128": a CUDA release named; "driver 535", "535 的驱动", "are on 535": a driver named
CUDA_NAMED = re.compile(r"cuda\s*(?:toolkit\s*)?(1[0-3]\.[0-9])|\bcu(1[0-3])([0-9])\b", re.IGNORECASE)
DRIVER_NAMED = re.compile(r"(?:driver|驱动)\D{0,8}?([3-6][0-9]{2}(?:\.[0-9]+){0,2})|([3-6][0-9]{2}(?:\.[0-9]+){0,2})\s*(?:的)?\s*(?:driver|驱动)"
                          r"|(?:\bare on|\bis on|\bruns?|是|用的是|装的是)\s*([3-6][0-9]{2}(?:\.[0-9]{2,3}){0,2})\b(?!\s*(?:gb|w\b|mhz|tflops|g\b))",
                          re.IGNORECASE)


def check(cuda: str, driver: str, catalog: Catalog, language: str) -> AskAnswer | None:
    """Whether a CUDA `cuda` build runs on `driver`: by the release's minimum, else minor-version
    compatibility, else not (with the newest CUDA the driver runs); None for a release not in the table."""
    release, major = catalog.cuda_release(cuda), catalog.cuda_major(int(cuda.split(".")[0]))
    if release is None or major is None:
        return None
    have = _version(driver) + (999, 999)[: 3 - len(_version(driver))]  # "470": any driver of the 470 branch
    params = {"cuda": cuda, "driver": driver, "release_min": release.min_driver, "major": major.major,
              "major_min": major.min_driver}
    if have >= _version(release.min_driver):
        lead, ok, how = say("compat.driver_ok", language, **params), True, "native"
    elif have >= _version(major.min_driver):
        lead, ok, how = say("compat.driver_minor", language, **params), True, "minor"
    else:
        how = "old"
        runs = [r for r in catalog.cuda.releases if _version(r.min_driver) <= have]
        newest = max(runs, key=lambda r: _version(r.version)).version if runs else "?"
        lead, ok = say("compat.driver_old", language, **params, newest=newest, newest_major=newest.split(".")[0]), False
    return AskAnswer(kind="compat", lead=lead, rule="compat.driver-vs-cuda", sources=SOURCES,
                     figures={"works": "yes" if ok else "no", "how": how, "cuda": cuda, "driver": driver,
                              "major_min": major.min_driver, "release_min": release.min_driver,
                              **({} if ok else {"newest": newest})})


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def limits(reply: AskAnswer, gpu_class: str | None, catalog: Catalog, language: str) -> list[str]:
    """What follows a driver verdict (cuda-compatibility): for a 'yes under minor-version compatibility', the
    CUDA the driver runs natively, what fails (PTX JIT of newer code, APIs of the newer driver) and the ways
    to the full release (the driver upgrade, cuda-compat on data-centre GPUs, a build the driver runs
    natively); for a 'no', the one way round it without an upgrade (cuda-compat, data-centre GPUs only)."""
    how = reply.figures.get("how")
    if how not in ("old", "minor"):
        return []
    driver, cuda = str(reply.figures["driver"]), str(reply.figures["cuda"])
    builds = [c for t in catalog.cuda.torch for c in t.cuda if (r := check(c, driver, catalog, "en")) is not None
              and r.figures["how"] == "native"]
    tag = _tag(max(builds, key=_version)) if builds else ""
    if how == "old":
        newest = str(reply.figures.get("newest") or "?")
        lines = [] if not builds else [say("compat.old_native_build", language, driver=driver, newest=newest, tag=tag,
                                           major=newest.split(".")[0])]
        return lines + ([] if gpu_class == "consumer" else [say("compat.driver_old_forward", language)])
    have = _version(driver) + (999, 999)[: 3 - len(_version(driver))]
    native = [r for r in catalog.cuda.releases if _version(r.min_driver) <= have]
    lines = []
    newest = max(native, key=lambda r: _version(r.version)).version if native else ""
    if newest:
        lines.append(say("compat.native_up_to", language, driver=driver, newest=newest, major=cuda.split(".")[0]))
    lines.append(say("compat.wheel_minor_limits", language))
    pkg = "cuda-compat-" + cuda.replace(".", "-")
    forward = "" if gpu_class == "consumer" else say("compat.minor_forward_dc" if gpu_class else "compat.minor_forward",
                                                     language, pkg=pkg)
    lines.append(say("compat.minor_options_torch" if builds else "compat.minor_options", language, driver=driver, cuda=cuda,
                     release_min=reply.figures["release_min"], newest=newest or cuda, forward=forward,
                     tag=tag))
    return lines


def torch_release(catalog: Catalog, version: str | None = None) -> TorchRelease | None:
    """The PyTorch release named ("2.11", "2.5.1"), else the newest one the table knows."""
    known = catalog.cuda.torch
    if version:
        major_minor = ".".join(version.split(".")[:2])
        return next((t for t in known if t.version == major_minor), None)
    return max(known, key=lambda t: _version(t.version)) if known else None


def best_build(release: TorchRelease, driver: str, catalog: Catalog, min_cuda: str | None = None) -> str | None:
    """The newest CUDA build of a PyTorch release that runs on `driver` (natively or under minor-version
    compatibility) and, with `min_cuda`, is at least that CUDA (an architecture's floor)."""
    fits = [c for c in release.cuda if (r := check(c, driver, catalog, "en")) is not None and r.figures["works"] == "yes"
            and (min_cuda is None or _version(c) >= _version(min_cuda))]
    return max(fits, key=_version) if fits else None


def plain_install(driver: str, catalog: Catalog, language: str, version: str | None = None,
                  min_cuda: str | None = None) -> AskAnswer | None:
    """What a plain `pip install torch` (of `version`, else the newest release) takes and whether it runs
    on `driver`: the default build's CUDA against the driver (pytorch-release-matrix), and the index of
    the build to take instead when it does not."""
    release = torch_release(catalog, version)
    if release is None:
        return None
    ran = check(release.default, driver, catalog, language)
    if ran is None:
        return None
    major = catalog.cuda_major(int(release.default.split(".")[0]))
    need = _short(major.min_driver) if major else str(ran.figures["release_min"])
    params = {"release": release.version, "cuda": release.default, "tag": _tag(release.default), "driver": driver,
              "need": need}
    if ran.figures["works"] == "yes":
        return AskAnswer(kind="compat", lead=say("compat.plain_install_ok", language, **params),
                         rule="compat.plain-install", sources=[*SOURCES, "pytorch-release-matrix"],
                         figures={"works": "yes", "default": release.default})
    fit, pin = best_build(release, driver, catalog, min_cuda), release.version
    older = sorted((t for t in catalog.cuda.torch if _version(t.version) < _version(release.version)),
                   key=lambda t: _version(t.version), reverse=True)
    for earlier in older if fit is None else []:  # the newest release that still has a build for this driver
        fit, pin = best_build(earlier, driver, catalog, min_cuda), earlier.version
        if fit is not None:
            break
    key = "compat.plain_install_old_none" if fit is None else (
        "compat.plain_install_old" if pin == release.version else "compat.plain_install_old_pin")
    lead = say(key, language, **params, fit=fit or "", fit_tag=_tag(fit) if fit else "", pin=pin)
    return AskAnswer(kind="compat", lead=lead, rule="compat.plain-install", sources=[*SOURCES, "pytorch-release-matrix"],
                     figures={"works": "no", "default": release.default, "fit": fit or "", "pin": pin if fit else "",
                              "release": release.version, "need": need})


def arch_floor(catalog: Catalog, cc: str) -> ArchFloor | None:
    """The CUDA, PyTorch and driver floor of a compute capability ("12.0"), where the table has one."""
    return next((a for a in catalog.cuda.arch_floors if a.cc == cc), None)


def _tag(cuda: str) -> str:
    return "cu" + cuda.replace(".", "")


def _short(driver: str) -> str:
    """'580.00' -> '580': a branch floor written as NVIDIA's table writes it reads as the branch."""
    return driver[:-3] if driver.endswith(".00") else driver


def carries(release: TorchRelease, cuda: str, cc: str) -> bool | None:
    """Whether `release`'s CUDA `cuda` build has kernels a GPU of compute capability `cc` runs (knowledge/
    cuda.yaml torch arch, pytorch-cuda-arch-matrix): SASS of its own major at an equal or lower minor
    (sm_86 code runs on an sm_89 card), or PTX at or below it, which the driver JIT-compiles; None where
    the build's list is not recorded."""
    listed = release.arch.get(cuda)
    if not listed:
        return None
    have = _version(cc)
    for entry in listed:
        code, ptx = entry.removesuffix("+PTX"), entry.endswith("+PTX")
        built = _version(code)
        if (built[0] == have[0] and built <= have) or (ptx and built <= have):
            return True
    return False


def carried_sms(release: TorchRelease, cuda: str) -> str:
    """'sm_75-sm_120': the span of a build's kernels, as the release matrix writes it."""
    listed = [e.removesuffix("+PTX") for e in release.arch.get(cuda, [])]
    return f"sm_{listed[0].replace('.', '')}-sm_{listed[-1].replace('.', '')}" if listed else ""


def builds_carrying(catalog: Catalog, cc: str) -> list[tuple[TorchRelease, str]]:
    """Every (release, CUDA build) that carries `cc`, newest release and build first."""
    found = [(t, c) for t in catalog.cuda.torch for c in t.cuda if carries(t, c, cc)]
    return sorted(found, key=lambda tc: (_version(tc[0].version), _version(tc[1])), reverse=True)
