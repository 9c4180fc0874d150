"""Asks whose kind is decided by what the message states as much as by its cue words (issue #22), read
before the cue table of bot.nlu.slots.asks:

- a budget against a stated training run, "enough?" ("budget $50k, 7B on 300B tokens, enough?"): the run's
  cost against the money (cost), not a memory fit;
- a GeForce card judged for a data centre ("is the 4090 fine for our colo?", "4090 48G 放机房可以吗"): the
  driver licence (compat), not a diagnosis or a primer;
- a number format's memory saving or support asked of named cards ("fp8 能在 4090 和 A100 上省显存吗",
  "can the 5090 do fp4?"): the card's precision support (compat);
- what happens to a run when a spot node is reclaimed ("有一台被回收整个任务是不是就挂了"): explained, not a
  failure to diagnose;
- a cross-node NCCL busbw stated and judged ("跨节点 busbw 150GB/s，正常吗"): the measured figure against the
  network (checklist), not a generic diagnosis;
- a figure measured on the box and judged ("H2D 23 GB/s，GEMM 760 TFLOPS，有没有问题？", "device to host is 12 GB/s,
  something wrong?", "busbw 160 GB/s on 8x H800, normal?"), or a clock event reason said to be active ("Applications
  Clocks Setting shows Active"): readings to diagnose against the spec, not the card's capability explained;
- a framework release asked of a named card ("RTX 5090 上 torch 2.4 能跑吗", "will torch 2.6 work on B200s?"): the
  arch its builds carry (compat), not a memory fit;
- the provider asked once the card is chosen ("where should we rent H100s?", "租 4090 用哪家"): that card's
  prices by provider (price), not a sizing or the generic provider kinds;
- a GeForce card rented out or its licence doubted ("can we rent out our 4090s on vast.ai?", "4090 对外出租，授权上有
  问题吗"): the licence (compat), not a fit or a fault.
"""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.slots import gpu_readings

_ENOUGH = lx.rx(r"\B<(?:enough|sufficient|suffice|cover\s+it|doable\s+with\s+(?:that|it))>\E|够不够|够吗|够用吗|够了吗|够么|能不能覆盖")
_DC_OK = lx.rx(r"\B<(?:fine|ok|okay|good|safe|allowed|legit|suitable|approved|usable)\s+(?:to\s+(?:rack|deploy|host|run|use|put)\w*"
               r"\s+(?:\w+\s+){0,2})?(?:for|in|into|at)\s+(?:a\s+|the\s+|our\s+|my\s+)?(?:data[\s-]?cent\w*|datacent\w*|colo\w*"
               r"|racks?|server\s+rooms?|idc)>\E"
               r"|(?:机房|数据中心|机柜|idc)(?:里|中|上)?.{0,6}?(?:能用吗|可以用吗|没问题吗|行吗|可以吗|行不行|能不能用|合适吗|可不可以|能放吗)"
               # "racking 20x RTX 5090 in a colo and selling an API … any problem with that??": the plan itself judged
               r"|\B<(?:any|a)\s+(?:problems?|issues?|catch(?:es)?|concerns?|risks?)\s+(?:with\s+(?:that|this|it|doing\s+(?:that|this)))?\s*\?>\E"
               r"|\B<(?:is|would)\s+(?:that|this|it)\s+(?:a\s+)?(?:problem|an\s+issue|ok|okay|fine|allowed)\s*\?>\E"
               r"|(?:有没有|有什么|会不会有)(?:问题|风险|坑)|有问题吗")
# "fp8 省显存", "does fp8 save memory", "fp4 能少占多少显存": a format's memory saving on a card
_PRECISION = lx.rx(r"\B<(?:fp8|fp4|nvfp4|mxfp4)>\E")
_SAVES_MEMORY = lx.rx(r"\B<(?:sav\w*|cut\w*|reduc\w*|halv\w*|less|lower)\s+(?:(?:the|gpu|v?ram|much)\s+){0,2}(?:memory|vram)>\E"
                      r"|省\s*(?:点|些|一半)?\s*显存|节省\s*显存|显存.{0,4}(?:省|减|少)")
