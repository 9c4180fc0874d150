"""Licence and aftermarket-card parts of `compat` asks: "is it legal to sell an API on 4090s in a
colo?", "云厂商给的 4090 服务器跑对外收费服务有没有授权问题？", "4090 48G 魔改卡官方驱动能用吗？".

The GeForce driver licence (geforce-eula, section 2.1.3) does not license data-centre deployment,
blockchain processing excepted, and restricts using the software for commercial hosting
(rental-selection-guide). The answer says which of the two the plan is, that it is a licence risk
rather than a technical block (for legal to read, not legal advice), and the licence-clean cards
with their memory and power from the catalog. An aftermarket card (`nvidia_product: false`) is
answered for what it is: the stock driver and the donor die, no NVIDIA warranty.
"""

from __future__ import annotations

import re

from bot.compose import ComposeContext
from bot.knowledge import GpuSpec
from bot.messages import say
from bot.messages.format import gpu_name
from bot.models import Ask, AskAnswer
from bot.nlu.slots.ask_routes import RENTED_OUT

SOURCES = ["geforce-eula", "rental-selection-guide"]
_LICENCE = re.compile(r"licen[cs]\w*|legal|eula|allowed|permitted|complian\w*|授权|许可|合规|违规|违反|能不能商用|可以商用", re.I)
_PAID = re.compile(r"\bsell\w*|paid|customers?|commercial\w*|\bapi\b|saas|hosting|resell|对外|收费|商用|商业|客户|卖算力",
                   re.I)
_DATACENTRE = re.compile(r"\bcolo\w*|\brack\w*|data[\s-]?cent\w*|datacent\w*|机房|数据中心|机柜|托管", re.I)
_RENTED = re.compile(r"\brent\w*|provider|cloud|云厂商|租|供应商|服务商", re.I)
# renting the cards out to others ("rent out our 4090s on vast.ai", "对外出租算力"): the user is the host, selling
_RENTING_OUT = re.compile(r"\b(?:rent|lease|hire)(?:ing|s)?\s+(?:\w+\s+){0,4}?out\b|\bsublet\w*|出租|租给|转租|对外租", re.I)
# "any licensing issue?", "会不会有授权问题": yes/no is about the issue, not about being allowed
_ISSUE = re.compile(r"\b(?:issues?|problems?|risks?|concerns?)\b|问题|风险|麻烦", re.I)
# "they say the blower version is fine for datacenter. is it?", "ok to rack in our colo?": whether the card may
# go there is the licence question, asked without the word
_DC_OK = re.compile(r"\b(?:fine|ok|okay|good|safe|allowed|legit|suitable|approved)\s+(?:to\s+(?:rack|deploy|host|run)\w*\s+)?"
                    r"(?:for|in|into)\s+(?:a\s+|the\s+|our\s+)?(?:data[\s-]?cent\w*|datacent\w*|colo\w*|racks?|server\s+rooms?)"
                    r"|(?:机房|数据中心|机柜).{0,6}(?:能用吗|可以用吗|没问题吗|行吗|可以吗)", re.I)
# A cooler or slot width sold as the data-centre version of a GeForce card ("server edition", blower, 2-slot, 涡轮版)
_FORM = re.compile(r"\bblower\w*|server[\s-]+edition|\b(?:2|two|dual)[\s-]?slot|\bturbo\b|涡轮|服务器版|双槽|双宽", re.I)
_DRIVER_Q = re.compile(r"driver|驱动|recogni[sz]e|detect|认全|认出|识别|显示|能用吗|work", re.I)
# Splitting one GPU among VMs or tenants: vGPU (licensed), MIG (hardware), time-slicing (neither).
_SHARING = re.compile(r"vgpu|\bvms?\b|virtual\s+machines?|multi[\s-]?tenan\w*|tenants?|虚机|虚拟机|多租户|租户|切给多个|分给多个", re.I)
# Licence-clean cards shown with their memory and power, smallest first; China-market ones there.
_ALTERNATIVES = ("l4", "l40s", "rtx-pro-6000")
_ALTERNATIVES_CN = ("l4", "l20", "l40s")


def compose(ask: Ask, ctx: ComposeContext) -> AskAnswer | None:
    text = ctx.question or ask.text
    if _SHARING.search(text) and _LICENCE.search(text):
        shared = ctx.catalog.gpus.get(ctx.requirement.gpu or "")
        if shared is None and ctx.requirement.gpu:
            from bot.advice.options import representative

            shared = representative(ctx.catalog, ctx.requirement.gpu)
        if shared is not None:
            return _sharing(shared, ctx)
    spec = _consumer(ctx)
    if spec is not None and not spec.nvidia_product and _DRIVER_Q.search(ask.text):
        return _aftermarket(spec, ctx)
    asked = bool(_LICENCE.search(ask.text) or _DC_OK.search(text) or _RENTING_OUT.search(ask.text)
                 or RENTED_OUT.search(ask.text.lower()))  # "offer our 4090 rig on runpod", "resell 5090 compute": the router's reading
    if spec is None:
        clean = _named(ctx) if asked else None  # "租 H20 放机房对外卖推理服务，有授权问题吗": a card the clause does not cover
        return _clean(clean, text, ctx) if clean is not None else None
    return _licence(spec, text, ctx) if asked else None


