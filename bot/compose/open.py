"""`open` asks ("we want a training box", "大概要什么配置", "GPU 服务器租哪家好"): a default with its
reason first, then at most two questions, the ones that change the default most.

Defaults (rent first unless utilisation is high; fewer, larger GPUs first) follow the seed
documents (training-servers-guide: cloud for experiments and changing load, dedicated for steady
load; compare cost per finished run) and the cards' memory in knowledge/gpus.yaml. Rates are the
median on-demand row of the price table, labelled with where they came from.
"""

from __future__ import annotations

import re

from bot.advice.options import typical_row
from bot.compose import ComposeContext
from bot.messages import say
from bot.models import Ask, AskAnswer
from bot.messages.format import gpu_name, money

SOURCES = ["training-servers-guide", "rental-selection-guide", "geforce-eula", "skypilot-catalog"]
_PROVIDER = re.compile(r"哪家|which (?:provider|cloud|company)|where (?:to|should we) rent|租哪|provider", re.IGNORECASE)
_INFERENCE = re.compile(r"deploy|serv(?:e|ing)|inference|assistant|self[\s-]?host\w*|local\s+llm|on[\s-]?prem\w*"
                        r"|部署|推理|上线|问答|客服|知识库|助手|本地(?:的)?(?:大)?模型|私有化|chatbot|api",
                        re.IGNORECASE)
