"""Import GPU instance prices from SkyPilot's public catalog (skypilot-org/skypilot-catalog, Apache-2.0).

The catalog has one `vms.csv` per cloud under `catalogs/v7/<cloud>/`, header (column order varies by
cloud) `InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,
AvailabilityZone`, prices per instance-hour in USD. The import keeps GPU rows whose accelerator maps to a
GPU id in the knowledge base, collapses availability zones into one row per region (the cheapest
on-demand and spot price seen in the region), and reports everything it left out: CPU-only rows,
accelerator names it does not know (never guessed), and bad rows (named by file and line, never
half-imported).

Read as SkyPilot's own code reads it (issue #26): columns by header name, GCP's GPU machines priced as
the machine row plus the accelerator row for its count in its zone, AMD/TPU rows skipped and counted,
rows whose spot price is above on-demand reported as odd. Each region row keeps its zone spread (the
cheapest zone, the dearest zone's price, the zones read), and the table records what was read per
cloud (commit or URL) and the day it was read (`as_of`), never a date the prices do not have.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import ConfigError
from bot.knowledge import Catalog, InstanceOffer
from bot.prices.zones import regular_first

SOURCE_ID = "skypilot-catalog"
CATALOG_NAME = "SkyPilot's catalog"
LICENSE = "Apache-2.0"
REPOSITORY_URL = "https://github.com/skypilot-org/skypilot-catalog"
RAW_BASE_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v7"
# The clouds the shipped snapshot covers, and what `prices update` refreshes by default.
DEFAULT_CLOUDS = ("aws", "gcp", "lambda", "runpod", "vast")
REPOSITORY_SLUG = "skypilot-org/skypilot-catalog"
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")

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
        return f"{self.cloud}/vms.csv:{self.line}: {shown(self.instance_type) or '(no instance type)'}: {shown(self.reason, 200)}"


@dataclass
class CloudCounts:
    rows: int = 0
    cpu_rows: int = 0
    gpu_rows: int = 0
    attachment_rows: int = 0  # GCP's accelerator rows: GPUs priced apart from the machine they attach to
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
    not_nvidia: Counter = field(default_factory=Counter)  # AMD Instinct, TPU...: skipped, counted
    unattached: Counter = field(default_factory=Counter)  # GCP accelerator rows no GPU machine row used
    bad: list[BadRow] = field(default_factory=list)
    odd: list[BadRow] = field(default_factory=list)  # rows SkyPilot's data marks odd: spot above on-demand
    read: dict[str, str] = field(default_factory=dict)  # cloud -> what was read (commit or URL)

    def summary(self, limit: int = 20) -> str:
        """What was imported and what was left out, every name escaped and every list bounded."""
        lines = [f"{CATALOG_NAME} ({shown(self.source, 200)}), read on {self.as_of.isoformat()}:"]
        for cloud in self.clouds:
            c = self.counts[cloud]
            extra = f", {c.attachment_rows} accelerator rows" if c.attachment_rows else ""
            lines.append(f"  {cloud}: {c.rows} rows, {c.gpu_rows} GPU rows{extra}, {c.imported_rows} imported "
                         f"-> {c.offers} instance/region rows ({c.cpu_rows} CPU-only rows skipped)")
            if cloud in self.read:
                lines.append(f"    read: {shown(self.read[cloud], 200)}")

        def names(counter: Counter) -> str:
            items = sorted(counter.items())
            text = ", ".join(f"{cloud}:{name} ({n})" for (cloud, name), n in items[:limit])
            return text + (f", ... and {len(items) - limit} more" if len(items) > limit else "")

        for counter, what in (
            (self.unknown, "unknown accelerators, not imported"),
            (self.unmapped, "known accelerators with no GPU entry, not imported"),
            (self.not_nvidia, "not NVIDIA GPUs (AMD, TPU), skipped"),
            (self.unattached, "GPU accelerator rows with no GPU machine row to add them to (e.g. N1 attachments), skipped"),
        ):
            if counter:
                lines.append(f"  {what} ({sum(counter.values())} rows): {names(counter)}")
        for rows, what in ((self.odd, "odd rows (spot above on-demand), not imported"),
                           (self.bad, "bad rows, not imported")):
            if rows:
                lines.append(f"  {what} ({len(rows)}):")
                lines += [f"    {row}" for row in rows[:limit]]
                if len(rows) > limit:
                    lines.append(f"    ... and {len(rows) - limit} more")
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
    commits: dict[str, str] | None = None,
) -> ImportReport:
    """Read `<cloud>/vms.csv` for each cloud from a folder or a base URL and map it to price rows.

    `commits` (cloud -> the skypilot-catalog commit a folder's file was copied from) is recorded as
    what was read; a URL import records each file's URL, dated the day it was fetched."""
    source = str(source)
    for cloud in [*(clouds or []), *(commits or {})]:
        if not _CLOUD_NAME.match(cloud):
            raise CatalogImportError(f"--clouds: {shown(cloud, 40)!r} is not a cloud folder name")
    for cloud, commit in (commits or {}).items():
        if not _COMMIT.match(commit):
            raise CatalogImportError(f"--commit {cloud}: {shown(commit, 60)!r} is not a git commit (7-40 hex digits)")
    texts: dict[str, str] = {}
    read: dict[str, str] = {}
    if is_url(source):
        base = source.rstrip("/")
        clouds = list(clouds or DEFAULT_CLOUDS)
        for cloud in clouds:
            read[cloud] = f"{base}/{cloud}/vms.csv"
            texts[cloud] = fetch_text(read[cloud], timeout_s)
        as_of = as_of or dt.date.today()  # the public catalog is refreshed by SkyPilot's CI; fetched now
    else:
        root = catalog_root(Path(source).expanduser())
        clouds = list(clouds or sorted(p.parent.name for p in root.glob("*/vms.csv")))
        for cloud in clouds:
            texts[cloud] = _read_local(root, cloud)
            commit = (commits or {}).get(cloud)
            read[cloud] = (f"{REPOSITORY_SLUG}@{commit} catalogs/v7/{cloud}/vms.csv" if commit
                           else f"{source.rstrip('/')}/{cloud}/vms.csv")
        if as_of is None:
            # The date the catalog files were written: the newest vms.csv read.
            newest = max((root / cloud / "vms.csv").stat().st_mtime for cloud in clouds)
            as_of = dt.datetime.fromtimestamp(newest, tz=dt.timezone.utc).date()
    if as_of > dt.date.today():
        raise CatalogImportError(f"--as-of {as_of.isoformat()} is in the future")
    report = ImportReport(source=source, as_of=as_of, clouds=clouds, read=read)
    for cloud in clouds:
        try:
            report.offers += _import_cloud(cloud, texts[cloud], catalog, report)
        except csv.Error as exc:  # a malformed file (an oversized field, a NUL byte): refused whole
            raise CatalogImportError(f"{cloud}/vms.csv: not a readable CSV file: {exc}") from exc
    return report


# -- one cloud ----------------------------------------------------------------------------------

# GCP's GPU machine families carry their GPUs in the machine type: the catalog lists the VM row with an
# empty AcceleratorName and the GPUs as a separate "accelerator row" (empty InstanceType) per count and
# zone; SkyPilot prices the machine as the VM row plus the accelerator row for its count in its zone.
# Source: gcp-gpu-machine-types (A2, A3, G2; A3 Mega is the 8x H100 80GB machine SkyPilot names H100-MEGA).
_GCP_MACHINES: tuple[tuple[re.Pattern, str, int | None], ...] = (
    (re.compile(r"^a2-highgpu-(\d+)g$"), "A100", None),
    (re.compile(r"^a2-megagpu-(16)g$"), "A100", None),
    (re.compile(r"^a2-ultragpu-(\d+)g$"), "A100-80GB", None),
    (re.compile(r"^a3-highgpu-(\d+)g$"), "H100", None),
    (re.compile(r"^a3-edgegpu-8g(-nolssd)?$"), "H100", 8),
    (re.compile(r"^a3-megagpu-8g$"), "H100-MEGA", 8),
    (re.compile(r"^a3-ultragpu-8g(-nolssd)?$"), "H200", 8),
    (re.compile(r"^a4-highgpu-8g$"), "B200", 8),
)
_G2_L4_COUNT = {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}  # g2-standard-<vCPUs> -> L4s
# Accelerators that are not NVIDIA GPUs (AMD Instinct, Google TPU, AWS Inferentia/Trainium, Gaudi).
_NOT_NVIDIA = re.compile(r"^(mi\d|radeon|tpu|inferentia|trainium|inf\d|trn\d|gaudi)", re.IGNORECASE)
# Line breaks and other control characters (YAML's NEL, U+2028/U+2029 included) never belong in a name.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def gcp_machine_gpus(instance_type: str) -> tuple[str, int] | None:
    """(the catalog's accelerator name, GPUs) a GCP GPU machine type carries; None for other machines."""
    for pattern, accelerator, count in _GCP_MACHINES:
        match = pattern.match(instance_type)
        if match:
            return accelerator, count if count is not None else int(match.group(1))
    match = re.match(r"^g2-standard-(\d+)$", instance_type)
    if match and int(match.group(1)) in _G2_L4_COUNT:
        return "L4", _G2_L4_COUNT[int(match.group(1))]
    return None


def shown(text: str, limit: int = 60) -> str:
    """Text from a catalog as a report or comment may print it: control characters and line breaks
    escaped (a CSV field can never start a new line of the written table), and bounded in length."""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text or "")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _number(value: str, column: str) -> float | None:
    value = (value or "").strip()
    if not value:
        return None
    number = float(value)  # ValueError names the text
    if not math.isfinite(number):
        raise ValueError(f"{column} {value!r} is not a finite number")
    return number


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
            reported = accelerator if model.lower() == accelerator.lower() else f"{accelerator} ({model})"
            return (name.gpu, True, accelerator) if name else (None, False, reported)
    name = catalog.accelerator_name(accelerator, cloud)
    return (name.gpu, True, accelerator) if name else (None, False, accelerator)


