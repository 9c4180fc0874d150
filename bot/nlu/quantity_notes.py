"""What an answer says about the user's numbers (bot.nlu.quantities reads them): the "read as" line that
shows each number as bound, the one-line note where the catalog's total count overrides a stated active
count, and lookups by role."""

from __future__ import annotations

import re

from bot.knowledge import Catalog
from bot.messages import say
from bot.models import Quantity

MAX_READ_AS = 8  # quantities shown in the "read as" line; the rest are in --json


def read_as(quantities: list[Quantity], language: str) -> str | None:
    """"Read as: 200 GPU hours = work (GPU-hours, not GPUs); $0.90/h = price quote (spot)": the bound
    numbers, as written, so a misread is visible and can be corrected in a follow-up."""
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
