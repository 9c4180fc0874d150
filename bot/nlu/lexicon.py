"""Keyword patterns, per slot, in English and Chinese.

Every pattern runs on folded text (lowercase, full-width forms made ASCII, same length as the
question) and is compiled with re.ASCII so `\\d`, `\\w` and `\\s` never match non-ASCII digits.
Boundaries use `_B`/`_E` instead of `\\b`, because `\\b` does not separate a Chinese character
from a digit ("两张3090").
"""

from __future__ import annotations

import re

from bot.cache import compiled_regex

_B = r"(?<![a-z0-9])"
_E = r"(?![a-z0-9])"
# A number, with thousands separators where a digit group follows ("$9,500", "12,000 GPU-hours"); a
# comma right after a letter is a list separator ("A100,100并发" is A100 and 100), never thousands.
NUM = r"(?<![0-9.])((?<![a-z,])[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]{1,6})?(?![0-9])|[0-9]{1,9}(?:\.[0-9]{1,6})?)(?![0-9])"
INT = r"(?<![0-9.])([0-9]{1,9})(?![0-9.])"


def rx(pattern: str) -> re.Pattern:
    # compiled_regex: re.compile, with the compiled program kept across processes (cold start)
    return compiled_regex(pattern.replace("\\B<", _B).replace(">\\E", _E), re.ASCII)


def table(rows: list[tuple[str, object]]) -> list[tuple[re.Pattern, object]]:
    return [(rx(p), v) for p, v in rows]


# -- workload and method --------------------------------------------------------------------------
METHOD = table([
    (r"\B<q[\s-]?lora>\E", "qlora"),
    (r"\B<lora>\E|低秩适配", "lora"),
    (r"\B<(?:continued[\s-]+)?pre[\s-]?train(?:ing|s)?>\E(?!\s*(?:model|weights|checkpoint))"
     r"|\B<from\s+scratch>\E|预训练|从头训练|从零训练|从零开始训练|从头开始训练",
     "pretraining"),
    (r"\B<full(?:y)?[\s-]*(?:param(?:eter)?s?[\s-]*)?(?:fine[\s-]*tun\w*|finetun\w*|ft|sft|training)>\E"
     r"|\B<full[\s-]+param(?:eter)?s?>\E|全参数?(?:量)?(?:微调|训练|finetune|sft)?|全量微调|全量训练", "full"),
])

# Past participles ("a fine-tuned model", "训练好的") describe what is served, not a training job.
# "fine-tune" as people type it: "finetune", "fien-tune", "fine tunning", "fintune", "fine-tuing".
_FINE_TUNE = r"f(?:ine|ien|ein|in|ne)[\s-]*t(?:u|oo)(?:n{1,2}|)"
TRAINING = table([
    (rf"\B<(?:train|trains|training|trainning|traning|trainig|{_FINE_TUNE}(?:e|es|ing|in)|sft|rlhf|dpo|ppo|"
     r"pre[\s-]?train(?:ing)?|lora|qlora)>\E", "training"),
    # Asking about others' experience ("has anyone fine-tuned X on a 3090?") plans that training
    # job; "we trained X, now serve it" reports a finished one, and "my fine-tuned model" is a noun.
    (rf"\B<(?:anyone|anybody|someone|somebody|who|ever|have\s+you)\s+"
     rf"(?:{_FINE_TUNE}ed|trained|pre[\s-]?trained)>\E(?!\s+(?:model|version|checkpoint|weights|adapter)s?\b)", "training"),
    (r"(?:训练|微调|精调|预训练|炼丹)(?!好的|后的|过的|完的|好|出来的)"
     r"|训(?:一个|个|一版|一下)(?!好|完)|(?<![培集])训\s*(?=[0-9]+(?:\.[0-9]+)?\s*b\b)", "training"),  # "训一个 14B", "训 7B"
])
INFERENCE = table([
    (r"\B<(?:inference|inferencing|infer|infrence|infernce|inferance|inferece|inferene|serve|serves|serving|deploy|deploys|deploying|deployment|"
     r"host\s+(?:the|a|our|my|an)?\s*(?:model|llm|chatbot)|chatbot|vllm|tgi|text-generation-inference|"
     r"triton|ollama|llama\.cpp|sglang|tensorrt-llm|trt-llm|api\s+endpoint|(?:llm|chat|model|completions?)\s+api|online\s+service)>\E", "inference"),
    # "$/1M output tokens", "per million output tokens": a price of served tokens
    (r"\B<output\s+tokens?|(?:per|/)\s*(?:1\s*m|one\s+million|a\s+million|million)\s+(?:output\s+)?tokens?>\E|输出\s*token", "inference"),
    (r"推理|部署(?!\s*(?:在|到|进)\s*(?:(?:我们|我|公司|客户|自己|自建)的?\s*)?(?:数据中心|机房|idc))|上线|在线服务|对话服务|问答服务|(?<![云客])服务(?![器商费])|跑模型|跑推理", "inference"),
])

