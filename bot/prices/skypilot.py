"""Import GPU instance prices from SkyPilot's public catalog (skypilot-org/skypilot-catalog, Apache-2.0).

The catalog has one `vms.csv` per cloud under `catalogs/v7/<cloud>/`, header (column order varies by
cloud) `InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,
AvailabilityZone`, prices per instance-hour in USD. The import keeps GPU rows whose accelerator maps to a
GPU id in the knowledge base, collapses availability zones into one row per region (the cheapest
on-demand and spot price seen in the region), and reports everything it left out: CPU-only rows,
accelerator names it does not know (never guessed), and bad rows (named by file and line, never
half-imported).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import ConfigError
from bot.knowledge import Catalog, InstanceOffer

SOURCE_ID = "skypilot-catalog"
CATALOG_NAME = "SkyPilot's catalog"
LICENSE = "Apache-2.0"
REPOSITORY_URL = "https://github.com/skypilot-org/skypilot-catalog"
RAW_BASE_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7"
# The clouds the shipped snapshot covers, and what `prices update` refreshes by default.
DEFAULT_CLOUDS = ("aws", "lambda", "runpod", "vast")

KNOWN_COLUMNS = frozenset({
    "InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo", "Region",
    "SpotPrice", "Price", "AvailabilityZone",
})
REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Region", "Price")
# Bounds on what comes from outside: one vms.csv (AWS's is ~2.5 MB), rows per file, GPUs per instance.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_ROWS_PER_FILE = 1_000_000
MAX_GPUS_PER_INSTANCE = 64
MAX_PRICE_PER_HOUR = 10_000.0
_CLOUD_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
_VAST_MODEL = re.compile(r"^\d{1,2}x-(?P<model>[A-Za-z0-9_]+)-\d+-\d+$")


class CatalogImportError(ConfigError):
    """A catalog that cannot be imported at all (missing file, unknown column, too large)."""


@dataclass(frozen=True)
class BadRow:
    cloud: str
    line: int
    instance_type: str
    reason: str

    def __str__(self) -> str:
        return f"{self.cloud}/vms.csv:{self.line}: {self.instance_type or '(no instance type)'}: {self.reason}"


@dataclass
class CloudCounts:
    rows: int = 0
    cpu_rows: int = 0
    gpu_rows: int = 0
    imported_rows: int = 0  # GPU rows of mapped accelerators that passed the checks, before collapsing zones
    offers: int = 0  # one per (instance type, region) after collapsing zones


@dataclass
class ImportReport:
    source: str
    as_of: dt.date
    clouds: list[str]
    offers: list[InstanceOffer] = field(default_factory=list)
    counts: dict[str, CloudCounts] = field(default_factory=dict)
    unknown: Counter = field(default_factory=Counter)  # (cloud, accelerator name) -> rows
    unmapped: Counter = field(default_factory=Counter)  # known names deliberately not mapped (16 GB V100...)
    bad: list[BadRow] = field(default_factory=list)

    def summary(self, limit: int = 20) -> str:
        lines = [f"{CATALOG_NAME} ({self.source}) as of {self.as_of.isoformat()}:"]
        for cloud in self.clouds:
            c = self.counts[cloud]
            lines.append(f"  {cloud}: {c.rows} rows, {c.gpu_rows} GPU rows, {c.imported_rows} imported "
                         f"-> {c.offers} instance/region rows ({c.cpu_rows} CPU-only rows skipped)")
        if self.unknown:
            names = ", ".join(f"{cloud}:{name} ({n})" for (cloud, name), n in sorted(self.unknown.items()))
            lines.append(f"  unknown accelerators, not imported ({sum(self.unknown.values())} rows): {names}")
        if self.unmapped:
            names = ", ".join(f"{cloud}:{name} ({n})" for (cloud, name), n in sorted(self.unmapped.items()))
            lines.append(f"  known accelerators with no GPU entry, not imported ({sum(self.unmapped.values())} rows): "
                         f"{names}")
        if self.bad:
            lines.append(f"  bad rows, not imported ({len(self.bad)}):")
            lines += [f"    {row}" for row in self.bad[:limit]]
            if len(self.bad) > limit:
                lines.append(f"    ... and {len(self.bad) - limit} more")
        lines.append(f"  total: {len(self.offers)} instance/region rows")
        return "\n".join(lines)


# -- reading ----------------------------------------------------------------------------------


def catalog_root(path: Path) -> Path:
    """The folder holding `<cloud>/vms.csv`: PATH itself, PATH/v7 or PATH/catalogs/v7."""
    for candidate in (path, path / "v7", path / "catalogs" / "v7"):
        if candidate.is_dir() and any(candidate.glob("*/vms.csv")):
            return candidate
    raise CatalogImportError(f"{path}: no <cloud>/vms.csv found (expected a folder laid out like catalogs/v7/)")


def _read_local(root: Path, cloud: str) -> str:
    path = root / cloud / "vms.csv"
    if not path.is_file():
        present = sorted(p.parent.name for p in root.glob("*/vms.csv"))
        raise CatalogImportError(f"{path}: not found; clouds in {root}: {', '.join(present) or 'none'}")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CatalogImportError(f"{path}: {size} bytes, over the {MAX_FILE_BYTES}-byte limit")
    return path.read_text(encoding="utf-8-sig")


def fetch_text(url: str, timeout_s: float = 30.0, max_bytes: int = MAX_FILE_BYTES) -> str:
    """GET `url` with httpx, bounded in time and size; a clear CatalogImportError otherwise."""
    import httpx

    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=True, max_redirects=3) as client:
            with client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise CatalogImportError(f"{url}: HTTP {response.status_code}")
                chunks, total = [], 0
                for chunk in response.iter_bytes():
                    total += len(chunk)
                    if total > max_bytes:
                        raise CatalogImportError(f"{url}: more than {max_bytes} bytes; refused")
                    chunks.append(chunk)
    except httpx.HTTPError as exc:
        raise CatalogImportError(f"{url}: {type(exc).__name__}: {exc}") from exc
    return b"".join(chunks).decode("utf-8-sig")


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def import_catalog(
    source: str | Path,
    catalog: Catalog,
    clouds: list[str] | None = None,
    as_of: dt.date | None = None,
    timeout_s: float = 30.0,
) -> ImportReport:
    """Read `<cloud>/vms.csv` for each cloud from a folder or a base URL and map it to price rows."""
    source = str(source)
    for cloud in clouds or []:
        if not _CLOUD_NAME.match(cloud):
            raise CatalogImportError(f"--clouds: {cloud!r} is not a cloud folder name")
    texts: dict[str, str] = {}
    if is_url(source):
        base = source.rstrip("/")
        clouds = list(clouds or DEFAULT_CLOUDS)
        for cloud in clouds:
            texts[cloud] = fetch_text(f"{base}/{cloud}/vms.csv", timeout_s)
        as_of = as_of or dt.date.today()  # the public catalog is refreshed by SkyPilot's CI; fetched now
    else:
        root = catalog_root(Path(source).expanduser())
        clouds = list(clouds or sorted(p.parent.name for p in root.glob("*/vms.csv")))
        for cloud in clouds:
            texts[cloud] = _read_local(root, cloud)
        if as_of is None:
            # The date the catalog files were written: the newest vms.csv read.
            newest = max((root / cloud / "vms.csv").stat().st_mtime for cloud in clouds)
            as_of = dt.datetime.fromtimestamp(newest, tz=dt.timezone.utc).date()
    if as_of > dt.date.today():
        raise CatalogImportError(f"--as-of {as_of.isoformat()} is in the future")
    report = ImportReport(source=source, as_of=as_of, clouds=clouds)
    for cloud in clouds:
        try:
            report.offers += _import_cloud(cloud, texts[cloud], catalog, report)
        except csv.Error as exc:  # a malformed file (an oversized field, a NUL byte): refused whole
            raise CatalogImportError(f"{cloud}/vms.csv: not a readable CSV file: {exc}") from exc
    return report


# -- one cloud ----------------------------------------------------------------------------------


def _number(value: str) -> float | None:
    value = (value or "").strip()
    if not value:
        return None
    return float(value)  # ValueError names the text


def _gpu_for(catalog: Catalog, cloud: str, instance_type: str, accelerator: str) -> tuple[str | None, bool, str]:
    """(GPU id, whether the name is known, the name to report). Instance entries first (they name the
    exact card), then Vast.ai's model token, then the provider's and the general accelerator names."""
    entry = catalog.instance(instance_type)
    if entry is not None and entry.provider == cloud and cloud not in ("runpod", "vast"):
        return entry.gpu, True, accelerator
    if cloud == "vast":
        match = _VAST_MODEL.match(instance_type)
        if match:
            name = catalog.accelerator_names.get(("vast", match["model"].lower()))
            model = match["model"]
            shown = accelerator if model.lower() == accelerator.lower() else f"{accelerator} ({model})"
            return (name.gpu, True, accelerator) if name else (None, False, shown)
    name = catalog.accelerator_name(accelerator, cloud)
    return (name.gpu, True, accelerator) if name else (None, False, accelerator)


def _import_cloud(cloud: str, text: str, catalog: Catalog, report: ImportReport) -> list[InstanceOffer]:
    counts = report.counts.setdefault(cloud, CloudCounts())
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    unknown_columns = [c for c in header if c not in KNOWN_COLUMNS]
    if unknown_columns:
        raise CatalogImportError(
            f"{cloud}/vms.csv:1: unknown column(s) {', '.join(unknown_columns)}; known: {', '.join(sorted(KNOWN_COLUMNS))}"
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise CatalogImportError(f"{cloud}/vms.csv:1: missing column(s) {', '.join(missing)}")

    # (instance type, region) -> the collapsed row; zones of a region are one row with the cheapest prices.
    regions: dict[tuple[str, str], dict] = {}
    for row in reader:
        counts.rows += 1
        line = reader.line_num
        if counts.rows > MAX_ROWS_PER_FILE:
            raise CatalogImportError(f"{cloud}/vms.csv: more than {MAX_ROWS_PER_FILE} rows; refused")
        instance_type = (row.get("InstanceType") or "").strip()
        if None in row:  # more fields than the header names
            report.bad.append(BadRow(cloud, line, instance_type, f"{len(row[None])} field(s) beyond the header's columns"))
            continue
        accelerator = (row.get("AcceleratorName") or "").strip()
        if not accelerator:
            counts.cpu_rows += 1
            continue
        counts.gpu_rows += 1
        gpu, known, reported = _gpu_for(catalog, cloud, instance_type, accelerator)
        if gpu is None:
            (report.unmapped if known else report.unknown)[(cloud, reported)] += 1
            continue
        problem, parsed = _check(row, instance_type)
        if problem:
            report.bad.append(BadRow(cloud, line, instance_type, problem))
            continue
        counts.imported_rows += 1
        key = (instance_type, parsed["region"])
        seen = regions.get(key)
        if seen is None:
            regions[key] = {**parsed, "gpu": gpu}
            continue
        for price in ("on_demand", "spot"):
            if parsed[price] is not None and (seen[price] is None or parsed[price] < seen[price]):
                seen[price] = parsed[price]

    offers = [
        InstanceOffer(
            provider=cloud, instance_type=instance_type, gpu=values["gpu"], gpu_count=values["count"],
            vcpus=values["vcpus"], memory_gib=values["memory_gib"], region=region, on_demand=values["on_demand"],
            spot=values["spot"], currency="USD", quoted_on=report.as_of, source=SOURCE_ID,
        )
        for (instance_type, region), values in regions.items()
    ]
    counts.offers = len(offers)
    return offers


def _check(row: dict, instance_type: str) -> tuple[str | None, dict]:
    """One data row's problem, or its parsed values."""
    if not instance_type:
        return "no InstanceType", {}
    region = (row.get("Region") or "").strip()
    if not region:
        return "no Region", {}
    try:
        count_value = _number(row.get("AcceleratorCount", ""))
        price = _number(row.get("Price", ""))
        spot = _number(row.get("SpotPrice", ""))
        vcpus = _number(row.get("vCPUs", ""))
        memory = _number(row.get("MemoryGiB", ""))
    except ValueError as exc:
        return f"not a number: {exc}", {}
    if count_value is None or count_value <= 0 or count_value != int(count_value) or count_value > MAX_GPUS_PER_INSTANCE:
        return f"AcceleratorCount {row.get('AcceleratorCount')!r} is not a whole number of GPUs (1-{MAX_GPUS_PER_INSTANCE})", {}
    if price is None:
        return "missing Price (on-demand)", {}
    if price <= 0 or price > MAX_PRICE_PER_HOUR:
        return f"Price {price:g} is not a price per hour (> 0, <= {MAX_PRICE_PER_HOUR:g})", {}
    if spot is not None and spot < 0:
        return f"SpotPrice {spot:g} is negative", {}
    if spot == 0:
        spot = None  # some clouds write 0.00 where they have no spot offer (Vast.ai)
    if spot is not None and spot > price:
        return f"SpotPrice {spot:g} is above the on-demand Price {price:g} (columns swapped?)", {}
    for name, value in (("vCPUs", vcpus), ("MemoryGiB", memory)):
        if value is not None and value <= 0:
            return f"{name} {value:g} is not positive", {}
    return None, {"count": int(count_value), "region": region, "on_demand": price, "spot": spot,
                  "vcpus": vcpus, "memory_gib": memory}


