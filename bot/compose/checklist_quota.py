"""AWS GPU quotas for the instances a message names ("p5.48xlarge and g6e.12xlarge both fail with
VcpuLimitExceeded: what do I request?"): the quota of each family in vCPUs, the number to ask for,
Spot's separate quota, and how to file it.

EC2 counts GPU quotas in vCPUs per instance family and region ("Running On-Demand P instances",
"Running On-Demand G and VT instances"; Spot has its own per family), new accounts often at 0
(aws-ec2-quotas); the vCPUs and quota codes per instance type are in knowledge/instances.yaml.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge.models import AWS_QUOTA_NAMES, InstanceType
from bot.messages import say
from bot.models import Ask, AskAnswer

_QUOTA = re.compile(r"quota|vcpu\s*limit|vcpulimitexceeded|配额|限额", re.IGNORECASE)
_SPOT_ONLY = re.compile(r"\bspot\b(?!.{0,20}\b(?:separate|too|also|as well)\b)|抢占式|竞价", re.IGNORECASE)
SOURCES = ["aws-ec2-quotas", "aws-service-quotas-cli", "aws-capacity-blocks", "rental-selection-guide"]
# "InsufficientInstanceCapacity", "insufficient capacity", "容量不足": the AZ has none of the type right now
_CAPACITY = re.compile(r"insufficient\s*instance\s*capacity|insufficient\s+capacity|(?:no|out\s+of)\s+capacity"
                       r"|(?:not|n't)\s+have\s+(?:enough|sufficient)\s+[\w.]+\s+capacity|(?<!显存)(?<!内存)容量不足|没有容量|库存不足",
                       re.IGNORECASE)
_ERROR_CODE = re.compile(r"insufficient\s*instance\s*capacity|sufficient\s+[\w.]+\s+capacity\s+in\s+the\s+availability\s+zone", re.IGNORECASE)
_NODES = re.compile(r"(?<![\w.])([0-9]{1,3})\s*(?:x\s+)?(?:nodes?|instances?|boxes|machines|servers|台|个节点|个实例)", re.IGNORECASE)
_WINDOW = re.compile(r"\b(?:weeks?|days?|wks?|month)\b|guarantee\w*|周|天|星期|保证|确保", re.IGNORECASE)
CAPACITY_SOURCES = ["aws-ec2-launch-capacity", "aws-ec2-error-codes", "aws-capacity-blocks", "aws-capacity-reservations",
                    "aws-ec2-quotas"]


def asks_quota(text: str) -> bool:
    """Whether a text names a quota ("VcpuLimitExceeded", "配额")."""
    return bool(_QUOTA.search(text))


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """The quota lines for the AWS instances named, or None where none is named or quotas are not asked;
    a launch that failed for want of capacity is answered as that first (capacity)."""
    if (short := capacity(ask, ctx)) is not None:
        return short
    if not _QUOTA.search(ctx.question or ask.text):
        return None
    instances = _named(ctx)
    if not instances:
        return None
    lang = ctx.language
    spot = ctx.requirement.billing == "spot"
    codes: dict[str, list[InstanceType]] = {}
    for inst in instances:
        code = inst.quota_code("spot" if spot else "on-demand")
        if code:
            codes.setdefault(code, []).append(inst)
    if not codes:
        return None
    parts = []
    text = ctx.question or ask.text
    for code, members in codes.items():
        need = sum(_many(text, i) * int(i.vcpus or 0) for i in members)
        each = ", ".join(say("checklist.quota_instance", lang, instance=_times(text, i), vcpus=f"{_many(text, i) * (i.vcpus or 0):g}")
                         for i in members)
        parts.append(say("checklist.quota_part", lang, instances=each, name=AWS_QUOTA_NAMES[code], code=code, need=need))
    lead = say("checklist.quota_lead", lang, parts="; ".join(parts))
    details = _details(instances, codes, spot, text, lang)
    return AskAnswer(kind="checklist", lead=lead, details=details, rule="checklist.aws-quota", sources=SOURCES,
                     figures={"vcpus_" + code: sum(_many(text, i) * int(i.vcpus or 0) for i in members)
                              for code, members in codes.items()})


def _details(instances: list[InstanceType], codes: dict[str, list[InstanceType]], spot: bool, text: str,
             lang: str) -> list[str]:
    """vCPUs summed per family, the other billing's own quotas, the command to file, Capacity Blocks."""
    first_code, first = next(iter(codes.items()))
    details = [say("checklist.quota_vcpus", lang)]
    other = sorted(c for c in {i.quota_code("on-demand" if spot else "spot") for i in instances} if c)
    if other:
        key = "checklist.quota_on_demand_separate" if spot else "checklist.quota_spot_separate"
        quotas = [say("checklist.quota_name", lang, name=AWS_QUOTA_NAMES[c], code=c) for c in other if c in AWS_QUOTA_NAMES]
        details.append(say(key, lang, quotas=", ".join(quotas)))
    details.append(say("checklist.quota_file", lang, code=first_code,
                       need=sum(_many(text, i) * int(i.vcpus or 0) for i in first)))
    if any(i.name.startswith("p") for i in instances):
        details.append(say("checklist.quota_meanwhile", lang))
    return details


