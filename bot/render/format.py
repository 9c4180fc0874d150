"""How numbers and names read in an answer (issue #22): display names, money with its symbol and
grouping, counts without scientific notation. Every renderer and composer formats through here."""

from __future__ import annotations

from bot.knowledge import Catalog

_SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "JP¥", "HKD": "HK$", "SGD": "S$"}


def money(amount: float, currency: str | None, language: str = "en") -> str:
    """'$73,433', '$2.49', '¥24,848'; cents only below 100 of the unit. An unknown currency code
    follows the number ('1,200 CHF')."""
    code = (currency or "USD").upper()
    digits = f"{amount:,.2f}" if abs(amount) < 100 else f"{amount:,.0f}"
    symbol = _SYMBOLS.get(code)
    if symbol is None:
        return f"{digits} {code}"
    sign = "-" if amount < 0 else ""
    return f"{sign}{symbol}{digits.lstrip('-')}"


def rate(amount: float, currency: str | None, unit: str, language: str = "en") -> str:
    """'$2.49/GPU-h', '¥28/小时': a price per `unit` (the unit as the language writes it)."""
    return f"{money(amount, currency, language)}/{unit}"


def count(value: float) -> str:
    """A count or quantity for people: '1,024', '2.5', never '4.9e+02'."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:,.2f}".rstrip("0").rstrip(".")


def gpu_name(catalog: Catalog, gpu: str | None) -> str:
    """'RTX 4090', 'H100 SXM', 'A100 80GB PCIe': the catalog name without the brand prefix; an id
    the catalog does not know is shown as written."""
    if not gpu:
        return ""
    spec = catalog.gpus.get(gpu)
    if spec is None:
        return gpu
    name = spec.name
    for prefix in ("NVIDIA ", "GeForce ", "Tesla "):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name
