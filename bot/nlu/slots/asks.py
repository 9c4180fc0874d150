"""What a message asks (issue #22): its parts, each typed as an `Ask` with its span and subjects.

A message is split into parts where the user split it (numbered or lettered items, "Q2", "(b)",
question marks), and each part gets the kind of answer it wants: a price, a cost comparison, a fit
verdict, a choice, a compatibility verdict, a diagnosis, a checklist, an explanation, a spec, or an
open-ended default. The first part that says what it wants is the primary ask. Kinds are decided by
cue phrases, strongest first; what the other extractors already read (quotes, a model, pasted
Xids) breaks ties. Runs last, over the folded text: its cues may overlap claimed names.
"""

from __future__ import annotations

import re

from bot.models import Ask
from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan
from bot.nlu.slots.ask_prices import PRICE_CONTEXT, instance_priced, named, provider_cheaper
from bot.nlu.slots.ask_routes import routed
from bot.nlu.slots.ask_variant import PLAN_IMPACT as _PLAN_IMPACT, options_only, precision_varied

MAX_ASKS = 6

# "1) …", "2. …", "(a) …", "b) …", "Q2: …", "①": where the user numbered the parts. A digit
# item marker must not be part of a number ("1.5B", "TP=2)").
_ITEM = re.compile(
    r"(?:(?<=^)|(?<=[\s，,;；:：。?？!！]))"
    r"(?:(?P<label>q\s?[1-9]\s?[:.)]?|\(?[a-e]\)|[1-9]\.(?![0-9]))(?=\s|[^\x00-\x7f])"
    r"|(?P<tight>\([1-9]\)|[1-9]\)|[1-9a-e]、|[①-⑨]))",
    re.IGNORECASE)
# "is SXM worth paying for?", "值不值得": whether the dearer option earns its price, a choice weighed on what it
# does for the job, not which one costs less an hour.
# "cheaper 8xH100 boxes", "the cheaper nodes": an option described by its price, beside a question of another kind
_CHEAPER_DESCRIBED = re.compile(r"\bcheaper\s+(?:[\w.-]+\s+){0,2}(?:box(?:es)?|nodes?|instances?|gpus|cards|servers?|machines?|hosts?)\b",
                                re.IGNORECASE)
_COST_ASKED = re.compile(r"\b(?:which|what)\b[^?.]{0,30}\bcheaper\b|\bcheaper\s*\?|\bcheaper\s+than\b", re.IGNORECASE)
_WORTH_PAYING = re.compile(r"\bworth\b(?!\s+buying)|值不值(?!得买)|值得(?!买)", re.IGNORECASE)
# Question marks end a part when more text follows ("…in us-east-1? and is it worth it").
_QUESTION_END = re.compile(r"[?？]+")
# A comma before a question of another kind ends a clause ("what does a g6e.12xlarge cost per hour, and does
# llama 70B fit on it?"); "…, is that normal?", "X or Y, which…", "…, how many?" ask about what came
# before them, so no clause ends there.
# A Chinese clause that asks ("多少钱", "够不够", "…吗") closes at its "，"; the next clause is a question too.
_ZH_COMMA = re.compile(r"[,，]")
_ZH_ASKING = re.compile(r"(?:多少[^\x00-\x7f，]{0,3}|几[张台块个]\w{0,2}|够不够|够吗|行不行|要不要|是什么\w{0,2}|什么卡|哪个|哪家|[吗呢么])\s*$")
_ASKING = re.compile(r"\b(?:what|what's|how|which|does|do|is|are|can|could|will|would|should)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[,，;；]\s*(and\s+|also\s+|plus\s+)?(?!(?:is|are|was|were)\s+(?:that|this|these|those)\b)(?=(?:does|do|is|are|can|could|will|would|what|what's"
                         r"|whats|how\s+much|should)\s)", re.IGNORECASE)

