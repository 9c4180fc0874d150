"""Charts for an answer: per-GPU memory against capacity, and cost-to-complete across candidates.

matplotlib is imported inside `render_charts` (Agg backend) so importing this module, and the CLI's
cold start, stay fast.
"""

from __future__ import annotations

from pathlib import Path

from bot.errors import InputError
from bot.models import Answer

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
COLOURS = ("#4c72b0", "#dd8452", "#c44e52", "#8172b3", "#55a868", "#937860")
MAX_BARS = 12


class ChartError(InputError):
    """The answer has nothing to draw (the message says what to add)."""

    def __init__(self, message: str):
        super().__init__(None, message)


def render_charts(answer: Answer, path: str | Path) -> Path:
    """Draw the memory chart (and the cost chart when the answer has costs) into one PNG at `path`."""
    candidates = _memory_candidates(answer)
    if not candidates and not answer.costs:
        raise ChartError("nothing to chart: the answer has no memory estimate and no costs (name a model or size)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (1 if candidates else 0) + (1 if answer.costs else 0)
    heights = [max(2.5, 0.45 * len(candidates) + 1.2)] if candidates else []
    costs = _main_currency(answer.costs)[:MAX_BARS]
    if costs:
        heights.append(max(2.5, 0.45 * len(costs) + 1.2))
    fig, axes = plt.subplots(panels, 1, figsize=(11, sum(heights)), gridspec_kw={"height_ratios": heights},
                             squeeze=False)
    row = 0
    if candidates:
        _memory_panel(axes[row][0], answer, candidates)
        row += 1
    if costs:
        _cost_panel(axes[row][0], costs)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _main_currency(costs: list) -> list:
    """Costs in the currency most lines use: amounts in different currencies share no axis."""
    if not costs:
        return []
    currencies = [c.currency for c in costs]
    main = max(set(currencies), key=currencies.count)
    return sorted((c for c in costs if c.currency == main), key=lambda c: c.total)


def _memory_candidates(answer: Answer) -> list:
    chosen = [c for c in answer.candidates if c.memory_gb is not None]
    fitting = [c for c in chosen if c.fits]
    rest = [c for c in chosen if not c.fits]
    return (fitting + rest)[:MAX_BARS]


def _memory_panel(ax, answer: Answer, candidates: list) -> None:
    labels = [f"{c.count} x {c.gpu}" + ("" if c.fits else "  (does not fit)") for c in candidates]
    y = range(len(candidates))
    left = [0.0] * len(candidates)
    for name, colour in zip(COMPONENTS, COLOURS):
        values = [getattr(c.memory_gb, name) for c in candidates]
        if not any(values):
            continue
        ax.barh(list(y), values, left=left, color=colour, label=name.replace("_", " "))
        left = [a + b for a, b in zip(left, values)]
    ax.scatter([c.have_gb for c in candidates], list(y), marker="|", s=400, color="black", zorder=3,
               label="GPU capacity")
    for i, c in enumerate(candidates):
        ax.text(max(c.need_gb, c.have_gb) * 1.01, i, f"{c.need_gb:.1f} / {c.have_gb:g} GB",
                va="center", fontsize=8)
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlabel("GB per GPU")
    title = "Memory per GPU by component, against each candidate's capacity"
    if answer.requirement.model or answer.requirement.params_b:
        title += f" ({answer.requirement.model or f'{answer.requirement.params_b:g}B'}, {answer.requirement.workload or 'inference'})"
    ax.set_title(title, fontsize=10)
    ax.set_xlim(0, max(max(c.need_gb, c.have_gb) for c in candidates) * 1.25)
    ax.legend(fontsize=8, loc="lower right", ncol=2)


def _cost_panel(ax, costs: list) -> None:
    labels = [c.label + (f" [{c.billing}]" if c.billing and c.billing not in c.label else "") for c in costs]
    colours = ["#55a868" if c.cheapest or (c.cheapest is None and c.total == min(x.total for x in costs))
               else ("#4c72b0" if not c.stale else "#bbbbbb") for c in costs]
    y = list(range(len(costs)))
    ax.barh(y, [c.total for c in costs], color=colours)
    for i, c in enumerate(costs):
        tags = [f"{c.total:,.2f} {c.currency}", f"{c.hours:,.1f} h"]
        if c.cheapest:
            tags.append("cheapest")
        if c.fastest:
            tags.append("fastest")
        if c.stale:
            tags.append(f"STALE price ({c.quoted_on})")
        ax.text(c.total * 1.01, i, ", ".join(tags), va="center", fontsize=8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"cost to complete ({costs[0].currency}; lines in other currencies are not drawn)")
    ax.set_title("Cost to complete: GPU compute only (add vCPU/RAM, storage, bandwidth, software, recovery)",
                 fontsize=10)
    ax.set_xlim(0, max(c.total for c in costs) * 1.6)
