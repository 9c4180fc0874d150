"""`gpu-advisor history HOST` (the check history as text and a chart) and `gpu-advisor db`.

Top-level imports stay light: the store, the engine and matplotlib load inside the handlers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

COUNTER_LABELS = {
    "ecc_uncorrected": "ECC uncorr", "ecc_corrected": "ECC corr", "remapped_uncorrectable": "remap uncorr",
    "remapped_correctable": "remap corr", "retired_pages": "retired pg",
}


def _open_store(args: argparse.Namespace, migrate: bool = True):
    from bot.cli import CliInputError
    from bot.store import Store, StoreError

    try:
        return Store(args.database, migrate=migrate)
    except StoreError as exc:
        raise CliInputError(str(exc)) from exc


# -- history ---------------------------------------------------------------------------------


def render_history(host: str, checks, findings) -> str:
    """The history as a per-GPU table (oldest first), then what the rules make of the last change."""
    from bot.store.models import COUNTERS

    if not checks:
        return f"No checks of {host} are stored yet. Run a host check first (`/gpu check {host}` in Slack)."
    lines = [f"Check history of {host}: {len(checks)} check(s), "
             f"{checks[0].checked_at:%Y-%m-%d %H:%M} to {checks[-1].checked_at:%Y-%m-%d %H:%M} UTC"]
    indexes = sorted({g.index for c in checks for g in c.gpus})
    header = f"  {'checked (UTC)':<17}" + "".join(f"{COUNTER_LABELS[m]:>13}" for m in COUNTERS) + "  Xids (code×events)"
    for index in indexes:
        name = next((g.name for c in checks for g in c.gpus if g.index == index and g.name), None)
        label = "GPUs not in the probe (Xids by PCI address)" if index == -1 else f"GPU {index}"
        lines += ["", f"{label}" + (f" — {name}" if name else ""), header]
        previous = None
        for check in checks:
            gpu = check.gpu(index)
            if gpu is None:
                lines.append(f"  {check.checked_at:%Y-%m-%d %H:%M}  (not reported)")
                continue
            cells = []
            for metric in COUNTERS:
                value = gpu.counter(metric)
                before = previous.counter(metric) if previous else None
                mark = "↑" if value is not None and before is not None and value > before else " "
                cells.append(f"{'—' if value is None else value:>12}{mark}")
            xids = ", ".join(f"{code}×{count}" for code, count in sorted(gpu.xids.items())) or "—"
            lines.append(f"  {check.checked_at:%Y-%m-%d %H:%M}" + "".join(cells) + f"  {xids}")
            previous = gpu
    lines.append("")
    if len(checks) < 2:
        lines.append("One check only: it is the baseline the next check is compared with.")
    elif findings:
        lines.append("Since the previous check:")
        lines += [f"  [{f.severity}] {f.message}" for f in findings]
    else:
        lines.append("Since the previous check: no counter rose and no new Xid appeared.")
    return "\n".join(lines)


def render_history_chart(host: str, checks, path: Path) -> Path:
    """One panel per counter (and one for Xid events), one line per GPU, over check time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from bot.store.models import COUNTERS

    panels = [m for m in COUNTERS if any(g.counter(m) is not None for c in checks for g in c.gpus)]
    panels.append("xid events")
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.2 * len(panels)), sharex=True, squeeze=False)
    indexes = sorted({g.index for c in checks for g in c.gpus})
    for ax, metric in zip(axes[:, 0], panels):
        for index in indexes:
            points = []
            for check in checks:
                gpu = check.gpu(index)
                if gpu is None:
                    continue
                value = sum(gpu.xids.values()) if metric == "xid events" else gpu.counter(metric)
                if value is not None:
                    points.append((check.checked_at, value))
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                        label="unlisted" if index == -1 else f"GPU {index}")
        ax.set_ylabel(COUNTER_LABELS.get(metric, metric))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counters are whole numbers
        ax.grid(alpha=0.3)
    axes[0, 0].set_title(f"{host}: GPU health counters per check")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if handles:
        axes[0, 0].legend(fontsize="small", ncol=4)
    fig.autofmt_xdate()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _cmd_history(args: argparse.Namespace) -> int:
    from bot.store.trends import trend_facts

    with _open_store(args) as store:
        checks = store.check_history(args.host, limit=args.limit)
    findings = []
    if len(checks) >= 2:
        from bot.advisor import Advisor

        result = Advisor().engine.run(trend_facts(checks[-2], checks[-1]), language=args.lang)
        findings = [f for f in result.findings if f.rule.startswith("health.history-")]
    if args.json:
        print(json.dumps({"host": args.host, "checks": [c.model_dump(mode="json") for c in checks],
                          "findings": [f.model_dump(mode="json") for f in findings]}, ensure_ascii=False))
    else:
        print(render_history(args.host, checks, findings))
    if args.chart:
        if not checks:
            from bot.cli import CliInputError

            raise CliInputError(f"no checks of {args.host} are stored, so there is nothing to chart")
        out = render_history_chart(args.host, checks, Path(args.chart))
        if not args.json:
            print(f"Chart written to {out}")
    return 0


def register_history(sub) -> None:
    parser = sub.add_parser("history", help="a host's GPU health history (ECC, remapped rows, retired pages, Xids)")
    parser.add_argument("host", help="the inventory host name")
    parser.add_argument("--chart", metavar="OUT.png", help="also draw the trend as a PNG chart")
    parser.add_argument("--limit", type=int, default=30, help="the newest N checks (default 30)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    parser.add_argument("--database", metavar="URL", help="database URL (default: GPU_ADVISOR_DATABASE_URL)")
    parser.set_defaults(handler=_cmd_history)


# -- db --------------------------------------------------------------------------------------


def _cmd_db(args: argparse.Namespace) -> int:
    with _open_store(args, migrate=False) as store:
        current, head = store.migration_status()
        if args.action == "upgrade":
            applied = store.migrate()
            print(f"{store.describe()}: applied migration(s) {applied}" if applied
                  else f"{store.describe()}: already at version {head}")
            return 0
        state = "up to date" if current == head else f"{head - current} migration(s) pending: run `gpu-advisor db upgrade`"
        print(f"{store.describe()}: schema version {current} of {head} ({state})")
        return 0 if current == head else 1


def register_db(sub) -> None:
    parser = sub.add_parser("db", help="the store's schema: show its version or apply migrations")
    parser.add_argument("action", choices=["status", "upgrade"])
    parser.add_argument("--database", metavar="URL", help="database URL (default: GPU_ADVISOR_DATABASE_URL)")
    parser.set_defaults(handler=_cmd_db)