_KIND_CUES: tuple[tuple[str, re.Pattern], ...] = (
    ("diagnose", lx.rx(
        r"\B<(?:xid|nvrm|dmesg|kern\.log|journalctl|nvidia-smi\s+-q|fallen\s+off\s+the\s+bus|oom|out\s+of\s+memory"
        r"|not\s+compatible|no\s+kernel\s+image|watchdog|timed?\s*out|hangs?|hung|crash\w*|died|killing|(?:got|is|are|runs?|running|became|gets?|getting)\s+(?:so\s+|really\s+|very\s+|too\s+)?slow(?:er)?|slowed\s+down|slowing\s+(?:us|it|them|things|training|the\s+\w+)\s+down|holding\s+(?:us|it|them)\s+back|slower\s+than\s+(?:before|usual|expected)|(?<!how\s)(?:way|much|a\s+lot|far|significantly|noticeably)\s+slower|(?:got|became|is\s+now|are\s+now|runs?|went|gotten)\s+(?:about\s+|~\s*)?[0-9]{1,3}(?:\s*%|(?:\.[0-9])?\s*[x×])\s+slower|too\s+slow|crawl(?:s|ing)"
        r"|throttl\w*|ecc\s+errors?|remapp\w*|retired\s+pages|is\s+(?:this|that|it)\s+(?:ok|okay|normal|fine|bad|legit|expected|reasonable)"
        r"|acceptable\s+or\s+not|bad\s+gpu|rma|what\s+do\s+(?:these|this)\s+mean|being\s+scammed|scam\w*|ERR!"
        # a measured figure doubted against the spec: "did the provider shortchange us?", "underperforming?"
        r"|shortchang\w*|short[\s-]changed|ripped\s+off|rip[\s-]?off|cheated|underperform\w*|below\s+(?:the\s+)?spec\w*)>\E"
        r"|\B<(?:tpot|ttft|latency|throughput|tokens?/s)\s+(?:is|are|was|looks?|got)\s+(?:so\s+|really\s+|very\s+)?(?:bad|poor|high|terrible|awful|low)>\E"
        r"|报错|挂了|(?:老是|总是|经常|动不动就?|频繁)\s*(?:会)?(?:挂|崩)|挂掉|崩溃|崩了|跑崩|卡死|(?<!网络)(?<!会被)卡住|慢了|很慢|变慢|太慢|死机|掉卡|正常吗|是不是有问题|是不是被坑|被坑|缩水|假卡|不达标|坏卡|卡坏|限速了|是不是限速|有问题吗|(?:是不是|是)?坏了(?:吗|么|没)|是不是坏|是否损坏|有没有毛病|怎么查|啥意思|什么意思"
        r"|(?:tpot|ttft|延迟|吞吐)\s*(?:很|太|特别)?\s*(?:差|高|低|慢)")),
    ("price", lx.rx(
        r"\B<(?:how\s+much\s+(?:is|are|does|do|for|would)|(?<!by\s)how\s+much(?=\s*(?:[?？!]|$))|what(?:'s|\s+is|\s+are)\s+(?:the\s+)?(?:price|cost|rate)"
        r"|prices?\s+(?:of|for|in|on)|prices?\s*\?|going\s+for|rents?\s+for|ballpark|cheapest|hourly|per\s+hour\s+(?:price|cost)"
        # "lambda H100 price per hour?", "what does an H100 go for in China", "H100 rate/hr"
        r"|(?:prices?|costs?|rates?)\s*(?:per|/|an?)\s*(?:gpu[\s-]?)?(?:hour|hr|h|month|mo|day)\b|going\s+rate"
        r"|what\s+(?:does|do|would|will)\s+(?!(?:you|u|we|i)\s)[^?.]{0,60}?\bgo(?:es)?\s+for"
        r"|(?:gonna|going\s+to)\s+cost|cost\s+roughly|price\s+list|on[\s-]demand\s+price|spot\s+price"
        # both billing modes asked for: "H200 on RunPod: on-demand and spot, 1 GPU and 8 GPUs?"
        r"|on[\s-]?demand\s+(?:and|&|/|\+|plus|vs\.?|versus)\s+spot|spot\s+(?:and|&|/|\+|plus|vs\.?|versus)\s+on[\s-]?demand"
        r"|(?:monthly|hourly|daily|rough|total)\s+cost|costs?\s+(?:per|an?\s+hour|on[\s-]demand|hourly)"
        r"|what\s+(?:does|would|will)\b[^?.]{0,60}?\bcost"
        # "what's an 8x A100 on Lambda per hour?": hardware's hourly figure
        r"|what(?:'s|s|\s+is|\s+does)\s+(?:an?|one)\s+[^?.]{0,40}?(?:\bper\s+(?:gpu[\s-]?)?(?:hour|hr)|\ban\s+hour|\bhourly|/\s*h(?:ou)?r?)\b"
        r"|whats\s+(?:the\s+)?(?:price|cost|rate)|what(?:'s|s|\s+is|\s+does)\s+(?:it|that|one)\s+(?:go\s+for\s+)?(?:on|at)\s+(?:runpod|lambda|vast|aws|gcp|azure|coreweave|lambda\s+labs|autodl)|what(?:'s|s|\s+is)\s+(?:the\s+)?(?:on[\s-]*demand|spot)\s+(?:for|of|on|in)\b)>\E"
        r"|多少钱|啥价|什么价|价格|报价多少|最便宜|多贵|一小时多少|一卡时多少|每小时多少"
        r"|按需(?:和|与|跟|及|、|/)(?:竞价|抢占|spot)|(?:竞价|抢占式?|spot)(?:和|与|跟|及|、|/)按需"
        # which provider or where is cheap ("租卡哪家便宜", "哪个平台便宜点"): prices by provider, not a comparison
        r"|(?:哪家|哪里|哪儿|哪个(?:平台|云|厂商|服务商))[^，,。？?！!；;\n]{0,16}?便宜")),
    ("cost", lx.rx(
        r"\B<(?:cheaper|costs?\s+less|less\s+expensive|more\s+(?:cost[\s-]effective|economical)|which\s+one\s+is\s+cheaper|break[\s-]?even|pay\s+(?:back|off)|buy(?:ing)?\s+(?:vs|or|instead)"
        r"|renting\s+(?:vs|or|cheaper)|rent\s+or\s+buy|worth\s+buying|should\s+(?:we|i)\s+(?:just\s+)?buy|bill|gpu[\s-]hours?\s+(?:for|budget|enough)"
        r"|how\s+many\s+gpu[\s-]hours?|gpu[\s-]hours?\b[^?.]{0,40}?\benough\b"
        # "3,000 GPU-hours: how many days on 8 A100s?", "10k GPU-hours on 8x H100 is how long?": the allowance's wall-clock
        r"|gpu[\s-]?hours?\b[^?.]{0,60}?\bhow\s+(?:many\s+(?:days|hours|weeks)|long)\b"
        r"|how\s+(?:many\s+(?:days|hours|weeks)|long)\b[^?.]{0,60}?\bgpu[\s-]?hours?\b"
        r"|enough\s+or|total\s+cost|how\s+expensive|save\s+money|where\s+can\s+we\s+save"
        r"|spot\s+or\s+on[\s-]demand|on[\s-]demand\s+or\s+spot|reserved\s+or)>\E"
        r"|划算|回本|值不值|值得买|该不该买|要不要买|账单|总费用|总花费|总成本|总价|费用.{0,2}(?:低|高|少|多)|哪个(?:更)?便宜|(?<!最)便宜多少(?!钱)|费用怎么算|怎么算钱|会不会很贵|哪里能省|省钱|买还是租|租还是买|自己买|卡时"
        r"|选哪个划算|成本|包月还是按量|按量还是包月|按秒(?:计费|收费)|只收.{0,8}钱|最低计费|怎么计费|怎么收费"
        r"|\B<(?:billed\s+(?:per|by|for)\s+(?:the\s+)?(?:second|minute)|per[\s-]second\s+billing|minimum\s+(?:charge|billed))>\E")),
    ("compat", lx.rx(
        r"\B<(?:driver|cuda\s*1[0-3]|cu1[0-3][0-9]|wheel|toolkit|nvcc|sm_?[0-9]{2,3}|compute\s+capability|licen[cs]e"
        # "is it (actually) legal", "legally", not the department ("legal asked me to check")
        r"|licen[cs](?:es|ed|ing)|(?:it|this|that|be|even)\s+(?:\w+\s+)?legal|legally|illegal|eula|allowed|permitted|supported|support\s+fp8|run\s+fp8|compatib\w*)>\E"
        r"|驱动|授权|许可|合规|能不能用|兼容|官方驱动|支持\s*fp8|跑\s*fp8|能跑\s*fp8|cuda\s*1[0-3]"
        # "does the 5090 do FP8?", "能像 H800 那样靠 FP8 加速吗": whether the card computes in the format
        r"|\B<(?:do(?:es)?|has|have)\s+(?:it\s+)?(?:native\s+)?(?:fp8|fp4)>\E|\B<(?:fp8|fp4)\s+(?:support|speed[\s-]*up|accelerat\w*)>\E"
        r"|靠\s*(?:fp8|fp4)|(?:fp8|fp4)\s*(?:加速|算力|张量核)")),
    ("checklist", lx.rx(
        r"\B<(?:check\s*list|what\s+should\s+(?:we|i)\s+(?:check|verify|test|measure|ask)|before\s+kicking\s+off"
        r"|give\s+me\s+the\s+list|how\s+do\s+i\s+(?:measure|run|test|benchmark)|what\s+exactly\s+do\s+i\s+request"
        r"|what\s+to\s+check|what\s+else\s+(?:should|do|can|must)\s+(?:we|i)\s+(?:check|verify|test|look\s+at)|what\s+else\s+to\s+(?:check|verify|test)|acceptance|pitfalls?|gotchas?|steps?\s+to|what\s+number\s+is\s+good"
        r"|what\s+tests?|which\s+tests?|tests?\s+(?:to\s+)?prove|before\s+accepting|sign(?:ing)?\s+(?:it\s+)?off|(?:good|ok|okay|safe)\s+to\s+sign|(?:can|should)\s+(?:i|we)\s+sign"
        r"|what\s+(?:do|should|can)\s+(?:we|i)\s+(?:check|test|verify|measure|benchmark|ask\s+(?:them|the\s+\w+|for))|what\s+to\s+(?:test|verify)|vcpulimit\w*|insufficient\s*instance\s*capacity|insufficient\s+capacity|(?:not|n't)\s+have\s+(?:enough|sufficient)\s+[\w.]+\s+capacity|(?:which|what)\s+quotas?|quotas?\s+(?:to\s+)?(?:request|increase|raise)"
        # "we just got the node, how do we accept it?", "how do I validate the new box?": a delivery accepted
        r"|how\s+(?:do|should|can|would)\s+(?:we|i)\s+accept|accept(?:ing)?\s+(?:the\s+)?delivery|take\s+delivery"
        r"|how\s+(?:do|should|can|would)\s+(?:we|i)\s+(?:verify|validate|qualify|vet|check)\s+(?:it|them|this|that"
        r"|(?:the|our|a|this)\s+(?:\w+\s+){0,3}?(?:node|box|machine|server|host|cluster|gpus?|hardware|instance)s?))>\E"
        r"|验收|验机|验货|签收|清单|测哪些|还要(?:看|查|测|检查)什么|还(?:该|应该)(?:看|查|测|检查)什么|怎么跑|给个命令|给个.{0,16}命令|给几条命令|几条命令|怎么(?:快速)?确认|有啥坑|有什么坑|哪些坑|要注意什么|注意什么|注意事项|检查什么|怎么测|要查哪些|查哪些|测什么|申请.{0,6}配额|配额.{0,4}(?:怎么|申请|提高|不够)|(?<!显存)(?<!内存)容量不足|没有容量")),
    ("spec", lx.rx(
        r"\B<(?:how\s+much\s+(?:vram|memory|bandwidth)\s+(?:does|do|is\s+on)|specs?\s+(?:of|for)|what\s+are\s+the\s+specs)>\E"
        r"|显存多大|多大显存|有多少显存|带宽多少|(?<![卡张台\s])规格")),
    ("explain", lx.rx(
        r"\B<(?:what(?:'s|\s+is|\s+are)\s+the\s+difference|difference|vs\.?|versus|what\s+does\s+\w+\s+mean|explain"
        r"|big\s+deal|going\s+to\s+hurt|hurt|matter|how\s+much\s+warning|what\s+should\s+the\s+\w+\s+do|expect"
        r"|do\s+(?:we|i)\s+(?:really\s+)?need\s+(?:infiniband|ib|nvlink|rdma)|is\s+\S+\s+fine|worth\s+it"
        r"|(?:is|are)\s+(?:nvlink|nvswitch|infiniband|ib|rdma)\s+(?:really\s+)?(?:required|needed|necessary|a\s+must)"
        r"|how\s+often|what\s+(?:does|do)\s+each|which\s+(?:one\s+)?(?:should|to)\s+(?:we\s+)?(?:look|use|read)"
        # "what checkpoint interval should we use?", "how do we resume without losing progress?"
        r"|(?:what|which)\s+(?:checkpoint(?:ing)?\s+)?(?:interval|frequency|cadence)|how\s+(?:do|should|can)\s+(?:we|i)\s+resume"
        r"|auto[\s-]?resum\w*|auto[\s-]?restart\w*"
        # "can spot instances be used for serving?", "抢占式能拿来跑推理吗": whether a thing suits a use
        r"|(?:can|could|should)\s+(?:\w+\s+){1,3}be\s+used\s+(?:for|to)|(?:ok|okay|fine|safe)\s+to\s+use\s+(?:\w+\s+){0,2}for)>\E"
        r"|(?:能|可以|可不可以|能不能)(?:拿来|用来)"
        r"|区别|差在哪|差别|有啥区别|有(?:什么|啥)不(?:同|一样)|差异|影响大吗|影响|什么意思|怎么算|要不要上|够不够用|能提前多久|提前多久|怎么接住|该看哪个|看哪个"
        r"|怎么续|怎么恢复|(?:不|别)丢进度|(?:多长时间|多久)的?(?:预警|通知)|提前(?:多长时间|多少时间)|自动(?:恢复|续训|续跑|重启|拉起)|断点续训"
        r"|速度代价|代价|怎么做|是什么|能干啥|能做什么")),
    ("select", lx.rx(
        r"\B<(?:which\s+(?:\w+\s+)?(?:gpu|instance|card|one|box|node|machine|cloud)s?|what\s+(?:gpu|instance|card|config|box|server|machine|hardware)s?"
        # "recommend", not AWS's "rebalance recommendation" notice
        r"|(?<!rebalance\s)recommend\w*|recs|suggest\w*|what\s+(?:should|do|would|can)\s+(?:i|we)\s+(?:get|rent|buy)|thoughts|should\s+(?:i|we)\s+(?:get|rent|buy)"
        # "what would you pick/rent/go with", "which would you choose": the user asks for our pick
        r"|(?:what|which)\s+(?:\w+\s+){0,3}?(?:would|should|will)\s+(?:you|u)\s+(?:personally\s+)?(?:pick|rent|choose|go\s+(?:with|for)|take|get|buy)"
        r"|if\s+you\s+were\s+(?:me|us)"
        r"|(?:a\s+)?(?:good|bad|smart|sensible)\s+(?:idea|call|plan|move)"
        r"|(?:choos\w*|decid\w*|pick\w*)\s+between|which\s+(?:one\s+)?(?:should|would|do)\s+(?:i|we|you)\s+(?:pick|choose|take|go\s+(?:with|for)|get)"
        r"|which\s+(?:one\s+)?to\s+(?:pick|choose|take|go\s+with))>\E"
        # "选哪台", "选哪个", "怎么选", "该选哪家": a choice, whichever word counts the options
        r"|选哪|怎么选|该选|挑哪|你会(?:选|租|买|用)|(?:要是|如果|换)(?:是)?你.{0,4}(?:选|租|买|用)|(?:租|买)哪(?:个|台|张|款|种)"
        # "买啥机器", "用啥卡": 啥 is the everyday 什么
        r"|(?:租|买|选|用|配|上)(?:什么|啥)|(?:什么|啥)(?:样的)?(?:卡|配置|机器|服务器)|哪张卡|哪种卡|哪款|哪个更适合|有什么建议"
        r"|租哪家|找哪家|用哪家|哪家(?:比较|更|最)?(?:好|靠谱|稳|可靠|值得)|推荐")),
    # A budget constrains a choice; alone ("is 3万 enough for …") it asks what the money buys.
    ("budget", lx.rx(r"\B<(?:budget\w*)>\E|预算")),
    ("or", lx.rx(r"\B<or\s+(?:8\s*x\s*)?(?:h100|a100|h200|l40s|4090|5090|a800|h800|h20|l20)>\E|还是")),
    ("fit", lx.rx(
        r"\B<(?:can\s+(?:i|we|it|you|a|an|the|this|my|our)|could\s+(?:i|we)|fits?|fit\s+on|enough|is\s+one|will\s+it|how\s+many\s+(?:gpus?|cards?|nodes?)"
        r"|how\s+much\s+(?:vram|memory|gpu\s+memory)|how\s+big|need\s+(?:a|an|more)|run\s+on|hold|oom"
        r"|(?:ok|okay|good|suitable)\s+for|(?:be\s+)?(?:served|run|trained|fine[\s-]?tuned|hosted)\s+on"
        r"|on\s+(?:one|a\s+single|a\s+couple\s+of|two|four|eight|[1-8]\s*x?)\s)>\E"
        r"|能不能|能否|能跑|跑得动|够不够|够吗|行不行|要几张|几张卡|最少|多少显存|要多少|能不能跑|装得下|放得下|扛多少|(?<!影响)多大(?!影响)"
        r"|(?:能|可以|可不可以)\s*(?:用|在)?\s*(?:全参|微调|训练|跑|推理|部署|放|装|上)")),
)
_COST_CUES = dict(_KIND_CUES)["cost"]
_QUOTE_JUDGED = lx.rx(r"\B<(?:good\s+or\s+bad|good\s+(?:deal|price)|fair\s+(?:price|deal)|rip[\s-]?off|overpa\w+)>\E"
                      r"|贵不贵|贵吗|划不划算|合理吗|算贵|算便宜")