# -- precision and optimizer ----------------------------------------------------------------------
OPTIMIZER = table([
    (r"\B<(?:8[\s-]?bit|8位|8-bits)\s*(?:paged\s*)?adam(?:w)?>\E|\B<adam(?:w)?[\s_-]?8[\s-]?bit>\E"
     r"|\B<bnb\s*adam\w*>\E|\B<adam8bit>\E|\B<paged[\s_-]*adamw?[\s_-]*8bit>\E", "adam8bit"),
    (r"\B<adamw>\E", "adamw"),
    (r"\B<adam>\E", "adam"),
    (r"\B<sgd>\E(?:\s*(?:with\s+)?momentum)?", "sgd"),
])
PRECISION = table([
    (r"\B<(?:fp32|float32|full[\s-]precision|32[\s-]?bit\s+float(?:ing[\s-]point)?)>\E|单精度|全精度", "fp32"),
    (r"\B<tf32>\E", "tf32"),
    (r"\B<(?:pure[\s_-]*(?:bf16|bfloat16)|(?:bf16|bfloat16)\s+(?:without|with\s+no|no)\s+(?:an?\s+)?fp32\s+master(?:\s+(?:weights?|copy|params?))?)>\E"
     r"|纯\s*bf16", "pure-bf16"),
    (r"\B<(?:bf16|bfloat16|bfloat-16|brain\s*float\s*16)>\E", "bf16"),
    (r"\B<(?:fp16|float16|half[\s-]*precision|half|16[\s-]?bit)>\E|半精度", "fp16"),
    (r"\B<(?:fp8|float8|e4m3|e5m2|8[\s-]?bit\s+float(?:ing[\s-]point)?)>\E", "fp8"),
    (r"\B<(?:int8|w8a8|llm\.int8|q8(?:_0)?|8[\s-]?bits?)>\E|8\s*(?:位|比特)(?:量化|整数)?|八位量化", "int8"),
    (r"\B<(?:int4|nf4|4[\s-]?bits?|gptq|awq|q4(?:_k_m|_k_s|_0|_k)?|w4a16)>\E|4\s*(?:位|比特)(?:量化)?|四位量化", "int4"),
])

