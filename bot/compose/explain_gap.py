"""How much worse one GPU is than another ("is the L20 much worse than the L40S?", "L20 会比 L40S 差很多吗"):
the gap said phase by phase, as the lead of the side-by-side reply (bot/compose/explain_compare.py).

Decode streams the weights each token, so its speed follows memory bandwidth; prefill (long prompts,
time to first token, large batches) and training are matrix multiplies, so they follow dense compute.
Two cards with the same bandwidth and a third of the compute serve chat at about the same speed and
process long documents about three times as slowly; one number for both would mislead either way.
"""

from __future__ import annotations

from bot.advice.compare import Comparison
from bot.compose import ComposeContext
from bot.compose.spec_figures import mark, value_text
from bot.messages import say
from bot.messages.format import count, gpu_name
from bot.models import Ask

# Within this ratio two figures count as the same for the phase they decide.
SAME_RATIO = 1.1


def gap_lead(ask: Ask, ctx: ComposeContext, c: Comparison) -> str | None:
    """The first-named GPU against the other, per phase; None unless the ask weighs one card's gap to
    another (bot.nlu.lexicon.HOW_MUCH_WORSE) between exactly two GPUs with both figures known."""
    from bot.nlu.lexicon import HOW_MUCH_WORSE
    if len(c.sides) != 2 or not HOW_MUCH_WORSE.search(ask.text):
        return None
    lang = ctx.language
    names = [gpu_name(ctx.catalog, s.gpu.id, lang) for s in c.sides]
    compute = _phase(c, ctx, "bf16")
    if compute is None or (c.job == "training" and compute[0] == "same"):
        return None  # the same compute: the gap is elsewhere (NVLink, memory), which the pick's own lead says
    if c.job == "training":
        return say("explain.gap_lead_training", lang, a=names[0], b=names[1], compute=compute[1])
    bandwidth = _phase(c, ctx, "bandwidth_gbs")
    if bandwidth is None or bandwidth[0] == compute[0] == "same":
        return None
    return say("explain.gap_lead", lang, a=names[0], b=names[1], decode=bandwidth[1], prefill=compute[1])


def _phase(c: Comparison, ctx: ComposeContext, key: str) -> tuple[str, str] | None:
    """How the first side does in the phase the figure decides ("same", "slower", "faster"), and that said."""
    line = next((ln for ln in c.lines if ln.key == key), None)
    if line is None:
        return None
    a, b = (line.figures[i].value or 0.0 for i in (0, 1))
    if not a or not b:
        return None
    lang = ctx.language
    texts = [value_text(s.gpu, key, lang) or "—" for s in c.sides]
    reported = mark(any(f.reported for f in line.figures), lang)
    ratio = max(a, b) / min(a, b)
    phase = "decode" if key == "bandwidth_gbs" else ("training" if c.job == "training" else "prefill")
    how = "same" if ratio < SAME_RATIO else ("slower" if a < b else "faster")
    return how, say(f"explain.gap_{phase}_{how}", lang, a_value=texts[0], b_value=texts[1],
                    ratio=count(round(ratio, 1)), reported=reported)
