"""What the user stated that bounds the options (bot.advice.options), and how an option is judged against it
(issue #24: budget, deadline, TTFT/TPOT, where they rent): the targets they wrote
(a deadline, TTFT/TPOT, a budget's period), the most GPUs they will rent, and the weight precision to
size in. Pure functions of the requirement and the question's words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.knowledge import Catalog, GpuSpec
from bot.models import Candidate, Cost, ObjectiveCheck, Recommendation, Requirement

_COUNT_WORDS = {"one": 1, "a single": 1, "a": 1, "single": 1, "two": 2, "three": 3, "four": 4, "eight": 8,
                "一": 1, "单": 1, "两": 2, "二": 2, "三": 3, "四": 4, "八": 8}
_N_EN = r"(\d+|one|a single|single|two|three|four|eight)"
_UNIT_EN = r"(?:gpus?|cards?|graphics cards?|accelerators?)"
_N_ZH = r"(\d+|一|单|两|二|三|四|八)"
# A limit on the GPU count, said outright: "no more than 1 card", "at most two GPUs", "one card only",
# "we only have 2 GPUs", "don't want to pay for more than 1 card"; "最多两张卡", "只有一张卡", "不超过 4 块 GPU".
_GPU_LIMIT = (
    re.compile(rf"\b(?:no more than|not more than|at most|max(?:imum)?(?: of)?|only(?: have| has| got| use)?|just|limited to)"
               rf"\s+{_N_EN}\s+(?:\w+\s+)?{_UNIT_EN}\b", re.IGNORECASE),
    re.compile(rf"\b{_N_EN}\s+{_UNIT_EN}\s+(?:only|max(?:imum)?|at most|tops)\b", re.IGNORECASE),
    re.compile(rf"\b(?:don'?t|do not|can'?t|cannot|won'?t|will not|not)\s+(?:want to\s+|able to\s+)?"
               rf"(?:pay for|rent|use|afford|buy|go beyond|go over)\s+more than\s+{_N_EN}\s+{_UNIT_EN}\b", re.IGNORECASE),
    re.compile(rf"(?:最多|至多|不超过|不能超过|只有|只能用|只能租|只用|只租|就|仅有|仅)\s*{_N_ZH}\s*(?:张|块|个)\s*(?:卡|GPU|显卡)",
               re.IGNORECASE),
)


def gpu_limit(question: str) -> int | None:
    """The most GPUs the question allows, where it says so outright; None where it does not."""
    for pattern in _GPU_LIMIT:
        m = pattern.search(question or "")
        if m:
            word = m.group(1).lower()
            return int(word) if word.isdigit() and int(word) > 0 else _COUNT_WORDS.get(word)
    return None


def default_precision(req: Requirement, catalog: Catalog) -> str | None:
    """The weight precision to size in: the user's, else the one the model was released in (DeepSeek-V3/R1:
    fp8), else None (bf16)."""
    if req.precision or not req.model:
        return req.precision
    model = catalog.models.get(req.model)
    return model.released_precision if model else None


# A deadline said in words ("deadline friday (4 days)", "due in 3 days", "截止", "之前要训完"): a duration
# stated beside it is the time the job must finish in.
DEADLINE_WORDS = re.compile(r"deadline|\bdue\b|\bwithin\b|\b(?:finish|finished|done|completed?)\s+(?:with)?in\b|必须.{0,8}?(?:跑|训|做)完|\bby (?:mon|tues|wednes|thurs|fri|satur|sun)day|\bbefore\b|截止|之前|以内|内(?:训|跑)完",
                            re.IGNORECASE)


def deadline_hours(req: Requirement, question: str) -> float | None:
    """The hours the job must finish in: a stated deadline, else a duration beside deadline words."""
    for q in req.quantities:
        if q.role == "deadline" and q.kind == "time":
            return q.value * (24 if q.unit in ("d", "day", "days") else 1)
    if DEADLINE_WORDS.search(question or ""):
        duration = next((q for q in req.quantities if q.role == "duration" and q.kind == "time"), None)
        if duration is not None:
            return duration.value * (24 if duration.unit in ("d", "day", "days") else 1)
    return None


# Beside quoted runs, a time the work must be done in: "周五要出结果（还剩 2 天）", "we must deliver in 48 hours",
# "2 days left", "due Friday (3 days)": the deadline words above, time remaining, a result or delivery due.
_TIME_LEFT = re.compile(DEADLINE_WORDS.pattern + r"|还剩|剩下?\s*(?:不到\s*)?[0-9一两二三四五六七八九十]|\bleft\b|\bremaining\b|\bdeliver\w*"
                        r"|出结果|交付|交差|上线前|\bship\b|\bin time\b|来得及|赶得上|赶不上",
                        re.IGNORECASE)


def run_deadline(req: Requirement, question: str) -> float | None:
    """The hours left for quoted runs ("4090 takes 30 h, A800 12 h … 2 days left"): a stated deadline, else
    the one duration that no quote took as its run, where the question says time is short; None otherwise."""
    for q in req.quantities:
        if q.role == "deadline" and q.kind == "time":
            return q.value * (24 if q.unit in ("d", "day", "days") else 1)
    if not _TIME_LEFT.search(question or ""):
        return None
    runs = [c.hours for c in req.costs if c.hours]
    spare = []
    for q in req.quantities:
        if q.role != "duration" or q.kind != "time" or q.unit != "h":
            continue
        if q.value in runs:
            runs.remove(q.value)  # a quote's own run length
        else:
            spare.append(q.value)
    return spare[-1] if len(spare) == 1 else None


def stated_targets(req: Requirement, question: str = "") -> dict:
    """The deadline, latency targets and budget period the user wrote (Requirement.quantities), as the
    objectives take them: hours, seconds, milliseconds and "total"/"hour"/"month". With the question's
    words, a duration beside deadline words ("within 14 days", "两周内训完") is the deadline too."""
    targets: dict = {}
    deadline = deadline_hours(req, question)
    if deadline is not None:
        targets["deadline_hours"] = deadline
    for q in req.quantities:
        if q.role == "deadline" and q.kind == "time":
            continue  # read above
        elif q.role in ("ttft", "tpot") and q.kind == "latency":
            ms = q.value * (1000 if q.unit == "s" else 1)
            targets["ttft_s" if q.role == "ttft" else "tpot_ms"] = ms / 1000 if q.role == "ttft" else ms
        elif q.role == "budget" and q.kind == "money" and q.per in ("month", "gpu-hour", "instance-hour"):
            targets["budget_period"] = "month" if q.per == "month" else "hour"
        elif q.role == "budget" and q.kind == "money" and q.per is None and not req.budget and "budget" not in targets:
            # "our budget is $2,000 total": the whole job's budget, where the parse left it a quantity
            targets["budget"], targets["budget_currency"] = q.value, q.currency or "USD"
    return targets


# -- objectives (issue #24) ------------------------------------------------------------------
# Choosing is more than fitting: each recommendation is judged against what the user asked for
# (budget, deadline, latency targets, where they rent) and says which objectives it meets and by
# how much. `judge` works on the sizer's candidates (memory, hours, TTFT/TPOT per plan).

ObjectiveName = Literal["memory", "budget", "deadline", "ttft", "tpot", "market"]
HOURS_PER_MONTH = 730.0
# Where a message says it rents in China: a Chinese cloud or GPU marketplace named, or prices in yuan.
_CHINA_CLOUDS = re.compile(r"阿里云|aliyun|alibaba cloud|autodl|火山引擎|volcengine|volcano engine|腾讯云|tencent cloud"
                           r"|华为云|huawei cloud|百度智能云|天翼云|ctyun|恒源云|矩池云|featurize", re.IGNORECASE)
_CHINA_PROVIDERS = frozenset({"aliyun", "autodl"})
# A team that says it is in China ("China-based", "a Shenzhen team", "in mainland China"), in any language.
_CHINA_TEAM = re.compile(r"\bchina(?:-based)?\b|\bchinese (?:team|company|cloud|market|provider)s?\b|\bmainland\b"
                         r"|\b(?:shenzhen|beijing|shanghai|hangzhou|guangzhou|chengdu|nanjing|wuhan)\b|国内|大陆|境内",
                         re.IGNORECASE)


class Objectives(BaseModel):
    """What a recommendation must meet besides fitting: typed targets, each optional."""

    model_config = ConfigDict(extra="forbid")

    budget: float | None = Field(default=None, gt=0, le=1e12)
    budget_currency: str = "USD"
    budget_period: Literal["total", "hour", "month"] = "total"
    deadline_hours: float | None = Field(default=None, gt=0, le=24 * 3650)
    ttft_s: float | None = Field(default=None, gt=0, le=3600)
    tpot_ms: float | None = Field(default=None, gt=0, le=60_000)
    market: Literal["global", "china"] = "global"
    # GPUs (ids or families) the user named: kept whatever the market.
    named: list[str] = Field(default_factory=list, max_length=64)
    # The most GPUs the user will rent or has ("no more than 1 card", "最多两张卡"): no option beyond it.
    max_gpus: int | None = Field(default=None, gt=0, le=100_000)
    # GPUs (ids or families) the user ruled out ("no 4090s", "不要 H20"): never an option.
    refused: list[str] = Field(default_factory=list, max_length=32)

    @classmethod
    def of(cls, req: Requirement, language: str = "en", question: str = "", **targets) -> Objectives:
        """The requirement's own targets (its budget, the GPUs it named, where it rents) plus `targets`
        (deadline_hours, ttft_s, tpot_ms, budget_period) the caller read."""
        named = [g for g in [req.gpu, *req.gpu_options] if g]
        budget = targets.pop("budget", None) or req.budget
        currency = targets.pop("budget_currency", None) or req.budget_currency or "USD"
        return cls(budget=budget, budget_currency=currency, named=named,
                   market=market_for(req, language, question), max_gpus=gpu_limit(question),
                   refused=list(req.refused_gpus), **targets)




def market_for(req: Requirement, language: str = "en", question: str = "") -> Literal["global", "china"]:
    """China when the question is in Chinese, names a Chinese cloud, or prices in yuan."""
    if language == "zh" or (req.provider in _CHINA_PROVIDERS) or _CHINA_CLOUDS.search(question or "") \
            or _CHINA_TEAM.search(question or ""):
        return "china"
    if req.budget_currency == "CNY" or any(c.currency == "CNY" for c in req.costs):
        return "china"
    return "global"


def in_market(gpu: GpuSpec, objectives: Objectives) -> bool:
    """Rented where the user rents, or named by them; never a GPU they ruled out."""
    if gpu.id in objectives.refused or gpu.family in objectives.refused:
        return False
    if gpu.id in objectives.named or gpu.family in objectives.named:
        return True
    return objectives.market in gpu.markets


def _margin(value: float, target: float, lower_is_better: bool = True) -> float:
    return round(((target - value) if lower_is_better else (value - target)) / target * 100, 1)


def _within(objective: ObjectiveName, value: float | None, target: float | None, unit: str) -> ObjectiveCheck | None:
    if target is None:
        return None
    if value is None:
        return ObjectiveCheck(objective=objective, met=None, target=target, unit=unit)
    return ObjectiveCheck(objective=objective, met=value <= target, value=round(value, 3), target=target,
                          margin_pct=_margin(value, target), unit=unit)


def option_cost(catalog: Catalog, candidate: Candidate, objectives: Objectives,
                costs: Iterable[Cost] = ()) -> float | None:
    """What the option costs over the budget's period, in the budget's currency; None when unpriced
    in that currency or (a total budget) when the job's hours are unknown."""
    from bot.advice.compare import rate_for

    rate, currency, _ = rate_for(catalog, catalog.gpus[candidate.gpu], list(costs))
    if rate is None or currency != objectives.budget_currency:
        return None
    hours = {"hour": 1.0, "month": HOURS_PER_MONTH}.get(objectives.budget_period, candidate.hours)
    return None if hours is None else round(rate * candidate.count * hours, 2)


