"""Which availability zones in the price table are not a region's regular AZs (issue #23).

AWS lists Local Zones and Wavelength Zones under their parent region: SkyPilot's catalog puts
`use1-atl2-az1` (a Local Zone in Atlanta) among us-east-1's AZs (`use1-az1` ... `use1-az6`), and its
spot price is often the region's cheapest. A Local Zone has to be opted into per account, carries a
small set of instance types and is far from the parent region's other AZs, so an answer names it as
such and leads with the regular AZs' figure.

Zone IDs and names (sources aws-local-zones, aws-wavelength-zones):
- regular AZ: `use1-az1` (ID), `us-east-1a` (name)
- Local Zone: `use1-atl2-az1`, `usw2-lax1-az1` (ID); `us-east-1-atl-2a`, `us-west-2-lax-1a` (name)
- Wavelength Zone: `use1-wl1-bos-wlz1` (ID); `us-east-1-wl1-bos-wlz-1` (name)
The location part is the metro's airport code (atl: Atlanta, lax: Los Angeles, per the Local Zones list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SOURCES = ("aws-local-zones", "aws-wavelength-zones")
_WAVELENGTH = re.compile(r"(?:^|-)wl\d+-(?P<code>[a-z]{3})\d*-wlz-?\d+$", re.IGNORECASE)
_LOCAL_ID = re.compile(r"^[a-z]{2,5}\d-(?P<code>[a-z]{3})(?P<n>\d+)-az\d+$", re.IGNORECASE)
_LOCAL_NAME = re.compile(r"^[a-z]{2}-[a-z]+-\d-(?P<code>[a-z]{3})-(?P<n>\d+)[a-z]$", re.IGNORECASE)
# Metro codes of the AWS Local Zones list (aws-local-zones); a code not here is named by its code.
CITIES = {
    "atl": "Atlanta", "bos": "Boston", "chi": "Chicago", "dfw": "Dallas", "den": "Denver", "hou": "Houston",
    "iah": "Houston", "kan": "Kansas City", "mci": "Kansas City", "las": "Las Vegas", "lax": "Los Angeles",
    "mia": "Miami", "msp": "Minneapolis", "nyc": "New York", "phl": "Philadelphia", "phx": "Phoenix",
    "pdx": "Portland", "sea": "Seattle", "hnl": "Honolulu", "anc": "Anchorage", "qro": "Querétaro",
    "bue": "Buenos Aires", "scl": "Santiago", "lim": "Lima", "tpe": "Taipei", "del": "Delhi", "ccu": "Kolkata",
    "bkk": "Bangkok", "mnl": "Manila", "per": "Perth", "akl": "Auckland", "hel": "Helsinki", "cph": "Copenhagen",
    "waw": "Warsaw", "ham": "Hamburg", "lag": "Lagos", "mct": "Muscat",
}

# The same metros as Chinese answers write them.
CITIES_ZH = {
    "Atlanta": "亚特兰大", "Boston": "波士顿", "Chicago": "芝加哥", "Dallas": "达拉斯", "Denver": "丹佛",
    "Houston": "休斯敦", "Kansas City": "堪萨斯城", "Las Vegas": "拉斯维加斯", "Los Angeles": "洛杉矶",
    "Miami": "迈阿密", "Minneapolis": "明尼阿波利斯", "New York": "纽约", "Philadelphia": "费城",
    "Phoenix": "凤凰城", "Portland": "波特兰", "Seattle": "西雅图", "Honolulu": "檀香山", "Anchorage": "安克雷奇",
    "Querétaro": "克雷塔罗", "Buenos Aires": "布宜诺斯艾利斯", "Santiago": "圣地亚哥", "Lima": "利马",
    "Taipei": "台北", "Delhi": "德里", "Kolkata": "加尔各答", "Bangkok": "曼谷", "Manila": "马尼拉", "Perth": "珀斯",
    "Auckland": "奥克兰", "Helsinki": "赫尔辛基", "Copenhagen": "哥本哈根", "Warsaw": "华沙", "Hamburg": "汉堡",
    "Lagos": "拉各斯", "Muscat": "马斯喀特",
}


@dataclass(frozen=True)
class SpecialZone:
    kind: str  # "local" or "wavelength"
    code: str  # "atl2"
    city: str | None  # "Atlanta"


def special_zone(provider: str | None, zone: str | None) -> SpecialZone | None:
    """The Local Zone or Wavelength Zone an AWS zone is; None for a regular AZ (or another cloud's zone)."""
    if provider != "aws" or not zone:
        return None
    zone = zone.strip()[:80]
    match = _WAVELENGTH.search(zone)
    if match:
        code = match.group("code").lower()
        return SpecialZone("wavelength", code, CITIES.get(code))
    match = _LOCAL_ID.match(zone) or _LOCAL_NAME.match(zone)
    if match:
        code = match.group("code").lower()
        return SpecialZone("local", code + match.group("n"), CITIES.get(code))
    return None


def regular_first(provider: str | None, zone: str) -> tuple[bool, str]:
    """A sort key that puts a region's regular AZs before its Local and Wavelength Zones on equal prices."""
    return special_zone(provider, zone) is not None, zone