def _consumer(ctx: ComposeContext) -> GpuSpec | None:
    for gpu in [ctx.requirement.gpu, *ctx.requirement.gpu_options]:
        spec = ctx.catalog.gpus.get(gpu or "")
        if spec is not None and spec.gpu_class == "consumer":
            return spec
    return None


def _named(ctx: ComposeContext) -> GpuSpec | None:
    """The one GPU the message names (a family, "H20", as the advisor judges it)."""
    from bot.advice.options import representative
    from bot.knowledge import UnknownNameError

    gpu = ctx.requirement.gpu
    if not gpu or (ctx.requirement.gpu_options and len(set(ctx.requirement.gpu_options)) > 1):
        return None
    try:
        return ctx.catalog.gpus.get(gpu) or representative(ctx.catalog, gpu)
    except UnknownNameError:
        return None


def _clean(spec: GpuSpec, text: str, ctx: ComposeContext) -> AskAnswer:
    """A licence question about a data-centre or RTX PRO card: the GeForce clause (geforce-eula 2.1.3) covers
    GeForce cards only, so the plan has no licence issue of that kind; for racks, an RTX PRO board's Server
    Edition; what still needs a licence of its own (vGPU for VMs, the model)."""
    lang = ctx.language
    named = ctx.requirement.gpu or spec.id
    name = gpu_name(ctx.catalog, spec.id, lang) if named in ctx.catalog.gpus else named.upper()  # "H20" as named
    line = spec.line
    lead = say("compat.licence_clean_workstation" if line == "workstation" else "compat.licence_clean", lang, gpu=name)
    details = []
    if line == "workstation" and "Server Edition" in (spec.form_factor or "") and _DATACENTRE.search(text):
        details.append(say("compat.licence_clean_server_edition", lang, gpu=name))
    details.append(say("compat.licence_clean_still", lang))
    sources = ["geforce-eula", *spec.sources, "nvidia-vgpu-licensing"]
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.licence-not-geforce",
                     sources=list(dict.fromkeys(sources)), figures={"allowed": "yes"})


# mining or blockchain work: the clause's one exception ("except that blockchain processing in a datacenter is permitted")
_MINING = re.compile(r"\bcrypto\w*|\bmining\b|\bminers?\b|blockchain|挖矿|矿机|区块链", re.I)
# "internal only", "no customers", "训练自己的模型", "不对外": nothing is sold or hosted for others
_OWN_USE = re.compile(r"\binternal(?:ly|\s+(?:use|only|fine[\s-]?tuning|training|development|research|work|workloads?|jobs?))\b"
                      r"|\bno\s+(?:paying\s+|external\s+)?customers\b|\bnot\s+(?:selling|for\s+customers|commercial)"
                      r"|\bour\s+own\s+(?:models?|research|training|use)\b|自己的模型|自己用|自用|内部(?:使用|用|研发|训练|测试)"
                      r"|不对外|不商用|不卖", re.I)
# a room of racked servers of one's own ("server closet", "机房" of the office), not a colo or a cloud
_SERVER_ROOM = re.compile(r"server\s+(?:closet|room|rack)|\brack(?:ed|s)?\b|机房|机柜|服务器间", re.I)


# training a model of one's own, for commercial use or not ("拿来训练商用模型", "fine-tune a model we will sell"):
# the cards serve no one else, whatever the model is later used for
_TRAINING = re.compile(r"\btrain\w*|fine[\s-]?tun\w*|pre[\s-]?train\w*|训练|微调|预训练", re.I)
# what makes it a service for others: selling compute, an API, customers, hosting (not only "commercial")
_SERVES_OTHERS = re.compile(r"\bsell\w*\s+(?:compute|gpu|capacity|access|inference|an?\s+api)|\bapi\b|saas|hosting|resell|customers?"
                            r"|\bserv(?:e|ing)\b|inference\s+service|对外|收费服务|客户|卖算力|推理服务|上线", re.I)


def _own_training(text: str) -> bool:
    """Training their own model, with no service for others in the message: commercial use of the model
    is not the hosting the clause restricts."""
    return bool(_TRAINING.search(text)) and not _SERVES_OTHERS.search(text)