# "$2.49/GPU-hour for 8x H100, is that ok?", "报价 ¥12/卡时，这个价格正常吗": their quote judged, not a fault
_QUOTE_OK = lx.rx(r"\B<(?:is|are)\s+(?:this|that|it|these|those)\s+(?:price\s+|rate\s+|quote\s+)?(?:ok|okay|fine|normal|reasonable|fair|legit|expected|high|low|cheap|expensive|right|correct|accurate)>\E"
                  r"|(?:价格|价钱|报价|单价|这价|这个价)[^，,。？?]{0,4}?(?:正常吗|合理吗|行吗|可以吗|高吗|低吗|靠谱吗)"
                  r"|(?:^|[，,。\s])(?:这|那)?(?:算)?(?:便宜吗|便不便宜|对吗|对不对)"
                  r"|\B<(?:so\s+(?:cheap|expensive|low|high))>\E|[,，]\s*right\s*[?？]")
_RATE_QUOTED = lx.rx(r"[$¥￥€]\s?[0-9.,]+k?\s*(?:/|per\s+|an?\s+|每)\s*(?:gpu[\s-]?)?(?:hour|hr|h|month|mo|卡时|小时|时|月)"
                     r"|[0-9.,]+\s*(?:元|块|美元|刀)\s*(?:/|每)\s*(?:卡时|小时|时|月)|(?:每|一)\s*卡时\s*[$¥￥]?\s*[0-9]")