@dataclass
class _Spread:
    """One (instance type, region): every zone's prices, so the cheapest zone and the range are known."""

    gpu: str
    count: int
    vcpus: float | None
    memory_gib: float | None
    on_demand: dict[str, float] = field(default_factory=dict)  # zone -> the cheapest price seen there
    spot: dict[str, float] = field(default_factory=dict)
    zones: set[str] = field(default_factory=set)
    # GCP: zone -> the attached GPUs' part of that zone's on-demand and spot price
    attached_on_demand: dict[str, float] = field(default_factory=dict)
    attached_spot: dict[str, float] = field(default_factory=dict)

    def add(self, zone: str, on_demand: float | None, spot: float | None,
            attached: tuple[float, float | None] | None = None) -> None:
        self.zones.add(zone)
        for prices, value, part, parts in ((self.on_demand, on_demand, attached and attached[0], self.attached_on_demand),
                                           (self.spot, spot, attached and attached[1], self.attached_spot)):
            if value is not None and (zone not in prices or value < prices[zone]):
                prices[zone] = value
                if part:
                    parts[zone] = part

    @staticmethod
    def _low_high(prices: dict[str, float], cloud: str = "") -> tuple[float | None, str | None, float | None]:
        if not prices:
            return None, None, None
        zone = min(prices, key=lambda z: (prices[z], regular_first(cloud, z)))  # a tie goes to a regular AZ
        high = max(prices.values())
        return prices[zone], zone, (high if high > prices[zone] else None)

    @staticmethod
    def by_zone(prices: dict[str, float]) -> dict[str, float] | None:
        """Each zone's price, where the region has zones that differ (else the one price says it all)."""
        return dict(sorted(prices.items())) if len(prices) > 1 and len(set(prices.values())) > 1 else None