_SUPPORTS = lx.rx(r"\B<(?:support\w*|(?:can|does|do)\s+(?:\w+\s+){0,3}(?:do|run|use))\s+(?:native\s+)?(?:fp8|fp4|nvfp4|mxfp4)>\E"
                  r"|(?:支持|能用|可以用|能跑|能不能用|能不能跑|支不支持)\s*(?:原生)?\s*(?:fp8|fp4|nvfp4|mxfp4)")
# A spot node reclaimed and what it does to the job, asked as a what-if, not reported.
_RECLAIM = lx.rx(r"\B<(?:spot|preempt\w*|reclaim\w*|interrupt\w*|evict\w*)>\E|回收|抢占|竞价|中断")
_WHAT_IF_FAILS = lx.rx(r"(?:是不是|会不会|会|就会|是否)(?:就|也|都)?(?:会)?\s*(?:整个|全部|全都)?(?:任务|训练|作业)?(?:就|也|都)?\s*"
                       r"(?:挂|崩|断|失败|停|白跑|报废)"
                       r"|\B<(?:(?:will|would|does|do)\s+(?:the\s+)?(?:whole\s+|entire\s+)?(?:job|run|training|task|thing)s?\s+"
                       r"(?:also\s+|then\s+|just\s+)?(?:die|fail|crash|stop|abort|be\s+(?:killed|lost))"
                       r"|what\s+happens\s+(?:to\s+(?:the|our|my)\s+(?:job|run|training)|if|when))>\E")
_BUSBW = lx.rx(r"\B<(?:busbw|bus\s*bw|all[\s_-]?reduce|nccl)>\E")
_GBS_FIGURE = lx.rx(r"[0-9]+(?:\.[0-9]+)?\s*(?:gb/s|gbps|gb/秒|g/s)")
_ACROSS_NODES = lx.rx(r"\B<(?:cross[\s-]?nodes?|inter[\s-]?node|across\s+(?:the\s+)?(?:two\s+|2\s+|both\s+)?(?:nodes|machines|servers)"
                      r"|between\s+(?:the\s+)?(?:two\s+|2\s+)?(?:nodes|machines|servers)|multi[\s-]?node|[2-9]\s+nodes)>\E"
                      r"|跨节点|跨机|机间|节点间|多机|两台|[2-9]\s*台")
_JUDGED = lx.rx(r"\B<(?:normal|ok|okay|fine|expected|reasonable|good\s+or\s+bad|healthy|acceptable|too\s+low|low)>\E"
                r"|正常吗|正常不|合理吗|对吗|偏低|低吗|够吗|行吗|有问题吗")


# A figure measured on the box: a GEMM rate, or a copy / collective / memory rate named by what was measured
# (before or after the number), a temperature by its unit or a clock in MHz. A bare "200 Gb/s" is a link, not a reading.
_WHAT_MEASURED = (r"(?:\B<(?:h2d|d2h|htod|dtoh|host[\s_-]*to[\s_-]*device|device[\s_-]*to[\s_-]*host|pinned|busbw|bus\s*bw"
                  r"|all[\s_-]?reduce|nccl|memory\s+bandwidth|membw|hbm|d2d|bandwidthtest|nvbandwidth)>\E"
                  r"|主机到设备|设备到主机|主机到显卡|显卡到主机|显存带宽|锁页|拷贝|带宽测)")
_MEASURED = lx.rx(r"[0-9][0-9.,]*\s*(?:tflops|tflop/s|tf/s)"
                  rf"|{_WHAT_MEASURED}[^。；;?？\n]{{0,30}}?[0-9][0-9.]*\s*[gt]b/s"
                  rf"|[0-9][0-9.]*\s*[gt]b/s[^。；;?？\n]{{0,12}}?{_WHAT_MEASURED}"
                  r"|[0-9]{2,3}\s*(?:°\s*c|℃|度)|\B<[0-9]{3,4}\s*mhz>\E")
