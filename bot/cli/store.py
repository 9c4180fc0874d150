"""`gpu-advisor history HOST` (the check history as text and a chart) and `gpu-advisor db`.

Top-level imports stay light: the store, the engine and matplotlib load inside the handlers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import open_store
from bot.cli.terminal import safe_json, safe_text
from bot.errors import InputError

if TYPE_CHECKING:
    from bot.host_report import GpuCounters
    from bot.seams import StoreSeam

EXIT_NO_HISTORY = 1  # `history HOST` for a host with no stored check

COUNTER_LABELS = {
    "ecc_uncorrected": "ECC uncorr", "ecc_corrected": "ECC corr", "remapped_uncorrectable": "remap uncorr",
    "remapped_correctable": "remap corr", "retired_pages": "retired pg",
}


def _open_store(args: argparse.Namespace, migrate: bool = True):
    from bot.services import Services

    return open_store(Services(database_url=args.database, migrate=migrate))


# -- history ---------------------------------------------------------------------------------


def render_history(host: str, checks, findings) -> str:
    """The history as a per-GPU table (oldest first), then what the rules make of the last change."""
    from bot.host_report import COUNTERS

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
        previous: GpuCounters | None = None
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

    from bot.host_report import COUNTERS

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
    from bot.facts import trend_facts
    from bot.services import Services

    with Services(database_url=args.database) as services:  # the store, and the advisor for the trend
        checks = open_store(services).check_history(args.host, limit=args.limit)
        findings = []
        if len(checks) >= 2:
            result = services.advisor().engine.run(trend_facts(checks[-2], checks[-1]), language=args.lang)
            findings = [f for f in result.findings if f.rule.startswith("health.history-")]
    if args.json:
        print(safe_json(json.dumps({"host": args.host, "checks": [c.model_dump(mode="json") for c in checks],
                                    "findings": [f.model_dump(mode="json") for f in findings]}, ensure_ascii=False)))
    else:
        print(safe_text(render_history(args.host, checks, findings)))  # GPU names and hosts come from agents
    if args.chart:
        if not checks:
            raise InputError(None, f"no checks of {args.host} are stored, so there is nothing to chart")
        out = render_history_chart(args.host, checks, Path(args.chart))
        if not args.json:
            print(safe_text(f"Chart written to {out}"))
    # A host with no stored check (a typo, or never checked) is not a success: scripts see exit 1.
    return 0 if checks else EXIT_NO_HISTORY


def configure_history(parser) -> None:
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
        if args.action == "upgrade" and getattr(args, "sql", False):
            print(store.migration_sql(), end="")  # offline (Alembic --sql): for a DBA to review and run
            return 0
        if args.action == "upgrade":
            applied = store.migrate()
            print(f"{store.describe()}: applied migration(s) {applied}" if applied
                  else f"{store.describe()}: already at version {head}")
            return 0
        if args.action == "purge":
            return _purge(store, args)
        print(f"{store.describe()}: schema version {current} of {head} ({schema_state(current, head)})")
        return 0 if current == head else 1


def schema_state(current: int, head: int) -> str:
    """What `db status` says about a database at `current` for code that knows up to `head`."""
    if current == head:
        return "up to date"
    if current > head:
        return (f"the database is newer than this release: it is at version {current}, this gpu-advisor knows "
                f"up to {head}; upgrade gpu-advisor (an older replica keeps running only while the newer "
                "migrations are additive, see docs/operations.md, rolling upgrades)")
    return f"{head - current} migration(s) pending: run `gpu-advisor db upgrade`"


def _purge(store: StoreSeam, args: argparse.Namespace) -> int:
    """`db purge`: delete expired Slack event claims and conversations past the retention."""
    from bot.ops.retention import purge_expired
    from bot.ops.settings import load_ops_settings

    days = args.retention_days if args.retention_days is not None else \
        load_ops_settings().conversation_retention_days
    if days < 0:
        raise InputError("--retention-days", f"must be 0 (keep) or more, got {days}")
    result = purge_expired(store, days)
    kept = "kept (retention 0)" if result.conversations_before is None else \
        f"{result.conversations} deleted (untouched since before {result.conversations_before:%Y-%m-%d %H:%M} UTC)"
    print(f"{store.describe()}: conversations {kept}; expired Slack event claims: {result.slack_events} deleted")
    return 0


def configure_db(parser) -> None:
    parser.add_argument("action", choices=["status", "upgrade", "purge"],
                        help="status: schema version; upgrade: apply migrations; purge: delete expired "
                             "conversations and Slack event claims (retention)")
    parser.add_argument("--database", metavar="URL", help="database URL (default: GPU_ADVISOR_DATABASE_URL)")
    parser.add_argument("--sql", action="store_true",
                        help="upgrade: print the SQL that would bring the database to the newest version "
                             "(Alembic offline mode) instead of running it")
    parser.add_argument("--retention-days", type=float, default=None, metavar="DAYS",
                        help="purge: conversations untouched this long (default "
                             "GPU_ADVISOR_CONVERSATION_RETENTION_DAYS, 30; 0 keeps them)")
    parser.set_defaults(handler=_cmd_db)
