"""Whether a build of one CUDA release runs on one driver (NVIDIA's table, cuda-release-notes, and
minor-version compatibility, cuda-compatibility), shared by the compat composers."""

from __future__ import annotations

from bot.knowledge import Catalog
from bot.messages import say
from bot.models import AskAnswer

SOURCES = ["cuda-release-notes", "cuda-compatibility"]


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