# "anything wrong?", "is this normal?", "normal?", "有没有问题": a reading asked to be judged
_READING_JUDGED = lx.rx(r"\B<(?:normal|ok|okay|fine|expected|reasonable|healthy|acceptable|(?:too\s+)?low|legit"
                        r"|(?:anything|something)\s+(?:\w+\s+)?(?:wrong|off)|what(?:'s|\s+is)\s+wrong|wrong\s+with|broken|faulty"
                        r"|(?:a\s+)?(?:problem|issue|concern)s?|worr\w*|underperform\w*|shortchang\w*)>\E"
                        r"|正常吗|正常不|是否正常|正不正常|合理吗|对吗|偏低|低吗|有问题吗|有没有问题|是不是有问题|出问题了吗|哪里不对"
                        r"|不对劲|要紧吗|严重吗|达标吗|达不达标|有没有毛病|靠谱吗")
# "Applications Clocks Setting shows Active", "SW Power Cap 一直是 Active": a clock event reason said to be on
_REASON_ACTIVE = lx.rx(r"\B<(?:hw\s+(?:thermal\s+)?slowdown|sw\s+(?:thermal\s+slowdown|power\s+cap)|hw\s+power\s+brake(?:\s+slowdown)?"
                       r"|applications?\s+clocks?\s+setting)>\E"
                       r"[^.;。；\n]{0,24}?(?:(?<!not\s)(?<!not)\B<(?:active|asserted)>\E|激活|生效|开着|亮着|一直)")
# "torch 2.4", "pytorch 2.6.0+cu124", "vllm 0.6", "cu118 build": a framework release, asked to run on a card
_FRAMEWORK = lx.rx(r"\B<(?:(?:(?:py)?torch|tensorflow|tf|jax|vllm|sglang|tensorrt(?:-llm)?|flash[\s-]?attn|flash[\s-]?attention|xformers)"
                   r"\s*(?:==\s*|v)?[0-9]+\.[0-9]+|cu1[0-3][0-9]\s*(?:build|wheel|image)s?)>\E")
_WORKS = lx.rx(r"\B<(?:work|works|working|run|runs|running|support\w*|compatible|ok|okay|fine(?![\s-]?tun)|usable|load)>\E"
               r"|能跑|能用|能不能|可以用|可以跑|跑得|支持|兼容|行吗|行不行|可以吗|没问题吗|装得上|能装")
# A GeForce card rented out to others (also read by bot.compose.compat_licence), or its licence doubted however
# the doubt is worded
RENTED_OUT = lx.rx(r"\B<(?:rent\w*\s+(?:\w+\s+){0,3}out|lease\w*\s+(?:\w+\s+){0,3}out|resell\w*|sub[\s-]?l[ea]t\w*"
                    r"|(?:list|offer|put|host)\w*\s+(?:\w+\s+){0,4}on\s+(?:vast|runpod|salad|tensordock|(?:the|a)\s+marketplace|(?:\w+\s+)?community\s+cloud)"
                    r"|sell\w*\s+(?:\w+\s+){0,3}(?:gpu\s+)?(?:time|hours|compute|capacity)|host\w*\s+(?:\w+\s+){0,2}for\s+(?:others|customers|clients))>\E"
                    r"|对外出租|把[^，,。？?]{0,12}(?:出租|租出去)|租出去|租给(?:别人|客户|用户|他人|外部)|转租|对外(?:提供|租|卖|售)"
                    r"|挂到.{0,6}(?:平台|市场)")
_MONEY_ASKED = lx.rx(r"\B<(?:how\s+much|price\w*|cost\w*|cheap\w*|earn\w*|make|revenue|profit\w*|roi)>\E|多少钱|价格|价钱|便宜|贵|赚|收益|回本")
_LICENCE_DOUBT = lx.rx(r"(?:授权|许可|合规|eula)[^，,。？?]{0,6}?(?:问题|风险|限制|允许|可以|行|违规|违反)"
                       r"|\B<(?:(?:licen[cs]\w*|eula)[^.?]{0,20}?(?:problem|issue|risk|concern|ok|okay|allow\w*|fine|wise)"
                       r"|(?:against|violat\w*|breach\w*)\s+(?:the\s+)?(?:licen[cs]\w*|eula|terms))>\E")