def judge(catalog: Catalog, candidate: Candidate, objectives: Objectives,
          costs: Iterable[Cost] = ()) -> list[ObjectiveCheck]:
    """Every objective the user set, judged on one candidate plan (memory always)."""
    checks = [ObjectiveCheck(objective="memory", met=candidate.fits, value=candidate.need_gb, target=candidate.have_gb,
                             margin_pct=_margin(candidate.need_gb, candidate.have_gb) if candidate.have_gb else None,
                             unit="GB")]
    budget = _within("budget", option_cost(catalog, candidate, objectives, costs), objectives.budget,
                     objectives.budget_currency)
    if budget is not None:  # a budget was set
        checks.append(budget)
    for check in (_within("deadline", candidate.hours, objectives.deadline_hours, "h"),
                  _within("ttft", candidate.ttft_s, objectives.ttft_s, "s"),
                  _within("tpot", candidate.tpot_ms, objectives.tpot_ms, "ms")):
        if check is not None:
            checks.append(check)
    gpu = catalog.gpus[candidate.gpu]
    checks.append(ObjectiveCheck(objective="market", met=in_market(gpu, objectives), unit=objectives.market))
    return checks


def meets(checks: Iterable[ObjectiveCheck]) -> bool:
    """No objective failed (one that cannot be judged does not exclude the option)."""
    return all(c.met is not False for c in checks)