# -- billing and deployment -----------------------------------------------------------------------
BILLING = table([
    (r"\B<(?:spot|preemptible|pre-emptible|interruptible)>\E|抢占式|竞价(?:实例)?|可中断实例", "spot"),
    (r"\B<(?:on[\s-]?demand|pay[\s-]as[\s-]you[\s-]go|payg)>\E|按量付费|按量计费|按需付费|按需计费|按需实例|按小时计费|按量", "on-demand"),
    (r"\B<(?:savings?[\s-]plans?)>\E|节省计划", "savings-plan"),
    (r"\B<capacity[\s-]blocks?>\E|容量块", "capacity-block"),
    (r"\B<(?:reserved(?:[\s-]instances?)?|reservations?)>\E|(?<![a-z0-9])RIs?(?![a-z0-9])|预留实例券|预留实例|预留券", "reserved"),
    (r"\B<(?:subscriptions?|subscribe|monthly\s+(?:[a-z0-9]+\s+){0,2}(?:plan|subscription|contract|rental|lease|billing)|"
     r"yearly\s+(?:plan|subscription|contract)|annual\s+(?:plan|subscription|contract)|prepaid)>\E"
     r"|包年包月|包年|包月|预付费|年付|月付", "subscription"),
])
DEPLOYMENT = table([
    (r"(?:部署|放|托管)?(?:在|到|进)?\s*(?:[a-z]*\s*)?(?:商业托管|托管服务|gpu\s*云服务|算力租赁|对外出租)"
     r"|对外(?:收费|售卖|出售|卖)"  # "对外收费的推理服务": a service sold to others
     # "给客户提供按调用计费的接口", "向用户收费": charged per call or to customers, not a billing mode of ours
     r"|按\s*(?:调用|次|tokens?|请求)(?:次数)?\s*(?:付费|收费|计费)|(?:向|跟|找)(?:客户|用户)收费|卖(?:给客户|api|接口)"
     r"|\B<(?:commercial(?:ly)?[\s-]*host\w*|hosting\s+(?:service|business|provider)s?|"
     r"paid\s+(?:\w+\s+){0,2}(?:api|service|endpoint)s?|sell\w*\s+(?:\w+\s+){0,3}?(?:api|endpoint|inference|access)|"
     r"charg\w*\s+(?:our\s+|the\s+)?(?:customers|clients|users)|bill\w*\s+(?:our\s+)?(?:customers|clients)|"
     # "we resell GPU time"; "a reseller quotes" is the vendor's trade, not our plan
     r"gpu\s+cloud\s+(?:service|business|offering)s?|rent\s+(?:\w+\s+){0,2}out|resell(?:s|ing)?)>\E"
     r"(?:\s+deployment)?", "commercial-hosting"),
    # "部署在我们的数据中心": a place the servers go, so 部署 here is not an inference workload
    (r"(?:部署|放|托管)?(?:在|到|进)?\s*(?:(?:我们|我|公司|客户|自己|自建)的?\s*)?(?:数据中心|机房|idc机房|idc)(?:部署|里)?"
     r"|\B<(?:deploy\w*\s+(?:\w+\s+){0,3}(?:in|into|to)\s+(?:a|the|our|my)?\s*)?"
     r"(?:data[\s-]*cent(?:er|re)s?|datacent(?:er|re)s?|colo|colocation|server\s+room|racks?)>\E"
     r"(?:\s+deployments?)?", "datacenter"),
    # "a box under my desk", not "a help desk bot": the desk is where the user's machine sits
    (r"\B<(?:workstations?|desktops?|office|home\s*lab|homelab|at\s+home|(?:under|on|at|beside|next\s+to)\s+(?:my|our|the)\s+desks?)>\E"
     r"|工作站|台式机|办公室|家里|自己的电脑", "workstation"),
    (r"\B<(?:in|on)\s+the\s+cloud>\E|\B<public\s+cloud>\E|云上|上云|公有云|云服务器|云主机", "cloud"),
])

# A billing mode written with a quoted price ("按量付费 8元/时"): the quote's label and billing.
QUOTE_BILLING = table([
    (r"\B<(?:pay[\s-]+as[\s-]+you[\s-]+go|on[\s-]?demand)>\E|按量付费|按量计费|按量|按需", "on-demand"),
    (r"\B<(?:subscription|monthly)>\E|包年包月|包月|包年", "subscription"),
    (r"\B<(?:reserved|reservation|ri)>\E|预留", "reserved"),
    (r"\B<spot>\E|抢占式|竞价", "spot"),
])