# "算违规吗", "is that a violation?": breaking terms, said of a GeForce card the part names
_BREACH = lx.rx(r"违规|违反|不合规|\B<(?:violat\w*|breach\w*|infring\w*)>\E")
_ASKS_YES_NO = lx.rx(r"[?？]|吗|\B<(?:can|could|may|is|are|will|would|does|do)>\E|能不能|可不可以|行不行|有没有")


# "loss went NaN", "grad norm inf", "loss 变 NaN": a training number gone non-finite, a symptom to diagnose
_NAN = lx.rx(r"\B<(?:loss|grad\w*|gradient\s+norm|grad\s+norm|weights?|logits?|activations?|outputs?)>\E[^.。;；?？\n]{0,30}?"
             r"\B<(?:nan|nans|inf|infs|infinite)>\E|\B<nan>\E[^.。\n]{0,12}?(?:\B<loss>\E|损失)|(?:损失|梯度)[^，。]{0,10}?\B<(?:nan|inf)>\E"
             r"|\B<nan\s+loss>\E")


# "node acceptance: …, fine?", "验收时 busbw …": figures for a sign-off stay with the acceptance checklist
_ACCEPTANCE = lx.rx(r"\B<(?:accept\w*|sign(?:ing)?\s+(?:it\s+)?off|check\s*list|push\s+back)>\E|验收|签字|清单")


# "the H100 has 989 TFLOPS, is that fine for a 7B?": the spec quoted, not a reading, unless something says it was measured
_SPEC_SAID = lx.rx(r"\B<(?:has|have|rated|spec\w*|peak|datasheet|theoretical|advertised|on\s+paper)>\E|标称|官方|峰值|理论|规格")
_MEASURED_SAID = lx.rx(r"\B<(?:measur\w*|got|get|gets|getting|shows?|showing|reads?|only|bench\w*|tests?|tested|sees?|seeing|see)>\E"
                       r"|实测|测出|测得|跑出|只有|才|显示")


def _measured_judged(part: str, fields: dict) -> bool:
    """'H2D 23 GB/s，GEMM 760 TFLOPS，有没有问题？': a figure measured and asked to be judged (not for a sign-off)."""
    if _SPEC_SAID.search(part) and not _MEASURED_SAID.search(part):
        return False
    return bool(_MEASURED.search(part) and _READING_JUDGED.search(part)) and not fields.get("costs") \
        and not _ACCEPTANCE.search(part)


# GEMM figures given per GPU ("GPU0-4,6,7 ~650-670 TFLOPS, GPU5 410, accept?", "卡0-6 1300 左右，卡7 只有 900",
# "TFLOPS per GPU: 662, 655, …", "(TFLOPS): 0: 225, 1: 221, …"): an acceptance of the node's GPUs
# (bot/compose/checklist_per_gpu.py), whatever word asks it
_GEMM_SAID = re.compile(r"gemm|matmul|tflops|矩阵乘", re.IGNORECASE)
_GPU_FIGURE = re.compile(r"(?:\bgpus?|卡)\s*#?\d{1,2}\b.{0,30}?\d{3}", re.IGNORECASE)
_PER_GPU_LIST = re.compile(r"(?:per[\s-]gpu|each\s+gpu|每卡|每张卡|各卡)[^\d\n]{0,24}\d{2,4}(?:\.\d+)?\s*(?:,|、|/)\s*\d",
                           re.IGNORECASE)
_INDEX_PAIR = re.compile(r"(?<![\d.])\d{1,2}\s*[:=：]\s*\d{3}")


def per_gpu_figures(part: str) -> bool:
    return bool(_GEMM_SAID.search(part)) and (len(_GPU_FIGURE.findall(part)) >= 2 or bool(_PER_GPU_LIST.search(part))
                                              or len(_INDEX_PAIR.findall(part)) >= 3 or len(gpu_readings.readings(part)) >= 2)


def routed(part: str, fields: dict, whole: bool, consumer: bool) -> str | None:
    """The kind the part's stated facts decide, or None to leave it to the cue table."""
    if per_gpu_figures(part) and not any(fields.get(k) for k in ("xids", "symptoms")):
        return "checklist"  # per-GPU GEMM figures: each GPU accepted or not, before a precision's support
    return _stated(part, fields, whole, consumer)