def _offers(cloud: str, regions: dict[tuple[str, str], _Spread], as_of: dt.date, zoned: bool) -> list[InstanceOffer]:
    offers = []
    for (instance_type, region), spread in regions.items():
        on_demand, zone, on_demand_max = spread._low_high(spread.on_demand, cloud)
        spot, spot_zone, spot_max = spread._low_high(spread.spot, cloud)
        if on_demand is None and spot is None:
            continue
        offers.append(InstanceOffer(
            provider=cloud, instance_type=instance_type, gpu=spread.gpu, gpu_count=spread.count,
            vcpus=spread.vcpus, memory_gib=spread.memory_gib, region=region, on_demand=on_demand, spot=spot,
            currency="USD", quoted_on=as_of, source=SOURCE_ID,
            zone=zone if zoned else None, spot_zone=spot_zone if zoned else None,
            zones=len(spread.zones) if zoned and len(spread.zones) > 1 else None,
            on_demand_max=on_demand_max, spot_max=spot_max,
            zone_on_demand=spread.by_zone(spread.on_demand) if zoned else None,
            zone_spot=spread.by_zone(spread.spot) if zoned else None,
            attached_on_demand=spread.attached_on_demand.get(zone or ""),
            attached_spot=spread.attached_spot.get(spot_zone or ""),
        ))
    return offers


