"""Serving lengths written as input and output: '~1k in / 256 out', 'ISL 1k, OSL 300', '输入 2k、输出 500
token' -> context = input + output (what one request holds in the KV cache at its end)."""

from __future__ import annotations

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan, fold, number

_N = r"~?\s*([0-9]+(?:\.[0-9]+)?)\s*(k)?"
_IN_OUT = lx.rx(
    rf"{_N}\s*(?:tokens?\s*)?\B<(?:in|input)>\E\s*(?:/|,|and|\+|、|，)?\s*{_N}\s*(?:tokens?\s*)?\B<(?:out|output)>\E"
    rf"|\B<(?:isl|input(?:\s+length)?)>\E\s*[:=~]?\s*{_N}\s*(?:tokens?)?\s*(?:/|,|;|and|、|，)?\s*\B<(?:osl|output(?:\s+length)?)>\E\s*[:=~]?\s*{_N}"
    rf"|输入\s*(?:一般|大约|约)?\s*{_N}\s*(?:token|个token)?\s*[、，,/]?\s*输出\s*(?:一般|大约|约)?\s*{_N}"
)
# A prompt's length written alone: "prompts of ~1,500 tokens", "2k-token prompts", "ISL 1k", "输入一般 2k token".
_NC = r"~?\s*([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:\.[0-9]+)?)\s*(k)?"
_PROMPT = lx.rx(
    rf"\B<(?:prompts?|inputs?)\s+(?:of|around|about|~|are|is)\s*(?:about|around|roughly)?\s*{_NC}\s*tokens?>\E"
    rf"|{_NC}\s*-?\s*tokens?\s+\B<(?:prompts?|inputs?)>\E"
    rf"|\B<(?:isl|input\s+length)>\E\s*[:=~]?\s*{_NC}"
    rf"|(?:输入|提示词|prompt)\s*(?:一般|大约|约|大概|平均|长度)?\s*(?:在|是)?\s*{_NC}\s*(?:token|个token)"
)
MAX_TOKENS = 10_000_000
MIN_TOKENS = 16  # "8 in 9 out of 10" is no request


def _tokens(value: str | None, k: str | None) -> int:
    return int(number(value) * (1000 if k else 1)) if value else 0


def _lengths(m) -> tuple[int, int] | None:
    groups = m.groups()
    pairs = [(groups[i], groups[i + 1]) for i in range(0, len(groups), 2)]
    present = [(v, k) for v, k in pairs if v]
    if len(present) < 2:
        return None
    first, second = _tokens(*present[0]), _tokens(*present[1])
    if min(first, second) < MIN_TOKENS or first + second > MAX_TOKENS:
        return None
    return first, second


def input_output(text: str) -> tuple[int, int] | None:
    """The (input, output) tokens of one request as written ('~1k in / 256 out'), or None: the
    prompt alone is what prefill (TTFT) computes, the context what the KV cache holds."""
    m = _IN_OUT.search(fold(text))  # folded as the scan reads it (full-width digits, case)
    return _lengths(m) if m else None


def prompt_alone(text: str) -> int | None:
    """A prompt's length written without an output length, or None."""
    m = _PROMPT.search(fold(text))
    if m is None:
        return None
    value, k = next(((v, k) for v, k in zip(m.groups()[::2], m.groups()[1::2], strict=True) if v), (None, None))
    tokens = int(number(value) * 1024) if value and k else _tokens(value, k)  # "2k" as the numbers' slot reads a context
    return tokens if MIN_TOKENS <= tokens <= MAX_TOKENS else None


def extract(scan: Scan) -> None:
    m = next(scan.matches(_IN_OUT), None)
    lengths = _lengths(m) if m is not None else None
    if m is not None and lengths is not None:
        scan.put("prompt_tokens", lengths[0], m.start(), m.end())  # prefill reads the input alone
        if "context" not in scan.fields:
            scan.set("context", sum(lengths), m.start(), m.end())
        return
    prompt = prompt_alone(scan.text)
    if prompt is not None:  # the numbers' slot still reads it as the context
        at = _PROMPT.search(fold(scan.text))
        scan.put("prompt_tokens", prompt, at.start() if at else 0, at.end() if at else 0)
