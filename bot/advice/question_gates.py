"""Which follow-up questions about versions and billing can change an answer (bot.advice.assemble's
`_questions_that_matter`): each gate says whether its question's subject matters to the asks, and
`versions_given` drops a version question whose slots the message or its paste already gave ("Which
driver does the host run?" after a pasted nvidia-smi header that prints it).
"""

from __future__ import annotations

import re

from bot.models import Requirement

# Version questions: they matter to a compatibility or diagnosis ask, not to a sizing one.
VERSION_QUESTIONS = frozenset({"training.checklist-cuda", "cuda.error-ask-versions"})
# What each version question asks for: the host's driver, the CUDA the application was built with.
_VERSION_SLOTS = {"cuda.ask-driver": ("driver",), "cuda.driver-minimums": ("cuda", "driver"),
                  "cuda.error-ask-versions": ("cuda", "driver"), "training.checklist-cuda": ("driver", "cuda")}


# Words of a part about versions: a driver, a CUDA release, a wheel, a toolkit, an architecture ("CUDA-capable
# devices are busy", "CUDA error: out of memory" name CUDA, not a version of it).
_VERSION_WORDS = re.compile(r"driver|cuda(?![\s-]*(?:capable|error|out\s+of\s+memory|oom|kernels?\b))|\bcu1[0-3][0-9]|wheel"
                            r"|toolkit|nvcc|version|\bsm_?[0-9]{2,3}|kernel\s+image|驱动|版本|镜像", re.IGNORECASE)
# Pasted errors a driver or build explains (no kernel image, driver too old, a missing library, no device, an
# illegal access until its Xids say it is the application's, NCCL's own errors); an OOM, an ECC error or a
# device-side assert is the same on any stack.
_VERSION_ERRORS = frozenset({"arch-unsupported", "no-kernel-image", "driver-too-old", "cpu-build", "missing-library",
                             "no-device", "smi-no-driver", "illegal-address", "nccl-error"})


def versions_matter(req: Requirement) -> bool:
    """Driver and CUDA versions change the answer to a compatibility ask about versions, or to a
    diagnosis of Xids or of a pasted error a stack explains, not to "training got slow", a pasted
    nvidia-smi read for its clocks and modes, or a licence question."""
    pasted = req.pasted
    return bool(req.xids) or (pasted is not None and any(e.kind in _VERSION_ERRORS for e in pasted.errors)) or any(
        a.kind in ("compat", "diagnose") and _VERSION_WORDS.search(a.text) for a in req.asks)


# "驱动装哪个版本？", "which driver should we install on the new box?": the driver is being chosen, there is none to ask.
_DRIVER_CHOSEN = re.compile(r"驱动.{0,3}(?:装|安装|选|用)(?:哪个|哪一?版|什么|多少)|(?:装|安装|选)(?:哪个|什么|哪一?版).{0,4}驱动"
                            r"|\bwhich\s+(?:nvidia\s+)?driver(?:\s+version)?\s+(?:should|to|do|must)\s+(?:i\s+|we\s+)?install"
                            r"|\bwhat\s+(?:nvidia\s+)?driver(?:\s+version)?\s+(?:should\s+(?:i|we)\s+)?(?:to\s+)?install"
                            r"|\bwhich\s+driver\s+for\b", re.IGNORECASE)


def _driver_chosen(req: Requirement) -> bool:
    return any(_DRIVER_CHOSEN.search(a.text) for a in req.asks)


def versions_given(req: Requirement, rule: str) -> bool:
    """A version question whose slots were given: the driver (stated, or printed by a pasted nvidia-smi)
    and the build's CUDA; or the driver shown in a paste whose diagnosis no build changes."""
    slots = _VERSION_SLOTS.get(rule)
    if not slots:
        return False
    pasted = req.pasted
    have = {"driver": bool(req.driver or (pasted is not None and pasted.driver) or _driver_chosen(req)), "cuda": bool(req.cuda)}
    return all(have[s] for s in slots) or (have["driver"] and not versions_matter(req))


# "Which billing mode?": it changes a price or a cost weighed per mode, not what a bill holds, a fit or a diagnosis.
_BILLING_MODE_QUESTIONS = frozenset({"billing.aliyun-ask-mode"})
_PRICED_WORDS = re.compile(r"\bper\s+(?:hour|month)|\bhourly|\bmonthly|\bcheaper|\bbreak[\s-]?even|\bbudget"
                           r"|每小时|每月|一个月|便宜|划算|回本|预算|多少钱", re.IGNORECASE)


def _billing_matters(req: Requirement) -> bool:
    """Whether the billing mode can change the answer: a price asked, or money weighed over time."""
    return any(a.kind == "price" or (a.kind == "cost" and (bool(req.costs) or req.usage_hours_per_month is not None
                                                           or req.budget is not None or bool(_PRICED_WORDS.search(a.text))))
               for a in req.asks)


# Xids the application's own kernels raise (13 graphics exception, 31 page fault, 43 stopped work), and the
# errors they explain: a kernel's bad access, not a build or a driver (nvidia-xid).
_APPLICATION_XIDS = frozenset({13, 31, 43})
_KERNEL_FAULTS = frozenset({"illegal-address"})
# Xids where the GPU itself is lost (79 fallen off the bus): no CUDA stack brings it back.
_GPU_LOST_XIDS = frozenset({79})


def _faults_explained(req: Requirement) -> bool:
    """The only errors are kernel faults that application Xids explain ("illegal memory access" with Xid
    13/31): the bad access is the job's, so the build's CUDA and the driver change nothing."""
    errors = {e.kind for e in req.pasted.errors} if req.pasted is not None else set()
    return bool(errors) and errors <= _KERNEL_FAULTS and bool(set(req.xids) & _APPLICATION_XIDS)


def _error_versions_matter(req: Requirement) -> bool:
    return versions_matter(req) and not _faults_explained(req)


def _stack_matters(req: Requirement) -> bool:
    """The CUDA stack of a training checklist: not for the application's own faults, nor once the GPU fell
    off the bus (a hardware loss)."""
    return _error_versions_matter(req) and not set(req.xids) & _GPU_LOST_XIDS


GATES = {**dict.fromkeys(VERSION_QUESTIONS, versions_matter), **dict.fromkeys(_BILLING_MODE_QUESTIONS, _billing_matters),
         "cuda.error-ask-versions": _error_versions_matter, "training.checklist-cuda": _stack_matters}
