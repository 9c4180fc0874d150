"""One composer per ask kind (issue #22): each answers one `Ask` in its own terms.

A message is read as a list of asks (`Requirement.asks`); after the engine has run and the
answer is assembled, `compose_all` gives each ask to the composer of its kind, the module
`bot.compose.<kind>` with a function `compose(ask, ctx) -> AskAnswer | None`. A composer
picks which calculators and which findings speak for its kind; it returns None when it has
nothing better than the assembled verdict (the renderer then leads with that verdict).

Composers are core code: they import models, knowledge, sizing, advice and messages, never an
adapter. Their user-visible text comes from the message catalog (`bot.messages.say`).
"""

from __future__ import annotations

import datetime as dt
import importlib
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Protocol

from bot.knowledge import Catalog
from bot.models import Answer, Ask, AskAnswer, Requirement


@dataclass
class ComposeContext:
    """What a composer may read: the resolved requirement, the assembled answer (verdict,
    recommendations, findings, estimate, candidates, costs), the catalog, the language, and the
    message as typed (pasted output included; "" when the requirement came from flags)."""

    requirement: Requirement
    answer: Answer
    catalog: Catalog
    language: str = "en"
    question: str = ""
    today: dt.date = field(default_factory=dt.date.today)
    # Set by the advisor when the message carried pasted tool output (bot.diagnostics), else None.
    paste: object | None = None


class Composer(Protocol):
    def __call__(self, ask: Ask, ctx: ComposeContext) -> AskAnswer | None: ...


def is_primary(ask: Ask, ctx: ComposeContext) -> bool:
    """Whether `ask` is the message's first: only it is answered by the message's one verdict."""
    asks = ctx.requirement.asks
    return not asks or asks[0].start == ask.start


