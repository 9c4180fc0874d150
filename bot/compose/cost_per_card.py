"""Per-card quotes with no work to multiply them by ("A800 ¥7/卡时、H20 ¥6/卡时，怎么选", issue #23): the
hourly price alone misleads, so each card's price is set against what it does per hour, dense BF16
compute for training (compute-bound) and memory bandwidth for inference decode (bandwidth-bound), and the
card that is cheaper per unit of each is named. One of bot.compose.cost's comparisons."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name, money
from bot.models import Ask, AskAnswer, StatedCost


def _spec(ctx: ComposeContext, gpu: str | None) -> GpuSpec | None:
    """The quoted card, or its family's first variant ("A800": the catalog's first A800)."""
    if not gpu:
        return None
    return ctx.catalog.gpus.get(gpu) or next((g for g in ctx.catalog.gpus.values() if g.family == gpu), None)


def _quoted_cards(ctx: ComposeContext) -> list[tuple[StatedCost, GpuSpec]] | None:
    """Two or more per-GPU hourly quotes, each for a different catalog card with its figures, one currency,
    no hours; None otherwise (work stated: the totals decide; two currencies are never ranked)."""
    costs: list[StatedCost] = [c for c in ctx.requirement.costs if c.hourly_rate and c.per_gpu and not c.hours]
    if len(costs) < 2 or len(costs) != len(ctx.requirement.costs) or len({c.currency for c in costs}) != 1:
        return None
    cards = [(c, s) for c in costs if (s := _spec(ctx, c.gpu)) is not None and s.dense_tflops.get("bf16") and s.bandwidth_gbs]
    return cards if len(cards) == len(costs) and len({s.id for _, s in cards}) == len(cards) else None


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    cards = _quoted_cards(ctx)
    if cards is None:
        return None
    lang, currency = ctx.language, cards[0][0].currency
    rows = []
    for cost, spec in cards:
        assert cost.hourly_rate is not None
        per_compute = cost.hourly_rate / (spec.dense_tflops["bf16"] / 1000)  # per dense BF16 PFLOPS-hour
        per_bandwidth = cost.hourly_rate / (spec.bandwidth_gbs / 1000)  # per TB/s of memory bandwidth an hour
        rows.append((gpu_name(ctx.catalog, spec.id, lang), cost.hourly_rate, spec, per_compute, per_bandwidth))
    train = min(rows, key=lambda r: r[3])
    serve = min(rows, key=lambda r: r[4])
    train_next = min((r for r in rows if r is not train), key=lambda r: r[3])
    serve_next = min((r for r in rows if r is not serve), key=lambda r: r[4])

    def m(value: float) -> str:
        return money(value, currency, lang)

    params = {"train": train[0], "train_rate": m(train[3]), "train_other": train_next[0],
              "train_other_rate": m(train_next[3]), "train_x": f"{train_next[3] / train[3]:.1f}",
              "serve": serve[0], "serve_rate": m(serve[4]), "serve_other": serve_next[0],
              "serve_other_rate": m(serve_next[4]), "serve_x": f"{serve_next[4] / serve[4]:.1f}"}
    lead = say("cost.per_card_same" if train is serve else "cost.per_card_split", lang, **params)
    details = [say("cost.per_card_line", lang, gpu=name, rate=m(rate), tflops=f"{spec.dense_tflops['bf16']:,.0f}",
                   bandwidth=f"{spec.bandwidth_gbs:,.0f}", per_compute=m(per_compute), per_bandwidth=m(per_bandwidth))
               for name, rate, spec, per_compute, per_bandwidth in rows]
    details.append(say("cost.per_card_measure", lang))
    sources = list(dict.fromkeys(s for _, _, spec, _, _ in rows for s in spec.sources))
    return AskAnswer(kind="cost", lead=lead, details=details, rule="cost-per-card-work", sources=sources,
                     figures={"train_pick": train[2].id, "serve_pick": serve[2].id, "currency": currency or ""})