def _many(text: str, inst: InstanceType) -> int:
    """How many of the instance the message runs at once: '2 台 p4d.24xlarge', '3x p5.48xlarge', 'p5.48xlarge x2'."""
    name = re.escape(inst.name)
    m = (re.search(rf"(?<![\w.])([0-9]{{1,3}})\s*(?:x|×|台|个|instances?\s+of|of)?\s*{name}", text, re.IGNORECASE)
         or re.search(rf"{name}\s*(?:x|×)\s*([0-9]{{1,3}})\b", text, re.IGNORECASE))
    return max(1, int(m.group(1))) if m else 1


def _times(text: str, inst: InstanceType) -> str:
    n = _many(text, inst)
    return f"{n}× {inst.name}" if n > 1 else inst.name


def _named(ctx: ComposeContext) -> list[InstanceType]:
    """The AWS instance types the message names, in order, once each."""
    req = ctx.requirement
    out: list[InstanceType] = []
    for name in [req.instance, *req.instance_options]:
        inst = ctx.catalog.instance(name) if name else None
        if inst is not None and inst.provider == "aws" and inst not in out:
            out.append(inst)
    return out or _family_named(ctx)


_FAMILY_WORD = re.compile(r"(?<![\w.-])(p[3-6][a-z]*(?:-[a-z0-9]+)?|g[4-6][a-z]*)(?![\w.])", re.IGNORECASE)


def _family_named(ctx: ComposeContext) -> list[InstanceType]:
    """"a p5 quota increase": the family's largest size (its 8-GPU instance) where only the family is named."""
    out: list[InstanceType] = []
    for m in _FAMILY_WORD.finditer(ctx.question or ""):
        members = [i for i in ctx.catalog.instances.values() if i.provider == "aws" and i.family == m.group(1).lower()]
        if members:
            largest = max(members, key=lambda i: i.vcpus or 0)
            if largest not in out:
                out.append(largest)
    return out


def capacity(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    """"p5.48xlarge fails with InsufficientInstanceCapacity, but I raised the vCPU quota": a shortage of that type
    in the Availability Zone, which no quota raise fixes (that is VcpuLimitExceeded); what reserves it for a
    fixed window (Capacity Blocks for ML, P family), for any duration in one AZ (On-Demand Capacity
    Reservations), and what to try now (other AZs, all nodes of an EFA cluster in one AZ); the quota the
    count needs, to rule it out."""
    text = ctx.question or ask.text
    if not _CAPACITY.search(text):
        return None
    instances = _named(ctx)
    inst = instances[0] if instances else None
    if inst is None and not _ERROR_CODE.search(text):
        return None  # "H100 库存不足": a shortage, but not of an EC2 launch
    lang = ctx.language
    m = _NODES.search(text)
    n = int(m.group(1)) if m else (_many(text, inst) if inst is not None else 1)
    name = inst.name if inst is not None else say("checklist.capacity_the_type", lang)
    lead = say("checklist.capacity_lead", lang, instance=name)
    times = name if n == 1 else f"{n} 台 {name}" if lang == "zh" else f"{n}× {name}"
    details = []
    if inst is not None and inst.name.startswith("p"):
        key = "checklist.capacity_blocks_window" if _WINDOW.search(text) else "checklist.capacity_blocks"
        details.append(say(key, lang, n=n, instance=name, times=times))  # Capacity Blocks: the P family's
    details.append(say("checklist.capacity_odcr", lang, n=n, instance=name, times=times))
    details.append(say("checklist.capacity_now" if n > 1 else "checklist.capacity_now_one", lang, n=n, instance=name))
    code = inst.quota_code("on-demand") if inst is not None else None
    if inst is not None and code and inst.vcpus:
        details.append(say("checklist.capacity_quota" if n > 1 else "checklist.capacity_quota_one", lang, n=n, instance=name, code=code, name=AWS_QUOTA_NAMES[code],
                           need=f"{n * inst.vcpus:g}", vcpus=f"{inst.vcpus:g}"))
    return AskAnswer(kind=ask.kind, lead=lead, details=details, rule="checklist.aws-capacity", sources=CAPACITY_SOURCES,
                     figures={"instances": n, "vcpus": n * int(inst.vcpus or 0) if inst is not None else None})
