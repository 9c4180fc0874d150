"""What a question compares: every GPU of 'H100 or B200', 'H100 PCIe vs SXM' and of compared quotes
-> gpu_options; 'RunPod or Vast.ai' -> provider_options; two billing modes -> billing_options.
The first of each stays in its own slot (gpu, provider, billing), as before."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan

Mention = tuple[int, int, str]  # (start, end, GPU value)

# "don't suggest H100", "not PCIe or NVL", "除了 H100": what follows is ruled out, not named or compared.
RULED_OUT = re.compile(r"(?:don'?t\s+(?:say|suggest|recommend|want|use)|(?:can'?t|cannot|unable\s+to)\s+(?:get|use|buy|rent)"
                        r"|except|excluding|other\s+than|besides|别推荐|不要推荐|用不了|没法用|买不到|租不到|"
                        r"(?:\b(?:no|avoid|without)|(?:^|[,;，；?？.。!！])\s*not)(?:\s+(?:an?|the))?|不要|除了|别说|不考虑|不用|别用|排除|不想要?用?)\s*$")
_FORM_PAIR = lx.rx(r"\B<(sxm\d?|pcie|nvl)\s*(?:vs\.?|versus|or|and|against|还是|或|和|与|对比|比)\s*(sxm\d?|pcie|nvl)>\E")


def gpu_options(scan: Scan, mentions: list[Mention]) -> None:
    """Every distinct GPU the question names, when it names more than one (a comparison)."""
    values = list(dict.fromkeys(value for _, _, value in mentions))
    if len(values) == 1:
        values, mentions = _form_factor_pair(scan, values, mentions)
    for start, end, gpu in _gpus_of_instances_and_quotes(scan):
        if gpu not in values:
            values.append(gpu)
            mentions = [*mentions, (start, end, gpu)]
    if len(values) < 2:
        return
    scan.fields["gpu_options"] = values
    for start, end, value in mentions:
        scan.spans.append(scan.span("gpu_options", value, start, end))
    # The second GPU is an option now, not a name the answer ignored.
    scan.ignored[:] = [s for s in scan.ignored if not (s.slot == "gpu" and s.value in values)]


def _form_factor_pair(scan: Scan, values: list[str], mentions: list[Mention]) -> tuple[list[str], list[Mention]]:
    """"H100 PCIe vs SXM": one GPU named, two of its variants compared."""
    pair = next(scan.matches(_FORM_PAIR, bytearray(len(scan.text))), None)
    if pair:
        found = [_variant(scan, values[0], pair.group(i)) for i in (1, 2)]
        variants = [v for v in found if v]
        if len(variants) == 2 and variants[0] != variants[1]:
            if RULED_OUT.search(scan.text, max(0, pair.start() - 16), pair.start()):
                for v in variants:  # "must be SXM, not PCIe or NVL": both ruled out, neither compared
                    refuse(scan, v, pair.start(), pair.end())
                return values, mentions
            return variants, [(pair.start(), pair.end(), v) for v in variants]
    return values, mentions


def refuse(scan: Scan, value: str, start: int, end: int) -> None:
    """A GPU the user ruled out, kept so that no recommendation names it (Requirement.refused_gpus)."""
    refused = scan.fields.setdefault("refused_gpus", [])
    if value not in refused:
        refused.append(value)
        scan.spans.append(scan.span("refused_gpus", value, start, end))


def _gpus_of_instances_and_quotes(scan: Scan) -> list[Mention]:
    found = []
    for span in [s for s in scan.spans if s.slot in ("instance", "instance_options")]:
        known = scan.lex.catalog.instance(span.value)
        if known is not None and known.gpu:
            found.append((span.start, span.end, known.gpu))
    for span in [s for s in scan.spans if s.slot == "costs"]:
        if span.value.get("gpu"):
            found.append((span.start, span.end, span.value["gpu"]))
    return found


def _variant(scan: Scan, gpu: str, form: str) -> str | None:
    catalog = scan.lex.catalog
    family = catalog.gpus[gpu].family if gpu in catalog.gpus else gpu
    form = re.sub(r"\d", "", form)
    found = [g.id for g in catalog.gpus.values() if g.family == family and form in g.id.split("-")]
    return found[0] if len(found) == 1 else None


def provider_options(scan: Scan) -> None:
    """"RunPod or Vast.ai", "GPU Mart vs DediXLAB": the providers after the first are options too."""
    later = [s for s in scan.ignored if s.slot == "provider" and s.kind == "repeated"]
    if not later or "provider" not in scan.fields:
        return
    values = list(dict.fromkeys(s.value for s in later if s.value != scan.fields["provider"]))
    if values:
        scan.fields["provider_options"] = values
        for span in later:
            scan.spans.append(scan.span("provider_options", span.value, span.start, span.end))
        scan.ignored[:] = [s for s in scan.ignored if s not in later]


# "is spot worth the hassle?", "should we go spot?", "spot 值得吗", "要不要上抢占式": spot is the plan weighed
_SPOT_WEIGHED = lx.rx(r"\B<(?:(?:is|are|would|will)\s+(?:the\s+)?spot\s+(?:\w+\s+){0,2}?(?:worth|cheaper|better|ok|okay|fine|safe)"
                      r"|spot\s+(?:is\s+|really\s+)?worth|(?:go|going|use|using|switch\s+to|move\s+to|try)\s+(?:with\s+|on\s+)?spot"
                      r"|worth\s+(?:going\s+|using\s+|the\s+)?spot)>\E"
                      r"|(?:spot|竞价|抢占式?)(?:实例)?\s*(?:值得|值不值|划算|划不划算|合算|靠谱|省)"
                      r"|(?:值得|值不值得|要不要|该不该|能不能|可不可以)\s*(?:用|上|换|切到?)\s*(?:spot|竞价|抢占式?)")


def compared_billing(scan: Scan) -> None:
    """Quotes under two billing modes, or two billing modes named ("on-demand or reserved"): the
    question compares them (`billing` keeps the first, as before, unless the question weighs spot: "on-demand
    $55/h vs spot $17/h, is spot worth it?" plans on spot, so its quota and terms are the ones warned of)."""
    modes = _billing_modes(scan)
    if len(modes) > 1:
        scan.fields["billing_options"] = modes
        scan.ignored[:] = [s for s in scan.ignored if s.slot != "billing"]
        for span in [s for s in scan.spans if s.slot == "billing"]:
            scan.spans.append(scan.span("billing_options", modes, span.start, span.end))
        weighed = _SPOT_WEIGHED.search(scan.text)
        if "spot" in modes and scan.fields.get("billing") != "spot" and weighed is not None:
            scan.fields["billing"] = "spot"
            scan.spans[:] = [s for s in scan.spans if s.slot != "billing"]
            scan.spans.append(scan.span("billing", "spot", weighed.start(), weighed.end()))


def _billing_modes(scan: Scan) -> list[str]:
    """Every billing mode named or quoted, first-named first."""
    modes = [s.value for s in scan.spans if s.slot == "billing"]
    modes += [s.value for s in scan.ignored if s.slot == "billing"]
    modes += [c["billing"] for c in scan.fields.get("costs", []) if c.get("billing")]
    return list(dict.fromkeys(modes))