# -- sizing details -----------------------------------------------------------------------------------
RECOMPUTE = table([
    (r"\B<(?:no|without|disable\w*|turn(?:ed|ing)?\s+off|switch(?:ed|ing)?\s+off)\s+(?:gradient\s+|activation\s+)?(?:checkpointing|recomput\w*)>\E"
     r"|\B<(?:no|without|disable\w*)\s+grad(?:ient)?[\s-]?ckpt>\E|\B<grad(?:ient)?[\s-]?ckpt\s*(?:=\s*)?(?:off|disabled|false)>\E"
     r"|\B<(?:gradient|activation)\s+checkpointing\s*(?:=\s*)?(?:off|disabled|false|turned\s+off|switched\s+off)>\E"
     r"|不开重计算|不用重计算|关闭重计算|不开梯度检查点|不用梯度检查点|关闭梯度检查点", "none"),
    (r"\B<selective\s+(?:activation\s+)?recomput\w*>\E|选择性重计算", "selective"),
    (r"\B<(?:gradient|activation)[\s-]checkpointing|grad(?:ient)?[\s-]?ckpt|(?:full\s+)?(?:activation\s+)?recomputation|full\s+recompute>\E"
     r"|重计算|梯度检查点", "full"),
])
REQUEST_MODE = table([
    (r"\B<(?:offline\s+(?:inference|batch\w*|processing|jobs?)|batch\s+(?:inference|processing|jobs?))>\E|离线推理|批量处理|批处理任务|离线批量", "offline"),
    (r"\B<(?:single[\s-]stream|one\s+(?:request|user|prompt)\s+at\s+a\s+time)>\E|逐个返回|单用户|一次一个请求", "single-stream"),
    (r"\B<(?:interactive(?:\s+(?:chat|serving|use|users))?|online\s+serving|real[\s-]?time\s+(?:chat|serving))>\E|连续交互|实时交互|在线交互", "server"),
])

# -- symptoms ---------------------------------------------------------------------------------------
# The words before an "OOM" that turn it into a question about memory, not a report of a crash.
HYPOTHETICAL = rx(r"(?:\B<(?:will|would|could|might|can|avoid|without|never|not|won't|wont|risk)>\E|会不会|会|避免|防止|不会)[^.?!。？！]{0,18}$")
SYMPTOMS = table([
    (r"\B<(?:cuda\s+)?(?:error:?\s*)?out\s+of\s+memory>\E|\B<(?:torch\.)?(?:cuda\.)?outofmemoryerror>\E|\B<oom(?:s|ed|\s*kill\w*)?>\E"
     r"|显存不足|显存溢出|爆显存|显存爆了?|显存不够|内存不足|内存溢出|\B<oom了", "oom"),
    (r"\B<(?:gpu\s+)?(?:has\s+)?(?:fallen|fell|falls|dropped|drops)\s+off\s+(?:the\s+)?(?:pcie\s+)?bus>\E|掉卡|掉盘", "fallen-off-bus"),
    (r"\B<(?:uncorrectable\s+|correctable\s+|double[\s-]bit\s+|single[\s-]bit\s+|volatile\s+|sram\s+|dram\s+)*ecc\s*(?:errors?|error\s+counts?|failures?|faults?)>\E"
     r"|\B<(?:uncorrectable|double[\s-]bit|dbe)\s+(?:memory\s+)?errors?>\E|ecc\s*(?:错误|报错|告警|异常)", "ecc-errors"),
    (r"\B<(?:retired\s+pages?|page\s+retirements?|pages?\s+(?:were\s+|got\s+|being\s+)?retired|retirement\s+pending)>\E|页面退役|退役页|页退役", "retired-pages"),
    (r"\B<remapped\s+rows?\s+failure\s*:?\s*yes>\E|\B<row\s+remap\w*\s+fail\w*>\E|行重映射失败|remapped\s*rows\s*failure\s*[:：]?\s*yes", "remap-failure"),
    (r"\B<(?:remapped\s+rows?|row\s+remap\w*)>\E|行重映射", "remapped-rows"),
    (r"\B<(?:low|poor|bad)\s+(?:gpu\s+)?(?:utili[sz]ation|util|usage|occupancy)>\E"
     r"|\B<(?:gpu\s+)?(?:utili[sz]ation|util|usage)\s*(?:is\s+|stays\s+|stuck\s+|sits\s+|hovers\s+|remains\s+|only\s+|never\s+goes\s+above\s+|of\s+)*"
     r"(?:very\s+|only\s+|really\s+|so\s+|pretty\s+)?(?:low>\E|(?:at\s+|around\s+|about\s+|below\s+|under\s+|~\s*)?(?<![0-9])(?:[0-9]|[1-5][0-9])\s*%)"
     r"|\B<(?:underutili[sz]\w*|under-utili[sz]\w*|idle\s+gpus?)>\E|利用率(?:很|太|比较|偏|特别|一直|只有|才|都|是|在|只|仅|大概|约|\s)*(?:低|不高|上不去|(?<![0-9])(?:[0-9]|[1-5][0-9])\s*%)|跑不满|利用率低",
     "low-utilisation"),
    # "no kernel image is available for execution on the device": the build lacks this GPU's arch
    (r"\B<no\s+kernel\s+image(?:\s+is\s+available)?>\E|没有\s*kernel\s*image", "no-kernel-image"),
    (r"\B<cuda\s+driver\s+version\s+is\s+insufficient>\E|\B<(?:runtimeerror:\s*)?cuda\s+(?:error|errors|exception|failure)>\E|\B<no\s+cuda[\s-]capable\s+device>\E"
     r"|\B<cudaerror\w*>\E|\B<cuda\s+initiali[sz]ation\s+error>\E|cuda\s*(?:报错|错误|出错|初始化失败)", "cuda-error"),
    (r"\B<(?:thermal\s+)?throttl\w*>\E|降频|过热", "throttling"),
    (r"\B<nccl\s+(?:error|timeout|timed\s+out|hang\w*)>\E|nccl\s*(?:报错|超时|卡住)", "nccl-error"),
])
XID_LINE = rx(r"nvrm:\s*xid\s*(?:\([^)\n]{0,40}\))?\s*:?\s*([0-9]{1,6})(?![0-9])")
XID_MENTION = rx(r"\B<xids?\s*(?:errors?|code|event)?\s*(?:#|:|=|号)?\s*([0-9]{1,6})(?![0-9])"
                 r"(?:\s*(?:,|/|、|and|or|和|与)\s*([0-9]{1,6})(?![0-9]))*"
                 r"|(?<![0-9.])([0-9]{1,6})\s*号?\s*xid>\E")