# A server's price stated with buying words ("买一台 … 18 万", "整机 220 万", "a box for 280k") and the
# purchase weighed ("值吗", "worth it vs renting?", "还是租"): buy vs rent (bot/compose/cost_buy.py).
_BUY_PRICE = lx.rx(r"(?:买|采购|购置|购买|整机|整台|一台|\B<(?:buy(?:ing)?|purchas\w*|box|server|rig|machine|workstation)>\E)"
                   r"[^?？。!！]{0,40}?(?:[0-9][0-9.,]*\s*(?:万|千|k(?![a-z]))|[$¥￥]\s?[0-9][0-9.,]*\s*(?:k|万)?|[一二两三四五六七八九十百]+万)")
_BUY_JUDGED = lx.rx(r"值吗|值不值|值得吗|值得买|划算|划不划算|合算|合不合算|回本|还是租|和租|跟租|租还是买|买还是租|不如租"
                    r"|\B<(?:worth\s+it|worth\s+buying|(?:vs\.?|versus|or|than|instead\s+of)\s+(?:just\s+)?(?:renting|rent|leasing|the\s+cloud)|pay\s*(?:s\s+)?(?:back|off))>\E")
_REALISM = lx.rx(r"\B<(?:realistic|feasible|doable|achievable|enough\s+time|on\s+time|in\s+time)>\E|来得及|现实吗|可行吗|跑得完|够不够时间|时间够")
_TIME_WORD = lx.rx(r"\B<(?:wks?|weeks?|days?|months?|hours?|hrs?|deadline)>\E|[0-9]\s*(?:h|d|w)\b|天|周|星期|个月|小时|截止")
# "一卡时", "每卡时", "/卡时": the unit a price is asked in.
_PER_UNIT = re.compile(r"(?:一|每|/|多少钱)\s*卡时|卡时\s*(?:多少钱|单价|价格|啥价)")
# A part that is a question but carries no cue of its own is answered as an explanation.
_QUESTION = lx.rx(r"[?？]\s*$|[吗呢么]\s*[?？]?\s*$|为啥|为什么|是不是|\B<(?:why|what|how|is|are|does|do|should)>\E")
# A part that states money of its own ("$2.10/gpu-hr", "¥34/小时") compares costs even when it says "which".
_LATENCY_WORDS = lx.rx(r"\B<(?:ttft|tpot|itl|latency|first\s+token|tokens?/s|tok/s|throughput)>\E|首\s*token|延迟|吞吐")
_PRICE_WORDS = lx.rx(r"\B<(?:price\w*|cost\w*|per\s+hour|hourly|\$)>\E|价格|多少钱|报价|费用")
_STATED_MONEY = lx.rx(r"[$¥￥€]\s?[0-9]|[0-9]\s?(?:元|块|万|usd|cny|rmb)|\B<[0-9.,]+k?\s*(?:dollars|bucks)>\E")


# "…, how many?", "how many would it take": how many of what the message names, with nothing after.
HOW_MANY_BARE = r"\B<how\s+many(?:\s+(?:of\s+(?:them|those|these)|(?:would|will|does)\s+it\s+take))?>\E\s*(?:[?？.!。！]|$)"
# Asks that want a slot computed rather than given.
_WANTS = (
    ("concurrency", lx.rx(r"\B<(?:how\s+many\s+(?:concurrent\s+|simultaneous\s+|parallel\s+)?(?:users|requests|sequences|streams|sessions)"
                          r"|concurren\w*\s+(?:users|requests)\s+can)>\E|多少并发|扛多少|能撑多少|容纳多少|支持多少并发|多少个?并发")),
    ("gpu_count", lx.rx(r"\B<how\s+many\s+(?:[\w-]+\s+){0,2}(?:gpus?|cards?|nodes?|machines?|servers?|boxes)"
                        r"|how\s+many\s+(?:for|then|do\s+(?:we|i)\s+need|would\s+(?:we|i|it)\s+(?:need|take)|are\s+needed)>\E"
                        # "on H100s, how many?": the count of the hardware just named, asked bare
                        rf"|{HOW_MANY_BARE}"
                        r"|几张|多少张|几台|多少台|几个节点|多少个节点|多少卡")),
)
_OOM = lx.rx(r"\B<(?:oom|out\s+of\s+memory)>\E|爆显存|显存不够|显存不足")
_PRICES_COMPARED = lx.rx(r"(?:价格|价钱|租金|单价)(?:都|也)?(?:基本|几乎|大致|大体)?(?:差不多|相近|接近|一样|相同|相当|持平)"
                         r"|差不多(?:的)?价格|\B<(?:similar(?:ly)?\s+priced|same\s+price|"
                         r"price\s+is\s+(?:similar|about\s+the\s+same)|cheaper\s+per\s+hour"
                         # "the 4090 box rents for far less per hour", "costs a lot less an hour": said, not asked
                         r"|(?:rents?|costs?|goes)\s+(?:for\s+)?(?:far\s+|much\s+|way\s+|a\s+lot\s+)?less(?:\s+(?:per|an|a|by\s+the)\s+hour)?"
                         r"|(?:far|much|way|a\s+lot)\s+cheaper"
                         # a premium stated and weighed: "is the H200 worth +30% price?", "贵 30% 值吗"
                         r"|worth\s+(?:the\s+|a\s+)?[+~]?[0-9]+\s*%(?:\s+(?:more|higher|extra))?\s*(?:price|premium|cost)?"
                         r"|[0-9]+\s*%\s+(?:more\s+expensive|pricier|dearer|premium))>\E"
                         r"|贵\s*(?:了)?\s*[0-9]+\s*%|溢价\s*[0-9]+\s*%")
# "how much does X hurt / slow us down / matter", "how much slower": what a difference costs in speed.
_IMPACT = lx.rx(r"\B<how\s+much\s+(?:(?:does|do|would|will|is|are)\s+(?:[^?.]{0,80}?\s)?(?:hurt|slow|matter|impact|affect|penalt|degrad|lose)\w*"
                r"|(?:slower|faster|worse))>\E"
                r"|影响(?:有)?多大|影响大(?:吗|不大|么)|有多大(?:的)?影响|拖慢(?:多少|多大)|慢多少|慢(?:一倍|几倍|一半)")
_YOUR_PICK = lx.rx(r"\B<(?:what|which)\s+(?:\w+\s+){0,3}?(?:would|should|will)\s+(?:you|u)\s+(?:personally\s+)?"
                   r"(?:pick|rent|choose|take|get|buy|go\s+(?:with|for))>\E")
_SUBJECT_SLOTS = ("gpu", "gpu_options", "instance", "instance_options", "model")
# "does the L20 support FP8", "L20 能不能用 FP8": a number format the card supports.
_PRECISION_SUPPORT = lx.rx(r"\B<(?:support\w*|use|run|do(?:es)?)\s+(?:native\s+)?(?:fp8|fp4|bf16|tf32)>\E"
                           r"|(?:支持|能用|可以用|用|跑|能跑)\s*(?:原生)?\s*(?:fp8|fp4|bf16|tf32)")
