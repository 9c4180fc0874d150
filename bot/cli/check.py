"""`gpu-advisor check HOST`: check a host through its agent and judge it like `ask`.

Each check is audited and kept in the host's check history in the store (GPU_ADVISOR_DATABASE_URL,
default the embedded SQLite file): the same store `serve` and `history` use, so CLI and Slack
checks share one audit trail and one history, and the history-trend health rules see both.
`--no-store` skips it; `--audit PATH` also appends the audit records to a JSONL file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING

from bot.cli import open_store
from bot.cli.terminal import safe_json, safe_text
from bot.errors import InputError

if TYPE_CHECKING:
    from bot.services import Services

EXIT_FINDINGS_BLOCK = 1
EXIT_BENCHMARK_NOT_RUN = 4  # a requested benchmark produced no figure (and nothing blocks)


class _Bars:
    """One live progress line per host and job, on stderr."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.last: dict[str, str] = {}
        self.tty = self.stream.isatty()

    def __call__(self, line: str) -> None:
        host_job = " ".join(line.split(" ")[:2])
        percent = next((w for w in line.split() if w.endswith("%")), "0%")
        try:
            fraction = max(0.0, min(float(percent[:-1]) / 100, 1.0))
        except ValueError:
            fraction = 0.0
        filled = int(fraction * 20)
        text = f"{host_job:<32} [{'#' * filled}{'.' * (20 - filled)}] {percent:>4}"
        if self.last.get(host_job) == text:
            return
        self.last[host_job] = text
        text = safe_text(text)
        self.stream.write(("\r" + text) if self.tty else text + "\n")
        if self.tty and fraction >= 1.0:
            self.stream.write("\n")
        self.stream.flush()