# -- topics ------------------------------------------------------------------------------------------
TOPICS: list[tuple[re.Pattern, str]] = table([
    (r"(?<!out of )\B<(?:vram|gpu\s+memory|memory|hbm)>\E(?!\s+(?:errors?|access|leaks?))|显存(?!不足|溢出|不够|爆|坏|故障|错误|报错)|\B<fit(?:s|ting)?>\E|放得下|装得下|塞得下|塞进", "memory"),
    (r"\B<(?:precision|quanti[sz]\w*|mixed[\s-]precision)>\E|精度|量化", "precision"),
    (r"\B<(?:tensor[\s-]parallel\w*|pipeline[\s-]parallel\w*|data[\s-]parallel\w*|model[\s-]parallel\w*|fsdp|zero[\s-]?[123]|deepspeed|megatron|"
     r"parallelism|shard\w*|split\s+(?:the\s+)?model)>\E|并行|切分模型|模型切分", "parallelism"),
    (r"\B<(?:nvlink|nvswitch|pcie|infiniband|ib|roce|interconnect\w*|p2p|gpudirect)>\E|互联|互连", "interconnect"),
    (r"\B<(?:licen[cs]\w*|eula|allowed\s+to|(?:is|are)\s+(?:it|that|this|they)\s+(?:allowed|permitted)|legal\w*|illegal\w*"
     r"|terms\s+of\s+use|compliance|compliant)>\E|许可|授权|协议|合规|违规|允许", "license"),
    (r"\B<(?:power\s+supply|psu|watts?|tdp|power\s+draw|power\s+consumption|power\s+limit|wattage|[0-9]{2,5}\s*w)>\E|电源|功耗|供电|功率|瓦", "power"),
    (r"\B<(?:cuda\s+version|which\s+cuda|cuda\s+toolkit|cuda\s+compat\w*|cudnn|driver\s+version|compatib\w*|incompatib\w*)>\E"
     r"|cuda\s*版本|驱动版本|兼容|版本匹配|版本对应", "cuda"),
    (r"\B<(?:mig|multi[\s-]instance(?:\s+gpu)?)>\E|切分\s*gpu|gpu\s*切分|切分成|分区", "mig"),
    (r"\B<(?:billing|billed|bills?|invoic\w*|charged|charges|per[\s-]second)>\E|计费|收费|扣费|账单|按秒|(?:费用|价格|费|钱|成本)\S{0,2}(?:怎么|如何)(?:算|计算|收)",
     "billing"),
    (r"\B<(?:quotas?|service\s+quotas?|limit\s+increase|vcpu\s+limit)>\E|配额|提额|限额", "quota"),
    (r"\B<(?:interrupt\w*|reclaim\w*|preempted|preemption|evicted|eviction)>\E|中断|被回收|回收|被抢占", "spot"),
    (r"\B<(?:costs?|costing|price[sd]?|pricing|cheap\w*|expensive|budget\w*|afford\w*|spend\w*|money|worth\s+it|tco|"
     r"how\s+much\s+(?:would|will|does|do|is)\s+it)>\E|费用|成本|价格|价钱|便宜|划算|贵|预算|多少钱|省钱|性价比|花费|开销|花多少", "cost"),
    (r"\B<(?:which|what|best|cheapest|compare|comparing)\s+(?:cloud|gpu\s+cloud|provider|vendor|platform|host)s?>\E"
     r"|\B<where\s+(?:should|can|do|to)\s+(?:i|we)?\s*rent>\E"
     r"|\B<(?:which|what)\s+(?:gpus?|cards?|instances?|servers?)\s+(?:should|do|can|to)\s+(?:i|we)?\s*(?:rent|lease|hire)>\E|服务商|云厂商|哪家|哪个平台|哪个云|租哪|在哪租|在哪里租|去哪租|供应商", "provider"),
    (r"\B<(?:benchmark\w*|throughput|latency|tokens?/s|tok/s|tokens?\s+per\s+second|ttft|mlperf|perf\s+test|performance\s+test|"
     r"load\s+test\w*|compare\s+(?:\w+\s+){0,2}(?:servers?|engines?|frameworks?|backends?))>\E|吞吐|延迟|压测|基准测试|跑分|性能测试|性能对比|首字延迟"
     r"|对比[^，。？！,?!]{0,12}(?:框架|引擎|性能)|(?:框架|引擎)[^，。？！,?!]{0,6}性能", "benchmark"),
    (r"\B<(?:verif\w*|validat\w*|acceptance|burn[\s-]?in|sanity[\s-]check\w*|fake\s+gpus?|check\s+(?:\w+\s+){0,2}new\s+(?:instance|server|machine|node|box|gpu)s?"
     r"|sign\s+off|sign[\s-]off\s+on|(?:good|ok|okay|safe)\s+to\s+sign|(?:can|should)\s+(?:i|we)\s+sign)>\E"
     r"|验收|验证|检测新|检查新|货不对板|是不是真的|真假|核实|签收|签字", "verification"),
    (r"\B<(?:health\w*|diagnos\w*|dcgm\w*|faulty|broken|dead\s+gpu|hardware\s+(?:error|fault|failure)s?)>\E|健康|故障|坏卡|诊断|硬件问题|硬件错误", "health"),
    (r"\B<(?:storage|disk|disks|nvme|ssd|ebs|s3|nas|oss|cloud\s+disk|file\s*system)>\E|存储|硬盘|磁盘|云盘|数据盘", "storage"),
    (r"\B<(?:network\w*|egress|ingress|internet|bandwidth|public\s+ip|download\s+speed|upload\s+speed)>\E|网络(?!盘|硬盘|存储)|带宽|公网|流量|下载速度", "network"),
    (r"\B<(?:cluster\w*|multi[\s-]node|multiple\s+nodes|nodes|slurm|kubernetes|k8s)>\E|集群|多机|多节点|分布式", "cluster"),
])