_MEMORY_WORDS = lx.rx(r"\B<(?:vram|memory|fit|fits|gb)>\E|显存|放得下|装得下|放下|装下|几张|多少张")
_FIT_WORDS = lx.rx(r"\B<(?:enough|hold|serve|train)>\E|够|能跑.{0,6}[0-9]+\s*b")


# What a part weighs when it names a link, a benchmark or a colleague's claim and not memory: "is 25GbE
# enough between the nodes", "is MLPerf Offline the number to judge by", "is he right about NVLink".
_EXPLAINED = lx.rx(r"\B<(?:ethernet|[0-9]+\s*(?:gbe|gbps|gbit|gb/s\s+(?:ethernet|link|network))|roce|rdma|infiniband|ib|nvlink|nvswitch"
                   r"|interconnect|nics?|mlperf|benchmark\w*|genai-perf|aiperf|colleague|coworker|teammate|(?:is|are)\s+(?:he|she|they)\s+right)>\E"
                   r"|以太网|网卡|互联|互连|跑分|成绩|同事|说得对|说的对|有道理|参考意义|参考价值")
_MEMORY_ASKED = lx.rx(r"\B<(?:vram|memory|fits?|oom|gb\s+per|how\s+many\s+(?:gpus?|cards?)"
                      r"|(?:can|could)\b[^.?]{0,50}\b(?:run|serve|train|fine[\s-]?tune|hold|load)|will\s+it\s+(?:run|fit|load))>\E"
                      r"|显存|放得下|装得下|几张|多少张|爆|能跑|跑得动|能不能跑|跑得了")
_ENOUGH = lx.rx(r"\B<(?:enough|sufficient|good\s+enough|ok|okay|fine)>\E|够用|够吗|够不够|够了|行不行|行吗")
# "which is faster", "哪个快，快多少": a speed compared, not a pick for a job.
_FASTER = lx.rx(r"\B<(?:which\s+(?:one\s+)?is\s+(?:faster|quicker)|(?:faster|quicker)\s+(?:and\s+)?by\s+how\s+much"
                r"|how\s+much\s+(?:faster|quicker)"
                # "is it 400 vs 900 so like 2x slower?", "是不是慢一倍": a speed ratio asked
                r"|(?:[0-9.]+\s*[x×]|twice|two\s+times|half)\s+(?:as\s+)?(?:slower|slow|faster|fast))>\E"
                r"|哪个(?:更)?快|快多少|快几倍|慢一倍|慢几倍|慢多少|慢一半")


def _explained_topic(part: str) -> bool:
    return bool(_EXPLAINED.search(part)) and not _MEMORY_ASKED.search(part)


_SERVING = lx.rx(r"\B<(?:kv[\s-]?cache|serv(?:e|es|ed|ing)|inference|ttft|tpot|vllm|sglang)>\E|推理|上线服务")


def extract(scan: Scan) -> None:
    if "workload" not in scan.fields and (m := _SERVING.search(scan.text)):
        scan.set("workload", "inference", m.start(), m.end(), kind="implied")  # a KV cache is served, not trained
    gpus = [scan.lex.catalog.gpus.get(g) for g in [scan.fields.get("gpu"), *scan.fields.get("gpu_options", [])] if g]
    consumer = any(spec is not None and spec.gpu_class == "consumer" for spec in gpus)
    for ask in read_asks(scan.text, scan.fields, [(s.slot, s.value, s.start) for s in scan.spans], consumer=consumer):
        written = scan.original[ask.start:ask.end].strip()  # as typed, not folded
        update = {"text": written, "label": _as_typed(ask.label, scan.original[:ask.start])}
        scan.add("asks", ask.model_copy(update=update).model_dump(), ask.start, ask.end, take=False)


def _as_typed(label: str | None, before: str) -> str | None:
    """The user's label as they wrote it ("Q1", not the folded "q1")."""
    if label is None:
        return None
    at = before.lower().rfind(label.lower())
    return before[at:at + len(label)] if at >= 0 else label


def read_asks(text: str, fields: dict | None = None, spans: list[tuple[str, object, int]] | None = None,
              consumer: bool = False) -> list[Ask]:
    """The asks of a (folded) message, in order; at most MAX_ASKS. A part with a cue of its own is an
    ask of its own; an unlabelled part without one continues the ask before it. `consumer`: a GeForce
    card is named (its licence decides whether a data centre is fine)."""
    fields = fields or {}
    asks: list[Ask] = []
    guessed: set[int] = set()  # starts of asks read as explanations for want of any cue
    pieces = [c for start, end, label in _parts(text) for c in _clauses(text, start, end, label, fields, consumer)]
    for start, end, label in pieces:
        part = text[start:end]
        whole = len(asks) == 0 and end - start == len(text)
        if asks and label is None and _GUESS_ONLY.match(part):  # "how many H100 do I need? 2 enough??": a guess at it
            prev = asks[-1]
            asks[-1] = prev.model_copy(update={"end": end, "text": text[prev.start:end].strip()})
            continue
        kind = routed(part, fields, whole, consumer) or _kind(part, fields, whole=whole)
        if kind is None and _LATENCY_WORDS.search(part) and _QUESTION.search(part):
            kind = "explain"  # "2) roughly what tok/s per user?": the speed to expect, not the fit before it
        if kind is None and _PLAN_IMPACT.search(part) and _QUESTION.search(part):
            kind = "explain"  # "…and what does the cut NVLink mean for how we split TP/PP?": the plan, not the fit
        if kind == "cost" and asks and asks[-1].kind == "price" and label is None and provider_cheaper(part, start, end, fields, spans, _STATED_MONEY):
            kind = None  # "…how much on RunPod? and spot? is Vast cheaper?": the price asked again at another provider
        if kind == "explain" and asks and asks[-1].kind in ("explain", "fit", "select") and label is None and asks[-1].label is None \
                and (_IMPACT.search(part) or _FASTER.search(part)) and named(spans, start, end, _SUBJECT_SLOTS) <= named(spans, asks[-1].start, asks[-1].end, _SUBJECT_SLOTS):
            kind = None  # "H800 和 H100 差多少？…影响大吗？是不是慢一倍？": the same impact asked again, one answer
        if kind == "select" and asks and asks[-1].kind == "select" and label is None and asks[-1].label is None \
                and options_only(part):
            kind = None  # "租 H100 去哪家比较好？RunPod 还是 Cherry": the options of the choice just asked
        continues = kind is None and bool(asks)
        if continues and label is None and asks[-1].kind == "fit" and precision_varied(part, text[asks[-1].start:asks[-1].end]):
            continues = False  # "…in bf16? what about int4?": the same job in another number format, sized on its own
            kind = "fit"
        if continues:
            kind = asks[-1].kind  # "(c) and the 5090?", "… is the GPU broken?": a part without a cue continues
        elif kind is None and _QUESTION.search(part):
            # a question of its own with no cue: about a model on hardware it is a fit, else explained
            sized = (fields.get("model") or fields.get("params_b")) and (fields.get("gpu") or fields.get("instance"))
            kind = "fit" if sized and not _explained_topic(part) else "explain"
        if kind is None:
            continue
        if continues and label is None:
            prev = asks[-1]
            asks[-1] = prev.model_copy(update={"end": end, "text": text[prev.start:end].strip()})
            continue
        if asks and label is None and asks[-1].label is None and asks[-1].start in guessed:
            # "…官方不是 3.35 吗？正常吗": a question without a cue is context for the cue that follows
            prev = asks.pop()
            start = prev.start
        if kind == "explain" and not any(p.search(part) for _, p in _KIND_CUES):
            guessed.add(start)
        asks.append(Ask(kind=kind, text=text[start:end].strip(), start=start, end=end, label=label))
        if len(asks) == MAX_ASKS:
            break
    if not asks and text.strip():  # flags alone ("ask gpu=4090 deployment=datacenter") ask nothing typed
        asks.append(Ask(kind=_default_kind(fields), text=text.strip(), start=0, end=len(text)))
    return [_with_subjects(a, fields, spans or []) for a in asks]


