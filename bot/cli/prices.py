"""`gpu-advisor prices`: import a price table from SkyPilot's catalog, refresh the shipped snapshot,
and look up an instance type."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
from pathlib import Path


def configure_prices(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="prices_command", required=True)

    imp = commands.add_parser("import", help="import a price table from a catalog")
    sources = imp.add_subparsers(dest="catalog", required=True)
    sky = sources.add_parser(
        "skypilot", help="SkyPilot's catalog: a folder laid out like catalogs/v7/ or its raw-file URL",
        description="Read <cloud>/vms.csv from a folder laid out like skypilot-catalog's catalogs/v7/ (or its "
                    "public raw-file URL) and write the GPU rows as a price table for GPU_ADVISOR_PRICES.",
    )
    sky.add_argument("source", metavar="PATH_OR_URL")
    _common(sky)
    sky.add_argument("--out", metavar="FILE", help="write the table here (default: standard output)")
    sky.add_argument("--label", metavar="TEXT", help="how the table's header names the source (default: PATH_OR_URL)")
    sky.set_defaults(handler=_cmd_import)

    upd = commands.add_parser(
        "update", help="refresh the shipped snapshot from SkyPilot's public catalog",
        description="Fetch the catalog from its public address (or --source) and replace the price snapshot "
                    "(knowledge/prices.skypilot.yaml) once the new table has loaded and checked.",
    )
    from bot.prices.skypilot import DEFAULT_CLOUDS, RAW_BASE_URL

    upd.add_argument("--source", default=os.environ.get("GPU_ADVISOR_SKYPILOT_URL", RAW_BASE_URL),
                     metavar="URL_OR_PATH", help=f"catalog base (default {RAW_BASE_URL})")
    _common(upd, default_clouds=",".join(DEFAULT_CLOUDS))
    upd.add_argument("--out", metavar="FILE", help="the snapshot to replace (default: the shipped one)")
    upd.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per-file download limit")
    upd.set_defaults(handler=_cmd_update)

    ins = commands.add_parser("instance", help="what GPU and how many an instance type has, and its quota codes")
    ins.add_argument("name", metavar="INSTANCE_TYPE")
    ins.add_argument("--json", action="store_true")
    ins.set_defaults(handler=_cmd_instance)


def _common(parser: argparse.ArgumentParser, default_clouds: str | None = None) -> None:
    parser.add_argument("--clouds", default=default_clouds, metavar="aws,runpod,...",
                        help="clouds to read (default: every <cloud>/vms.csv in the folder"
                             + (f"; {default_clouds} for a URL)" if default_clouds else "; aws,lambda,runpod,vast for a URL)"))
    parser.add_argument("--as-of", metavar="YYYY-MM-DD",
                        help="the catalog's date (default: the newest vms.csv's date; today for a URL)")


def _parse(args: argparse.Namespace) -> tuple[list[str] | None, dt.date | None]:
    from bot.errors import InputError

    clouds = [c.strip() for c in args.clouds.split(",") if c.strip()] if args.clouds else None
    as_of = None
    if args.as_of:
        try:
            as_of = dt.date.fromisoformat(args.as_of)
        except ValueError as exc:
            raise InputError("--as-of", f"{args.as_of!r} is not a date (YYYY-MM-DD)") from exc
    return clouds, as_of


def _run_import(source: str, clouds, as_of, timeout_s: float = 30.0, label: str | None = None):
    from bot.errors import InputError
    from bot.knowledge import default_catalog
    from bot.prices.skypilot import CatalogImportError, import_catalog, render_table

    try:
        report = import_catalog(source, default_catalog(), clouds=clouds, as_of=as_of, timeout_s=timeout_s)
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogImportError(f"{source}: {exc}") from exc
    if label:
        report.source = label
    return report, render_table(report)


def _checked_write(text: str, out: Path) -> None:
    """Write `text` to `out` only once it loads as a price table against the knowledge base."""
    from bot.errors import InputError
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, KnowledgeError, load_catalog

    out = out.expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".prices-", suffix=".yaml", dir=out.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a price table is read by the bot's service user
        try:
            load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=tmp)
        except KnowledgeError as exc:
            raise InputError("--out", f"the imported table does not load; {out} left unchanged:\n{exc}") from exc
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def _cmd_import(args: argparse.Namespace) -> int:
    clouds, as_of = _parse(args)
    report, text = _run_import(args.source, clouds, as_of, label=args.label)
    if args.out:
        _checked_write(text, Path(args.out))
        print(report.summary())
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
        print(report.summary(), file=sys.stderr)
    return 0


def _cmd_update(args: argparse.Namespace) -> int:
    from bot.errors import InputError
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, SNAPSHOT_PRICES_NAME

    clouds, as_of = _parse(args)
    report, text = _run_import(args.source, clouds, as_of, timeout_s=args.timeout)
    if not report.offers:
        raise InputError("--source", f"{args.source}: no GPU rows imported; the snapshot is left unchanged\n{report.summary()}")
    out = Path(args.out) if args.out else DEFAULT_KNOWLEDGE_DIR / SNAPSHOT_PRICES_NAME
    _checked_write(text, out)
    print(report.summary())
    print(f"updated {out}")
    return 0


def _cmd_instance(args: argparse.Namespace) -> int:
    import json

    from bot.errors import InputError
    from bot.knowledge import default_catalog

    entry = default_catalog().instance(args.name)
    if entry is None:
        raise InputError("instance", f"unknown instance type {args.name!r} (see knowledge/instances.yaml)")
    if args.json:
        print(json.dumps(entry.model_dump(), ensure_ascii=False))
    else:
        quota = (f"; quota codes: On-Demand {entry.quota_on_demand}, Spot {entry.quota_spot}"
                 if entry.quota_on_demand else "")
        gpu = entry.gpu or f"not in the GPU catalog ({entry.accelerator})"
        print(f"{entry.name} ({entry.provider}): {entry.count} x {gpu}{quota}")
    return 0
