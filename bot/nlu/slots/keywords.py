"""Keyword slots, from the pattern tables in bot.nlu.lexicon: optimizer, deployment, billing,
precision, method and workload (a method implies training), and topics (what the question is about).

Workload, method and topics are words about the job; they may sit inside a cost clause ("训练 100
小时"), so they skip only names and quoted errors, not every claimed character.
"""

from __future__ import annotations

import re
from typing import Any

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, fold

_GEFORCE = lx.rx(r"\B<geforce>\E")
_ALLOWED = lx.rx(r"\B<(?:allowed|permitted|prohibit\w*|forbid\w*|banned)>\E|能不能用|可以用|能用吗|禁止")
# "Llama-3.1-70B in AWQ int4": checkpoint formats made for serving
_SERVING_FORMAT = lx.rx(r"\B<(?:awq|gptq|gguf|exl2)>\E")
# "not spot", "no spot please", "without preemptible", "不要抢占式", "不用竞价": a billing mode refused, never the plan's
_REFUSED_BEFORE = lx.rx(r"(?:\B<(?:not|no|non|never|without|avoid(?:ing)?|skip(?:ping)?|rather\s+not|don'?t\s+(?:want|use))>\E"
                        r"\s*-?\s*(?:on\s+|use\s+|using\s+|a\s+|any\s+)?"
                        r"|(?:不要|不用|不想用|不想要|不考虑|别用|避免|不能用|不接受|非)\s*(?:用)?\s*)$")


def settings(scan: Scan) -> None:
    scan.first_keyword("optimizer", lx.OPTIMIZER)
    scan.first_keyword("deployment", lx.DEPLOYMENT)
    for span in scan.spans:
        if span.slot == "deployment":
            scan.name(span.start, span.end)  # "data centre deployment" is a place, not a workload
    # Billing words may wrap a name ("a monthly A100 rental"), so only other billing words block them;
    # a mode refused ("not spot", "不要抢占式") is masked out, so it is neither the billing nor an option.
    scan.first_keyword("billing", lx.BILLING, mask=_refused_billing(scan))


def _refused_billing(scan: Scan) -> bytearray:
    """A mask over the billing words written after a negation ("no spot", "不用抢占式实例")."""
    mask = bytearray(len(scan.text))
    for pattern, _ in lx.BILLING:
        for m in pattern.finditer(scan.text):
            if _REFUSED_BEFORE.search(scan.text, max(0, m.start() - 24), m.start()):
                mask[m.start():m.end()] = b"\x01" * (m.end() - m.start())
    return mask


def precision(scan: Scan) -> None:
    scan.first_keyword("precision", lx.PRECISION)


# "mostly inference … + some LoRA", "主要做推理，偶尔微调", "推理为主": the main workload, written as such
_MAIN_BEFORE = lx.rx(r"(?:\B<(?:mostly|mainly|primarily|largely|chiefly|predominantly|main\s+(?:workload|use|job)\s+(?:is|will\s+be))>\E"
                     r"\s+(?:(?!train|fine|tun|lora|qlora|sft|pre)[\w.-]+\s+){0,3}"
                     r"|主要(?:(?!训|微调|精调)[^，。,;；：:]){0,12})$")
_MAIN_AFTER = lx.rx(r"^\s*(?:为主|居多|占大头)")


def _main_inference(scan: Scan) -> re.Match | None:
    """An inference word marked as the main workload ("mostly serving", "推理为主"), where training
    is also named: the job to size and compare for is the main one, not the occasional fine-tune."""
    for pattern, _ in lx.INFERENCE:
        for m in scan.matches(pattern, scan.names):
            if _MAIN_BEFORE.search(scan.text, max(0, m.start() - 40), m.start()) \
                    or _MAIN_AFTER.search(scan.text[m.end():m.end() + 6]):
                return m
    return None


def workload(scan: Scan) -> None:
    main = _main_inference(scan)
    if main is not None:
        scan.set("workload", "inference", main.start(), main.end(), note="the main workload")
        return
    method = _earliest(scan, lx.METHOD)
    if method:
        m, value = method
        scan.set("method", value, m.start(), m.end())
        scan.set("workload", "training", m.start(), m.end(), note="implied by the method", kind="implied")
        return
    training, inference = _earliest(scan, lx.TRAINING), _earliest(scan, lx.INFERENCE)
    chosen = training or inference  # a job that trains and then serves is sized for training
    if chosen:
        scan.set("workload", chosen[1], chosen[0].start(), chosen[0].end())
        return
    for m in scan.matches(_SERVING_FORMAT, scan.names):
        # "Llama-3.1-70B in AWQ int4 on 8x 4090": a checkpoint format made for serving, never trained in
        scan.set("workload", "inference", m.start(), m.end(), note="implied by a serving-only format", kind="implied")
        break


def workloads_named(text: str) -> set[str]:
    """The workloads a piece of text names by the words `workload` reads ("which trains faster?":
    training; "which serves better?", "推理哪个好": inference), both where it names both."""
    folded = fold(text)
    named = {"training"} if any(p.search(folded) for p, _ in (*lx.METHOD, *lx.TRAINING)) else set()
    return named | ({"inference"} if any(p.search(folded) for p, _ in lx.INFERENCE) else set())


def topics(scan: Scan) -> None:
    for pattern, topic in lx.TOPICS:
        m = next(scan.matches(pattern, scan.names), None)
        if m:
            scan.add("topics", topic, m.start(), m.end(), take=False)
    m = lx.FORM_FACTORS.search(scan.text)  # "H100 SXM vs H100 PCIe": names that pose an interconnect question
    if m:
        scan.add("topics", "interconnect", m.start(), m.end(), take=False)
    # "GeForce" with a data centre, a hosting business or "allowed" asks about the licence. With a
    # catalog GPU named the licence rules fire from that GPU and the deployment; without one
    # ("数据中心里能不能用 GeForce 卡？") only the topic can reach them.
    m = _GEFORCE.search(scan.text)
    if m and "gpu" not in scan.fields and (
            scan.fields.get("deployment") in ("datacenter", "commercial-hosting") or _ALLOWED.search(scan.text)):
        scan.add("topics", "license", m.start(), m.end(), take=False)


def _earliest(scan: Scan, rows: list[tuple[re.Pattern, Any]]) -> tuple[re.Match, Any] | None:
    found = [(m, value) for pattern, value in rows for m in scan.matches(pattern, scan.names)]
    return min(found, key=lambda item: (item[0].start(), -item[0].end())) if found else None