FORM_FACTORS = rx(r"\B<sxm[0-9]?>\E[^.?!。？！]{0,40}\B<pcie>\E|\B<pcie>\E[^.?!。？！]{0,40}\B<sxm[0-9]?>\E")
# Provider aliases that are ordinary words ("vast majority") count only when written capitalised.
PROVIDER_CASE_SENSITIVE = {"vast", "cherry"}
# Providers people name that the catalog does not cover; reported in Parse.ignored, never guessed.
UNKNOWN_PROVIDERS = rx(r"\B<(?:azure|gcp|google\s+cloud|oracle\s+cloud|oci|lambda\s*(?:labs|cloud)|coreweave|paperspace|"
                       r"vultr|linode|hetzner|ovh\w*)>\E|百度云|百度智能云|京东云|ucloud")

AWS_INSTANCE = rx(r"\B<((g4dn|g4ad|g5g?|g6e?|g6f|gr6|g7e?|vt1|p2|p3|p3dn|p4d|p4de|p5|p5e|p5en|p6(?:-b200)?|trn1n?|trn2|inf1|inf2|dl1))"
                  r"\.([0-9]{0,3}x?large|metal(?:-[0-9]+xl)?)>\E")
# Google Cloud's GPU machine types ("a3-highgpu-8g", "g2-standard-24", "a2-ultragpu-1g").
GCP_INSTANCE = rx(r"\B<(?:a2|a3|a4|g2)-(?:highgpu|megagpu|ultragpu|edgegpu|standard)-[0-9]{1,3}g?>\E")
ALIYUN_INSTANCE = rx(r"\B<ecs\.(?:gn|ebmgn|sgn|vgn|gi)[0-9a-z]*(?:-[0-9a-z]+)?\.[0-9a-z]+>\E")

