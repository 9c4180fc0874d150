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
  network (checklist), not a generic diagnosis.
"""

from __future__ import annotations

from bot.nlu import lexicon as lx

_ENOUGH = lx.rx(r"\B<(?:enough|sufficient|suffice|cover\s+it|doable\s+with\s+(?:that|it))>\E|够不够|够吗|够用吗|够了吗|够么|能不能覆盖")
_DC_OK = lx.rx(r"\B<(?:fine|ok|okay|good|safe|allowed|legit|suitable|approved|usable)\s+(?:to\s+(?:rack|deploy|host|run|use|put)\w*"
               r"\s+(?:\w+\s+){0,2})?(?:for|in|into|at)\s+(?:a\s+|the\s+|our\s+|my\s+)?(?:data[\s-]?cent\w*|datacent\w*|colo\w*"
               r"|racks?|server\s+rooms?|idc)>\E"
               r"|(?:机房|数据中心|机柜|idc)(?:里|中|上)?.{0,6}?(?:能用吗|可以用吗|没问题吗|行吗|可以吗|行不行|能不能用|合适吗|可不可以|能放吗)")
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


def routed(part: str, fields: dict, whole: bool, consumer: bool) -> str | None:
    """The kind the part's stated facts decide, or None to leave it to the cue table."""
    if fields.get("budget") and fields.get("dataset_tokens_b") and _ENOUGH.search(part) and not fields.get("xids"):
        return "cost"  # "budget $50k … 7B on 300B tokens, enough?": the run's cost against the money
    if consumer and fields.get("deployment") in ("datacenter", "commercial-hosting") and _DC_OK.search(part):
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
    return None