# -- writing ----------------------------------------------------------------------------------


def render_table(report: ImportReport) -> str:
    """The price table (the GPU_ADVISOR_PRICES format): a header with attribution, `catalog:`, `prices:`."""
    import yaml

    origin = {"name": CATALOG_NAME, "source": SOURCE_ID, "url": REPOSITORY_URL, "license": LICENSE,
              "as_of": report.as_of.isoformat(), "clouds": list(report.clouds)}
    header = [
        f"# GPU instance prices imported from {CATALOG_NAME} ({REPOSITORY_URL}), licensed {LICENSE},",
        f"# as of {report.as_of.isoformat()}; source read: {report.source}",
        "# Prices are per instance-hour in USD (on_demand and spot side by side), one row per instance type",
        "# and region (availability zones collapsed to the cheapest). They are catalog prices, not quotes:",
        "# confirm with the provider. Written by `gpu-advisor prices import skypilot`; do not edit by hand.",
        "# " + report.summary().replace("\n", "\n# "),
    ]
    rows = sorted(report.offers, key=lambda o: (o.provider, o.gpu, o.gpu_count, o.instance_type, o.region))
    lines = ["catalog: " + _flow({k: v for k, v in origin.items()}), "prices:"]
    for offer in rows:
        data = offer.model_dump(exclude_none=True, exclude={"note"})
        data["quoted_on"] = offer.quoted_on.isoformat()
        lines.append("  - " + _flow(data))
    text = "\n".join(header + lines) + "\n"
    yaml.safe_load(text)  # never write a table that does not parse
    return text


def _flow(data: dict) -> str:
    """One-line YAML mapping, keys in the model's order, so the table stays diff-friendly."""
    import json

    parts = []
    for key, value in data.items():
        if isinstance(value, str):
            parts.append(f"{key}: {json.dumps(value)}")
        elif isinstance(value, float):
            text = repr(value)  # the shortest text that reads back as the same number
            if "e" in text or "E" in text:  # YAML 1.1 reads 1e-05 as a string
                text = f"{value:.12f}".rstrip("0")
            parts.append(f"{key}: {text}")
        elif isinstance(value, list):
            parts.append(f"{key}: [{', '.join(json.dumps(v) for v in value)}]")
        else:
            parts.append(f"{key}: {value}")
    return "{" + ", ".join(parts) + "}"