def _parts(text: str) -> list[tuple[int, int, str | None]]:
    """(start, end, label) of each part: split at item markers, then at question marks."""
    marks = [(m.start(), m.end(), m.group("label") or m.group("tight")) for m in _ITEM.finditer(text)]
    # Item markers count only where there are two or more of them ("1) … 2) …").
    if len(marks) < 2:
        marks = []
    pieces: list[tuple[int, int, str | None]] = []
    bounds = [(0, None, 0)] + [(s, lab, e) for s, e, lab in marks]
    for i, (_start, label, body) in enumerate(bounds):
        stop = bounds[i + 1][0] if i + 1 < len(bounds) else len(text)
        if stop <= body:
            continue
        if i == 0 and marks and (not text[body:stop].strip(" \t\n:：,，-") or _context_only(text, body, stop, marks)):
            continue  # a preamble: "3 qs:", or the plan the numbered questions are about
        pieces.append((body, stop, _clean_label(label)))
    out: list[tuple[int, int, str | None]] = []
    for start, stop, label in pieces:
        cursor = start
        for m in _QUESTION_END.finditer(text, start, stop):
            if text[m.end():stop].strip():
                out.append((cursor, m.end(), label if cursor == start else None))
                cursor = m.end()
        out.append((cursor, stop, label if cursor == start else None))
    return [(s, e, lab) for s, e, lab in out if text[s:e].strip()]


# "2 enough??", "两张够吗？": a count guessed at the question before it, no ask of its own
_GUESS_ONLY = re.compile(r"^\s*(?:(?:are|is|would)\s+)?(?:[0-9]{1,2}|two|three|four|eight|[一二两三四五六七八])\s*(?:x|×)?\s*"
                         r"(?:cards?|gpus?|张|块|卡)?\s*(?:be\s+)?(?:enough|ok|okay|够吗|够不够|就够了吗|够了吗|行吗)\s*[?？!！.。]*\s*$",
                         re.IGNORECASE)
# "which is cheapest & any gotchas", "… and any pitfalls?": a second ask joined on, not a word of the first
_GOTCHAS_TOO = re.compile(r"\s(?:&|and|\+|plus)\s+(?=any\s+(?:other\s+)?(?:gotchas?|pitfalls?|caveats?|traps?|tips|warnings?)\b)",
                          re.IGNORECASE)


def _clauses(text: str, start: int, stop: int, label: str | None, fields: dict,
             consumer: bool) -> list[tuple[int, int, str | None]]:
    """A part split again at a comma before a question of another kind ("what does a g6e.12xlarge cost per
    hour, and does llama 70B fit on it?": a price, then a fit), where the part read whole is one of its
    clauses' kinds; clauses of the kind before them, or of none, stay with it."""
    found = [m for m in _CLAUSE_END.finditer(text, start, stop) if text[start:m.start()].strip() and text[m.end():stop].strip()]
    if found and not _ASKING.search(text[start:found[0].start()]):
        # a first clause that asks nothing is context ("…or the cheaper PCIe ones, is SXM worth it?"), unless
        # an "and" joins a question of its own to it
        found = [m for m in found if m.group(1)]
    gotchas = {m.start() + 1 for m in _GOTCHAS_TOO.finditer(text, start, stop)}  # "…which is cheapest & any gotchas"
    cuts = sorted({m.start() + 1 for m in found} | set(_zh_cuts(text, start, stop)) | gotchas)
    if not cuts:
        return [(start, stop, label)]
    bounds = list(zip([start, *cuts], [*cuts, stop], strict=True))

    def kind_of(a: int, b: int) -> str | None:
        return routed(text[a:b], fields, False, consumer) or _kind(text[a:b], fields, whole=False)

    kinds = [kind_of(a, b) for a, b in bounds]
    if kinds[0] is None or kind_of(start, stop) not in kinds:
        return [(start, stop, label)]  # the part read whole is none of its clauses: one ask, as read
    out = [(start, bounds[0][1], label, kinds[0])]
    for (a, b), kind in zip(bounds[1:], kinds[1:], strict=True):
        # "…, and how much will it cost?" after a price: still the price, whatever else it reads as
        if kind in (None, out[-1][3]) or (out[-1][3] in ("price", "cost") and _PRICE_WORDS.search(text[a:b])):
            out[-1] = (out[-1][0], b, out[-1][2], out[-1][3])
        else:
            out.append((a, b, None, kind))
    return [(a, b, lab) for a, b, lab, _ in out]


def _zh_cuts(text: str, start: int, stop: int) -> list[int]:
    """After each "，" that closes a Chinese clause asking something ("每小时多少钱，能不能跑 70B？"): where the
    next clause begins."""
    out, cursor = [], start
    for m in _ZH_COMMA.finditer(text, start, stop):
        if _ZH_ASKING.search(text[cursor:m.start()]) and text[m.end():stop].strip():
            out.append(m.end())
            cursor = m.end()
    return out


def _context_only(text: str, start: int, stop: int, marks: list) -> bool:
    """A preamble that asks nothing ("plan is 16x H100 for 3 weeks. a) … b) …") while the numbered parts
    carry the questions: the plan they are about, not a question of its own."""
    if _QUESTION_END.search(text, start, stop):
        return False
    items = [text[s:(marks[i + 1][0] if i + 1 < len(marks) else len(text))] for i, (_, s, _) in enumerate(marks)]
    return any(p.search(item) for item in items for _, p in _KIND_CUES)


def _clean_label(label: str | None) -> str | None:
    return label.strip().rstrip(":").strip() if label else None


_LICENCE_Q = re.compile(r"licen[cs]\w*\s+(?:problems?|issues?|risks?|concerns?|question)|\b(?:is\s+(?:it|this|that)|be)\s+legal\b"
                        r"|(?:授权|许可|合规)(?:问题|风险)", re.IGNORECASE)


# "帮我看看这台机器能不能用", "is this box good to go?": a machine judged with no job named is its acceptance.
_THIS_MACHINE_OK = lx.rx(r"(?:这|那)(?:台|个)(?:机器|服务器|机子|节点|主机|实例)[^，。？?]{0,8}?(?:能不能用|能用吗|可以用吗|行不行|有没有问题|靠谱吗|正常吗)"
                         r"|\B<(?:is\s+)?(?:this|the|our|my)\s+(?:new\s+|rented\s+)?(?:box|machine|node|server|instance|host)"
                         r"\s+(?:ok|okay|usable|good\s+to\s+go|any\s+good|healthy|fine|legit)>\E")


# a vendor's MLPerf results weighed for acceptance ("can we accept the node on those?", "够不够验收"): which
# benchmark proves the service, answered by bot/compose/explain_benchmark.py through the checklist
_MLPERF_JUDGED = lx.rx(r"(?:\B<(?:accept\w*|enough|sufficient|sign\s+off|good\s+enough|proof|prove)>\E"
                       r"|验收|够不够|够吗|能不能用|能直接)")


