"""The bot's Prometheus metrics as Prometheus reads them: the exposition text, parsed."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.ops.metrics import metrics_payload


def scrape() -> dict[tuple[str, tuple], float]:
    text = metrics_payload()[0].decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
