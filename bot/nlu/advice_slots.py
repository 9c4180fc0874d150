"""Extractors for the slots the advice needs (issue #11), one small function per slot.

- `intent`: "recommend me a GPU server" / "推荐一台 GPU 服务器" -> recommend; "just got an H100
  instance, what should I check first?" -> first-check;
- `concurrency` from users: "single user" / "单用户" -> 1, "for 10 users" -> 10;
- `checkpointing` / `checkpoint_minutes`: "we don't checkpoint" -> False, "每 30 分钟保存" -> 30;
- quotes without a duration and monthly prices ("8x H100 at $2.49/GPU-hour", "4000 元/月");
- `gpu_options`: every GPU of "X or Y", "X vs Y", "H100 PCIe vs SXM", and the GPUs of compared quotes.

Each runs on the folded text after the core extractors (bot.nlu.parser), on characters they left.
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx

# -- intent ------------------------------------------------------------------------------------------

_RECOMMEND = lx.rx(
    r"\B<(?:recommend|suggest)\w*\s+(?:me\s+|us\s+)?(?:an?\s+|some\s+|the\s+(?:best\s+)?)?(?:\w+\s+){0,2}"
    r"(?:gpu|server|instance|machine|box|card|setup|config\w*)s?>\E"
    r"|\B<(?:what|which)\s+(?:gpu|server|instance|machine)s?\s+(?:should|do|would|could)\s+(?:i|we|you)\s+(?:rent|buy|get|use|recommend)>\E"
    r"|推荐(?:一下|一台|一款|一个|几台|个)?\s*(?:gpu|显卡|服务器|机器|配置|实例|云服务器)"
    r"|(?:租|买|选)(?:什么|哪种|哪个|哪款)\s*(?:gpu|显卡|服务器|机器|配置|实例)"
    r"|(?:想|要|打算|准备)(?:租|买)(?:一台|台|个|一个|点)?\s*(?:gpu|显卡|服务器|机器|算力)"
    r"|\B<(?:i|we)\s+(?:want|need|would\s+like|plan)\s+to\s+(?:rent|buy)\s+(?:an?\s+|some\s+)?(?:gpu\s+)?(?:server|machine|box|instance|gpus?)>\E"
)
_FIRST_CHECK = lx.rx(
    r"\B<(?:just\s+(?:got|rented|received|bought|launched|spun\s+up)|new(?:ly)?\s+(?:rented\s+)?(?:gpu\s+)?(?:instance|server|machine|box|node|host))>\E"
    r".{0,80}?\B<(?:check|verify|test|look\s+at|validate|inspect)>\E"
    r"|\B<(?:what|which\s+things?)\s+(?:should|do)\s+(?:i|we)\s+(?:check|verify|test)\s+first>\E"
    r"|\B<first\s+(?:checks?|things?\s+to\s+check)>\E"
    r"|\B<how\s+(?:do\s+i|do\s+we|to|can\s+i|can\s+we)\s+(?:check|verify|tell|test)\s+(?:if|whether|that)?\s*(?:my|our|the|a)?\s*(?:rented|new|cloud)\b>\E"
    r"|(?:刚|新)(?:租|买|开|拿到|到手|申请|装)(?:到|好)?了?.{0,60}?(?:检查|验证|核对|先看|测试|确认)"
    r"|(?:到手|交付|上线)(?:了|后)?.{0,30}?(?:先|要|需要)?(?:检查|验证|核对|测试)(?:什么|哪些|啥)"
    r"|(?:先|首先)(?:检查|验证|核对)(?:什么|哪些|啥)"
)


_HOW_MANY = lx.rx(r"\B<how\s+many\s+(?:\w+\s+){0,3}(?:gpus?|cards?|nodes?|h100s?|a100s?|l40s|4090s?)>\E|\B<how\s+many\s+do\s+(?:i|we)\s+need>\E"
                  r"|(?:需要|要|得)?(?:多少|几)\s*(?:张|块|个|台)?\s*(?:卡|gpu|显卡|h100|a100|4090)")


def intent(scan) -> None:
    m = next(scan.matches(_HOW_MANY, bytearray(len(scan.text))), None)
    if m and "gpu_count" not in scan.fields:
        scan.set("intent", "how-many", m.start(), m.end())
        return
    m = next(scan.matches(_FIRST_CHECK, bytearray(len(scan.text))), None)  # may span a GPU name
    if m:
        scan.set("intent", "first-check", m.start(), m.end())
        return
    m = next(scan.matches(_RECOMMEND, scan.names), None)
    if m:
        scan.set("intent", "recommend", m.start(), m.end())


# -- users -------------------------------------------------------------------------------------------

_USERS = lx.rx(
    rf"\B<(?:a\s+)?(single|one)[\s-]+(?:user|person|request\s+at\s+a\s+time)>\E"
    rf"|(单用户|单人使用|单个用户|一个用户)"
    rf"|(?:\B<(?:for|to|serve|serving|support|supporting|with|by)\s+)?{lx.INT}\s*(?:\B<(?:users?|people|customers|clients|seats)>\E|个?用户|人使用|个人用)"
)


def users(scan) -> None:
    if "concurrency" in scan.fields:
        return
    for m in scan.matches(_USERS):
        value = 1 if (m.group(1) or m.group(2)) else int(m.group(3))
        if value > 0:
            scan.set("concurrency", value, m.start(), m.end())
            scan.spans[-1].note = "users"
        return


def served_users(scan) -> None:
    """Users are served: "run a 13B model for 10 users" is inference, unless the text says otherwise."""
    users = next((s for s in scan.spans if s.slot == "concurrency" and s.note == "users"), None)
    if users is not None and "workload" not in scan.fields:
        scan.set("workload", "inference", users.start, users.end)
        scan.spans[-1].note = "implied by the users served"


# -- checkpoints -------------------------------------------------------------------------------------

_NO_CHECKPOINT = lx.rx(
    r"\B<(?:no|without|don'?t|do\s+not|doesn'?t|does\s+not|never|won'?t|not)\s+(?:\w+\s+)?(?:use\s+|do\s+|save\s+|write\s+|have\s+)?"
    r"(?:any\s+)?check[\s-]?point\w*>\E"
    r"|(?:不做|没有|不存|不保存|没做|不打|不用|无)\s*(?:checkpoint|检查点|断点|存档)"
)
_CHECKPOINT_EVERY = lx.rx(
    rf"(?:\B<(?:check[\s-]?point\w*|sav\w+)\s+(?:every|each)\s+{lx.NUM}\s*(min\w*|hours?|h)>\E)"
    rf"|(?:每|每隔)\s*{lx.NUM}\s*(分钟|小时)\s*(?:保存|存|做|打)\s*(?:一次)?\s*(?:checkpoint|检查点|断点)?"
)


def checkpoints(scan) -> None:
    m = next(scan.matches(_NO_CHECKPOINT, scan.names), None)
    if m:
        scan.set("checkpointing", False, m.start(), m.end())
        return
    m = next(scan.matches(_CHECKPOINT_EVERY), None)
    if m:
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        minutes = float(value) * (60 if unit.startswith(("h", "小")) else 1)
        scan.set("checkpointing", True, m.start(), m.end())
        if minutes > 0:
            scan.fields["checkpoint_minutes"] = minutes
            scan.spans.append(scan.span("checkpoint_minutes", minutes, m.start(), m.end()))


def compared_billing(scan) -> None:
    """Quotes under two billing modes, or two billing modes named ("on-demand or reserved"): the
    question compares them (`billing` keeps the first, as before)."""
    modes = [s.value for s in scan.spans if s.slot == "billing"]
    modes += [s.value for s in scan.ignored if s.slot == "billing"]
    modes += [c["billing"] for c in scan.fields.get("costs", []) if c.get("billing")]
    modes = list(dict.fromkeys(modes))
    if len(modes) > 1:
        scan.fields["billing_options"] = modes
        scan.ignored[:] = [s for s in scan.ignored if s.slot != "billing"]
        for span in [s for s in scan.spans if s.slot == "billing"]:
            scan.spans.append(scan.span("billing_options", modes, span.start, span.end))


# -- compared GPUs -----------------------------------------------------------------------------------

_FORM_PAIR = lx.rx(r"\B<(sxm\d?|pcie|nvl)\s*(?:vs\.?|versus|or|and|against|还是|或|和|与|对比|比)\s*(sxm\d?|pcie|nvl)>\E")


def gpu_options(scan, mentions: list[tuple[int, int, str]]) -> None:
    """Every distinct GPU the question names, when it names more than one (a comparison)."""
    values = list(dict.fromkeys(value for _, _, value in mentions))
    if len(values) == 1:
        pair = next(scan.matches(_FORM_PAIR, bytearray(len(scan.text))), None)
        if pair:
            variants = [_variant(scan, values[0], pair.group(i)) for i in (1, 2)]
            if all(variants) and variants[0] != variants[1]:
                values = variants
                mentions = [(pair.start(), pair.end(), v) for v in variants]
    for span in [s for s in scan.spans if s.slot in ("instance", "instance_options")]:
        known = scan.lex.catalog.instance(span.value)
        if known is not None and known.gpu and known.gpu not in values:
            values.append(known.gpu)
            mentions = [*mentions, (span.start, span.end, known.gpu)]
    for span in [s for s in scan.spans if s.slot == "costs"]:
        gpu = span.value.get("gpu")
        if gpu and gpu not in values:
            values.append(gpu)
            mentions = [*mentions, (span.start, span.end, gpu)]
    if len(values) < 2:
        return
    scan.fields["gpu_options"] = values
    for start, end, value in mentions:
        scan.spans.append(scan.span("gpu_options", value, start, end))
    # The second GPU is an option now, not a name the answer ignored.
    scan.ignored[:] = [s for s in scan.ignored if not (s.slot == "gpu" and s.value in values)]


def provider_options(scan) -> None:
    """"RunPod or Vast.ai", "GPU Mart vs DediXLAB": the providers after the first are options too."""
    later = [s for s in scan.ignored if s.slot == "provider" and s.note and s.note.startswith("provider already")]
    if not later or "provider" not in scan.fields:
        return
    values = list(dict.fromkeys(s.value for s in later if s.value != scan.fields["provider"]))
    if values:
        scan.fields["provider_options"] = values
        for span in later:
            scan.spans.append(scan.span("provider_options", span.value, span.start, span.end))
        scan.ignored[:] = [s for s in scan.ignored if s not in later]


def _variant(scan, gpu: str, form: str) -> str | None:
    catalog = scan.lex.catalog
    family = catalog.gpus[gpu].family if gpu in catalog.gpus else gpu
    form = re.sub(r"\d", "", form)
    found = [g.id for g in catalog.gpus.values() if g.family == family and form in g.id.split("-")]
    return found[0] if len(found) == 1 else None


# "Qwen2-72B int4，8k，10并发": a bare power-of-two "k" in a question about a model is its context.
_BARE_CONTEXT = re.compile(r"(?<![$¥0-9.a-z])(2|4|8|16|32|64|128|256)\s*k(?![a-z0-9])(?!\s*(?:tokens?\s*/|/|usd|美元|元|\$))")


def bare_context(scan) -> None:
    if "context" in scan.fields or not ({"model", "params_b"} & set(scan.fields)):
        return
    m = next(scan.matches(_BARE_CONTEXT), None)
    if m:
        scan.set("context", int(m.group(1)) * 1024, m.start(), m.end())


_MONEY = r"(?P<c1>\$|usd|us\$|美元|美金|¥|rmb|cny|元|人民币)?\s*(?P<n>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,9}(?:\.[0-9]{1,4})?)\s*(?P<k>k|万|千)?\s*(?P<c2>\$|usd|dollars?|美元|美金|元|块|rmb|cny|人民币)?"
_BUDGET = (lx.rx(rf"(?:\B<budget(?:\s+(?:is|of|=|:|around|about|under))?>\E|预算(?:是|为|大概|约|在|有|只有)?|控制在)\s*{_MONEY}"),
           lx.rx(rf"{_MONEY}\s*(?:的)?(?:\B<budget>\E|预算)"))


_ANY_CURRENCY = re.compile(r"\$|usd|美元|美金|¥|rmb|cny|元|人民币")


def budget(scan) -> None:
    """'budget $40k', '预算20万元', '3万美元预算': what the user can spend, in its currency."""
    m = next((m for pattern in _BUDGET for m in scan.matches(pattern) if m.group("n")), None)
    if m is None:
        return
    value = float(m.group("n").replace(",", "")) * {"k": 1_000, "千": 1_000, "万": 10_000}.get(m.group("k") or "", 1)
    written = (m.group("c1") or m.group("c2") or "").lower()
    if not written:
        # "budget is 30k" next to "$2.10/gpu-hr": the question's own currency
        found = _ANY_CURRENCY.search(scan.text)
        if found is None:
            return  # a bare number with no currency anywhere is too ambiguous to use
        written = found.group(0)
    currency = "CNY" if written in ("¥", "rmb", "cny", "元", "块", "人民币") else "USD"
    scan.set("budget", value, m.start(), m.end())
    scan.fields["budget_currency"] = currency
    scan.spans.append(scan.span("budget_currency", currency, m.start(), m.end()))


_NETWORK = lx.rx(r"(?<![0-9.])([0-9]{1,4})\s*(?:g|gb|gbit|gbps|gb/s|g/s|gbe|gige)(?![a-z0-9])\s*(?:bit\s*)?(?:\B<(?:ethernet|roce|rocev2|infiniband|ib|nic|network|links?)>\E|以太网|网络|网卡|带宽|roce)?"
                 r"|\B<(?:ethernet|roce|network|nic|infiniband|ib)\s+(?:of\s+|at\s+)?>\E([0-9]{1,4})\s*(?:g|gb|gbps|gbe)(?![a-z0-9])")
_NETWORK_WORD = lx.rx(r"\B<(?:ethernet|roce|rocev2|infiniband|ib|nic|network|interconnect|gbe|gige)>\E|以太网|网络|网卡|带宽|组网|\bib\b")


def network(scan) -> None:
    """'100GbE RoCE', '25G 以太网': the network the user has, when the question is about networking."""
    if not _NETWORK_WORD.search(scan.text):
        return
    for m in scan.matches(_NETWORK):
        value = float(m.group(1) or m.group(2))
        tail = scan.text[m.end(1) if m.group(1) else m.end(2):m.end()]
        around = scan.text[max(0, m.start() - 12):m.end() + 12]
        if not (_NETWORK_WORD.search(around) or "gbe" in tail or "gbps" in tail or "gb/s" in tail):
            continue  # "80G" next to a GPU is its memory, not a network
        scan.set("network_gbps", value, m.start(), m.end())
        scan.add("topics", "network", m.start(), m.end(), take=False)
        return
