"""Several instance types named in one price ask ("p5.48xlarge and p4de.24xlarge in Tokyo: how much?"):
each one's row in the region asked, in the order named, under one source line.

The first instance's answer leads; each further instance's lead comes next, then each one's particulars
(shape, zones, other regions). The source and "confirm" lines are said once, at the end.
"""

from __future__ import annotations

from bot.models import AskAnswer

MAX_INSTANCES = 3  # instances answered in one reply; a longer list is a comparison table's job
MAX_DETAILS = 8  # as the price answer's own limit, its source lines included


def merged(replies: list[AskAnswer], source_lines: list[str]) -> AskAnswer:
    """One reply from each instance's own answer: the first's lead, each further instance's lead, then
    each one's lines; the source lines (`source_lines`, the same in every reply) once, last."""
    first = replies[0]
    if len(replies) == 1:
        return first
    own = lambda r: [d for d in r.details if d not in source_lines]  # noqa: E731
    details = [r.lead for r in replies[1:]]  # every instance's figures before any one's particulars
    for reply in replies:
        details += own(reply)
    tail = [d for d in first.details if d in source_lines]
    sources = list(dict.fromkeys(s for r in replies for s in r.sources))
    figures = {**first.figures, "instances": ",".join(str(r.figures.get("instance_type")) for r in replies)}
    return AskAnswer(kind=first.kind, lead=first.lead, details=[*details[:MAX_DETAILS - len(tail)], *tail],
                     rule=first.rule, sources=sources, figures=figures)
