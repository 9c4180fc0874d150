"""`gpu-advisor prices show GPU`: a GPU's rows of the price table, laid out the way `sky show-gpus GPU`
lays out SkyPilot's catalog (GPU, QTY, CLOUD, INSTANCE_TYPE, DEVICE_MEM, vCPUs, HOST_MEM, HOURLY_PRICE,
HOURLY_SPOT_PRICE, REGION), with the table's source and the day it was read under it. Bounded in rows;
every name from the table is escaped before it reaches a terminal."""

from __future__ import annotations

import datetime as dt

from bot.knowledge import Catalog
from bot.prices.lookup import MAX_SHOW_ROWS, Offer, PriceBilling, provider_name, show_rows, table_source
from bot.prices.skypilot import shown
from bot.messages.format import count, gpu_name

COLUMNS = ("GPU", "QTY", "CLOUD", "INSTANCE_TYPE", "DEVICE_MEM", "vCPUs", "HOST_MEM", "HOURLY_PRICE",
           "HOURLY_SPOT_PRICE", "REGION")


def _price(value: float | None) -> str:
    return "-" if value is None else f"$ {value:.3f}"


def _memory(catalog: Catalog, offer: Offer) -> str:
    spec = catalog.gpus.get(offer.gpu)
    return f"{count(spec.memory_gb)}GB" if spec else "-"


def row_cells(catalog: Catalog, offer: Offer) -> list[str]:
    return [
        shown(gpu_name(catalog, offer.gpu), 30), str(offer.gpu_count), shown(provider_name(catalog, offer.provider), 20),
        shown(offer.instance_type or "(per GPU)", 40), _memory(catalog, offer),
        "-" if offer.vcpus is None else count(offer.vcpus),
        "-" if offer.memory_gib is None else f"{count(offer.memory_gib)}GB",
        _price(offer.on_demand), _price(offer.spot), shown(offer.region or "-", 40),
    ]


def source_line(catalog: Catalog, today: dt.date | None = None, max_age_days: int = 90) -> str:
    source = table_source(catalog, today=today, max_age_days=max_age_days)
    if source.read_on is not None:
        line = (f"Prices: {source.name}, read {source.read_on.isoformat()} ({source.age_days} days ago); catalog "
                "prices per instance-hour in USD, not quotes: confirm with the provider before buying.")
    else:
        newest = source.newest_quote.isoformat() if source.newest_quote else "undated"
        line = f"Prices: {source.name}, newest quote {newest}; confirm with the provider before buying."
    if source.example:
        line += " These are EXAMPLE rows, not prices."
    if source.stale:
        line += f" STALE: older than {max_age_days} days (GPU_ADVISOR_PRICE_MAX_AGE_DAYS)."
    return line


def render_show(catalog: Catalog, gpus: list[str], region: str | None = None, spot: bool = False,
                all_regions: bool = False, limit: int = 60, today: dt.date | None = None,
                max_age_days: int = 90) -> str:
    rows = show_rows(catalog, gpus, region=region, spot=spot, all_regions=all_regions, limit=limit + 1)
    names = ", ".join(gpu_name(catalog, g) for g in gpus)
    if not rows:
        where = f" in {shown(region, 40)}" if region else ""
        what = "spot prices" if spot else "prices"
        return f"No {what} for {names}{where} in the price table.\n{source_line(catalog, today, max_age_days)}"
    more = len(rows) > limit
    rows = rows[:limit]
    table = [list(COLUMNS)] + [row_cells(catalog, o) for o in rows]
    specials = _special_rows(rows)
    for index, _ in specials:  # a Local Zone's price is no regular AZ's: marked, and said below
        table[index + 1][-1] += "*"
    widths = [max(len(r[i]) for r in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in table]
    if more:
        lines.append(f"... more rows: narrow with --region, or raise --limit (at most {MAX_SHOW_ROWS})")
    if not all_regions:
        lines.append("Each instance type in its cheapest region" + (" by spot price" if spot else "")
                     + "; --all-regions lists every region.")
    if spot:
        lines.append("Spot prices move with supply and differ by zone; the price shown is the cheapest zone read.")
    lines += [note for _, note in specials[:MAX_ZONE_NOTES]]
    lines.append(source_line(catalog, today, max_age_days))
    return "\n".join(lines)


MAX_ZONE_NOTES = 5


def _special_rows(rows: list[Offer]) -> list[tuple[int, str]]:
    """Rows whose cheapest zone is an AWS Local or Wavelength Zone: (row index, the footnote saying so)."""
    from bot.prices.zones import special_zone

    out = []
    billings: tuple[PriceBilling, ...] = ("on-demand", "spot")
    for index, offer in enumerate(rows):
        for billing in billings:
            zone = offer.zone(billing)
            special = special_zone(offer.provider, zone)
            if special is None or zone is None:
                continue
            kind = "Local Zone" if special.kind == "local" else "Wavelength Zone"
            where = f" in {special.city}" if special.city else ""
            regular = offer.regular_zone(billing)
            tail = f"; its regular AZs from {_price(regular[1])} ({regular[0]})" if regular else ""
            out.append((index, f"* {shown(offer.instance_type or '-', 40)} {billing} in {shown(offer.region or '-', 40)}: "
                               f"the cheapest zone, {shown(zone, 40)}, is an AWS {kind}{where}, not a regular AZ{tail}."))
            break
    return out


def show_json(catalog: Catalog, gpus: list[str], region: str | None = None, spot: bool = False,
              all_regions: bool = False, limit: int = 60, today: dt.date | None = None,
              max_age_days: int = 90) -> dict:
    rows = show_rows(catalog, gpus, region=region, spot=spot, all_regions=all_regions, limit=limit)
    source = table_source(catalog, today=today, max_age_days=max_age_days)
    return {"gpus": gpus, "region": region, "spot": spot, "source": source.model_dump(mode="json"),
            "rows": [o.model_dump(mode="json", exclude_none=True) for o in rows]}
