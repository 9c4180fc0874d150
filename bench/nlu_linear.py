"""Parse time per 1,000 characters on the worst messages found (issue 28, items 1-3).

    python bench/nlu_linear.py [--sizes 1000,5000,20000,40000] [--random 30] [--seed 1]

For each kind of long run (blanks, blank lines, letters, digits, CJK, punctuation, repeated prices,
GPU names, mixed) and each size, one parse of a message made of that run around a short question,
then `--random` messages of random runs; it prints the seconds per 1,000 characters of each kind
at its largest size, and the worst case overall. A parse that is linear in the message keeps the
per-1,000 figure flat as the size grows. Messages over the parser's limit are refused (timed too).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.nlu.model import ParseError  # noqa: E402
from bot.nlu.parser import parse  # noqa: E402

RUNS = {
    "spaces": " ", "blank lines": "\n", "tabs and blanks": "\t \n", "letters": "a", "word-like": "h100",
    "digits": "9", "cjk": "显卡", "punctuation": ".,;:!?-/()", "prices": "$2.49/hr ", "cny prices": "每小时8元，",
    "gpu names": "8x H100 ", "numbers with units": "3 万卡时 ", "mixed": "a 1\n显.$ ",
}
PIECES = [" ", "\n", "a", "9", "显", ".", "$", "/", "h100", "元", "万", "per", "hours", "，"]


def timed(text: str) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        parse(text)
        outcome = "read"
    except ParseError as exc:
        outcome = f"refused ({exc.field})"
    return time.perf_counter() - start, outcome


def message(run: str, size: int) -> str:
    return ("how many H100 for llama 70b " + run * (size // len(run) + 1))[:size]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000,40000")
    ap.add_argument("--random", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    parse("warm up the catalog patterns: H100")
    worst = (0.0, "", 0, "")
    print(f"{'kind':20} " + " ".join(f"{n:>9,}" for n in sizes) + "   s per 1,000 chars")
    for kind, run in RUNS.items():
        row = []
        for size in sizes:
            seconds, outcome = timed(message(run, size))
            per_k = seconds / size * 1000
            row.append(per_k)
            if per_k > worst[0]:
                worst = (per_k, kind, size, outcome)
        print(f"{kind:20} " + " ".join(f"{v:9.4f}" for v in row))
    rng = random.Random(args.seed)
    for i in range(args.random):
        size = rng.choice(sizes)
        text = "".join(rng.choice(PIECES) * rng.choice([1, 2, 5, 40, 500, 3000]) for _ in range(400))[:size]
        seconds, outcome = timed(text)
        per_k = seconds / max(len(text), 1) * 1000
        if per_k > worst[0]:
            worst = (per_k, f"random #{i}", len(text), outcome)
    print(f"worst case: {worst[0]:.4f} s per 1,000 characters ({worst[1]}, {worst[2]:,} characters, {worst[3]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
