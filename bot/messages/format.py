"""How numbers and names read in an answer (issue #22): display names, money with its symbol and
grouping, counts without scientific notation. Every renderer and composer formats through here."""

from __future__ import annotations

import re

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


def gpu_setup(catalog: Catalog, gpu: str, count: int, language: str = "en") -> str:
    """'2× H100 SXM', '2 张 H100 SXM': a count of one GPU, as the answers write it."""
    name = gpu_name(catalog, gpu, language)
    return f"{count} 张 {name}" if language == "zh" else f"{count}× {name}"


def gpu_name(catalog: Catalog, gpu: str | None, language: str | None = None) -> str:
    """'RTX 4090', 'H100 SXM', 'A100 80GB PCIe': the catalog name without the brand prefix (in Chinese
    its `name_zh` where it has one); an id the catalog does not know is shown as written."""
    if not gpu:
        return ""
    spec = catalog.gpus.get(gpu)
    if spec is None:
        return gpu
    if language == "zh" and spec.name_zh:
        return spec.name_zh
    name = spec.name
    for prefix in ("NVIDIA ", "GeForce ", "Tesla "):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


_PATTERNS: dict[int, tuple[Catalog, re.Pattern, dict[str, str]]] = {}
_MONEY_CODE = re.compile(r"(?<![\w.])(-?[0-9][0-9,]*(?:\.[0-9]+)?) ?(USD|CNY|EUR|GBP)\b")


def _gpu_pattern(catalog: Catalog) -> tuple[re.Pattern, dict[str, str]]:
    cached = _PATTERNS.get(id(catalog))
    if cached is not None and cached[0] is catalog:
        return cached[1], cached[2]
    names = {gpu_id: gpu_name(catalog, gpu_id) for gpu_id in catalog.gpus}
    ids = sorted(names, key=len, reverse=True)
    pattern = re.compile(r"(?:(?<![\w-])([0-9]+) (?:x|张) )?(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])")
    _PATTERNS[id(catalog)] = (catalog, pattern, names)
    return pattern, names


def display_text(text: str, catalog: Catalog, language: str = "en") -> str:
    """Text written with catalog ids and currency codes, as people read it: '2 x a100-80gb-pcie' ->
    '2× A100 80GB PCIe', '1,239 USD' -> '$1,239'. Names the catalog does not know stay as written."""
    pattern, names = _gpu_pattern(catalog)

    def gpu(m: re.Match) -> str:
        if m.group(1) is None:
            return names[m.group(2)]
        return gpu_setup(catalog, m.group(2), int(m.group(1)), language)

    def cash(m: re.Match) -> str:
        amount = float(m.group(1).replace(",", ""))
        return money(amount, m.group(2), language)

    return _MONEY_CODE.sub(cash, pattern.sub(gpu, text))


# The catalog's form factor as the answer's language writes it, from the words the English entries are made of
# ("SXM5 module (HGX H200 baseboard)" -> "SXM5 模块（HGX H200 基板）"); English keeps the catalog's own text.
_SLOTS = {"single-slot": "slots_1", "dual-slot": "slots_2", "two-slot": "slots_2", "three-slot": "slots_3"}


def form_factor(form: str, language: str = "en") -> str:
    from bot.messages import say

    if language == "en":
        return form
    sxm = re.match(r"(SXM\d?) module", form)
    if sxm:
        board = re.search(r"\((?:8-GPU )?((?:HGX|DGX)[/\w]*(?: [A-Z]\d+\w*)?)", form)
        return say("format.form_sxm_board" if board else "format.form_sxm", language, sxm=sxm.group(1),
                   board=board.group(1) if board else "")
    if form.startswith("PCIe card"):
        words = [say("format.form_pcie", language)]
        slots = next((key for en, key in _SLOTS.items() if en in form), None)
        if slots:
            words.append(say(f"format.form_{slots}", language))
        if "passive" in form and "active" not in form.replace("passive", ""):
            words.append(say("format.form_passive", language))
        return say("format.form_join", language).join(words)
    if form.startswith("Grace Hopper Superchip"):
        return say("format.form_grace_hopper", language)
    return form