def rank_by_objectives(catalog: Catalog, candidates: Iterable[Candidate], objectives: Objectives,
                       costs: Iterable[Cost] = ()) -> list[tuple[Candidate, list[ObjectiveCheck]]]:
    """Candidates that meet every objective first (cheapest, then fewest GPUs), then the rest in
    the same order, each with its checks."""
    costs = list(costs)
    judged = [(c, judge(catalog, c, objectives, costs)) for c in candidates]

    def key(item: tuple[Candidate, list[ObjectiveCheck]]) -> tuple:
        candidate, checks = item
        failed = sum(c.met is False for c in checks)
        cost = option_cost(catalog, candidate, objectives.model_copy(update={"budget_period": "hour"}), costs)
        return failed, cost if cost is not None else float("inf"), candidate.count, candidate.gpu
    return sorted(judged, key=key)


def judge_recommendation(catalog: Catalog, rec: Recommendation, objectives: Objectives,
                         candidates: Iterable[Candidate] = (), costs: Iterable[Cost] = ()) -> Recommendation:
    """The recommendation with its objectives judged (for the answer's JSON): the sizer's candidate
    of the same GPU and count gives the timing where there is one."""
    if rec.gpu is None or rec.gpu not in catalog.gpus or rec.count is None:
        return rec
    cand = next((c for c in candidates if c.gpu == rec.gpu and c.count == rec.count), None)
    if cand is None:
        need, have = rec.need_gb or 0.0, rec.have_gb or 0.0
        cand = Candidate(gpu=rec.gpu, count=rec.count, fits=bool(rec.fits), need_gb=need, have_gb=have,
                         headroom_gb=round(have - need, 2), hours=rec.hours)
    return rec.model_copy(update={"objectives": judge(catalog, cand, objectives, costs)})


def over_budget(objectives: Objectives, rate: float | None, count: int) -> bool:
    """Whether `count` GPUs at `rate` (USD per GPU-hour) exceed an hourly or monthly budget in USD."""
    per = {"hour": 1.0, "month": HOURS_PER_MONTH}.get(objectives.budget_period)
    if not objectives.budget or per is None or rate is None or objectives.budget_currency != "USD":
        return False
    return rate * count * per > objectives.budget


def one_prompt_ttft(req: Requirement, cand: Candidate) -> float:
    """One request's TTFT prefilled on its own, as the sizer estimates it (Candidate.ttft_one_s: the
    stated prompt, else the stated context, else a default chat prompt); for a candidate without it,
    its share of the burst the sizer prefills (every concurrent request's whole context at once)."""
    if cand.ttft_one_s is not None:
        return cand.ttft_one_s
    share = (cand.ttft_s or 0.0) / (req.concurrency or 1)
    if req.prompt_tokens and req.context and req.prompt_tokens < req.context:
        share *= req.prompt_tokens / req.context
    return share
