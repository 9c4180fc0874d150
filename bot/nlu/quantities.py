"""The user's numbers as typed quantities (issue #23): value(s), unit, role, and what they belong to.

Every number the message states with a unit or a role-giving word becomes one `Quantity`:

- money with its currency and what it is per (GPU-hour, GPU-minute, instance-hour, day, month, year,
  GB-month, Mbps-month, kWh, once), as a budget, a quote, a subscription, a fee or bill line of one
  item (compute, storage, bandwidth, snapshot, image, vCPU/memory, hosting, power, support), a
  purchase or a residual value;
- time: GPU-hours / 卡时 (work, never a GPU count), wall-clock hours or days (duration, deadline),
  hours per day / days per week / hours per month (usage), a depreciation period, minutes lost,
  to restart, between checkpoints;
- counts: GPUs, nodes, users, concurrent requests, samples and tokens per sample, interruptions a day;
- sizes: total vs active parameters, tokens, context, GB of memory or storage, Mbps of bandwidth;
- targets: TTFT, TPOT, throughput, MFU, utilisation.

Ranges keep both ends ("7B–13B"); numbers may be words or Chinese numerals ("eight", "两", "2.5 万",
"六万二"). The reader runs last over the scan's text (long runs already bounded) and reads no
number inside a name another extractor claimed (a model, GPU, instance, version, Xid), so
"Qwen3-235B-A22B" and "H100" give no quantities and pasted serial numbers never reach it (pasted
output is split off before the scan). Linear: one pass of one pattern, a bounded look on each side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.models import Quantity
from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError
from bot.nlu.numbers import EN_NUMBERS, ZH_NUMBER, zh_number
from bot.nlu.quantity_counts import count
from bot.nlu.quantity_passes import WEEKDAY_WORDS, after_reading, share_of_quote
from bot.nlu.quantity_spot import interruption
from bot.nlu.scan import Scan

MAX_QUANTITIES = 64  # typed numbers in one message; more is a data dump, not a question
_LOOK = 40  # characters looked at on each side of a number

# Slots whose characters are names, not quantities.
_NAME_SLOTS = frozenset({"model", "gpu", "gpu_options", "instance", "instance_options", "cuda", "driver",
                         "driver_cuda", "xids", "provider", "provider_options", "unknown_gpu"})

_EN_WORDS = {**{k: v for k, v in EN_NUMBERS.items() if " " not in k and k not in ("single", "dual", "quad")},
             "once": 1, "twice": 2, "thrice": 3, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
             "eighty": 80, "ninety": 90, "hundred": 100, "a hundred": 100}
_DIGITS = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]{1,9}(?:\.[0-9]+)?"
_ONE = (rf"(?P<@d>{_DIGITS})(?:\s?(?P<@m>k(?![a-z])|千|万|亿))?"
        rf"|(?P<@z>{ZH_NUMBER})"
        rf"|(?P<@w>{'|'.join(sorted((re.escape(w) for w in _EN_WORDS), key=len, reverse=True))})(?![a-z])")
# A number (or a range of two) not glued to letters, digits or a version dot before it.
_NUMBER = re.compile(
    rf"(?<![0-9a-z.:_/#-])(?:(?<![0-9],)|(?![0-9]{{3}}(?![0-9])))(?:{_ONE.replace('@', 'a')})"  # "500，70B": two numbers
    rf"(?:\s*(?P<runit>b|bn)?\s*(?:-|–|—|~|～|to|到|至)\s*(?:{_ONE.replace('@', 'b')}))?"
    rf"(?![0-9]|\.[0-9]|:[0-9])")
_MULT = {"k": 1_000, "千": 1_000, "万": 10_000, "亿": 100_000_000}

_USD = r"\$|us\$|usd|dollars?|bucks|美元|美金|刀"
_CNY = r"¥|rmb|cny|元|块钱?|人民币"
_BUDGET_BEFORE = re.compile(r"(?:预算|经费|批了|budget(?:\s+(?:is|of))?)\s*(?:是|有|为|只有|大概|约|:|：|~)?\s*$",
                            re.IGNORECASE)
_CUR_BEFORE = re.compile(rf"(?:(?P<usd>\$|us\$|usd)|(?P<cny>¥|rmb|cny|人民币))\s?$")
_CUR_AFTER = re.compile(rf"\s?(?:(?P<usd>usd|dollars?|bucks|美元|美金|刀)|(?P<cny>元|块钱?|rmb|cny|人民币))(?![a-z])")
_PER = re.compile(
    r"\s*(?:/|per\s+|an?\s+|每|一)\s*(?:个\s*)?(?:"
    r"(?P<gpumonth>(?:gpu|card|卡)\s*(?:/|per|a|每)\s*(?:months?\b|mo\b|月))"
    r"|(?P<nodemonth>(?:台|node|server|box|machine)\s*(?:/|per|a|每)\s*(?:months?\b|mo\b|月))"
    r"|(?P<gpuhour>(?:gpu|card)[\s-]*(?:hours?|hrs?|h)\b|卡\s*[/·]?\s*(?:小时|时)|卡时|张卡?\s*/?\s*(?:小时|时)"
    r"|(?:gpu|card)\s*(?:/|per|an?|each)\s*(?:hours?|hrs?|h)\b)"
    r"|(?P<gpumin>gpu[\s-]*min(?:ute)?s?\b|卡\s*/?\s*分钟)"
    r"|(?P<min>min(?:ute)?\b|分钟)"
    r"|(?P<gbmonth>gb[\s-]*(?:months?|mo)\b|gb\s*/\s*(?:months?|mo|月)|gb\b(?:\s*(?:/|per|a|每)\s*(?:month|月))?)"
    r"|(?P<mbps>mbps(?:[\s-]*(?:months?|mo)\b|\s*/\s*(?:月|months?))?)"
    r"|(?P<kwh>kwh|度)"
    r"|(?P<hour>hours?\b|hrs?\b|h\b|小时|时)"
    r"|(?P<day>days?\b|天|日)"
    r"|(?P<month>months?\b|mo\b|月)"
    r"|(?P<year>years?\b|yr\b|年))")
_PER_WORD_AFTER = re.compile(r"\s*(?:(?P<hour>hourly|an\s+hour|per\s+hour|每小时)|(?P<month>monthly|a\s+month|per\s+month|每月)"
                             r"|(?P<year>yearly|a\s+year|per\s+year|每年))")
_PER_WORD_BEFORE = re.compile(r"(?:(?P<hour>每(?:个)?小时|(?:一|1)\s*个?\s*小时|hourly|per\s+hour|an\s+hour(?:\s+(?:on|of)\s+(?:an?\s+|the\s+)?[a-z0-9-]+)?)|(?P<month>每月|每个月|月租|月付|包月|monthly(?:\s+(?:reservation|reserved(?:\s+\w+)?|plan|subscription|commitment|package|contract))?)"
                              r"|(?P<year>每年|包年|年付|yearly)|(?P<gpuhour>每卡时|每卡每小时|一卡时|每张卡每小时)|(?P<gb>每\s*gb|per\s+gb|一\s*gb))"
                              r"\s*(?P<card>每\s*张?\s*卡|单卡|一\s*张\s*卡?|per\s+(?:gpu|card)|a\s+(?:gpu|card))?"
                              r"\s*(?:是|要|收|为|at|of|is|:)?\s*(?:约|大约|大概|差不多|around|about|~|≈)?\s*$")
# "包月 ¥4,000/卡", "monthly $1,500 per GPU": a monthly price that is per card
_PER_CARD_AFTER = re.compile(r"\s*(?:/\s*(?:卡|张|gpu|card)|per\s+(?:gpu|card)|each|a\s+(?:gpu|card)|每\s*张?\s*卡)(?![a-z])")

_ITEMS = [  # (item, words): the bill line a number belongs to
    ("snapshot", r"snapshots?|快照"),
    ("image", r"images?\b|镜像"),
    ("storage", r"essd|ssd|nvme|disks?|storage|block|云盘|硬盘|存储|块存储|cbs|ebs"),
    ("public-ip", r"elastic\s+ips?\b|\beips?\b|public\s+ip(?:v4)?s?\b|\bipv4\b|(?:弹性)?公网\s*ip|弹性\s*ip"),
    ("bandwidth", r"bandwidth|egress|traffic|data\s+transfer|transfer\s+out|outbound|mbps|带宽|公网(?!\s*ip)|流量|网络费"),
    ("vcpu-memory", r"vcpus?|cpus?\b|内存|ram\b"),
    ("hosting", r"hosting|colo(?:cation)?|rack|data\s*cent(?:re|er)s?|\bidc\b|托管|机柜|机房|idc"),
    ("power", r"power|electricity|kwh|电费|电价|用电|度电"),
    ("support", r"support|ops\b|operations|运维|技术支持|人工"),
    ("compute", r"gpus?|instances?|compute|实例|算力|计算|按量|pay[\s-]*as[\s-]*you[\s-]*go|on[\s-]*demand|spot|竞价|包月|月租|卡"),
]
_ITEM_RX = [(item, re.compile(words)) for item, words in _ITEMS]
_OPTIONS = [
    ("spot", r"spot|preemptible|竞价|抢占"),
    ("on-demand", r"on[\s-]*demand|pay[\s-]*as[\s-]*you[\s-]*go|按量|按需|payg"),
    ("reserved", r"reserved|预留|savings\s+plan|节省计划"),
    ("subscription", r"subscription|包月|包年|月租|monthly\s+plan|年付|月付"),
    ("buy", r"\bbuy(?:ing)?\b|purchas\w*|购买|买|购置|采购|自建"),
    ("rent", r"\brent(?:ing)?\b|租用?|cloud\b|云上"),
]
_OPTION_RX = [(option, re.compile(words)) for option, words in _OPTIONS]
_CLAUSE = re.compile(r"[,，;；。!?！？\n+]|(?<![0-9.])\.(?=\s)|\bvs\.?\b|\bversus\b|还是|或者|\bor\b|对比|相比")

_BUDGET = re.compile(r"budget|预算|can\s+spend|have\s+only|only\s+have|at\s+most|最多|不超过|控制在|总共|批了|经费")
_PURCHASE = re.compile(r"\bbuy(?:ing)?\b|purchas\w*|购买|买下?|购置|采购|\bcapex\b|花了?|costs?\s+us")
_RESIDUAL = re.compile(r"residual|resale|sell\s+(?:it|them)|残值|二手|转卖|卖掉|能卖|可以卖|卖出")
_SPOT_WORDS = re.compile(r"spot|竞价|抢占")
# an IDC's or colo's own monthly quote for the servers (no purchase, no server of one's own): a rental option
_QUOTED = re.compile(r"quot\w*|offer\w*|报价|报了|开价|给的价")
_OWN_SERVER = re.compile(r"\bown(?:ed)?\s+(?:the\s+)?(?:servers?|box(?:es)?|machines?|hardware|gpus?)\b|\bwe\s+own\b|自有|自己的(?:服务器|机器)|已有的?(?:服务器|机器)")
_BUY_IN_MESSAGE = re.compile(r"\bbuy(?:ing)?\b|purchas\w*|购买|自己买|买下|购置|采购|自建|自购|买还是租|租还是买|买不买|值得买"
                             r"|回本|pay(?:s|ing)?\s*(?:back|off|for\s+itself)|payback|\bown(?:ing)?\s+(?:it|the|a|one)\b")
# the price of a whole server written before the amount: "整机 220 万", "一台要 18 万", "a box for 280k"
_SERVER_PRICE_BEFORE = re.compile(r"(?:整机|整台|一台|服务器|机器|\bbox|\bserver|\bmachine|\bnode|\brig|\bworkstation)s?\s*(?:的)?\s*"
                                  r"(?:价格|报价|售价|价|要|卖|大概|约|for|costs?|at|is|runs?|priced\s+at)?\s*(?:about|around|~|约|大概)?\s*[$¥]?\s*$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# a price set against renting names what is bought: "a box for 280k, worth it vs renting?", "和租比"
_AGAINST_RENTING = re.compile(r"(?:\bvs\.?|\bversus|\bor|\binstead\s+of|\bthan|和|跟|与|比|还是)\s*(?:just\s+)?(?:renting|rent\b|leasing|the\s+cloud|租)")
_DEPRECIATION = re.compile(r"depreciat\w*|amorti[sz]\w*|over|write[\s-]*off|折旧|摊销|分摊|用|回本")
_DEADLINE = re.compile(r"within|in\s+under|deadline|by\b|before|内|之内|以内|截止|最多|不超过"
                       r"|\b(?:done|finish(?:ed)?|complete(?:d)?|ready|trained)\s+in\s*$")
_ACTIVE = re.compile(r"activ(?:e|ates?|ated|ating)|激活")
_LOST = re.compile(r"los[et]s?|losing|lost|wast\w*|丢失?|损失|回滚|白跑|浪费")
_RESTART = re.compile(r"restart\w*|reload\w*|\bload\w*|requeu\w*|recover\w*|reschedul\w*|resum\w*|重启|恢复|重新|拉起|加载")
# the time one checkpoint takes to write: "saving takes 4 min", "checkpoint takes 5 min", "每次存 ckpt 要 8 分钟",
# "ckpt 耗时 6 分钟" (an interval is written with every / 每隔: "checkpoint every 30 min")
_SAVE = re.compile(r"(?:(?:sav(?:e|es|ing)|writ(?:e|es|ing)|保存|写入?|存盘)\w*(?:\s*(?:一次|一个)?\s*(?:checkpoint|ckpt|检查点))?\s*(?:takes?|took|needs?|需要|要|耗时|用时)?"
                   r"|(?:checkpoint\w*|ckpts?|检查点|存档)\s*(?:writes?|saves?|写入|保存|一次)?\s*"
                   r"(?:takes?|took|needs?|lasts?|需要|要|耗时|用时|花|大概|大约)(?:\s*(?:us|roughly|about|around|approximately|大概|大约))?)"
                   r"\s*[~约≈]?\s*$", re.IGNORECASE)
_DISCOUNT = re.compile(r"\s*%\s*(?:cheaper|less|off|discount|lower|便宜|折扣|优惠)")
_BILL_WORDS = re.compile(r"\bbill\b|invoice|line\s+items|账单|明细|费用|开销|花费")
_TOTAL_BEFORE = re.compile(r"(?:total|in\s+all|altogether|合计|总共|一共|总计|账单|bill(?:\s+(?:was|is|came\s+to))?)\s*(?:是|为|:|=|of|was|is|came\s+to)?\s*(?:us\$|[$¥€£])?$")
_TOTAL_AFTER = re.compile(r"\s*(?:total|in\s+all|altogether)\b")
_PRICE_BEFORE = re.compile(r"(?:报价|报了|开价|价格|售价|要价|花了?|quote[sd]?|price[sd]?|costs?|is|为|是|包月|月租|月付|包年|年付)"
                           r"\s*(?:每个?月|一个月|包月|月租|每小时|每卡时)?\s*(?:是|为|要)?\s*[~约≈]?\s*$")
_PER_MONTH_AFTER = re.compile(r"\s*(?:元|块)?\s*(?:/|每|一)\s*个?\s*月|\s*(?:a|per)\s+month\b|\s*/\s*mo\b")
_PER_DAY_EVENTS = re.compile(r"\s*(?:内|里|大概|大约|约|会|要|平均)?\s*(?:被|回收|中断|抢占|[0-9一二两三四五六七八九十几]+\s*次)")
_CHECKPOINT = re.compile(r"checkpoint\w*|ckpt|存档|保存|检查点")
_TTFT = re.compile(r"ttft|first\s+token|首\s*(?:个\s*)?token|首字|首词")
_TPOT = re.compile(r"tpot|per\s+output\s+token|inter[\s-]*token|itl|每个?\s*(?:输出\s*)?token|吐字")
_GPU_HOURS_AFTER = re.compile(lx.GPU_HOURS_TAIL)
_TIMES_BEFORE = re.compile(r"(?:[x×*]|每条|each|per\s+sample)\s*$")


@dataclass
class _Num:
    value: float
    high: float | None
    start: int
    end: int
    words: bool  # written as a word ("eight", "两"): never money or a size


def extract(scan: Scan) -> None:
    """Every typed number of the message, in order, as `Requirement.quantities` (no spans: the slot
    spans stay the fields the question stated)."""
    names = bytearray(len(scan.text))
    quotes = {(span.start, span.end) for span in scan.spans if span.slot == "costs"}
    for span in scan.spans:
        if span.slot in _NAME_SLOTS:
            # a GPU span may hold the quote it labels ("L40S at $0.86/h"): only the card's name is a name; a
            # span that is the quote itself ("$55.04/h" of an H100 named elsewhere) names nothing
            quote = span.slot in ("gpu", "gpu_options") and (span.start, span.end) in quotes
            found = [m.span() for m in scan.lex.gpus.pattern.finditer(scan.text, span.start, span.end)] \
                if span.slot in ("gpu", "gpu_options") and (span.end - span.start > 12 or quote) else []
            for start, end in found or ([] if quote else [(span.start, span.end)]):
                names[start:end] = b"\x01" * (end - start)
    out: list[Quantity] = []
    last_end = 0
    for m in _NUMBER.finditer(scan.text):
        if names.find(1, m.start(), m.end()) != -1 or m.start() < last_end:
            continue  # inside a name, or inside the last quantity ("1 interruption per 8 hrs")
        num = _value(m)
        if num is None:
            continue
        if m.group("az") and m.group("az").endswith("一") and not num.high and scan.text[num.end:num.end + 1] == "个":
            trimmed = zh_number(m.group("az")[:-1])  # "三千一个月" is 3,000 a month, not 3,100 months
            if trimmed:
                num = _Num(float(trimmed), None, num.start, num.end - 1, True)
        q = _classify(scan, num, out, last_end)
        if q is None:
            continue
        out.append(q)
        last_end = q.end
        if len(out) > MAX_QUANTITIES:
            raise ParseError("quantities", f"more than {MAX_QUANTITIES} numbers with units in one message "
                                           f"(the next at {q.start}-{q.end}); ask about fewer at a time")
    after_reading(scan, out)
    if out:
        scan.fields["quantities"] = out


def _one(m: re.Match, g: str) -> tuple[float, bool] | None:
    if m.group(f"{g}d"):
        value = float(m.group(f"{g}d").replace(",", ""))
        mult = m.group(f"{g}m")
        return (value * _MULT[mult] if mult else value), False
    if m.group(f"{g}z"):
        value = zh_number(m.group(f"{g}z"))
        return (float(value), True) if value is not None else None
    if m.group(f"{g}w"):
        return float(_EN_WORDS[m.group(f"{g}w")]), True
    return None


def _value(m: re.Match) -> _Num | None:
    low = _one(m, "a")
    if low is None:
        return None
    high = _one(m, "b") if m.group("bd") or m.group("bz") or m.group("bw") else None
    if high is not None and high[0] <= low[0]:
        high = None  # "3-2" is no range
    end = m.end() if high is not None else m.end("ad") if m.group("ad") and not m.group("am") else (
        m.end("am") if m.group("am") else m.end("az") if m.group("az") else m.end("aw"))
    return _Num(low[0], high[0] if high else None, m.start(), end, low[1])


def _clause_start(text: str, start: int, floor: int) -> int:
    lo = max(floor, start - _LOOK)
    ends = [m.end() for m in _CLAUSE.finditer(text, lo, start)]
    return ends[-1] if ends else lo


def _clause_end(text: str, end: int) -> int:
    m = _CLAUSE.search(text, end, min(len(text), end + _LOOK))
    return m.start() if m else min(len(text), end + _LOOK)


def _classify(scan: Scan, num: _Num, done: list[Quantity], last_end: int) -> Quantity | None:
    text = scan.text
    before_all = text[max(0, num.start - _LOOK):num.start]
    clause_lo = _clause_start(text, num.start, 0)
    before = text[clause_lo:num.start]
    after = text[num.end:min(len(text), num.end + _LOOK)]
    after_clause = text[num.end:_clause_end(text, num.end)]

    def make(kind, role, value=num.value, high=num.high, end=None, start=num.start, **extra) -> Quantity:
        end = num.end if end is None else end
        return Quantity(kind=kind, role=role, value=value, high=high, start=start, end=end,
                        text=scan.original[start:end], **extra)

    money = _money(text, num, before_all, after)
    if money is None and num.value >= 100 and (not _UNIT_AFTER.match(after) or _AMOUNT_AFTER.match(after)):
        # "花了六万二", "整机报价 18 万", "托管三千一个月", "GPU 计算 38,000" in a bill: amounts written without
        # a currency, in the message's one currency (none when it names none: no symbol is invented)
        fee = (_PER_MONTH_AFTER.match(after) or re.search(r"(?:每月|每个月|/月)\s*$", before)) and _item(before[-10:])
        bill_line = _in_message(_BILL_WORDS, text) and (_item(before[-10:]) or _TOTAL_BEFORE.search(before[-12:]))
        budget = _BUDGET_BEFORE.search(before[-12:])  # "预算 20 万", "老板批了 30 万"
        budget = budget or _RESIDUAL.search(before[-8:])  # "二手能卖 5 万": a resale amount, in the message's currency
        # "买一台 8 卡 4090 要 18 万", "整机 220 万", "a box for 280k": a server's price, bought
        bought = num.value >= 10_000 and (_PURCHASE.search(before) or _SERVER_PRICE_BEFORE.search(before[-14:]))
        if _PURCHASE.search(before[-6:]) or _PRICE_BEFORE.search(before[-8:]) or fee or bill_line or budget or bought:
            yuan = _yuan_by_wan(text, num) if bought or _PURCHASE.search(before[-6:]) else None
            money = (_message_currency(text) or yuan or "", num.end)
    hourly = re.search(r"(?:每|一)\s*个?\s*小时\s*(?:是|要|收|才|只要|大概|约)?\s*$", before)
    if money is not None and num.words and re.match(r"\s?块(?!钱)", after) and not hourly:
        money = None  # "两块 4090": two cards, not two yuan ("每小时八块" is eight yuan an hour)
    jiao = re.match(r"\s?块([一二三四五六七八九])(?![0-9一二三四五六七八九十百千万张卡台])", after) if money and num.words else None
    if jiao and money is not None:  # "三块五": 3.5 yuan
        num = _Num(num.value + (zh_number(jiao.group(1)) or 0) / 10, None, num.start, num.end, True)
        money = (money[0], num.end + jiao.end())
    if money is not None:
        return _money_quantity(scan, num, money, before, after_clause, last_end, make)

    share = share_of_quote(text, num, before, after, done, make)
    if share is not None:
        return share
    # GPU-hours / 卡时: work, never a count of GPUs ("200 GPU hours", "3 万卡时", "12,000 H100 GPU-hours")
    # "800 H100 hours", "用 800 个 H100 小时", "500 个 GPU 小时", "2000 张卡时" too (lexicon.GPU_HOURS_TAIL)
    m = _GPU_HOURS_AFTER.match(after) or re.match(r"\s*(?:[a-z]{1,4}[0-9]{2,4}[a-z]?\s*)?gpu[\s-]*h\b", after)
    if m and num.words and num.value == 1:
        return None  # "一卡时 12 元", "一卡时多少钱": the unit of a price, not one GPU-hour of work
    if m and (re.search(r"卡|gpu", m.group(0)) or scan.lex.gpus.lookup(m.group("ref").strip(), plural=True)):
        return make("gpu-hours", "work", unit="GPU-h", end=num.end + m.end())
    # "~40% cheaper": a discount
    m = _DISCOUNT.match(after) or (re.search(r"(?:便宜|折扣|优惠|discount(?:\s+of)?|cheaper\s+by)\s*(?:了|约|大概|~)?\s*$", before)
                                   and re.match(r"\s*%", after))
    if m:
        return make("percent", "discount", value=num.value / 100, unit="fraction", end=num.end + m.end())
    # the draw of a server: "6.5 kW", "3.5kW"
    m = re.match(r"\s*(?P<u>kw|千瓦|w|瓦)(?![a-z])", after)
    if m and not num.words:
        kw = num.value / (1 if m.group("u") in ("kw", "千瓦") else 1000)
        return make("size", "power-draw", value=kw, unit="kW", item="power", end=num.end + m.end())
    # working days a month: "22 个工作日", "22 working days a month"
    m = re.match(r"\s*(?:个\s*)?(?:工作日|working\s+days?|work\s*days?|business\s+days?|week\s*days?)"
                 r"|\s*(?:days?|天)\s*(?:a|per|each|/|every)\s*(?:month|月)(?![a-z])", after) or (
        re.search(r"(?:每月|每个月|一个月|一月)\s*(?:用|跑|开|工作|上班|大约|大概|约|按|算|计|\s)*$", before)
        and re.match(r"\s*天", after))  # "每月 22 天": days of use a month, not a 22-day run
    if m:
        return make("usage", "days-per-month", unit="day", end=num.end + m.end())
    # MFU and utilisation
    m = re.match(r"\s*成(?![本功])", after)  # "利用率六成": tenths
    if m and 0 < num.value <= 10 and re.search(r"(?:利用率|使用率)\s*(?:大概|大约|约|差不多|在|是|有)?\s*$", before):
        return make("percent", "utilisation", value=num.value / 10, unit="fraction", end=num.end + m.end())
    m = re.match(r"\s*%\s*(?:(?P<mfu>mfu)|(?P<util>utili[sz]ation|utilised|utilized|利用率|使用率|busy))?", after)
    if m and (m.group("mfu") or re.search(r"mfu\s*(?:of|=|:|is|约|为|at)?\s*$", before)):
        return make("mfu", "mfu", value=num.value / 100, high=num.high / 100 if num.high else None,
                    unit="fraction", end=num.end + m.end())
    if m and (m.group("util") or re.search(r"(?:utili[sz]ation|利用率|使用率)\s*(?:of|=|:|is|约|为|at|在|是)?\s*(?:大概|大约|约|差不多|around|about|~|≈)?\s*$", before)
              or re.search(r"\b(?:use|using|run|running|busy)\s+(?:it|them|the\s+\w+)?\s*(?:at\s+)?(?:about|around|roughly|[~≈约])?\s*$", before)):
        return make("percent", "utilisation", value=num.value / 100, high=num.high / 100 if num.high else None,
                    unit="fraction", end=num.end + m.end())
    # parameters, active or total ("~13B active", "激活才 22B", "7B–13B")
    m = re.match(r"\s*(?:b|bn|billion)(?![a-z0-9])(?:[\s-]*(?:param(?:eter)?s?|参数))?", after) or (
        re.match(r"\s*(?:亿)(?:\s*参数)?", after) if False else None)
    if m:
        tail = text[num.end + m.end():num.end + m.end() + 16]
        if re.match(r"\s*(?:tokens?|个?\s*token|词元)", tail):
            return make("tokens", "tokens", value=num.value * 1e9, high=num.high * 1e9 if num.high else None,
                        unit="tokens", end=num.end + m.end())
        active = _ACTIVE.search(before[-24:]) or re.match(r"\s*(?:are\s+|is\s+)?(?:active|activated|激活)", tail)
        return make("params", "active-params" if active else "total-params", unit="B", end=num.end + m.end())
    # a decode speed per user ("30+ tok/s per user", "每路 20 token/s") is a TPOT target of 1000/N ms
    per_user = re.search(r"(?:每人|每路|每个用户|单用户)\s*(?:至少|要|需要|大于|>)?\s*$", before) is not None
    m = re.match(r"\s*\+?\s*(?:tok(?:en)?s?\s*/\s*s(?:ec)?|tokens?\s+(?:per|a)\s+sec(?:ond)?|tps)\s*"
                 r"(?:per|each|/|for\s+each|a|每)\s*(?:user|stream|request|sequence|session|人|路|个用户)s?", after) \
        or (re.match(r"\s*(?:token|tok)s?\s*/\s*(?:s|秒)", after) if per_user else None)
    if m and num.value > 0:
        return make("latency", "tpot", value=round(1000 / num.value, 1), unit="ms", end=num.end + m.end())
    # throughput
    m = re.match(r"\s*(?:tokens?|tok)\s*(?:/|per\s+)\s*(?:s|sec|second)\b|\s*(?:tokens?|token)\s*/\s*秒|\s*(?:qps|rps|req/s|requests?\s+(?:per|a|/)\s*s(?:ec(?:ond)?)?)\b", after)
    if m:
        return make("throughput", "throughput", unit="per-second", end=num.end + m.end())
    # tokens ("1T tokens", "1k token", "5 万条 × 1k token")
    m = re.match(r"\s*(?P<u>k|m|b|t)?\s*(?:tokens?|个?\s*token|词元)(?![a-z])", after)
    if m:
        scale = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}.get(m.group("u") or "", 1)
        role = "tokens-per-sample" if _TIMES_BEFORE.search(before) and any(q.role == "samples" for q in done) else (
            "context" if re.search(r"context|ctx|上下文", after_clause[:24] + before[-12:]) else "tokens")
        return make("tokens", role, value=num.value * scale, high=num.high * scale if num.high else None,
                    unit="tokens", end=num.end + m.end())
    m = re.match(r"\s*(?:tokens?\s*)?(?:of\s+)?(?:context|ctx|上下文)", after)
    if m:
        k = scan.text[num.start:num.end].rstrip().endswith("k")  # "8k context": 8 x 1,024 tokens
        return make("tokens", "context", value=num.value / 1000 * 1024 if k else num.value, unit="tokens",
                    end=num.end + m.end())
    # latency targets
    m = re.match(r"\s*(?P<u>ms|milliseconds?|毫秒|s\b|secs?\b|seconds?|秒)", after)
    if m:
        ms = 1 if m.group("u") in ("ms", "毫秒") or m.group("u").startswith("milli") else 1000
        # the nearer keyword names it: "TPOT <= 40ms and TTFT <= 450ms" (450 is the TTFT)
        last = {r: max((x.end() for x in p.finditer(before)), default=-1) for r, p in (("tpot", _TPOT), ("ttft", _TTFT))}
        role = max(last, key=last.get) if max(last.values()) >= 0 else None
        if role:
            return make("latency", role, value=num.value * ms, high=num.high * ms if num.high else None,
                        unit="ms", end=num.end + m.end())
    # minutes lost, to restart, between checkpoints
    m = re.match(r"\s*(?:min(?:ute)?s?\b|分钟)", after)
    if m:
        near = before[-30:] + " " + after_clause[m.end():m.end() + 24]
        every = re.search(r"(?:every|each|每隔|每)\s*$", before[-8:]) and _CHECKPOINT.search(near)
        # "ckpt 10 min to save", "checkpoints take 10 minutes to write": the save time, written after the minutes
        save_after = re.match(r"\s*(?:to|for\s+(?:a|each|every|one))\s+(?:save|write|dump|checkpoint|ckpt)", after_clause[m.end():])
        role = ("checkpoint-minutes" if every else "save-minutes" if _SAVE.search(before[-28:]) or save_after else
                "restart-minutes" if _RESTART.search(before[-16:] + after_clause[m.end():m.end() + 16])
                else "lost-minutes" if _LOST.search(near) else "checkpoint-minutes" if _CHECKPOINT.search(near)
                else "duration")
        return make("time", role, unit="min", end=num.end + m.end())
    # usage: hours a day, days a week, hours a month
    m = re.match(r"\s*(?:hours?|hrs?|h|小时|个小时)\s*(?:a|per|each|/|every)\s*(?P<p>day|天|日|week|周|month|月)(?![a-z])"
                 r"|\s*(?:hours?|hrs?|h|小时)\s*(?P<p2>daily)", after)
    if m or re.search(r"(?:每天|每日|一天|全天|整天)\s*(?:只|仅|就|用|使用|跑|训练|推理|运行|工作|开|开机|约|大约|大概|差不多|平均|\s)*$", before) and re.match(r"\s*(?:个\s*)?(?:小时|h\b|hours?)", after):
        period = (m.group("p") or m.group("p2") or "day") if m else "day"
        end = num.end + (m.end() if m else re.match(r"\s*(?:个\s*)?(?:小时|h\b|hours?)", after).end())
        if period in ("month", "月"):
            return make("usage", "hours-per-month", unit="h", end=end)
        if period in ("week", "周"):
            return make("usage", "hours-per-day", value=num.value / 7, unit="h", end=end)
        return make("usage", "hours-per-day", unit="h", end=end)
    if re.search(r"(?:每月|每个月|一个月|月均)\s*(?:只|仅|就|用|使用|跑|约|大约|大概|差不多|平均|\s)*$", before) and re.match(r"\s*(?:个\s*)?(?:小时|hours?)", after):
        return make("usage", "hours-per-month", unit="h", end=num.end + re.match(r"\s*(?:个\s*)?(?:小时|hours?)", after).end())
    m = re.match(r"\s*(?:days?|天)\s*(?:a|per|each|/|every)\s*(?:week|周)(?![a-z])", after)
    if m or (re.search(r"每周\s*(?:用|跑|工作)?\s*$", before) and re.match(r"\s*天", after)):
        end = num.end + (m.end() if m else re.match(r"\s*天", after).end())
        return make("usage", "days-per-week", unit="day", end=end)
    spot = interruption(text, num, before, after, make)  # "1 interruption per 8 hrs", "平均 6 小时被回收一次"
    if spot is not None:
        return spot
    # "每 8 小时", "every 8 hours": the period of something else, not a duration
    if re.search(r"(?:每|every|each)\s*(?:隔)?\s*$", before) and (h := re.match(r"\s*(?:个\s*)?(?:小时|hours?|hrs?|h\b)", after)):
        if _CHECKPOINT.search(before[-16:] + " " + after_clause[h.end():h.end() + 16]):  # "每 2 小时存一次 checkpoint"
            return make("time", "checkpoint-minutes", value=num.value * 60, unit="min", end=num.end + h.end())
        return None
    # wall-clock time: hours, days, weeks, months, years
    # "10-day run", "a 2-week job": the hyphenated adjective is the same duration
    m = re.match(r"(?:\s*-\s*|\s*)(?:(?P<h>hours?|hrs?|h(?![a-z0-9])|小时|个小时|钟头)|(?P<d>days?|天)|(?P<w>weeks?|周|星期)"
                 r"|(?P<mo>months?|个月)|(?P<y>years?|yrs?|年))(?![a-z])", after)
    if m:
        end = num.end + m.end()
        if m.group("y") or m.group("mo"):
            if m.group("mo") and (_DEADLINE.match(after[m.end():].lstrip()[:2]) or re.search(r"within\s*$", before)):
                # "一个月内训完", "within 2 months": the deadline, in hours (a 30-day month)
                return make("time", "deadline", value=num.value * 720, high=num.high * 720 if num.high else None,
                            unit="h", end=end)
            if num.words and num.value == 1 or re.match(r"\s*(?:min(?:imum)?\b|起)", after[m.end():]):
                return None  # "一个月", "a month" say the period of something else; "1 month min" is a term
            months = 12 if m.group("y") else 1
            window = before[-24:] + " " + after_clause[m.end():m.end() + 16]
            role = "depreciation" if _DEPRECIATION.search(window) or any(q.role == "purchase" for q in done) else "duration"
            return make("time", role, value=num.value * months, high=num.high * months if num.high else None,
                        unit="month", end=end)
        if m.group("d") and num.words and num.value == 1 and _PER_DAY_EVENTS.match(after[m.end():]):
            return None  # "一天被回收 3 次": the day is the period of the interruptions, not a one-day run
        if m.group("d") and 1 <= num.value <= 31 and WEEKDAY_WORDS.search(before_all[-32:]) \
                and any(q.role == "hours-per-day" for q in done):
            return make("usage", "days-per-month", unit="day", end=end)  # "14 h a day, weekdays only (~22 days)"
        if m.group("h") and num.value == 1 and _PRICE_AFTER_UNIT.match(text, end):
            return None  # "L20 一小时 3 块", "1 小时 2.5 元", "an hour is $2": the unit of a price, not a one-hour run
        if m.group("h") and num.value == 1 and (_PRICE_ASKED_BEFORE.search(before[-10:])
                                                 or _PRICE_ASKED_AFTER.match(after[m.end():])):
            return None  # "按需多少钱一小时", "一小时多少钱", "how much for an hour": a rate asked, not a one-hour run
        hours = 24 if m.group("d") else 168 if m.group("w") else 1
        role = "deadline" if _DEADLINE.search(before[-14:] + after_clause[m.end():m.end() + 6]) else "duration"
        return make("time", role, value=num.value * hours, high=num.high * hours if num.high else None,
                    unit="h", end=end)
    # sizes: GB / TB of memory or storage, Mbps of bandwidth
    m = re.match(r"\s*(?:gbps|gbit/?s?|gb/s|g/s|gbe|gige|gb|g)(?![a-z0-9])", after)
    if m and not num.words and any(s.slot == "network_gbps" and s.start <= num.start < s.end for s in scan.spans):
        # "200G 网络", "200G RoCE": the servers' network (no bill line), not 200 GB of memory beside a 70B
        return make("size", "bandwidth", value=num.value * 1000, unit="Mbps", end=num.end + m.end())
    m = re.match(r"\s*(?P<u>tb|tib|gb|gib|g(?![a-z0-9]))(?![a-z])", after)
    if m and not num.words:
        gb = num.value * (1024 if m.group("u") in ("tb", "tib") else 1)  # disks are sold in GiB: 2 TB is 2,048
        # the word right after the size names it ("2TB ESSD 云盘、50 Mbps 带宽": the disk), else the last before
        named = [(x.start(), it) for it, rx in _ITEM_RX if (x := rx.search(after_clause[m.end():m.end() + 12]))]
        item = min(named)[1] if named else _item(before[-24:])
        role = "storage" if item in ("storage", "snapshot", "image") else "memory"
        return make("size", role, value=gb, unit="GB", item=item if role == "storage" else None, end=num.end + m.end())
    m = re.match(r"\s*(?P<u>mbps|m(?:bit)?/s|兆|m(?=\s*(?:带宽|bandwidth))|gbps)(?![a-z])", after)
    if m and not num.words:
        mbps = num.value * (1000 if m.group("u") == "gbps" else 1)
        return make("size", "bandwidth", value=mbps, unit="Mbps", item="bandwidth", end=num.end + m.end())
    # "包月一张卡 4000 元": the card a monthly price is per, not a count of one
    if num.words and num.value == 1 and (m := re.match(r"\s*张\s*卡?", after)) and (
            re.search(r"(?:包月|月租|月付|每月|每个月)\s*$", before)
            or re.match(r"\s*(?:的)?\s*(?:包月|月租|月付|每月|每个月)\s*[$¥]?\s*[0-9一二两三四五六七八九十]", after[m.end():])):
        return None  # "一张卡包月 4000" too
    # counts: GPUs, nodes, users, concurrency, samples
    return count(scan, num, before, after, make)


# a price right after "一小时" / "an hour": "一小时 3 块", "1 小时要 2.5 元", "an hour is $2", "一小时 ¥3"
_PRICE_AFTER_UNIT = re.compile(rf"\s*(?:是|要|收|收费|价格|为|大概|约|就|只要|才|is|costs?|for|at|=|:|：|\s)*"
                               rf"(?:(?:{_USD}|{_CNY})\s?[0-9]|(?:[0-9]+(?:\.[0-9]+)?|{ZH_NUMBER})\s*(?:{_USD}|{_CNY}))")
# a price asked of one hour: "多少钱一小时", "一小时多少钱", "一小时要多少", "how much an hour", "an hour costs what"
_PRICE_ASKED_BEFORE = re.compile(r"(?:多少钱|几块钱?|啥价|什么价|how\s+much(?:\s+(?:is\s+it|for))?|costs?\s+per)\s*$", re.I)
_PRICE_ASKED_AFTER = re.compile(r"\s*(?:要|收|是)?\s*(?:多少钱?|几块钱?|什么价|啥价|costs?\s+(?:what|how\s+much))", re.I)
# words after an amount that name no unit: "a box for 280k with 8x H100", "250k or rent"
_AMOUNT_AFTER = re.compile(r"\s*(?:with|or|and|vs\.?|versus|upfront|up[\s-]front|outright|all[\s-]in|in\s+total|apiece)(?![a-z])")
_UNIT_AFTER = re.compile(r"\s*(?:%|[a-z]|卡|张|台|小时|天|年|个|次|条|分钟|秒|度|瓦|千瓦|token|人|位|路|倍|成)", re.I)


@lru_cache(maxsize=8)
def _in_message(pattern: re.Pattern, text: str) -> bool:
    """Whether the message says something anywhere: searched once per message, not once per number."""
    return pattern.search(text) is not None


def _yuan_by_wan(text: str, num: _Num) -> str | None:
    """"18 万", "六万二" in a Chinese message that names no currency: yuan, the way yuan are counted."""
    written = text[num.start:num.end]
    return "CNY" if "万" in written and _CJK.search(text) else None


@lru_cache(maxsize=8)
def _message_currency(text: str) -> str | None:
    """The one currency the message writes amounts in, or None (no rate is invented)."""
    usd, cny = re.search(_USD, text) is not None, re.search(_CNY, text) is not None
    return "USD" if usd and not cny else "CNY" if cny and not usd else None


def _money(text: str, num: _Num, before: str, after: str) -> tuple[str, int] | None:
    """(currency code, end of the currency written after) when the number is an amount of money."""
    cb = _CUR_BEFORE.search(before[-6:])
    if cb:
        return ("USD" if cb.group("usd") else "CNY"), num.end
    ca = _CUR_AFTER.match(after)
    if ca:
        return ("USD" if ca.group("usd") else "CNY"), num.end + ca.end()
    return None


def _money_quantity(scan: Scan, num: _Num, money: tuple[str, int], before: str, after_clause: str,
                    last_end: int, make) -> Quantity:
    currency, end = money
    text = scan.text
    if not currency and (m := _PER_MONTH_AFTER.match(text, end)):
        end = m.end()  # "托管三千一个月": the month it is per
        item = _item(before[-10:])
        if item in (None, "compute") and _PRICE_BEFORE.search(before[-8:]) and not _in_message(_BUY_IN_MESSAGE, text):
            # "有家报了 9 万一个月": a provider's monthly price for the servers, a rental
            return make("money", "subscription", end=end, unit="", per="month", item="compute", option="subscription")
        return make("money", "fee", end=end, unit="", per="month", item=item or "hosting",
                    option=_option(before, after_clause))
    symbol = _CUR_BEFORE.search(text[max(0, num.start - 6):num.start])
    start = num.start - (len(symbol.group(0)) if symbol else 0)
    per = None
    m = _PER.match(text, end)
    if m:
        group = next(g for g, v in m.groupdict().items() if v)
        per = {"gpumonth": "gpu-month", "nodemonth": "month", "gpuhour": "gpu-hour", "gpumin": "gpu-minute", "min": "minute", "gbmonth": "gb-month",
               "mbps": "mbps-month", "kwh": "kwh", "hour": "instance-hour", "day": "day", "month": "month",
               "year": "year"}[group]
        end = m.end()
        if per in ("instance-hour", "minute") and re.search(r"(?:/|per)\s*(?:gpu|card|卡)\s*$|每卡|每张卡", text[max(0, num.start - 8):m.start() + 6]):
            per = "gpu-hour" if per == "instance-hour" else "gpu-minute"
        if per == "minute" and re.search(r"gpu|卡", text[m.start():m.end() + 4] + before[-12:]):
            per = "gpu-minute"
    else:
        w = _PER_WORD_AFTER.match(text, end) or _PER_WORD_BEFORE.search(_CUR_BEFORE.sub("", before[-32:]))
        if w:
            group = next(g for g, v in w.groupdict().items() if v)
            per = {"hour": "instance-hour", "month": "month", "year": "year", "gpuhour": "gpu-hour", "gb": "gb-month"}[group]
            if w.re is _PER_WORD_AFTER:
                end = w.end()
            if per == "month" and re.search(r"(?:每|per|/)\s*gb\b", before[-16:]):
                per = "gb-month"  # "云盘每 GB 每月 0.35 元"
            card = _PER_CARD_AFTER.match(text, end)
            card_first = re.search(r"(?:每|一)\s*张\s*卡?\s*(?:的)?\s*(?:包月|月租|月付|每月|每个月)", before[-14:])  # "一张卡包月 4000"
            if per == "month" and (card or card_first or (w.re is _PER_WORD_BEFORE and w.group("card"))):
                per, end = "gpu-month", card.end() if card else end
    if per == "instance-hour" and re.search(r"per\s+gpu|/\s*gpu|每卡|每张卡|/卡", text[end:end + 12]):
        per = "gpu-hour"
    if per == "instance-hour" and _EACH_AFTER.match(text, end):
        per = "gpu-hour"  # "8x A100 at $1.29/h each": a card's rate
    value, high = num.value, num.high
    near_before = before[-24:]
    # the word right after the amount names it ("… storage and $200 egress": bandwidth), else the last before
    named = re.match(r"[ \t]{1,2}([a-z][a-z-]+)", text[end:end + 16])  # an English word right after, no comma
    item = (_item(named.group(1) if named else "") or _item(near_before) or _item(after_clause[:24])) \
        if per != "gpu-hour" else "compute"
    if per == "gb-month" or (per == "month" and re.match(r"\s*(?:/|per)\s*gb", text[end:end + 8])):
        per, item = "gb-month", item if item in ("storage", "snapshot", "image") else "storage"
    if per == "mbps-month":
        item = "bandwidth"
    if per == "kwh":
        item = "power"
    option = _option(before, after_clause)
    if _BUDGET.search(before[-20:]) or re.match(r"\s*(?:的)?(?:budget|预算)", text[end:end + 8]):
        role = "budget"
    elif _RESIDUAL.search(re.split(r"[,;.，；。]", before[-48:])[-1]):  # "sell it after 2 years for ~$15k"
        role, per = "residual", per or "once"
    elif per == "kwh":
        role = "power-price"
    elif per is None and (_TOTAL_BEFORE.search(near_before) or _TOTAL_AFTER.match(text, end)):
        role, item = "bill-total", None
    elif per is None and (_PURCHASE.search(near_before) or option == "buy"
                          or (value >= 10_000 and (_in_message(_BUY_IN_MESSAGE, text) or _in_message(_RESIDUAL, text)
                                                   or _in_message(_AGAINST_RENTING, text)
                                                   or _SERVER_PRICE_BEFORE.search(near_before[-14:]))
                              and item in (None, "compute", "hosting"))):  # "…, we could sell it for $80k": bought
        role, per, item, option = "purchase", "once", None, "buy"
    elif item == "hosting" and per in ("month", "year") and _QUOTED.search(before[-40:]) \
            and not _in_message(_BUY_IN_MESSAGE, text) and not _in_message(_OWN_SERVER, text):
        role, item, option = "subscription", "compute", "subscription"  # "our IDC quoted $6,500 a month": a rental
    elif item not in (None, "compute"):
        role = "fee" if per in ("month", "year", "gb-month", "mbps-month", "day") else "bill-line"
        if item == "hosting" and option != "buy" and _in_message(_BUY_IN_MESSAGE, text):
            option = "buy"  # colo, hosting, 托管: a cost of owning the server, whatever "rent vs buy" came before
    elif per in ("month", "year", "gpu-month"):
        role, item, option = "subscription", "compute", "subscription"
    elif per is None:
        role = "bill-line" if item else "quote"
    else:
        role, item = "quote", item or "compute"
    return make("money", role, value=value, high=high, end=end, unit=currency, currency=currency or None, per=per,
                item=item, option=option, start=start)


_EACH_AFTER = re.compile(r"\s*(?:each|apiece|a\s+(?:card|gpu)|per\s+(?:card|gpu))(?![a-z])")
def _item(window: str) -> str | None:
    """The bill item named nearest the number (the last one named before it, else the first after)."""
    best, best_pos = None, -1
    for item, rx in _ITEM_RX:
        for m in rx.finditer(window):
            if m.start() > best_pos:
                best, best_pos = item, m.start()
    return best


def _option(before: str, after_clause: str) -> str | None:
    """The billing mode or buy/rent the number belongs to: named right after it, else before it."""
    head = re.split(r"[0-9$¥]", after_clause, maxsplit=1)[0][:24]
    for window, last in ((head, False), (before[-30:], True)):
        found = [(m.start(), option) for option, rx in _OPTION_RX for m in rx.finditer(window)]
        if found:
            return (max(found) if last else min(found))[1]
    return None