# A GPU name that looks like one but that the catalog does not know, so it is reported, not guessed.
UNKNOWN_GPU = rx(r"\B<(?:rtx\s*pro\s*[0-9]{4}(?:\s*blackwell)?|rtx\s*[0-9]{4}\s*ada|(?:tesla\s+)?[vkpt][0-9]{2,3}|(?:tesla\s+)?[tp]4|a[0-9]{2,4}0?|h[0-9]{2,3}|l[0-9]{2}s?|rtx\s*(?:a)?[0-9]{4}(?:\s*ti)?|"
                 r"rtx\s*[2-5]0[5-9]0(?:\s*ti)?|[2-5]0[5-9]0(?:\s*ti)?(?!\s*(?:ms|s|secs?|seconds?|毫秒|秒|tokens?|token|w|watts?|元|块|美元|h|hrs?|hours?|小时|天|年|gb|mb|%))"
                 r"|mi[0-9]{3}x?|gb200|b100|gh200)>\E")

# -- provider names beyond the catalog's -------------------------------------------------------------
AWS_EXTRA_NAMES = {"amazon": "aws", "亚马逊": "aws"}
# "vast majority", "cherry pick": after these words a case-sensitive provider alias is an ordinary word
NOT_A_PROVIDER_AFTER = r"(?!\s+(?:majority|amount|number|array|improvement|difference|pick|blossom))"


# -- units and word lists ----------------------------------------------------------------------------
# Written as regex alternatives, so a plural or an optional character stays one entry ("dollars?").

def words(*alternatives: str) -> str:
    """One regex group of alternatives, tried in the order written."""
    return "(?:" + "|".join(alternatives) + ")"


# Currencies written around a price ("$2.49/hr", "8 元每小时", "32.77美元/时").
USD = words(r"\$", "usd", r"us\$", "dollars?", "bucks", "美元", "美金", "刀")
CNY = words("¥", "rmb", "cny", "元", "块钱?", "人民币")
# Either currency, as one alternation to put inside a group ("(?P<c1>{MONEY})").
MONEY = rf"{USD}|{CNY}"
_CNY_WRITTEN = re.compile(CNY)


def currency_code(written: str) -> str:
    """'元', '¥', 'rmb' -> 'CNY'; any other currency written ('$', '美元', 'bucks') -> 'USD'."""
    return "CNY" if _CNY_WRITTEN.fullmatch(written) else "USD"