def _cmd_check(args: argparse.Namespace) -> int:
    from bot.dispatch.checker import BENCHMARKS
    from bot.dispatch.inventory import inventory_path
    from bot.services import Services

    user = args.as_user or os.environ.get("GPU_ADVISOR_USER")
    if not user:
        raise InputError(None, "who is checking? pass --as USER (a Slack user id in the inventory's allow lists)")
    if not args.all and not args.host:
        raise InputError(None, "name a HOST from the inventory, or pass --all")
    if not 1 <= args.concurrency <= 1024:
        raise InputError(None, f"--concurrency: {args.concurrency} is out of range; check 1 to 1024 hosts at once")
    benchmarks = [b.strip() for b in (args.bench or "").split(",") if b.strip()]
    unknown = [b for b in benchmarks if b not in BENCHMARKS]
    if unknown:
        raise InputError(None, f"--bench: unknown {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    from bot.ops.benchplan import parse_gpus

    try:
        args.gpu_indexes = parse_gpus(args.gpus)
    except ValueError as exc:
        raise InputError("--gpus", str(exc)) from exc
    if args.gpus and not benchmarks:
        raise InputError("--gpus", "names the GPUs to benchmark; add --bench (e.g. --bench matmul)")
    audit_path = args.audit or os.environ.get("GPU_ADVISOR_AUDIT_LOG")
    # The composition root wires the inventory, the store's audit and history, and the JSONL audit.
    services = Services(inventory=inventory_path(args.inventory), use_store=not args.no_store, audit_log=audit_path)
    try:
        services.inventory  # an InventoryError is a ConfigError: exit 2
        # The store for the audit and history (unless --no-store): a bad one fails before any check.
        open_store(services, " (or pass --no-store to check without audit and history)")
        return _run_checks(args, services, user, benchmarks)
    finally:
        services.close()


def _run_checks(args, services: Services, user: str, benchmarks: list[str]) -> int:
    from bot.dispatch.inventory import DispatchError
    from bot.render.text import render_text

    checker = services.checker(max_concurrency=args.concurrency)
    progress = None if args.json else _Bars()
    groups = args.group or []
    if args.all:
        entries = asyncio.run(checker.check_all(user, benchmarks, progress, groups=groups, language=args.lang,
                                                gpus=args.gpu_indexes))
        if args.json:
            print(safe_json(json.dumps({"hosts": [_entry_json(e) for e in entries]}, ensure_ascii=False,
                                       allow_nan=False)))
        else:
            for entry in entries:
                print(safe_text(f"== {entry.host}: " + ("checked" if entry.ok else f"NOT CHECKED: {entry.error}")))
                if entry.check:
                    print(safe_text(render_text(entry.check.answer, full=args.full)))
                    _print_not_run(entry.check.benchmarks)
        worst = [f.severity for e in entries if e.check for f in e.check.answer.findings]
        if "block" in worst or not all(e.ok for e in entries):
            return EXIT_FINDINGS_BLOCK
        return EXIT_BENCHMARK_NOT_RUN if any(_not_run(e.check.benchmarks) for e in entries if e.check) else 0
    try:
        done = asyncio.run(checker.check(args.host, user, benchmarks, progress, groups=groups, language=args.lang,
                                         gpus=args.gpu_indexes))
    except PermissionError as exc:
        raise InputError(None, safe_text(f"refused: {exc}")) from exc
    except DispatchError as exc:
        print(safe_text(f"gpu-advisor: check failed: {exc}"), file=sys.stderr)
        return 3
    if args.json:
        print(safe_json(json.dumps(_check_json(done), ensure_ascii=False, allow_nan=False)))
    else:
        print(safe_text(f"== {done.host}: {len(done.report.gpus)} GPU(s), driver {done.report.driver}, "
                        f"CUDA {done.report.cuda_driver} (probe via {done.report.source})"))
        print(safe_text(render_text(done.answer, full=args.full)))
        _print_not_run(done.benchmarks)
    if any(f.severity == "block" for f in done.answer.findings):
        return EXIT_FINDINGS_BLOCK
    return EXIT_BENCHMARK_NOT_RUN if _not_run(done.benchmarks) else 0


def _not_run(results) -> list:
    from bot.ops.benchplan import not_run

    return not_run(results)


def _print_not_run(results) -> None:
    """A requested benchmark that produced no figure is said in the brief output, never silent (#29)."""
    from bot.ops.benchplan import describe_not_run

    for result in _not_run(results):
        print(safe_text(f"  [NOT RUN] {describe_not_run(result)}"))  # the agent's reason is outside text


def _check_json(done) -> dict:
    """The Answer's JSON (same `findings` shape as `ask --json`) plus the host, probe report and benchmarks."""
    return {"host": done.host, "report": done.report.model_dump(mode="json"),
            "benchmarks": [b.model_dump(mode="json") for b in done.benchmarks],
            **done.answer.model_dump(mode="json")}


def _entry_json(entry) -> dict:
    return {"host": entry.host, "ok": entry.ok, "error": entry.error,
            **({"check": _check_json(entry.check)} if entry.check else {})}


def configure_check(parser) -> None:
    parser.add_argument("host", nargs="?", help="an inventory host name")
    parser.add_argument("--all", action="store_true", help="check every host you may check")
    parser.add_argument("--bench", metavar="LIST",
                        help="benchmarks to run: matmul,membw,h2d,serving (matmul: each precision the card "
                             "supports; GPU benchmarks: every GPU unless --gpus); exit 4 when one did not run")
    parser.add_argument("--gpus", metavar="LIST", help="the GPU indexes to benchmark, e.g. 0,3 (default: all)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--full", action="store_true",
                        help="print every finding with its rule, reasons and sources (the brief answer says so)")
    parser.add_argument("--inventory", metavar="PATH", help="inventory YAML (default: $GPU_ADVISOR_INVENTORY)")
    parser.add_argument("--as", dest="as_user", metavar="USER", help="the acting user id, checked like a Slack user")
    parser.add_argument("--group", action="append", metavar="GROUP",
                        help="a Slack user-group id (S…) the user belongs to; repeat for several")
    parser.add_argument("--audit", metavar="PATH",
                        help="also append audit records to this JSONL file (default: $GPU_ADVISOR_AUDIT_LOG)")
    parser.add_argument("--no-store", action="store_true",
                        help="do not audit to the store or record the check history ($GPU_ADVISOR_DATABASE_URL)")
    parser.add_argument("--concurrency", type=int, default=16, help="hosts checked at once with --all")
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    parser.set_defaults(handler=_cmd_check)