# "worth renting", "值得租吗", "值不值得租", "good for", "适合干什么", "擅长什么", "优缺点": one card judged with no job
# (also read by bot.compose.explain_profile, which answers with the card's profile)
PROFILE_ASKED = lx.rx(
    r"\B<(?:worth\s+(?:renting|leasing|getting)|worth\s+(?:a|the)\s+rent"
    r"|what(?:\s+is|\s+are|'s|s)\s+(?:an?\s+|the\s+)?\S+(?:\s+\S+)?\s+(?:good|best|useful)\s+(?:for|at)"
    r"|strengths?|weakness\w*|pros\s+and\s+cons)>\E"
    r"|值得租|值不值得租|值得用|值不值得用|租(?:它|这卡|这个)?值(?:不值|得吗)|值得(?:上|入手)吗?"
    r"|适合(?:干|做|跑|用来)?(?:什么|啥)|擅长(?:什么|啥)|优缺点|长处|短板|用来干(?:嘛|什么|啥)")
# A job written in the part: the profile gives way to the answer for that job.
PROFILE_JOB = lx.rx(r"\B<(?:for\s+(?:training|inference|serving|fine[\s-]?tun\w*|pre[\s-]?train\w*)|[0-9]+(?:\.[0-9]+)?\s*b)>\E"
                    r"|(?:跑|做|用来|拿来)\s*(?:训练|推理|微调|部署)")


def profile_asked(part: str, fields: dict) -> bool:
    """"H20 值不值得租", "what is the A800 good for?": one card judged with no job, answered by its profile."""
    return bool(PROFILE_ASKED.search(part)) and bool(fields.get("gpu")) and len(fields.get("gpu_options", [])) < 2 \
        and not PROFILE_JOB.search(part) \
        and not any(fields.get(k) for k in ("model", "params_b", "costs", "dataset_tokens_b", "budget", "xids", "symptoms"))


def _geforce_plan_judged(part: str, fields: dict) -> bool:
    """A GeForce plan in a data centre asked about ("any problem with that?"), with no reading to judge instead."""
    return fields.get("deployment") in ("datacenter", "commercial-hosting") and bool(_DC_OK.search(part)) \
        and not fields.get("xids") and not fields.get("symptoms") and not _readings(part, fields)


# Which provider ("which cloud", "where should we rent", "哪家", "去哪租"), read once the card is chosen.
_PROVIDER_CHOICE = lx.rx(r"\B<(?:which|what)\s+(?:\w+\s+)?(?:providers?|clouds?|platforms?|vendors?|hosts?)>\E"
                         r"|\B<where\s+(?:should|do|can|to)\s+(?:(?:we|i)\s+)?rent>\E|哪家|哪个(?:平台|云|厂商|服务商)|(?:在|去)哪(?:里|儿)?租")


def _provider_asked(part: str, fields: dict) -> bool:
    return bool(_PROVIDER_CHOICE.search(part)) and bool(fields.get("gpu")) and len(fields.get("gpu_options", [])) < 2 \
        and not any(fields.get(k) for k in ("instance", "provider", "costs", "xids", "symptoms"))


