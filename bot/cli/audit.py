"""`gpu-advisor audit`: who asked which question, and every dispatch to a host agent, from the store.

    gpu-advisor audit --since 2026-12-01 [--until 2026-12-02] [--host H] [--user U] [--json]

Text prints one line per record, oldest first; `--json` prints one JSON object (for export:
`gpu-advisor audit --since … --json > audit.json`). Outside text (questions, agents' details) is
printed inert (`bot.cli.terminal`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json

from bot.cli import open_store
from bot.cli.terminal import safe_json, safe_text
from bot.errors import InputError

DEFAULT_DAYS = 7
DEFAULT_LIMIT = 1000
KINDS = ("all", "questions", "dispatches")


def parse_when(flag: str, raw: str) -> dt.datetime:
    """A date (`2026-12-01`, midnight UTC) or an ISO date-time; without a zone it is UTC."""
    try:
        when = dt.datetime.fromisoformat(raw.strip())
    except ValueError:
        raise InputError(flag, f"{raw!r} is not a date (2026-12-01) or a date-time (2026-12-01T09:30, "
                               "UTC unless a zone is given)") from None
    return when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when.astimezone(dt.UTC)


def _window(args: argparse.Namespace) -> tuple[dt.datetime, dt.datetime | None]:
    now = dt.datetime.now(dt.UTC)
    since = parse_when("--since", args.since) if args.since else now - dt.timedelta(days=DEFAULT_DAYS)
    until = parse_when("--until", args.until) if args.until else None
    if until is not None and until <= since:
        raise InputError("--until", f"{until:%Y-%m-%d %H:%M} is not after --since {since:%Y-%m-%d %H:%M}")
    return since, until


def _question_line(q) -> str:
    where = f" in {q.channel}" if q.channel else ""
    text = q.question.replace("\n", " ")
    text = text if len(text) <= 160 else text[:159] + "…"
    return safe_text(f"{q.at:%Y-%m-%d %H:%M:%S}  {q.user}  asked{where}: {text}")


def _dispatch_line(e) -> str:
    took = f" ({e.duration_s:.1f} s)" if e.duration_s is not None else ""
    params = f" {json.dumps(e.parameters, ensure_ascii=False, sort_keys=True)}" if e.parameters else ""
    detail = f" — {e.detail.splitlines()[0][:200]}" if e.detail else ""
    return safe_text(f"{e.at:%Y-%m-%d %H:%M:%S}  {e.user}  {e.job} {e.host}: {e.outcome}{took}{params}{detail}")


def _cmd_audit(args: argparse.Namespace) -> int:
    from bot.services import Services

    if args.limit < 1:
        raise InputError("--limit", f"must be at least 1, got {args.limit}")
    since, until = _window(args)
    kind = args.kind or ("dispatches" if args.host else "all")
    if args.host and kind != "dispatches":
        raise InputError("--host", "questions are not asked of a host: use --kind dispatches (the default with --host)")
    with open_store(Services(database_url=args.database)) as store:
        questions = store.questions(since, until, user=args.user, limit=args.limit) \
            if kind in ("all", "questions") else []
        dispatches = store.audit(host=args.host, since=since, limit=args.limit, user=args.user, until=until) \
            if kind in ("all", "dispatches") else []
        where = store.describe()
    truncated = len(questions) == args.limit or len(dispatches) == args.limit
    if args.json:
        out = {"since": since.isoformat(), "until": until.isoformat() if until else None,
               "filters": {"user": args.user, "host": args.host, "kind": kind}, "truncated": truncated,
               "questions": [q.model_dump(mode="json") for q in reversed(questions)],
               "dispatches": [e.model_dump(mode="json") for e in reversed(dispatches)]}
        print(safe_json(json.dumps(out, ensure_ascii=False)))
        return 0
    span = f"{since:%Y-%m-%d %H:%M} to {until:%Y-%m-%d %H:%M} UTC" if until else f"since {since:%Y-%m-%d %H:%M} UTC"
    print(safe_text(f"Audit of {where}, {span}: {len(questions)} question(s), {len(dispatches)} dispatch(es)"
                    + (f" (the newest {args.limit} of each: --limit)" if truncated else "")))
    merged = sorted([(q.at, 0, q.id or 0, _question_line(q)) for q in questions]
                    + [(e.at, 1, e.id or 0, _dispatch_line(e)) for e in dispatches])
    for *_, line in merged:
        print(line)
    return 0


def configure_audit(parser) -> None:
    parser.add_argument("--since", metavar="WHEN", help=f"from this date or date-time, UTC (default: {DEFAULT_DAYS} "
                                                        "days ago)")
    parser.add_argument("--until", metavar="WHEN", help="before this date or date-time, UTC (default: now)")
    parser.add_argument("--host", help="only dispatches to this inventory host")
    parser.add_argument("--user", metavar="USER", help="only this Slack user id (or CLI user)")
    parser.add_argument("--kind", choices=KINDS, default=None,
                        help="questions asked, dispatches to agents, or both (default: all; dispatches with --host)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help=f"newest records of each kind "
                                                                         f"(default {DEFAULT_LIMIT})")
    parser.add_argument("--json", action="store_true", help="one JSON object: questions and dispatches, oldest first")
    parser.add_argument("--database", metavar="URL", help="database URL (default: GPU_ADVISOR_DATABASE_URL)")
    parser.set_defaults(handler=_cmd_audit)