def _licence(spec: GpuSpec, text: str, ctx: ComposeContext) -> AskAnswer:
    lang = ctx.language
    name = gpu_name(ctx.catalog, spec.id, lang)
    out = bool(_RENTING_OUT.search(text) or RENTED_OUT.search(text.lower()))
    # a cloud named ("AutoDL 上全是 4090") is renting too; renting out: they deploy the driver themselves
    rented = bool(_RENTED.search(text) or ctx.requirement.provider) and not out
    # training their own model on rented cards: the platform deploys them (in racks of their own, the clause is theirs)
    own = bool(_OWN_USE.search(text)) or (rented and _own_training(text))
    paid = (bool(_PAID.search(text)) or out) and not own
    dc = bool(_DATACENTRE.search(text) or _SERVER_ROOM.search(text))
    if own and not paid:  # their own work: where the cards sit decides (a workstation, a rack), or the provider's part
        return _own_use(spec, name, rented, dc, ctx)
    case = ("case_rented_paid" if rented and paid else "case_dc_paid" if dc and paid else "case_dc" if dc
            else "case_paid" if paid else "case_generic")
    key = "compat.licence_lead_issue" if _ISSUE.search(text) else "compat.licence_lead"
    lead = say(key, lang, gpu=name, case=say(f"compat.licence_{case}", lang))
    details = [say("compat.licence_risk", lang)]
    if _FORM.search(text):  # a blower or "server edition" board is still the GeForce product, under the same terms
        details.insert(0, say("compat.licence_form_factor", lang, gpu=name))
    if _MINING.search(text):  # the one exception the clause has, and what it does not cover
        details.insert(0, say("compat.licence_blockchain_only", lang, gpu=name))
    if rented:
        details.append(say("compat.licence_rented", lang))
    details.append(say("compat.licence_alternatives", lang, cards=_cards(ctx, lang)))
    if not rented:  # a workstation of their own is no option for cards they rent
        details.append(say("compat.licence_workstation", lang, gpu=name))
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.geforce-licence", sources=SOURCES,
                     figures={"allowed": "no" if dc or paid else "depends"})


def _own_use(spec: GpuSpec, name: str, rented: bool, dc: bool, ctx: ComposeContext) -> AskAnswer:
    """GeForce cards for the user's own work, nothing hosted for others: rented from a platform, the data-centre
    deployment is the provider's (low risk for the renter); in one's own racks, the clause is about where the
    driver is deployed, not about selling, so only workstations are clearly fine."""
    lang = ctx.language
    key = "compat.licence_own_rented" if rented else "compat.licence_own_rack" if dc else "compat.licence_own_workstation"
    details = [say("compat.licence_renter" if rented else "compat.licence_risk", lang)]
    if rented and not spec.ecc:  # what the card lacks for long training runs, beside the licence
        details.append(say("compat.licence_rented_card", lang, gpu=name, memory=f"{spec.memory_gb:g}"))
    details.append(say("compat.licence_alternatives", lang, cards=_cards(ctx, lang)))
    return AskAnswer(kind="compat", lead=say(key, lang, gpu=name), details=details, rule="compat.geforce-licence",
                     sources=SOURCES, figures={"allowed": "depends" if dc and not rented else "yes"})


def _cards(ctx: ComposeContext, lang: str) -> str:
    china = lang == "zh"  # a Chinese question gets the cards sold in China (L20 rather than RTX PRO 6000)
    out = []
    for gpu in _ALTERNATIVES_CN if china else _ALTERNATIVES:
        spec = ctx.catalog.gpus.get(gpu)
        if spec is not None:
            out.append(say("compat.licence_card", lang, gpu=gpu_name(ctx.catalog, gpu, lang),
                           memory=f"{spec.memory_gb:g}", power=f"{spec.board_power_w:g}" if spec.board_power_w else "?"))
    return ("、" if lang == "zh" else ", ").join(out)


def _aftermarket(spec: GpuSpec, ctx: ComposeContext) -> AskAnswer:
    lang = ctx.language
    donor = "RTX 4090 D" if "4090d" in spec.id else "RTX 4090"
    lead = say("compat.aftermarket_lead", lang, gpu=gpu_name(ctx.catalog, spec.id, lang), donor=donor,
               memory=f"{spec.memory_gb:g}")
    details = [say("compat.aftermarket_accept", lang), say("compat.aftermarket_pitfalls", lang)]
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.aftermarket-card",
                     sources=list(dict.fromkeys([*spec.sources, "nvidia-smi-docs"])))


def _sharing(spec: GpuSpec, ctx: ComposeContext) -> AskAnswer:
    """Sharing one GPU among VMs or tenants: what the card supports, and which way needs a licence."""
    lang = ctx.language
    name = gpu_name(ctx.catalog, spec.id, lang)
    if spec.mig_max_instances:
        lead = say("compat.share_mig_yes", lang, gpu=name, n=spec.mig_max_instances)
    else:
        mig = sorted((g for g in ctx.catalog.gpus.values() if g.mig_max_instances and g.gpu_class == "datacenter"),
                     key=lambda g: g.memory_gb)
        families = list(dict.fromkeys(g.family.replace("-", " ").upper() for g in mig))  # "A100", "H100"
        names = ("、" if lang == "zh" else ", ").join(families[:5])
        lead = say("compat.share_mig_no", lang, gpu=name, mig_gpus=names)
    details = [say("compat.share_vgpu", lang, gpu=name), say("compat.share_timeslice", lang),
               say("compat.share_isolation", lang)]
    return AskAnswer(kind="compat", lead=lead, details=details, rule="compat.gpu-sharing-licence",
                     sources=["nvidia-mig-user-guide", "nvidia-vgpu-licensing", "k8s-device-plugin"])
