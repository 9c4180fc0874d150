"""How much the GPUs are used: '每月300小时', '300 hours a month', '9 hrs a day weekdays', '24/7' ->
usage_hours_per_month (subscription against pay-as-you-go); '2000卡时', '12,000 H100 GPU-hours', '800 H100 hours', '用 800 个 H100 小时' ->
gpu_hours, the job's total, and gpu_hours_gpu, the GPU they were counted on."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.numbers import ZH_NUMBER, zh_number
from bot.nlu.scan import Scan, number
from bot.sizing.cost import DAYS_PER_MONTH, HOURS_PER_MONTH

_USAGE = lx.rx(rf"(?:每月|每个月|一个月|月均)\s*(?:只|仅|就|用|使用|跑|约|大概|大约|平均|差不多|\s)*{lx.NUM}\s*(?:个)?\s*小时"
               rf"|{lx.NUM}\s*(?:h|hrs?|hours?)\s*(?:a|per|each|/)\s*month(?![a-z])")
_DAILY_USAGE = lx.rx(rf"(?:每天|每日|一天)\s*(?:只|仅|就|用|使用|跑|约|大概|大约|平均|差不多|\s)*{lx.NUM}\s*(?:个)?\s*小时"
                     rf"|{lx.NUM}\s*(?:h|hrs?|hours?)\s*(?:a|per|each|/)\s*day(?![a-z])")
_ALWAYS_ON = lx.rx(r"\B<(?:24/7|24x7|24\s*hours\s*a\s*day|around\s+the\s+clock|always[\s-]on|non[\s-]?stop)>\E|全天候|全天(?:跑|运行|开着|在跑)|不停机|7\s*[x×]\s*24|24\s*小时(?:不间断|运行|在线)")
_WEEKDAYS = re.compile(r"weekdays?|work\s*days?|工作日|周一到周五")
# "一个月 30 天", "20 days a month": the days of use a month the user counts (not an average month)
_DAYS_A_MONTH = lx.rx(rf"(?:每月|每个月|一个月|一月)\s*(?:只|就|用|跑|开|工作|上班|大约|大概|约|\s)*{lx.NUM}\s*(?:个)?\s*(?:天|工作日)"
                      rf"|{lx.NUM}\s*(?:days?|天|working\s+days?|work\s*days?)\s*(?:a|per|each|/|every)\s*(?:month|月)(?![a-z])")
_FULL_DAYS = lx.rx(r"\B<(?:full[\s-]*time|all\s+day)>\E|全天|整天")
_GPU_HOURS = lx.rx(rf"(?<![a-z]){lx.NUM}\s*(?P<k>{lx.MULTIPLIER})?{lx.GPU_HOURS_TAIL}"
                   rf"(?:\s*[（(]?\s*(?:按|on|of)\s*(?P<ref2>[a-z]{{1,4}}[0-9]{{2,4}}[a-z]?)\s*(?:算|计)?)?")
_WORK_WORD = re.compile(r"卡|gpu", re.IGNORECASE)
# "一万卡时", "两千个 GPU 小时": Chinese numerals ("一卡时" alone is a price's unit, not one GPU-hour)
_GPU_HOURS_ZH = lx.rx(rf"(?P<zh>{ZH_NUMBER}){lx.GPU_HOURS_TAIL}")


def extract(scan: Scan) -> None:
    monthly_use(scan)
    gpu_hours(scan)


def monthly_use(scan: Scan) -> None:
    for m in scan.matches(_USAGE):
        scan.set("usage_hours_per_month", number(m.group(1) or m.group(2)), m.start(), m.end())
    stated = next((min(number(d.group(1) or d.group(2)), DAYS_PER_MONTH) for d in _DAYS_A_MONTH.finditer(scan.text)), None)
    for m in scan.matches(_DAILY_USAGE):
        days = stated or (lx.WEEKDAYS_PER_MONTH if _WEEKDAYS.search(scan.text) else DAYS_PER_MONTH)
        hours = min(number(m.group(1) or m.group(2)), 24) * days
        scan.set("usage_hours_per_month", round(hours, 1), m.start(), m.end())
    for m in [*scan.matches(_ALWAYS_ON), *(scan.matches(_FULL_DAYS) if stated else [])]:
        # "20 days a month full-time": 24 hours on each of the days stated
        scan.set("usage_hours_per_month", round(24 * stated, 1) if stated else float(HOURS_PER_MONTH), m.start(), m.end())


def gpu_hours(scan: Scan) -> None:
    for m in scan.matches(_GPU_HOURS):
        _set_gpu_hours(scan, m, number(m.group(1)) * lx.MULTIPLIERS.get(m.group("k") or "", 1))
    for m in scan.matches(_GPU_HOURS_ZH):
        value = zh_number(m.group("zh"))
        if value and value > 1:
            _set_gpu_hours(scan, m, float(value))


def _set_gpu_hours(scan: Scan, m: re.Match, hours: float) -> None:
    ref = (m.group("ref") or (m.groupdict().get("ref2")) or "").strip()
    known = scan.lex.gpus.lookup(ref, plural=True) if ref else None
    if not known and not _WORK_WORD.search(m.group(0)):
        return  # "3 foo12 hours": hours of no card
    if scan.set("gpu_hours", hours, m.start(), m.end()) and known:
        scan.put("gpu_hours_gpu", known, m.start(), m.end())