def _import_cloud(cloud: str, text: str, catalog: Catalog, report: ImportReport) -> list[InstanceOffer]:
    counts = report.counts.setdefault(cloud, CloudCounts())
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    unknown_columns = [shown(c, 40) for c in header if c not in KNOWN_COLUMNS]
    if unknown_columns:
        raise CatalogImportError(
            f"{cloud}/vms.csv:1: unknown column(s) {', '.join(unknown_columns)}; known: {', '.join(sorted(KNOWN_COLUMNS))}"
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise CatalogImportError(f"{cloud}/vms.csv:1: missing column(s) {', '.join(missing)}")
    zoned = "AvailabilityZone" in header

    regions: dict[tuple[str, str], _Spread] = {}
    # GCP: accelerator rows (accelerator, count, zone) -> (price, spot, line), and the GPU machine rows.
    attachments: dict[tuple[str, int, str], tuple[float, float | None, str]] = {}
    machines: list[tuple[int, str, str, int, dict]] = []
    for row in reader:
        counts.rows += 1
        line = reader.line_num
        if counts.rows > MAX_ROWS_PER_FILE:
            raise CatalogImportError(f"{cloud}/vms.csv: more than {MAX_ROWS_PER_FILE} rows; refused")
        instance_type = (row.get("InstanceType") or "").strip()
        if None in row:  # more fields than the header names
            report.bad.append(BadRow(cloud, line, shown(instance_type), f"{len(row[None])} field(s) beyond the header's columns"))
            continue
        accelerator = (row.get("AcceleratorName") or "").strip()
        control = next((c for c in ("InstanceType", "AcceleratorName", "Region", "AvailabilityZone")
                        if _CONTROL.search(row.get(c) or "")), None)
        if control:
            report.bad.append(BadRow(cloud, line, shown(instance_type), f"a control character or line break in {control}"))
            continue
        if not accelerator:
            machine = gcp_machine_gpus(instance_type) if cloud == "gcp" else None
            if machine is None:
                counts.cpu_rows += 1
                continue
            counts.gpu_rows += 1
            machines.append((line, instance_type, *machine, row))
            continue
        if _NOT_NVIDIA.match(accelerator):
            report.not_nvidia[(cloud, shown(accelerator, 40))] += 1
            continue
        if not instance_type:  # an accelerator row: the GPUs' price, added to a machine's (GCP)
            problem, parsed = _check(row, "(accelerator row)")
            if problem:
                what = f"({shown(accelerator, 40)} x{shown(row.get('AcceleratorCount') or '?', 8)} accelerator row)"
                (report.odd if _is_odd(problem) else report.bad).append(BadRow(cloud, line, what, problem))
                continue
            zone = (row.get("AvailabilityZone") or parsed["region"]).strip()
            counts.attachment_rows += 1
            attachments[(accelerator.lower(), parsed["count"], zone)] = (parsed["on_demand"], parsed["spot"], accelerator)
            continue
        counts.gpu_rows += 1
        gpu, known, reported = _gpu_for(catalog, cloud, instance_type, accelerator)
        if gpu is None:
            (report.unmapped if known else report.unknown)[(cloud, shown(reported, 40))] += 1
            continue
        problem, parsed = _check(row, instance_type)
        if problem:
            (report.odd if _is_odd(problem) else report.bad).append(
                BadRow(cloud, line, shown(instance_type), problem))
            continue
        counts.imported_rows += 1
        spread = regions.setdefault((instance_type, parsed["region"]), _Spread(
            gpu=gpu, count=parsed["count"], vcpus=parsed["vcpus"], memory_gib=parsed["memory_gib"]))
        spread.add((row.get("AvailabilityZone") or "").strip() or parsed["region"], parsed["on_demand"], parsed["spot"])

    used: set[tuple[str, int, str]] = set()
    for line, instance_type, accelerator, count, row in machines:
        gpu, known, reported = _gpu_for(catalog, cloud, instance_type, accelerator)
        if gpu is None:
            (report.unmapped if known else report.unknown)[(cloud, shown(reported, 40))] += 1
            continue
        row = {**row, "AcceleratorCount": str(count)}
        problem, parsed = _check(row, instance_type)
        if problem:
            (report.odd if _is_odd(problem) else report.bad).append(
                BadRow(cloud, line, shown(instance_type), problem))
            continue
        zone = (row.get("AvailabilityZone") or "").strip() or parsed["region"]
        key = (accelerator.lower(), count, zone)
        attached = attachments.get(key)
        if attached is None:
            report.bad.append(BadRow(cloud, line, shown(instance_type),
                                     f"no {accelerator} x{count} accelerator row in {shown(zone, 40)} to add to the machine's price"))
            continue
        used.add(key)
        gpu_price, gpu_spot, _ = attached
        on_demand = parsed["on_demand"] + gpu_price
        spot = parsed["spot"] + gpu_spot if parsed["spot"] is not None and gpu_spot is not None else None
        counts.imported_rows += 1
        spread = regions.setdefault((instance_type, parsed["region"]), _Spread(
            gpu=gpu, count=count, vcpus=parsed["vcpus"], memory_gib=parsed["memory_gib"]))
        spread.add(zone, round(on_demand, 6), None if spot is None else round(spot, 6), (gpu_price, gpu_spot))
    for key, (_, _, name) in attachments.items():
        if key not in used:
            report.unattached[(cloud, shown(name, 40))] += 1

    offers = _offers(cloud, regions, report.as_of, zoned)
    counts.offers = len(offers)
    return offers


def _is_odd(problem: str) -> bool:
    return problem.startswith("SpotPrice") and "above the on-demand" in problem


def _check(row: dict, instance_type: str) -> tuple[str | None, dict]:
    """One data row's problem, or its parsed values."""
    if not instance_type:
        return "no InstanceType", {}
    region = (row.get("Region") or "").strip()
    if not region:
        return "no Region", {}
    try:
        count_value = _number(row.get("AcceleratorCount", ""), "AcceleratorCount")
        price = _number(row.get("Price", ""), "Price")
        spot = _number(row.get("SpotPrice", ""), "SpotPrice")
        vcpus = _number(row.get("vCPUs", ""), "vCPUs")
        memory = _number(row.get("MemoryGiB", ""), "MemoryGiB")
    except ValueError as exc:
        return f"not a number: {shown(str(exc), 80)}", {}
    if count_value is None or count_value <= 0 or count_value != int(count_value) or count_value > MAX_GPUS_PER_INSTANCE:
        return (f"AcceleratorCount {shown(str(row.get('AcceleratorCount')), 20)!r} is not a whole number of GPUs "
                f"(1-{MAX_GPUS_PER_INSTANCE})"), {}
    if price is None:
        return "missing Price (on-demand)", {}
    if price <= 0 or price > MAX_PRICE_PER_HOUR:
        return f"Price {price:g} is not a price per hour (> 0, <= {MAX_PRICE_PER_HOUR:g})", {}
    if spot is not None and (spot < 0 or spot > MAX_PRICE_PER_HOUR):
        return f"SpotPrice {spot:g} is not a price per hour (>= 0, <= {MAX_PRICE_PER_HOUR:g})", {}
    if spot == 0:
        spot = None  # some clouds write 0.00 where they have no spot offer (Vast.ai)
    if spot is not None and spot > price:
        return f"SpotPrice {spot!r} is above the on-demand Price {price!r} (columns swapped?)", {}
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
              "as_of": report.as_of.isoformat(), "clouds": list(report.clouds), "read": dict(report.read)}
    header = [
        f"# GPU instance prices imported from {CATALOG_NAME} ({REPOSITORY_URL}), licensed {LICENSE},",
        f"# read on {report.as_of.isoformat()} (the catalog's own prices may be older); source: {report.source}",
        "# Prices are per instance-hour in USD (on_demand and spot side by side), one row per instance type",
        "# and region: the cheapest zone's price (zone, spot_zone), the dearest zone's (on_demand_max, spot_max)",
        "# and the zones read (zones); each zone's price where the zones differ (zone_on_demand, zone_spot), and",
        "# for a GCP GPU machine the attached GPUs' part of its price (attached_on_demand, attached_spot), the rest",
        "# being the machine type's. They are catalog prices, not quotes: confirm with the provider.",
        "# Written by `gpu-advisor prices import skypilot`; do not edit by hand.",
        *report.summary().split("\n"),
    ]
    # Every header line is one comment line: nothing read from outside can start a line of its own.
    header = ["# " + shown(line.removeprefix("# "), 400) for line in header]
    rows = sorted(report.offers, key=lambda o: (o.provider, o.gpu, o.gpu_count, o.instance_type, o.region))
    lines = ["catalog: " + _flow({k: v for k, v in origin.items()}), "prices:" if rows else "prices: []"]
    for offer in rows:
        data = offer.model_dump(exclude_none=True, exclude={"note"})
        data["quoted_on"] = offer.quoted_on.isoformat()
        lines.append("  - " + _flow(data))
    text = "\n".join(header + lines) + "\n"
    loaded = yaml.safe_load(text)  # never write a table that does not parse, or parses into more keys
    if not isinstance(loaded, dict) or set(loaded) != {"catalog", "prices"} or len(loaded["prices"]) != len(rows):
        raise CatalogImportError("the written table does not read back as catalog: and prices: alone; not written")
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
        elif isinstance(value, dict):
            parts.append(f"{key}: " + "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()) + "}")
        else:
            parts.append(f"{key}: {value}")
    return "{" + ", ".join(parts) + "}"
