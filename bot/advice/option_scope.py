"""Which ranked options a brief answer leaves out of its "What to do" list: those the lines above already
say, and those outside what the user stated (another card beside theirs, another setup than the one the
priced part led with).

An option list is there to add ways to do the job; one that repeats the lead ("LoRA (≈22 GB) fits on it",
"the smallest single card: B200 (~127 of 180 GB)") adds nothing, and one that points elsewhere (H20 141GB
for a user who has H20 96GB cards and a way on them, an A100 beside the AWS instance the price part
chose) contradicts the lead.
"""

from __future__ import annotations

import re

from bot.knowledge import Catalog, UnknownNameError, default_catalog
from bot.messages.format import gpu_name
from bot.models import Answer, Recommendation

# Changes that keep the user's job on their own card (a lighter method is another job: not one of them).
_SAME_JOB = frozenset({"stated", "batch", "strategy", "precision", "kv-cache", "concurrency", "context", "more-gpus"})


def left_out_ranks(answer: Answer) -> set[int]:
    """The ranks of the options the brief answer does not list again (see the module's docstring)."""
    recs = answer.recommendations
    if not recs or not answer.answers:
        return set()
    catalog = default_catalog()
    lines = [line for a in answer.answers for line in (a.lead, *a.details)]
    leads = [a.lead for a in answer.answers]
    plain = [r for r in recs if not _carries_more(r)]
    out = {r.rank for r in plain if _said(r, lines, answer.language, catalog)}
    out |= {r.rank for r in plain if r.kind == "stated" and any(_names(r.gpu, line, catalog) for line in leads)}
    out |= _off_their_card(answer, catalog)
    out |= _off_the_priced_setup(answer)
    return out


def _carries_more(rec: Recommendation) -> bool:
    """An option line that carries what a memory verdict does not: its hours, its price, a deadline or budget it
    misses ("~579 h, misses your 7-day deadline"): kept, whatever the lead says of its memory."""
    return rec.hours is not None or rec.cost is not None or rec.cost_per_hour is not None or any(
        check.met is False and check.objective in ("deadline", "budget") for check in rec.objectives)


def _said(rec: Recommendation, lines: list[str], language: str, catalog: Catalog) -> bool:
    """A line above names this option with its memory: its change ("LoRA (≈22 GB)", "int4 权重（约 54 GB）")
    or its setup ("B200 (~127 of 180 GB)", "8 张 h20-96gb 上每张卡需要约 90.6 GB")."""
    if rec.need_gb is None:
        return False
    from bot.advice.assemble import option_name
    need = re.compile(rf"(?<![\d.])(?:{rec.need_gb:.0f}|{rec.need_gb:.1f})(?![\d])")
    change = option_name(rec, language) if rec.kind in ("method", "precision", "kv-cache") else None
    for line in lines:
        if not need.search(line):
            continue
        if change is not None and change in line:
            return True
        if change is None and _names(rec.gpu, line, catalog) and _counted(rec.count, line):
            return True
    return False


def _names(gpu: str | None, line: str, catalog: Catalog) -> bool:
    """Whether a line names the GPU (its id, catalog name or display name in either language)."""
    if not gpu:
        return False
    spec = catalog.gpus.get(gpu)
    names = {gpu, gpu_name(catalog, gpu), gpu_name(catalog, gpu, "zh")} | ({spec.name} if spec else set())
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", line, re.IGNORECASE) for n in names if n)


def _counted(count: int | None, line: str) -> bool:
    """One card needs no count; several are named with theirs ("2× H100", "8 张", "2 x")."""
    n = count or 1
    return n == 1 or re.search(rf"(?<!\d){n}\s*(?:×|x|张|卡)", line, re.IGNORECASE) is not None


def _own_ids(answer: Answer, catalog: Catalog) -> set[str]:
    req = answer.requirement
    if not req.gpu or len(req.gpu_options) > 1:
        return set()
    try:
        return set(catalog.resolve_gpu(req.gpu))
    except UnknownNameError:
        return set()


def _off_their_card(answer: Answer, catalog: Catalog) -> set[int]:
    """The user named their card and a way to do the job on it holds with room to spare: options on
    other cards are not what they asked about."""
    own = _own_ids(answer, catalog)
    recs = answer.recommendations
    if not own or not any(r.gpu in own and r.fits and not r.tight and r.kind in _SAME_JOB for r in recs):
        return set()
    return {r.rank for r in recs if r.gpu not in own and r.kind == "comfortable"}


def _off_the_priced_setup(answer: Answer) -> set[int]:
    """A part priced a setup at a provider ("2× RTX PRO 6000 on AWS (g7e.12xlarge)"): the catalog's cheapest
    setup of another card, which that provider's answer did not pick, contradicts it."""
    priced = {str(a.figures["gpu"]) for a in answer.answers if a.figures.get("gpu") and a.figures.get("provider")}
    if not priced:
        return set()
    return {r.rank for r in answer.recommendations if r.kind == "comfortable" and r.gpu not in priced}