# "trust the MLPerf Offline numbers?": the scenario named is what is weighed (without one, the latency to expect)
_MLPERF_TRUSTED = lx.rx(r"\B<(?:trust\w*|rely|reliable)>\E|可信|靠谱|能信")
_SCENARIO_NAMED = lx.rx(r"\B<(?:offline|server|single[\s-]?stream|multi[\s-]?stream)>\E")
_STACK_NAMED = lx.rx(r"\B<(?:driver|cuda|cu1[0-3][0-9]|wheel|toolkit|torch|pytorch)>\E|驱动")
_CHECKS_ASKED = lx.rx(r"\B<(?:what|which)\s+(?:\w+\s+){0,2}?(?:checks|tests)\s+(?:should|do|must|can|to|would)>\E")


_HOW_LONG = lx.rx(r"\B<(?:how\s+long\s+(?:will|would|does|do|to|for|is)|how\s+many\s+(?:hours|days|weeks)\s+(?:will|would|does|to))>\E"
                  r"|(?:要|需要|得)\s*(?:多久|多长时间|多少时间)|多久(?:能|可以)?(?:训|跑)完")
# Hardware or a provider asked for outright: an open choice even where explain words come with it.
_OPEN_CHOICE = lx.rx(r"\B<(?:gpus?|cards?|box|boxes|servers?|machines?|instances?|nodes?|cloud|provider|recs?|recommend\w*)>\E"
                     r"|卡|机器|服务器|配置|实例|哪家|平台")
_WILL_BE_SLOW = lx.rx(r"\B<(?:will|would|is\s+it\s+going\s+to)\s+(?:it|that|this|they|training|inference)\s+be\s+(?:too\s+|very\s+|really\s+)?slow>\E"
                      r"|会不会\s*(?:很|太|特别|比较)?\s*慢|会\s*(?:很|太|特别)?\s*慢\s*(?:吗|么)")
_NVLINK_ASKED = lx.rx(r"\B<(?:can\s+(?:i|we|you)\s+nvlink|nvlink\s+(?:two|2|[0-9]+|them|these|those))>\E"
                      r"|(?:能不能|能否|可不可以)\s*(?:上|接|用|组)?\s*nvlink")
# Two cards' rates weighed in the rate's own unit ("per GPU-hour, which is cheaper?", "按卡时哪个便宜"): the unit
# anywhere in the part and the cheaper one asked, not said ("the A100 box is cheaper per hour, but …")
_RATE_UNIT = lx.rx(r"\B<(?:per\s+(?:gpu[\s-]?)?(?:hour|hr)|(?:gpu[\s-]?)?hourly(?:\s+rate)?|an\s+hour)>\E|/\s*(?:gpu[\s-]?)?(?:hour|hr|h)\b"
                   r"|(?:每|一|按)\s*(?:卡时|小时)")
_CHEAPER_ASKED = lx.rx(r"\B<(?:which\s+(?:one\s+)?(?:is\s+|'s\s+)?(?:cheaper|less\s+expensive)|which\s+(?:one\s+)?costs?\s+less)>\E"
                       r"|\B<(?:cheaper|costs?\s+less|less\s+expensive)>\E[^?？,，;；]{0,30}[?？]"
                       r"|(?:哪个|哪张|谁)(?:更)?便宜")
_STAGE_PICK = lx.rx(r"\B<(?:(?:which|what)\s+(?:zero\s+|deepspeed\s+)?stage|deepspeed\s+stage)>\E|(?:deepspeed|zero).{0,6}哪个\s*stage|哪个\s*(?:zero\s*)?stage")
_BILLED_WHILE_DOWN = lx.rx(r"\B<(?:(?:keep|still|continue)\s+(?:to\s+)?(?:pay(?:ing)?|being\s+(?:billed|charged))"
                           r"|(?:billed|charged|paying)\s+while\s+(?:it(?:'s|\s+is)\s+)?(?:broken|down|dead|failed))>\E"
                           r"|坏了?.{0,10}(?:付钱|收费|计费|扣费)|(?:还|继续)(?:要|得)?(?:付钱|收费|计费|扣费)")
_RESUME_ASKED = lx.rx(r"\B<(?:auto[\s-]?resum\w*|auto[\s-]?restart\w*)>\E|自动(?:恢复|续训|续跑|重启|拉起)|断点续训")


