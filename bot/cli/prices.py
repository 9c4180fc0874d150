"""`gpu-advisor prices`: import a price table from SkyPilot's catalog, refresh it into a file of the
team's own (never the installed package), show a GPU's prices the way `sky show-gpus GPU` does, and
look up an instance type."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
from collections.abc import Mapping
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
    sky.add_argument("--commit", action="append", default=[], metavar="CLOUD=SHA",
                     help="the skypilot-catalog commit a folder's <cloud>/vms.csv was copied from (repeatable); "
                          "recorded in the table as what was read")
    sky.set_defaults(handler=_cmd_import)

    upd = commands.add_parser(
        "update", help="refresh the price table from SkyPilot's public catalog into your own file",
        description="Fetch the catalog from its public address (or --source) and write the price table to --out, "
                    "else to $GPU_ADVISOR_PRICES, else to ~/.local/share/gpu-advisor/prices.skypilot.yaml "
                    "($XDG_DATA_HOME), once the new table has loaded and checked. The installed package is never "
                    "written: point GPU_ADVISOR_PRICES at the file for the bot to use it.",
    )
    from bot.prices.skypilot import DEFAULT_CLOUDS, RAW_BASE_URL

    upd.add_argument("--source", default=os.environ.get("GPU_ADVISOR_SKYPILOT_URL", RAW_BASE_URL),
                     metavar="URL_OR_PATH", help=f"catalog base (default {RAW_BASE_URL})")
    _common(upd, default_clouds=",".join(DEFAULT_CLOUDS))
    upd.add_argument("--out", metavar="FILE",
                     help="the table to write (default: $GPU_ADVISOR_PRICES, else ~/.local/share/gpu-advisor/"
                          "prices.skypilot.yaml)")
    upd.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="per-file download limit")
    upd.set_defaults(handler=_cmd_update)

    show = commands.add_parser(
        "show", help="a GPU's prices from the table, like `sky show-gpus GPU`",
        description="Each instance type with the GPU: count, GPU memory, vCPUs, host memory, on-demand and spot "
                    "price per hour, in its cheapest region (or --region, or --all-regions); the table's source "
                    "and the day it was read last.")
    show.add_argument("gpu", metavar="GPU", help="a GPU or family name: H100, h100-sxm, A100-80GB, L4...")
    show.add_argument("--region", metavar="REGION", help="only this region (us-east-1, europe-west4, or a prefix: us-east)")
    show.add_argument("--spot", action="store_true", help="only rows with a spot price, ordered by it")
    show.add_argument("--all-regions", action="store_true", help="every region, not only each type's cheapest")
    show.add_argument("--limit", type=int, default=60, metavar="N", help="at most N rows (default 60, at most 200)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_cmd_show)

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


def _commits(values: list[str]) -> dict[str, str]:
    from bot.errors import InputError

    out = {}
    for value in values:
        cloud, sep, commit = value.partition("=")
        if not sep or not cloud.strip() or not commit.strip():
            raise InputError("--commit", f"{value!r} is not CLOUD=SHA (e.g. aws=00148f2a)")
        out[cloud.strip()] = commit.strip().lower()
    return out


def _run_import(source: str, clouds, as_of, timeout_s: float = 30.0, label: str | None = None,
                commits: dict[str, str] | None = None):
    from bot.knowledge import example_prices_catalog
    from bot.prices.skypilot import CatalogImportError, import_catalog, render_table

    try:
        # The GPU and instance names only: the table being refreshed may be missing or broken.
        report = import_catalog(source, example_prices_catalog(), clouds=clouds, as_of=as_of, timeout_s=timeout_s,
                                commits=commits)
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
    report, text = _run_import(args.source, clouds, as_of, label=args.label, commits=_commits(args.commit))
    if args.out:
        _checked_write(text, Path(args.out))
        print(report.summary())
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
        print(report.summary(), file=sys.stderr)
    return 0


PRICES_ENV = "GPU_ADVISOR_PRICES"


def update_target(out: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Where `prices update` writes: --out, else $GPU_ADVISOR_PRICES, else the user's data folder
    ($XDG_DATA_HOME/gpu-advisor, ~/.local/share/gpu-advisor). Never inside the installed package: a
    wheel's files belong to the installer (read-only for the service user, replaced by the next install)."""
    from bot.errors import InputError
    from bot.knowledge import PROJECT_ROOT, SNAPSHOT_PRICES_NAME, shipped_data_dir

    environ = os.environ if environ is None else environ
    if out:
        target = Path(out).expanduser()
    elif environ.get(PRICES_ENV, "").strip():
        target = Path(environ[PRICES_ENV].strip()).expanduser()
    else:
        base = environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local" / "share")
        target = Path(base).expanduser() / "gpu-advisor" / SNAPSHOT_PRICES_NAME
    package = Path(str(shipped_data_dir("knowledge"))).resolve()
    resolved = target.resolve()
    if package != PROJECT_ROOT / "knowledge" and (resolved == package or package in resolved.parents):
        raise InputError("--out", f"{target} is inside the installed package ({package}); write the table to a "
                                  f"file of your own and point {PRICES_ENV} at it")
    return target


def _cmd_update(args: argparse.Namespace) -> int:
    from bot.errors import InputError

    clouds, as_of = _parse(args)
    out = update_target(args.out)
    report, text = _run_import(args.source, clouds, as_of, timeout_s=args.timeout)
    if not report.offers:
        raise InputError("--source", f"{args.source}: no GPU rows imported; the table is left unchanged\n{report.summary()}")
    _checked_write(text, out)
    print(report.summary())
    print(f"updated {out}")
    current = os.environ.get(PRICES_ENV, "").strip()
    if not current or Path(current).expanduser().resolve() != out.resolve():
        print(f"to answer from it: export {PRICES_ENV}={out}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from bot.knowledge import UnknownNameError, default_catalog
    from bot.prices.show import render_show, show_json
    from bot.errors import InputError

    from bot.prices.lookup import MAX_SHOW_ROWS

    if not 1 <= args.limit <= MAX_SHOW_ROWS:
        raise InputError("--limit", f"{args.limit} is not a number of rows from 1 to {MAX_SHOW_ROWS}")
    catalog = default_catalog()
    try:
        gpus = catalog.resolve_gpu(args.gpu)
    except UnknownNameError as exc:
        raise InputError("GPU", str(exc)) from exc
    if args.json:
        import json

        print(json.dumps(show_json(catalog, gpus, region=args.region, spot=args.spot, all_regions=args.all_regions,
                                   limit=args.limit), ensure_ascii=False))
    else:
        print(render_show(catalog, gpus, region=args.region, spot=args.spot, all_regions=args.all_regions,
                          limit=args.limit))
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