def composer_for(kind: str) -> Composer | None:
    """The composer of one ask kind, or None where that kind has none yet."""
    try:
        module = importlib.import_module(f"{__name__}.{kind.replace('-', '_')}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{kind.replace('-', '_')}":
            raise  # a composer that fails to import is a bug, not a missing composer
        return None
    return getattr(module, "compose")


def compose_all(ctx: ComposeContext,
                own: Callable[[list[AskAnswer]], list[AskAnswer]] | None = None,
                alone: Callable[[int], AskAnswer | None] | None = None) -> list[AskAnswer]:
    """Each ask's answer, in the order asked; asks whose composer has nothing to add are skipped.
    `own` replaces the answers of parts answered on a requirement of their own (the advisor's
    re-sizing of a part on its own load) before the parts settle which lines are whose; `alone(index)`
    answers a labelled part nothing else answered as a message of its own."""
    from bot.advice.parts import settle

    # the explanation composer's pick of findings, looked up as composer_for looks composers up
    relevant_findings = importlib.import_module(f"{__name__}.explain").relevant_findings

    # "CFD 这种 FP64 的活，能用 H800 吗": FP64 work on a named GPU is judged on its FP64 rate, whatever the ask kind
    fp64 = importlib.import_module(f"{__name__}.explain_fp64").compose
    # "(2) at 600 tok/s on g6.xlarge whats the $/1M output tokens?": the price of a million tokens, whatever the kind
    per_token = importlib.import_module(f"{__name__}.cost_tokens").asked_in_part
    out: list[AskAnswer] = []
    for index, ask in enumerate(ctx.requirement.asks):
        compose = composer_for(ask.kind)
        if compose is None:
            continue
        priced = ask.kind in ("price", "cost")  # "an A100 for CFD, how much an hour?": the price, FP64 only if none
        reply = per_token(ask, ctx) or (None if priced else fp64(ask, ctx))
        reply = reply or compose(ask, _own_numbers(ask, ctx)) or (fp64(ask, ctx) if priced else None)
        if reply is not None:
            update: dict = {"ask_index": index}
            if reply.label is None and ask.label is not None:
                update["label"] = ask.label
            out.append(reply.model_copy(update=update))

    def alternative(ask: Ask, used: set[str]) -> AskAnswer | None:
        # another part's next-best answer is a key finding, never a primer from behind "More"
        primers = {f.rule for f in ctx.answer.findings if f.tier != "key"}
        return relevant_findings(ask.text, ctx, ask.kind, exclude=used | primers)

    # a driver too old, to be fixed inside a container: the driver is the host's (said once)
    out = importlib.import_module(f"{__name__}.compat_host").once(out, ctx)
    settled = settle(own(out) if own is not None else out, ctx.requirement.asks, alternative)
    return _every_labelled_part(settled, ctx, alone)


def _own_numbers(ask: Ask, ctx: ComposeContext) -> ComposeContext:
    """A labelled cost part ("(1) how many GPU-hours is 8x H100 a month? (2) is 200k GPU-hours enough?")
    weighs the numbers written in it and around the parts, never those another labelled part states."""
    asks = ctx.requirement.asks
    if ask.kind != "cost" or ask.label is None or sum(a.label is not None for a in asks) < 2:
        return ctx
    others = [a for a in asks if a.label is not None and a.start != ask.start]
    own = [q for q in ctx.requirement.quantities if not any(a.start <= q.start < a.end for a in others)]
    if len(own) == len(ctx.requirement.quantities):
        return ctx
    return ComposeContext(requirement=ctx.requirement.model_copy(update={"quantities": own}), answer=ctx.answer,
                          catalog=ctx.catalog, language=ctx.language, question=ctx.question, today=ctx.today,
                          paste=ctx.paste)


def _every_labelled_part(answers: list[AskAnswer], ctx: ComposeContext,
                         alone: Callable[[int], AskAnswer | None] | None = None) -> list[AskAnswer]:
    """A part the user labelled ("(c) and the RTX 5090?") is never skipped without a word: where no
    answer covers it, its line says so. The first part is answered by the verdict instead."""
    from bot.messages import say

    asks = ctx.requirement.asks
    covered = {a.ask_index for a in answers} | {i for i, _ in enumerate(asks[:1])}
    missing = [i for i, ask in enumerate(asks) if ask.label and i not in covered
               and not any(ask.label in (a.label or "").split() for a in answers)]
    answers = answers + _unlabelled_sizing(answers, ctx, alone, covered)
    if not missing:
        return sorted(answers, key=lambda a: a.ask_index or 0)
    # the message's verdict answers the first part only where that part has nothing of its own
    verdict_free = ctx.answer.verdict is not None and any(a.ask_index == 0 for a in answers)
    added: list[AskAnswer] = []
    for i in missing:
        ask = asks[i]
        reply = _sized_reply(ask, ctx, verdict_free)
        verdict_free = verdict_free and (reply is None or reply.rule != ctx.answer.verdict.rule)  # type: ignore[union-attr]
        if reply is None:  # each part by its own ask type (explain, compat, spec, price, cost) before giving up
            reply = _routed(ask, ctx, [*answers, *added])
        if reply is None and alone is not None:  # read as a message of its own, as if asked alone
            reply = alone(i)
            said = {line for a in [*answers, *added] for line in (a.lead, *a.details)}
            reply = None if reply is None or reply.lead in said else reply
        if reply is None:
            reply = AskAnswer(kind=ask.kind, lead=say("explain.part_unanswered", ctx.language))
        added.append(reply.model_copy(update={"label": ask.label, "ask_index": i}))
    return sorted([*answers, *added], key=lambda a: a.ask_index or 0)


def _unlabelled_sizing(answers: list[AskAnswer], ctx: ComposeContext, alone: Callable[[int], AskAnswer | None] | None,
                       covered: set[int | None]) -> list[AskAnswer]:
    """An unlabelled fit or choice part after a part of another kind ("what does a g6e.12xlarge cost per hour,
    and does llama 70B fit on it?") that nothing answered, and no answer of its kind covers: read as a
    message of its own (the hardware and job named around it carried), else the message's own sizing."""
    kinds = {a.kind for a in answers}
    out: list[AskAnswer] = []
    for i, ask in enumerate(ctx.requirement.asks):
        if i in covered or ask.label or ask.kind not in ("fit", "select") or ask.kind in kinds:
            continue
        reply = (alone(i) if alone is not None else None) or _sized_reply(ask, ctx, False)
        said = {line for a in [*answers, *out] for line in (a.lead, *a.details)}
        if ctx.answer.verdict is not None and not any(a.ask_index == 0 for a in answers):
            said.add(ctx.answer.verdict.text)  # the verdict leads the first part nothing else answered
        if reply is not None and reply.lead not in said:  # a part another answer already said is not said twice
            out.append(reply.model_copy(update={"ask_index": i}))
    return out


def _routed(ask: Ask, ctx: ComposeContext, answers: list[AskAnswer]) -> AskAnswer | None:
    from bot.advice.parts import route_unanswered
    from bot.nlu.slots.asks import cued_kinds

    def compose(as_kind: Ask) -> AskAnswer | None:
        composer = composer_for(as_kind.kind)
        return composer(as_kind, ctx) if composer is not None else None

    return _on_own_gpus(ask, ctx) or route_unanswered(ask, cued_kinds(ask.text.lower()), answers, compose)


def _on_own_gpus(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"c) would 8 GPUs be enough" under a training plan with a duration: the run's time on the part's
    own GPU count against that duration (the deadline check of bot/compose/cost.py)."""
    # the cost composer's deadline check, looked up as composer_for looks composers up (no import cycle)
    deadline = importlib.import_module(f"{__name__}.cost").deadline

    req = ctx.requirement
    own = [q for q in req.quantities if q.role == "gpus" and ask.start <= q.start < ask.end]
    if not own or ask.kind not in ("fit", "select", "open"):
        return None
    rest = [q for q in req.quantities if q not in own]
    part = ComposeContext(requirement=req.model_copy(update={"gpu_count": int(own[0].value), "quantities": own + rest}),
                          answer=ctx.answer, catalog=ctx.catalog, language=ctx.language, question=ctx.question,
                          today=ctx.today, paste=ctx.paste)
    return deadline(own + rest, part, ctx.language)


def _sized_reply(ask: Ask, ctx: ComposeContext, verdict_free: bool) -> AskAnswer | None:
    """A fit or choice part ("(2) will it run on 2x L40S?") answered by the message's own sizing: its
    verdict where no part has said it yet, else the recommended option on the hardware the part names."""
    if ask.kind not in ("fit", "select", "open"):
        return None
    from bot.advice.assemble import is_sizing_verdict

    verdict = ctx.answer.verdict
    if verdict_free and verdict is not None and is_sizing_verdict(verdict.rule):
        return AskAnswer(kind=ask.kind, lead=verdict.text, rule=verdict.rule, sources=verdict.sources)
    from bot.render.text import recommendation_line  # the one way a recommendation reads

    named = [r for r in ctx.answer.recommendations if r.gpu in ask.subjects]
    if not named:
        return None
    return AskAnswer(kind=ask.kind, lead=recommendation_line(named[0], ctx.language), rule=named[0].rule,
                     figures={"leads_with_rank": named[0].rank})
