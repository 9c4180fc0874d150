"""A model and nothing else ("what gpu should I rent to play around with llama 70b", "想玩一下 Qwen2.5-72B
租什么卡"): the default setup with its price first, then the one-card ways to run it in lighter weights
(FP8 on a card with FP8 tensor cores, 4-bit weight-only on a smaller card), each with its number and
price; the questions that change the pick follow (at most two, bot.advice.assemble.question_limit).

Rates are the median on-demand row of the price table per GPU-hour (bot.advice.options.typical_row),
labelled with where and when they were read, as the open defaults (bot/compose/open.py) say them.
"""

from __future__ import annotations

from bot.advice.option_changes import vague_serving
from bot.advice.options import typical_row
from bot.compose import ComposeContext
from bot.messages import say
from bot.messages.format import gpu_setup, money
from bot.models import Ask, AskAnswer, Recommendation


def default_pick(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The cheapest comfortable 16-bit setup with its price, and the one-card FP8/4-bit options; None
    where the message gives more than a model to size by, or nothing comfortable was found."""
    req, lang = ctx.requirement, ctx.language
    recs = ctx.answer.recommendations
    default = next((r for r in recs if r.kind == "comfortable" and not r.precision and r.fits), None)
    if not vague_serving(req) or default is None or not default.gpu or not default.count:
        return None
    lead = say("select.default_pick", lang, setup=gpu_setup(ctx.catalog, default.gpu, default.count, lang),
               need=f"{default.need_gb:.0f}", rated=f"{default.rated_gb or default.have_gb:g}",
               price=_price(ctx, default))
    lighter = [r for r in recs if r.kind == "comfortable" and r.precision in ("fp8", "int8", "int4") and r.count == 1]
    details = [say("select.default_one_card_" + ("fp8" if r.precision == "fp8" else "int"), lang,
                   setup=gpu_setup(ctx.catalog, r.gpu or "", 1, lang), need=f"{r.need_gb:.0f}",
                   rated=f"{r.rated_gb or r.have_gb:g}", precision=r.precision, price=_price(ctx, r, short=True))
               for r in lighter]
    return AskAnswer(kind="select", lead=lead, details=details, rule=default.rule,
                     sources=["rental-selection-guide", "vllm-fp8-weight-only", "skypilot-catalog"],
                     figures={"leads_with_rank": default.rank, "also_said_ranks": " ".join(str(r.rank) for r in lighter),
                              "count": default.count, "need_gb": default.need_gb})


def _price(ctx: ComposeContext, rec: Recommendation, short: bool = False) -> str:
    """', ~$3.28/h for 2 GPUs on demand ($1.64/GPU-h, SkyPilot catalog, …)' (`short`: ', ~$2.49/h on
    demand', the source said once in the lead), or '' where the price table has no row."""
    from bot.advice.options import Objectives
    if Objectives.of(ctx.requirement, ctx.language, ctx.question).market == "china":
        return ""  # the table is US clouds': it does not price cards rented in China
    row = typical_row(ctx.catalog, rec.gpu or "")
    if row is None or not rec.count:
        return ""
    key = "select.default_price_short" if short else "select.default_price" if rec.count == 1 else \
        "select.default_price_many"
    return say(key, ctx.language, total=money(row.hourly_rate * rec.count, row.currency),
               rate=money(row.hourly_rate, row.currency), count=rec.count, date=row.quoted_on.isoformat())
