"""Catalog models: 'Llama-3-70B', 'qwen2.5 72b', 'DeepSeek-R1' -> model, read before sizes so a
model's name is not also a size; 'llama3 ... 8b' (a family and a size the catalog has) -> model."""

from __future__ import annotations

from bot.nlu.scan import Scan


def extract(scan: Scan) -> None:
    for m in scan.matches(scan.lex.models.pattern):
        value = scan.lex.models.lookup(m.group(0))
        if value:
            scan.set("model", value, m.start(), m.end())
            scan.name(m.start(), m.end())


def from_family(scan: Scan) -> None:
    """No model alias matched, but a family ("llama3") and a size ("8b") name one catalog model."""
    if "model" in scan.fields or "params_b" not in scan.fields:
        return
    for m in scan.matches(scan.lex.families.pattern):
        family = scan.lex.families.lookup(m.group(0))
        model = scan.lex.family_sizes.get((family, float(scan.fields["params_b"]))) if family else None
        if model:
            size = next(s for s in scan.spans if s.slot == "params_b")
            del scan.fields["params_b"]
            scan.spans.remove(size)
            scan.set("model", model, min(m.start(), size.start), max(m.end(), size.end))
            scan.name(m.start(), m.end())
            return