# Around a budget ("预算20万元", "$40k budget") only these; "刀" or "bucks" there is too loose to read.
BUDGET_CURRENCY_BEFORE = words(r"\$", "usd", r"us\$", "美元", "美金", "¥", "rmb", "cny", "元", "人民币")
BUDGET_CURRENCY_AFTER = words(r"\$", "usd", "dollars?", "美元", "美金", "元", "块", "rmb", "cny", "人民币")
# "30k", "3万", "2千": what an amount (money, GPU-hours) is multiplied by.
MULTIPLIERS = {"k": 1_000, "千": 1_000, "万": 10_000}
MULTIPLIER = words(*MULTIPLIERS)  # one of MULTIPLIERS' keys, as a regex fragment
# What makes the number before it GPU-hours (work, never a count of GPUs): '卡时', '张卡时', 'GPU hours',
# 'GPU 小时', 'gpu·h', and hours of a named card: 'H100 hours', 'A800 小时', 'H100-hours', '个 H100 小时'.
# `ref` is the card the hours were counted on; hours of a card only count where `ref` names a catalog GPU.
GPU_REF = r"(?:rtx\s?)?[a-z]{1,4}[0-9]{2,4}[a-z]?|rtx\s?[0-9]{4}[a-z]?"
GPU_HOURS_TAIL = (rf"\s*(?:个|张)?\s*(?:(?P<ref>{GPU_REF})\s*)?"
                  r"(?:张?卡\s*[·]?\s*(?:时|小时)|gpu[\s-]*(?:hours?|hrs?|小时)(?![a-z])|gpu\s*[·]\s*h(?![a-z])"
                  r"|(?(ref)(?:-\s*|\s?)(?:hours?|hrs?)(?![a-z])|(?!))|(?(ref)\s*小时|(?!)))")

# Hours, for rates ("/hr", "每小时") and durations ("300 hours", "20 天").
HOUR_UNITS = words("h", "hr", "hrs", "hour", "小时", "个小时", "时")
DURATION_UNITS = words("h", "hrs?", "hours?", "小时", "个小时", "钟头", "days?", "天")
HOURS_PER_UNIT = {"day": 24, "days": 24, "天": 24}  # any other duration unit is an hour
WEEKDAYS_PER_MONTH = 21.7  # working days; a whole month is bot.sizing.cost.DAYS_PER_MONTH

# Model and dataset sizes, in billions ("70B", "1.8T", "500M", "70亿", "3万亿").
SIZE_UNITS = {"b": 1, "bn": 1, "billion": 1, "t": 1000, "trillion": 1000, "m": 0.001, "million": 0.001,
              "亿": 0.1, "百亿": 10, "千亿": 100, "万亿": 1000}
# A context written with a unit ("8k", "1M tokens"): binary thousands, as context windows are sized.
CONTEXT_UNITS = {"k": 1024, "m": 1024 * 1024}

# GPU counts written as one word ("双卡", "八卡"); "多卡" (several) is read but counts nothing.
CARD_COUNT_WORDS = {"单卡": 1, "双卡": 2, "四卡": 4, "八卡": 8}
# Nouns that count GPUs after a number ("8卡", "2 张", "4 GPUs"). "块" is money too ("4000块"), so it
# counts cards only where the price was already read (after a rate).
CARD_NOUNS = words("张卡", "卡", "张", r"x\s*gpus?", "gpus?", "cards?")
# Nouns that count machines, not GPUs ("8 GPU servers", "two B200 nodes").
NODE_NOUNS = words("nodes?", "servers?", "machines?", "boxes", "box", "hosts?", "instances?", "rigs?")
# A node noun right after a count or GPU name ("4 GPU servers", "B200-nodes"): those count machines.
NODE_NOUN_AFTER = rf"\s*-?\s*{NODE_NOUNS}(?![a-z0-9])"
# Rates charged per machine rather than per GPU.
PER_MACHINE = words(r"per\s+(?:instance|node|server|box|machine)", "每台", "/台", "整机")

# Any CJK ideograph: a question with one is answered in Chinese, and its default labels are Chinese.
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# "is the L20 much worse than the L40S?", "L20 会比 L40S 差很多吗": one card's gap to another asked
HOW_MUCH_WORSE = rx(r"\B<(?:(?:much|a\s+lot|way|far|that\s+much|significantly|how\s+much)\s+(?:worse|slower|weaker)"
                       r"|(?:lose|give\s+up)\s+(?:much|a\s+lot)|far\s+behind|big\s+(?:gap|step\s+down|downgrade))>\E"
                       r"|差(?:很多|得多|多少|太多|不少|一大截|距(?:大|多大|有多大))|(?:慢|弱)(?:很多|得多|多少|太多)|差别大(?:吗|不大)")
