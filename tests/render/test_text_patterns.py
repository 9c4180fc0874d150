"""The name patterns the text render joins from the catalog are the same string in every process.

Python orders a set of strings by its per-process hash seed. A pattern joined from a set in that
order is a new regex in every start, so the kept regex programs (bot/cache.py) miss and are
rewritten on every ask (#31). Two processes with different hash seeds must build the same text.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import hashlib
from bot.render import text
gpu = text._gpu_names().pattern
varying = text._varying().pattern
text._in_chinese_names("RTX 4090", "zh")
(zh, _), = text._ZH_NAMES.values()
for p in (gpu, varying, zh.pattern):
    print(len(p), hashlib.sha256(p.encode()).hexdigest())
"""


def patterns_under(seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    return out.stdout.split("\n")


def test_the_gpu_name_patterns_do_not_depend_on_the_hash_seed():
    first, second = patterns_under("1"), patterns_under("2")
    assert len([line for line in first if line]) == 3
    assert first == second


def test_longer_names_still_come_first_so_a_branded_name_is_one_name():
    from bot.render import text

    alternatives = text._gpu_names().pattern.split("(?:", 1)[1].rsplit(")", 2)[0].split("|")
    lengths = [len(a.replace("\\", "")) for a in alternatives]
    assert lengths == sorted(lengths, reverse=True)
    assert text._gpu_names().search("an NVIDIA GeForce RTX 4090 box").group(0) == "NVIDIA GeForce RTX 4090"