def _stated(part: str, fields: dict, whole: bool, consumer: bool) -> str | None:
    if profile_asked(part, fields):
        return "explain"  # the card's profile (bot/compose/explain_profile.py), not a model asked for
    if _provider_asked(part, fields):
        return "price"  # the card is chosen, the provider asked: its rows by provider
    if fields.get("budget") and fields.get("dataset_tokens_b") and _ENOUGH.search(part) and not fields.get("xids"):
        return "cost"  # "budget $50k … 7B on 300B tokens, enough?": the run's cost against the money
    if consumer and _geforce_plan_judged(part, fields):
        return "compat"  # "is the 4090 fine for our colo?": the GeForce licence (compat_licence)
    named = bool(fields.get("gpu") or fields.get("gpu_options"))
    sized = bool(fields.get("model") or fields.get("params_b"))
    if named and not sized and _PRECISION.search(part) and (_SAVES_MEMORY.search(part) or _SUPPORTS.search(part)):
        return "compat"  # "fp8 能在 4090 和 A100 上省显存吗", "can the 5090 do fp4?": each card's format support
    if _RECLAIM.search(part) and _WHAT_IF_FAILS.search(part) and not fields.get("xids"):
        return "explain"  # "有一台被回收整个任务是不是就挂了": what a reclaim does to the job, a what-if
    if _BUSBW.search(part) and _GBS_FIGURE.search(part) and _ACROSS_NODES.search(part) and _JUDGED.search(part) \
            and not fields.get("xids"):
        return "checklist"  # "跨节点 busbw 150GB/s，正常吗": the measured figure against the NICs
    return _readings(part, fields) or _stack_or_licence(part, fields, consumer, named, sized)


# "is that fine for training 7B?", "is it ok to run Llama 8B on one L4?": a plan judged for a job, not a reading
_OK_FOR_JOB = lx.rx(r"\B<(?:is|are)\s+(?:this|that|it|these|those)\s+(?:ok|okay|fine|good|enough|suitable)\s+(?:for|to)>\E")


def _readings(part: str, fields: dict) -> str | None:
    sized = bool(fields.get("model") or fields.get("params_b"))
    if sized and _OK_FOR_JOB.search(part) and not (fields.get("xids") or fields.get("symptoms") or _MEASURED_SAID.search(part)):
        return "fit"  # "H100 has 989 TFLOPS bf16, is that fine for training 7B?": the job on the card, not a fault
    if _measured_judged(part, fields) or _REASON_ACTIVE.search(part) or _NAN.search(part):
        return "diagnose"  # "device to host is 12 GB/s, something wrong?": the reading against the spec
    return None


# "能装 PyTorch 2.11 吗", "can I pip install torch?": a framework installed on the host's driver
_TORCH_NAMED = lx.rx(r"\B<(?:py)?torch>\E")
_INSTALLS = lx.rx(r"\B<(?:pip\s+install|install\w*|work|works|run|runs|use|usable|ok|okay|fine(?![\s-]?tun))>\E"
                  r"|能装|装得上|可以装|能不能装|安装|能用|能跑|能不能用|可以用|行吗|行不行")
_JOB_WORDS = lx.rx(r"\B<(?:vram|memory|fits?|fine[\s-]?tun\w*|train\w*|serv\w*|inference|[0-9]+\s*gb)>\E"
                   r"|显存|微调|训练|推理|放得下|装得下")


def _stack_or_licence(part: str, fields: dict, consumer: bool, named: bool, sized: bool) -> str | None:
    if named and not sized and _FRAMEWORK.search(part) and _WORKS.search(part):
        return "compat"  # "RTX 5090 上 torch 2.4 能跑吗": the arch the release's builds carry (compat_arch)
    if (fields.get("driver") or fields.get("driver_cuda")) and _TORCH_NAMED.search(part) and _INSTALLS.search(part) \
            and _ASKS_YES_NO.search(part) and not _JOB_WORDS.search(part) and not fields.get("xids"):
        # "nvidia-smi 显示 CUDA Version 12.2，能装 PyTorch 2.11 吗", "driver 535, can I pip install torch?": the
        # build a plain install takes, on that driver (compat_stack), not a fit or a topic primer
        return "compat"
    if _LICENCE_DOUBT.search(part) and not fields.get("xids"):
        return "compat"  # "4090 放机房对外出租，授权上有问题吗": the licence is what is doubted
    if consumer and _BREACH.search(part) and _ASKS_YES_NO.search(part) and not fields.get("xids"):
        return "compat"  # "租的 4090 做微调，模型商用，算违规吗": the GeForce card's terms, asked without the word "licence"
    if consumer and not sized and RENTED_OUT.search(part) and _ASKS_YES_NO.search(part) and not _MONEY_ASKED.search(part):
        return "compat"  # "can we rent out our 4090s on vast.ai?": selling GeForce compute is the licence's question
    return None
