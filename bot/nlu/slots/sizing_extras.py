"""Fields the sizing calculators read:
'offline batch inference' -> request_mode; '3 epochs', '训练 2 轮' -> epochs; 'LoRA rank 16' ->
lora_rank; 'gradient checkpointing' -> recompute; 'fp8 KV cache' -> kv_precision; '40% MFU' -> mfu."""

from __future__ import annotations

from collections.abc import Callable

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, number, six_digits

_EPOCHS = lx.rx(rf"{lx.NUM}\s*(?:epochs?|个\s*epochs?|轮|遍)(?![a-z])|\B<epochs?>\E\s*(?:=|:|of)?\s*{lx.NUM}")
_LORA_RANK = lx.rx(rf"\B<(?:lora[\s_-]*)?(?:rank|lora[\s_-]*r)>\E\s*(?:=|:|of|is)?\s*{lx.INT}|(?:lora\s*)?秩\s*(?:为|是|=)?\s*{lx.INT}")
_KV_PRECISION = lx.rx(r"\B<(fp8|int8|fp16|bf16|fp32)\s*kv[\s_-]*cache>\E|\B<kv[\s_-]*cache\s*(?:in|as|:|=|用|使用|量化为|量化到)?\s*(fp8|int8|fp16|bf16|fp32)>\E")
_MFU = lx.rx(rf"\B<mfu>\E\s*(?:of|=|:|is|约|为|大约|about|around)?\s*{lx.NUM}\s*(%)?|{lx.NUM}\s*(%)\s*\B<mfu>\E")


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
    scan.first_keyword("recompute", lx.RECOMPUTE)


def _kv_precision(scan: Scan) -> None:
    for m in scan.matches(_KV_PRECISION):
        scan.set("kv_precision", m.group(1) or m.group(2), m.start(), m.end())


def _mfu(scan: Scan) -> None:
    for m in scan.matches(_MFU):
        value = number(m.group(1) or m.group(3))
        if m.group(2) or m.group(4) or value > 1:
            value = value / 100  # "40% MFU", "MFU 40": a percentage
        scan.set("mfu", six_digits(value), m.start(), m.end())


_READERS: list[Callable[[Scan], None]] = [_request_mode, _epochs, _lora_rank, _recompute, _kv_precision, _mfu]
