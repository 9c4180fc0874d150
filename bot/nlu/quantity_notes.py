"""What an answer says about the user's numbers (bot.nlu.quantities reads them): the "read as" line that
shows each number as bound, the one-line note where the catalog's total count overrides a stated active
count, and lookups by role."""

from __future__ import annotations

import re

from bot.knowledge import Catalog
from bot.messages import say
from bot.models import Quantity

MAX_READ_AS = 8  # quantities shown in the "read as" line; the rest are in --json


_CURRENCY_WRITTEN = re.compile(r"[$¥￥€£]|元|块|usd|rmb|cny|dollars?", re.IGNORECASE)
_WORK_WRITTEN = re.compile(r"gpu[\s-]?h|卡时|card[\s-]?h|node[\s-]?h|机时", re.IGNORECASE)
_SPAN_WRITTEN = re.compile(r"day|week|month|year|天|周|星期|月|年|wall|墙钟", re.IGNORECASE)


def inferred(q: Quantity, quantities: list[Quantity]) -> bool:
    """Whether the role of `q` came from its surroundings rather than from how it is written, so that a misread
    would change the answer: an amount with no currency or no period written ("18 万", "$3.00"), hours that
    could be GPU-hours or wall clock on several GPUs ("40 小时" with 8 卡), a stated active-parameter count.
    "$1.90/gpu-hr", "12h/day", "30 分钟存一次" name their own role."""
    if q.kind == "money":
        return q.role not in ("bill-line", "bill-total", "budget") and (
            not _CURRENCY_WRITTEN.search(q.text) or q.per is None)
    if q.role in ("work", "duration"):
        several = any(o.role in ("gpus", "nodes") and o.value > 1 for o in quantities)
        return several and not _WORK_WRITTEN.search(q.text) and not _SPAN_WRITTEN.search(q.text)
    return q.role == "active-params"


def read_as(quantities: list[Quantity], language: str, only_inferred: bool = False) -> str | None:
    """"Read as: 200 GPU hours = work (GPU-hours, not GPUs); $0.90/h = price quote (spot)": the bound
    numbers, as written, so a misread is visible and can be corrected in a follow-up; with `only_inferred`,
    only those whose role was inferred (the others are noise to a reader), None when there are none."""
    if only_inferred:
        quantities = [q for q in quantities if inferred(q, quantities)]
    if not quantities:
        return None
    parts = []
    for q in quantities[:MAX_READ_AS]:
        role = say(f"quantities.role_{q.role}", language)
        if q.option and q.kind == "money":
            role = say("quantities.read_option", language, role=role, option=_option_name(q.option, language))
        elif q.role == "interruptions-per-day" and not re.search(r"day|天|日", q.text, re.IGNORECASE):
            # "every 10h", "1 interruption per 8 hrs": the rate the number became
            role = say("quantities.read_option", language, role=role, option=f"{q.value:.2g}")
        parts.append(say("quantities.read_one", language, written=q.text.strip(), role=role))
    return say("quantities.read_as", language, items=("；" if language == "zh" else "; ").join(parts))


def _option_name(option: str, language: str) -> str:
    """A billing mode in the answer's language ("on-demand" -> "按量"); a label the user wrote stays as written."""
    from bot.messages import MessageError
    try:
        return say(f"quantities.option_{option}", language)
    except MessageError:
        return option


def active_params_note(quantities: list[Quantity], model_id: str | None, catalog: Catalog, language: str) -> str | None:
    """The catalog's total wins over a stated active count ("Mixtral only has ~13B active"), said in one line."""
    stated = next((q for q in quantities if q.role == "active-params"), None)
    model = catalog.models.get(model_id or "")
    if stated is None or model is None:
        return None
    active = getattr(model, "active_params_b", None)
    return say("quantities.active_params", language, model=model.name, total=f"{model.params_b:g}",
               active=f"{(active or stated.value):g}")


def of_role(quantities: list[Quantity], *roles: str) -> list[Quantity]:
    return [q for q in quantities if q.role in roles]


def first(quantities: list[Quantity], *roles: str) -> Quantity | None:
    return next((q for q in quantities if q.role in roles), None)