_TEAM = re.compile(r"\b(?:team|group|lab|company|department)\b|我们组|团队|公司|部门|实验室|课题组", re.IGNORECASE)
_BUY = re.compile(r"\b(?:buy\w*|purchas\w*|procur\w*)\b|要买|想买|购买|采购|买.{0,6}(?:卡|GPU|服务器|机器)", re.IGNORECASE)
_TRAINING = re.compile(r"train|fine[\s-]?tun|训练|微调|box for the team", re.IGNORECASE)


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The default, with only the questions the message leaves open; none where another part of the
    message already sizes the job it names (its model and method given: that part's answer is the advice)."""
    req = ctx.requirement
    named = bool(req.model or req.params_b) and bool(req.method or req.workload == "inference")
    if named:
        return None  # a model and a method (or serving) given: the job is sized, no starter default for it
    reply = _compose(ask, ctx)
    given = {key for key, slots in _QUESTION_SLOTS.items() if all(_given(req, slot) for slot in slots)}
    if not given:
        return reply
    said = {f"? {say(key, ctx.language)}" for key in given}
    return reply.model_copy(update={"details": [d for d in reply.details if d not in said]})


# The starter questions and what the message must give for each to be no question.
_QUESTION_SLOTS = {"open.ask_model_method": ("model", "method"), "open.ask_model_users": ("model", "concurrency", "context"),
                   "open.ask_workload": ("workload",)}


def _given(req, slot: str) -> bool:
    if slot == "model":
        return bool(req.model or req.params_b)
    return getattr(req, slot, None) not in (None, "", [])


def _compose(ask: Ask, ctx: ComposeContext) -> AskAnswer:
    lang, text = ctx.language, ask.text
    workload = ctx.requirement.workload
    from bot.compose.select_envelope import within_envelope  # a stated power cap / form factor filters first
    envelope = within_envelope(ask, ctx)
    if envelope is not None:
        return envelope
    if _PROVIDER.search(text):
        asks = [f"? {say(q, lang)}" for q in ("open.ask_provider_job", "open.ask_provider_data")]
        return AskAnswer(kind="open", lead=say("open.provider_lead", lang),
                         details=[*say("open.provider_items", lang).splitlines(), *asks],
                         rule="open.default-provider", sources=[*SOURCES, "cherry-servers", "runpod", "vast-ai"])
    china = _rents_in_china(ctx)
    if _CHEAP.search(text) and workload is None and not (ctx.requirement.model or ctx.requirement.params_b):
        cheap = _cheapest(ctx, china)  # "有没有便宜点的 GPU 推荐": the cheap cards with their rates, then the questions
        if cheap is not None:
            return cheap
    picks = _CHINA_PICKS if china else _GLOBAL_PICKS
    names = {k: gpu_name(ctx.catalog, g) if g in ctx.catalog.gpus else g for k, g in picks.items()}
    training = workload == "training" or (workload is None and _TRAINING.search(text))
    team, buy = bool(_TEAM.search(text)), bool(_BUY.search(text))
    if training and _EXPLORING.search(text) and not buy:  # trying it out: one card by the hour, not a node
        return _exploring(ctx, names, china)
    if training and (team or buy):  # a team's box or a purchase: a node or workstations, not one card
        return _team_training(ctx, names, buy and not team)
    inference = workload == "inference" or bool(_INFERENCE.search(text))
    if china:
        return _china_default(ctx, names, bool(training), inference)
    return _global_default(ctx, names, bool(training), inference)


def _china_default(ctx: ComposeContext, names: dict[str, str], training: bool, inference: bool) -> AskAnswer:
    """Renting in China: the cards rented there (L20, H20, A800/H800), without USD rates."""
    lang = ctx.language
    if not training and not inference:
        default = say("open.china_general_lead", lang, big=names["big"], mid=names["mid"], infer=names["infer"])
        lead = _decides_first(default, lang)
        details = [say("open.china_inference", lang, small=names["small"], mid=names["mid"], big=names["infer"]),
                   say("open.china_training_rent", lang, big=names["big"], node=names["node"])]
        details = [*_numbered(details), f"? {say('open.ask_model_method', lang)}"]
        return AskAnswer(kind="open", lead=lead, details=details, rule="open.default-setup", sources=SOURCES)
    if training:
        lead = say("open.training_lead", lang, big=f"1× {names['big']}" if lang != "zh" else f"1 张 {names['big']}")
        details = [say("open.china_training_rent", lang, big=names["big"], node=names["node"]),
                   say("open.training_buy", lang, work=names["work"])]
        questions = ["open.ask_budget", "open.ask_model_method"]
    else:
        lead = say("open.inference_lead", lang)
        details = [say("open.china_inference", lang, small=names["small"], mid=names["mid"], big=names["infer"]),
                   say("open.inference_engine", lang)]
        questions = ["open.ask_model_users", "open.ask_budget"]
    details = _numbered(details) + [f"? {say(q, lang)}" for q in questions]
    return AskAnswer(kind="open", lead=lead, details=details, rule="open.default-setup", sources=SOURCES)


def _global_default(ctx: ComposeContext, names: dict[str, str], training: bool, inference: bool) -> AskAnswer:
    """Renting anywhere: the catalog's cards with their rates, rent or buy, and the GeForce limit."""
    lang = ctx.language
    if training:
        lead = say("open.training_lead", lang, big=f"1× {names['big']}" if lang != "zh" else f"1 张 {names['big']}")
        details = [say("open.training_rent", lang, big=names["big"], rate=_rate(ctx, "h100-sxm")),
                   say("open.training_node", lang, node=names["node"], rate=""),
                   say("open.training_buy", lang, work=names["work"])]
        questions = ["open.ask_budget", "open.ask_model_method"]
    elif inference:
        lead = say("open.inference_lead", lang)
        details = [say("open.inference_small", lang, small=names["small"], mid=names["mid"], rate=_rate(ctx, "l4"),
                       rate2=_rate(ctx, "l40s")),
                   say("open.inference_large", lang, big=names["big"], rate=_rate(ctx, "h100-sxm")),
                   say("open.inference_engine", lang)]
        questions = ["open.ask_model_users", "open.ask_budget"]
    else:
        lead = _decides_first(say("open.general_lead", lang, big=names["big"], small=names["small"], mid=names["mid"]), lang)
        details = [say("open.inference_small", lang, small=names["small"], mid=names["mid"], rate=_rate(ctx, "l4"),
                       rate2=_rate(ctx, "l40s")),
                   say("open.training_rent", lang, big=names["big"], rate=_rate(ctx, "h100-sxm")),
                   say("open.training_buy", lang, work=names["work"])]  # rent or buy, and the GeForce limit
        questions = ["open.ask_model_method"]  # training or inference is asked in the lead
    details = _numbered(details) + [f"? {say(q, lang)}" for q in questions]
    return AskAnswer(kind="open", lead=lead, details=details, rule="open.default-setup", sources=SOURCES)


def _decides_first(default: str, lang: str) -> str:
    """A vague ask's first line: the one question that decides it, with the default in the same line."""
    return say("open.decides_first", lang, default=default if lang == "zh" else default[:1].lower() + default[1:])


def _team_training(ctx: ComposeContext, names: dict[str, str], buy_first: bool) -> AskAnswer:
    """A training box for a team, or a purchase: an 8-GPU NVLink node rented by the job or 2-4 four-GPU
    workstations bought (data-centre licensed cards), one rented card only for one person's experiments."""
    lang = ctx.language
    lead_key = "open.buy_training_lead" if buy_first else "open.team_training_lead"
    lead = say(lead_key, lang, node=names["node"], work=names["work"])
    rate = "" if _rents_in_china(ctx) else _rate(ctx, "h100-sxm")
    details = [say("open.training_node", lang, node=names["node"], rate=rate),
               say("open.training_buy", lang, work=names["work"]),
               say("open.team_rent_single", lang, big=names["big"])]
    if buy_first:
        details = [details[1], details[0], details[2]]
    questions = ["open.ask_buy_budget" if buy_first else "open.ask_budget", "open.ask_model_method"]
    details = _numbered(details) + [f"? {say(q, lang)}" for q in questions]
    return AskAnswer(kind="open", lead=lead, details=details, rule="open.default-setup",
                     sources=[*SOURCES, "zero-paper"])


# "start messing around with fine-tuning", "no clue yet what models", "先试试微调": exploring, nothing sized yet.
_EXPLORING = re.compile(r"mess(?:ing)?\s+around|play(?:ing)?\s+(?:around|with)|experiment\w*|explor\w*|get(?:ting)?\s+started"
                        r"|start(?:ing)?\s+out|try(?:ing)?\s+(?:out|it)|no\s+(?:clue|idea)|not\s+sure\s+yet"
                        r"|试试|试水|入门|练手|摸索|先玩|玩玩|探索|还不确定|还没想好", re.IGNORECASE)


def _exploring(ctx: ComposeContext, names: dict[str, str], china: bool) -> AskAnswer:
    """Getting started with fine-tuning: one 48 GB card by the hour, a 24 GB card cheaper, 80 GB only when a job needs it."""
    lang = ctx.language
    small_rate = "" if china else _rate(ctx, "l4")
    details = [say("open.explore_small", lang, small=names["small"], rate=small_rate),
               say("open.explore_big", lang, big=names["big"], rate=_rate(ctx, "h100-sxm") if not china else "")]
    lead = say("open.explore_lead", lang, mid=names["mid"])
    details = _numbered(details) + [f"? {say(q, lang)}" for q in ("open.ask_model_method", "open.ask_budget")]
    return AskAnswer(kind="open", lead=lead, details=details, rule="open.default-setup", sources=SOURCES)


# a cheap card asked for
_CHEAP = re.compile(r"\bcheap\w*|\binexpensive\b|\baffordable\b|\blow[\s-]cost\b|\bbudget\s+(?:gpu|card)s?|便宜|实惠|省钱|低价|廉价",
                    re.IGNORECASE)
_CHEAP_CARDS = ("rtx-4090", "rtx-5090", "l4")


def _cheapest(ctx: ComposeContext, china: bool) -> AskAnswer | None:
    """The price table's cheapest on-demand row of each cheap card, with where to rent it and its caveats."""
    from bot.prices.lookup import provider_name
    lang = ctx.language
    best: dict = {}
    for row in ctx.catalog.prices:
        if row.gpu in _CHEAP_CARDS and row.billing == "on-demand" and row.currency == "USD" \
                and (row.gpu not in best or row.hourly_rate < best[row.gpu].hourly_rate):
            best[row.gpu] = row
    if len(best) < 2:
        return None
    rows = sorted(best.values(), key=lambda r: r.hourly_rate)
    sep = "；" if lang == "zh" else "; "
    text = sep.join(say("open.cheap_row", lang, gpu=gpu_name(ctx.catalog, r.gpu, lang), rate=money(r.hourly_rate, "USD"),
                        provider=provider_name(ctx.catalog, r.provider)) for r in rows)
    lead = say("open.cheap_lead", lang, date=max(r.quoted_on for r in rows).isoformat(), rows=text)
    details = [say("open.cheap_fits", lang), say("open.cheap_caveats", lang)]
    if china:
        details.append(say("open.cheap_china", lang))
    details += [f"? {say(q, lang)}" for q in ("open.ask_workload", "open.ask_model_method")]
    sources = list(dict.fromkeys([*SOURCES, "geforce-eula", *(r.source for r in rows if r.source)]))
    return AskAnswer(kind="open", lead=lead, details=details, rule="open.cheap-cards", sources=sources,
                     figures={f"rate_{r.gpu}": r.hourly_rate for r in rows})


def _numbered(lines: list[str]) -> list[str]:
    """The default's options numbered in the order shown ("1.", "2.", …), whichever templates speak."""
    return [f"{i}. {line}" for i, line in enumerate(lines, start=1)]


# The default cards: what US clouds rent, and what Chinese clouds rent (knowledge/gpus.yaml markets).
_GLOBAL_PICKS = {"big": "h100-sxm", "small": "l4", "mid": "l40s", "node": "h100-sxm", "work": "l40s"}
_CHINA_PICKS = {"big": "a800-80gb-sxm", "small": "rtx-4090", "mid": "l20", "node": "h800-sxm", "work": "l20",
                "infer": "h20-96gb"}
_CHINA_WORDS = re.compile(r"china|chinese|shenzhen|beijing|shanghai|hangzhou|国内|阿里云|腾讯云|火山|autodl|华为云", re.IGNORECASE)


def _rents_in_china(ctx: ComposeContext) -> bool:
    """A team that asks in Chinese, names a Chinese cloud or says it is in China rents there."""
    return (ctx.language == "zh" or ctx.requirement.provider == "aliyun"
            or any(_CHINA_WORDS.search(a.text) for a in ctx.requirement.asks))


def how_many(ctx: ComposeContext) -> AskAnswer:
    """'How many GPUs do we need?' with no model: typical counts, and the one question that decides."""
    lang = ctx.language
    # the cards to start on, per size, with their rates: the default setup's options, not its questions
    default = _compose(Ask(kind="open", text=" ".join(a.text for a in ctx.requirement.asks)), ctx)
    cards = [line for line in default.details if not line.startswith("?")][:2]
    return AskAnswer(kind="fit", lead=say("open.how_many_lead", lang),
                     details=[*cards, f"? {say('open.ask_model_job', lang)}"],  # the one question that decides it
                     rule="open.default-counts", sources=["zero-paper", "training-servers-guide", *default.sources])


def _rate(ctx: ComposeContext, gpu: str) -> str:
    row = typical_row(ctx.catalog, gpu)
    if row is None:
        return ""
    return say("open.rate_note", ctx.language, rate=money(row.hourly_rate, "USD"), date=row.quoted_on.isoformat())