def _kind(part: str, fields: dict, whole: bool) -> str | None:
    """The kind of answer a part wants, or None when it carries no cue (a preamble, a pasted line)."""
    part = PRICE_CONTEXT.sub(" ", part)  # "…nodes at different prices": the setting, not a price asked
    if _RATE_UNIT.search(part) and _CHEAPER_ASKED.search(part) and len(fields.get("gpu_options", [])) > 1 \
            and not any(fields.get(k) for k in ("model", "params_b", "costs", "gpu_count", "dataset_tokens_b")):
        return "price"  # "H100 SXM vs PCIe per GPU-hour, which is cheaper?": both rates from the table, not a job's cost
    if _HOW_LONG.search(part) and not any(fields.get(k) for k in ("dataset_tokens_b", "gpu_hours", "xids", "costs")) \
            and fields.get("workload") != "inference" and not _LATENCY_WORDS.search(part) and not _COST_CUES.search(part):
        return "explain"  # "how long will the LoRA take?": the time per token on the setup (explain_duration.py)
    if _WILL_BE_SLOW.search(part) and not fields.get("xids"):
        return "explain"  # "会不会很慢", "will it be slow on PCIe?": the speed to expect of a plan, not a symptom
    if _NVLINK_ASKED.search(part) and not _MEMORY_ASKED.search(_NVLINK_ASKED.sub(" ", part)):
        return "explain"  # "can I NVLink two 4090s?": whether the card has the link (bot/compose/explain_capability.py)
    if _STAGE_PICK.search(part):
        return "explain"  # "DeepSpeed 用哪个 stage": the ZeRO stage for the job (bot/compose/explain_training.py)
    if _BILLED_WHILE_DOWN.search(part):
        return "explain"  # "do we keep paying while it's broken?": a yes/no on billing, not a price
    if _RESUME_ASKED.search(part) and "xid" not in part:
        return "explain"  # "挂了以后怎么自动续训": how to carry on after a failure, not the failure diagnosed
    if _THIS_MACHINE_OK.search(part) and not any(fields.get(k) for k in ("model", "params_b", "xids", "symptoms")) \
            and not _STACK_NAMED.search(part):  # "is the driver on this box ok for CUDA 12.4?": the stack, not the box
        return "checklist"
    if _CHECKS_ASKED.search(part) and not fields.get("xids"):
        return "checklist"  # "what hardware checks should we run on the node?": a checklist, not hardware to pick
    if "mlperf" in part.lower() and (_MLPERF_JUDGED.search(part) or (_MLPERF_TRUSTED.search(part) and _SCENARIO_NAMED.search(part))) \
            and not fields.get("xids"):
        return "checklist"  # "vendor's MLPerf Offline results — can we accept the node on those?"
    if _QUOTE_OK.search(part) and _RATE_QUOTED.search(part) and not any(fields.get(k) for k in ("xids", "symptoms")):
        return "price"  # "$2.49/GPU-hour for 8x H100, is that ok?": the quote against the table's rows
    if _QUOTE_JUDGED.search(part) and _STATED_MONEY.search(part):
        return "cost"  # "vendor quoted $3.80/gpu/hr, good or bad?": their quote, judged
    if _BUY_PRICE.search(part) and _BUY_JUDGED.search(part) and not any(fields.get(k) for k in ("xids", "symptoms")):
        return "cost"  # "买一台 8 卡 4090 要 18 万，值吗", "a box for 280k, worth it vs renting?": bought against rented
    if _REALISM.search(part) and _TIME_WORD.search(part):
        return "cost"  # "is 3 wks realistic": the run's time against the plan (bot/compose/cost.py)
    if not whole and _PRECISION_SUPPORT.search(part) and not _MEMORY_WORDS.search(part) and not _FIT_WORDS.search(part):
        return "compat"  # "can the L20 use FP8?": what the card supports, not whether a job fits
    found = {kind for kind, pattern in _KIND_CUES if pattern.search(part)}
    if (_FASTER.search(part) or (lx.HOW_MUCH_WORSE.search(part) and "diagnose" not in found)) and len(fields.get("gpu_options", [])) > 1 and not ({"price", "cost"} & found):
        return "explain" if _FASTER.search(part) else "select"  # "which is faster?": from the specs; "is X much worse than Y?": per phase
    if "price" in found and _YOUR_PICK.search(part) and not _PRICE_WORDS.search(part):
        found.discard("price")  # "what would you rent for a 7B LoRA?": our pick, not what it rents for
    if "price" in found and _IMPACT.search(part) and not _PRICE_WORDS.search(part) and not _STATED_MONEY.search(part):
        found.discard("price")  # "how much does the H800's 400 GB/s NVLink hurt TP=8 serving?": an impact, not a price
    if "price" in found and _PRICES_COMPARED.search(part):
        found.discard("price")  # "价格差不多", "the A100 box is cheaper per hour": said, not asked
    if "price" in found and _LATENCY_WORDS.search(part) and not _STATED_MONEY.search(part) and not _PRICE_WORDS.search(part):
        return "explain"  # "ballpark TTFT and TPOT for …": a rough figure of latency, not of money
    if not found and instance_priced(part, fields, _MEMORY_ASKED):
        return "price"  # "what's a g6e.12xlarge on-demand in us-east-1", "p5 在 us-east-1 按需呢？": the instance's rate
    if not found:
        # their own prices and a question about them: a cost comparison
        return "cost" if fields.get("costs") and _STATED_MONEY.search(part) and _QUESTION.search(part) else None
    # Their own prices (quotes, not a budget) make a comparison of costs.
    money = bool(fields.get("costs")) and (bool(_STATED_MONEY.search(part)) or whole)
    if "diagnose" in found and _OOM.search(part) and (fields.get("model") or fields.get("params_b")) \
            and not fields.get("xids"):
        return "fit"  # "it OOMs; will checkpointing make it fit?" sizes a job
    if found and found <= {"diagnose", "explain"} and _PLAN_IMPACT.search(part) and not any(fields.get(k) for k in ("xids", "symptoms")):
        return "explain"  # "NVLink 缩水了对并行策略有啥影响": a stated cut's impact on the plan, not a fault or a pick
    if "diagnose" in found and not ({"price", "checklist"} & found and "xid" not in part):
        return "diagnose"
    if "compat" in found and not money and _LICENCE_Q.search(part):
        return "compat"  # "…way cheaper than L40S. any licence problem?": the licence is what is asked
    if money and ({"cost", "select", "explain", "price"} & found):
        return "cost"  # their own prices: which is cheaper, not what the table says
    if "checklist" in found:
        return "checklist"
    if ({"or", "select"} & found) and len(fields.get("billing_options", [])) > 1 and len(fields.get("gpu_options", [])) < 2:
        return "cost"  # "抢占式还是按量？", "spot or on-demand?": billing modes weighed, not GPUs
    if "price" in found and ("cost" not in found or not _COST_CUES.search(_PER_UNIT.sub(" ", part))):
        return "price"  # "最便宜多少钱一卡时": a GPU-hour is the price's unit, not a comparison
    if "cost" in found and "explain" in found and not money and _CHEAPER_DESCRIBED.search(part) \
            and not _WORTH_PAYING.search(part) and not _COST_ASKED.search(part):
        return "explain"  # "provider B = cheaper 8xH100 boxes but only 100G RoCE. does the network matter?"
    if "cost" in found and (not (_sized_choice(fields) and not money) or fields.get("gpu_option_counts")
                            or (fields.get("gpu_count") and not _WORTH_PAYING.search(part))):
        return "cost"  # "would 4x L40S be cheaper than 2x H100 for 70B?": stated setups priced (cost_setups.py)
    if "compat" in found and not ({"fit"} & found and fields.get("model")):
        return "compat"
    if "spec" in found and (fields.get("gpu") or fields.get("gpu_options")) and not (fields.get("model") or fields.get("params_b")):
        return "spec"  # "how much memory does an L20 have"; "how much memory does the 7B need" is a fit
    if found <= {"budget", "or"} and _explained_topic(part) and len(fields.get("gpu_options", [])) < 2:
        return "explain"  # "…a p99 latency budget; the vendor sends MLPerf numbers, trust them?"
    if {"select", "explain"} <= found and _is_open(fields) and not _OPEN_CHOICE.search(part):
        return "explain"  # "ZeRO-3 和 FSDP 有啥区别，选哪个": techniques weighed, not hardware to default
    if "explain" in found and "select" not in found and _IMPACT.search(part) and not _STATED_MONEY.search(part):
        return "explain"  # "how much does the H800's NVLink hurt our TP=8 run, H800 or H100?": the impact explained
    if "select" in found or ("explain" in found and _sized_choice(fields)):
        return "open" if _is_open(fields) else "select"
    if "fit" in found and _ENOUGH.search(part) and _explained_topic(part) and not ({"select", "or"} & found and len(fields.get("gpu_options", [])) > 1):
        return "explain"  # "is 25GbE between the nodes enough?": the link weighed, not the memory
    if "fit" in found and (fields.get("model") or fields.get("params_b") or "显存" in part or "vram" in part):
        return "fit"
    if "explain" in found and "or" not in found:
        return "explain"
    if "fit" in found:
        return "fit"
    if "or" in found or "budget" in found or "cost" in found:
        return "open" if _is_open(fields) else "select"
    return "explain"


def cued_kinds(text: str) -> set[str]:
    """The ask kinds whose cue phrases a (folded) part carries: where a part left unanswered is routed."""
    return {kind for kind, pattern in _KIND_CUES if pattern.search(text)}


def _sized_choice(fields: dict) -> bool:
    """'L40S vs A100 for serving Llama-3-8B': two GPUs weighed for one job is a choice, not a primer."""
    return len(fields.get("gpu_options", [])) > 1 and bool(fields.get("model") or fields.get("params_b"))


def _is_open(fields: dict) -> bool:
    """Nothing to size: no model, size, GPU or quote. A choice then gets a default, not a sizing."""
    return not any(fields.get(k) for k in ("model", "params_b", "gpu", "instance", "costs", "dataset_tokens_b"))


def _default_kind(fields: dict) -> str:
    if fields.get("xids") or fields.get("symptoms"):
        return "diagnose"
    if fields.get("costs"):
        return "cost"
    if fields.get("model") or fields.get("params_b"):
        return "fit"
    if fields.get("topics"):
        return "explain"
    return "open"


def _with_subjects(ask: Ask, fields: dict, spans: list[tuple[str, object, int]]) -> Ask:
    """The GPUs, instances and model the ask names, as the other extractors read them: those written
    inside the ask's part, else the message's."""
    inside = [str(v) for slot, v, start in spans if slot in _SUBJECT_SLOTS and ask.start <= start < ask.end
              and isinstance(v, str)]
    if not inside:
        inside = [*fields.get("gpu_options", [])] or ([fields["gpu"]] if fields.get("gpu") else [])
        inside += [i for i in [fields.get("instance"), *fields.get("instance_options", [])] if i]
        if fields.get("model"):
            inside.append(fields["model"])
    wants = [slot for slot, pattern in _WANTS if pattern.search(ask.text)]
    return ask.model_copy(update={"subjects": list(dict.fromkeys(inside)), "wants": wants})
