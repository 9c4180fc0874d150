"""The words a question uses to ask for a reading to be judged, one place for the composers that judge
pasted readings (bot.compose.diagnose) and measured figures (bot.compose.checklist_measured): the
answer opens in the same terms ("Normal, not a fault.", "Yes, something is wrong.").

- NORMAL_Q: "is this normal / ok / expected?", "正常吗": answered normal or not normal.
- WRONG_Q: "is something wrong?", "有没有问题": the same judgement asked the other way round, so
  the answer word flips ("Yes, something is wrong." for a fault, "Nothing wrong…" for none).
"""

from __future__ import annotations

import re

NORMAL_Q = re.compile(r"\b(?:normal|ok|okay|fine|expected|reasonable)\b|正常吗|正常不|是否正常|正不正常|合理吗",
                      re.IGNORECASE)
WRONG_Q = re.compile(r"\b(?:anything|something|what(?:'s|\s+is)?)\s+(?:\w+\s+)?wrong\b|\bwrong\s+with\b"
                     r"|\bis\s+(?:it|this|that|something)\s+(?:broken|faulty)\b"
                     r"|有问题吗|有没有问题|是不是有问题|是不是问题|出问题了吗|哪里不对|不对劲", re.IGNORECASE)
