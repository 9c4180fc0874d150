"""Fields the sizing calculators read:
'offline batch inference' -> request_mode; '3 epochs', '训练 2 轮' -> epochs; 'LoRA rank 16' ->
lora_rank; 'gradient checkpointing' -> recompute; 'fp8 KV cache' -> kv_precision; '40% MFU' -> mfu;
'offload the optimizer', 'ZeRO-Offload' -> offload; 'ZeRO-3' -> zero_stage; 'eager attention',
'FlashAttention' -> attention; 'DP attention' -> dp_attention (issue #27)."""

from __future__ import annotations

from collections.abc import Callable

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number, six_digits

_EPOCHS = lx.rx(rf"{lx.NUM}\s*(?:epochs?|个\s*epochs?|轮|遍)(?![a-z])|\B<epochs?>\E\s*(?:=|:|of)?\s*{lx.NUM}")
_LORA_RANK = lx.rx(rf"\B<(?:lora[\s_-]*)?(?:rank|lora[\s_-]*r)>\E\s*(?:=|:|of|is)?\s*{lx.INT}|(?:lora\s*)?秩\s*(?:为|是|=)?\s*{lx.INT}")
_KV_PRECISION = lx.rx(r"\B<(fp8|int8|fp16|bf16|fp32)\s*kv[\s_-]*cache>\E|\B<kv[\s_-]*cache\s*(?:in|as|:|=|用|使用|量化为|量化到)?\s*(fp8|int8|fp16|bf16|fp32)>\E")
_MFU = lx.rx(rf"\B<mfu>\E\s*(?:of|=|:|is|约|为|大约|about|around)?\s*{lx.NUM}\s*(%)?|{lx.NUM}\s*(%)\s*\B<mfu>\E")


_OFFLOAD_PARAMS = lx.rx(
    r"\B<(?:zero[\s-]?infinity|offload(?:ing|s|ed)?\s+(?:the\s+)?(?:optimi[sz]er\s+(?:states?\s+)?and\s+(?:the\s+)?)?"
    r"(?:param(?:eter)?s|weights)(?:\s+to\s+(?:the\s+)?(?:cpu|ram|nvme))?|param(?:eter)?\s+offload\w*)>\E"
    r"|参数卸载|参数\s*offload|把参数\s*(?:卸载|offload)\s*到\s*(?:cpu|内存)"
)
_OFFLOAD_OPTIMIZER = lx.rx(
    r"\B<(?:zero[\s-]?offload|(?:cpu|nvme)[\s-]offload\w*|offload(?:ing|s|ed)?\s+(?:the\s+)?(?:adam\s+|optimi[sz]er\s+)?"
    r"(?:optimi[sz]er|states?)(?:\s+states?)?(?:\s+to\s+(?:the\s+)?(?:cpu|ram|host\s+memory))?"
    r"|optimi[sz]er(?:\s+states?)?\s+(?:offload\w*|on\s+(?:the\s+)?cpu|in\s+cpu\s+ram))>\E"
    r"|优化器(?:状态)?\s*(?:卸载|offload)(?:到\s*(?:cpu|内存))?|(?:cpu|内存)\s*卸载"
)
_ZERO_STAGE = lx.rx(r"\B<(?:deepspeed\s+)?zero[\s-]?(?:stage[\s-]?)?([123])(?!\d)")
_ATTENTION = lx.table([
    (r"\B<(?:eager\s+attention|attn_implementation\s*=\s*['\"]?eager|(?:no|without)\s+flash[\s-]?attention\w*)>\E"
     r"|不用\s*flash\s*attention|普通注意力", "eager"),
    (r"\B<(?:flash[\s-]?attention\w*|flash[\s-]?attn\w*|sdpa|scaled[\s_-]dot[\s_-]product[\s_-]attention)>\E", "flash"),
])
_DP_ATTENTION = lx.rx(r"\B<(?:(?:enable[\s_-]+)?dp[\s_-]+attention|data[\s-]parallel\s+attention|attention\s+data[\s-]parallel\w*)>\E"
                      r"|数据并行注意力|dp\s*attention")
# "gradient checkpointing" is recompute, never saving checkpoints: a no-checkpoint reading of it by
# the checkpoint slot (which runs first) is taken back here.
_RECOMPUTE_WORDS = lx.rx(r"\B<(?:gradient|activation)\s+checkpointing>\E|梯度检查点")


def extract(scan: Scan) -> None:
    for read in _READERS:
        read(scan)


def _request_mode(scan: Scan) -> None:
    scan.first_keyword("request_mode", lx.REQUEST_MODE)


def _epochs(scan: Scan) -> None:
    for m in scan.matches(_EPOCHS):
        scan.set("epochs", number(m.group(1) or m.group(2)), m.start(), m.end())


def _lora_rank(scan: Scan) -> None:
    for m in scan.matches(_LORA_RANK):
        scan.set("lora_rank", int(m.group(1) or m.group(2)), m.start(), m.end())


def _recompute(scan: Scan) -> None:
    _take_back_recompute_words(scan)
    scan.first_keyword("recompute", lx.RECOMPUTE)


def _take_back_recompute_words(scan: Scan) -> None:
    """Undo the checkpoint slot's reading of "without gradient checkpointing" as "saves no checkpoints"."""
    if scan.fields.get("checkpointing") is not False:
        return
    span = next((sp for sp in scan.spans if sp.slot == "checkpointing"), None)
    if span is None:
        return
    free = bytearray(len(scan.taken))
    if not any(span.start <= m.start() < span.end for m in scan.matches(_RECOMPUTE_WORDS, free)):
        return
    del scan.fields["checkpointing"]
    scan.spans.remove(span)
    scan.taken[span.start:span.end] = b"\x00" * (span.end - span.start)


def _offload(scan: Scan) -> None:
    for pattern, value in ((_OFFLOAD_PARAMS, "params"), (_OFFLOAD_OPTIMIZER, "optimizer")):
        m = next(scan.matches(pattern), None)
        if m:
            scan.set("offload", value, m.start(), m.end())
            return


def _zero_stage(scan: Scan) -> None:
    # Recorded without claiming the words: "ZeRO-3" also names the parallelism topic.
    m = next(scan.matches(_ZERO_STAGE), None)
    if m:
        scan.put("zero_stage", int(m.group(1)), m.start(), m.end())


def _attention(scan: Scan) -> None:
    m = next(scan.matches(_DP_ATTENTION), None)
    if m:
        scan.set("dp_attention", True, m.start(), m.end())
    scan.first_keyword("attention", _ATTENTION)


def _kv_precision(scan: Scan) -> None:
    for m in scan.matches(_KV_PRECISION):
        scan.set("kv_precision", m.group(1) or m.group(2), m.start(), m.end())


def _mfu(scan: Scan) -> None:
    for m in scan.matches(_MFU):
        value = number(m.group(1) or m.group(3))
        if m.group(2) or m.group(4) or value > 1:
            value = value / 100  # "40% MFU", "MFU 40": a percentage
        scan.set("mfu", six_digits(value), m.start(), m.end())


_READERS: list[Callable[[Scan], None]] = [
    _request_mode, _epochs, _lora_rank, _recompute, _kv_precision, _mfu, _offload, _zero_stage, _attention,
]
