"""An Alertmanager webhook receiver: GPU alerts from DCGM-exporter, judged by the host rules and
posted to Slack as the same rule-justified advice a host check gives (issue #29).

Prometheus and Alertmanager carry the scale (they watch every GPU); the bot carries the judgement.
The payload is Alertmanager's documented webhook JSON (`version: "4"`,
https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). Each alert is read
from its labels, the ones DCGM-exporter puts on its series plus one the alert rule adds:

- `Hostname` (DCGM-exporter), else `instance` (port dropped), else `node`: the host;
- `gpu`: the GPU index; `pci_bus_id`, `modelName` when present;
- `metric` (the rule adds it: the DCGM field the alert is on), else the alertname's known field;
- the value: annotation `value` (`{{ $value }}` in the rule), else label `value`.

deploy/prometheus/gpu-alerts.yaml ships rules in that shape. The fields mapped to the probe the
host rules judge:

    DCGM_FI_DEV_XID_ERRORS                 the last Xid code      -> an Xid event on that GPU
    DCGM_FI_DEV_ROW_REMAP_FAILURE          > 0                    -> remapped_rows_failure
    DCGM_FI_DEV_ROW_REMAP_PENDING          > 0                    -> remapped_rows_pending
    DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS count                  -> remapped_rows_uncorrectable
    DCGM_FI_DEV_RETIRED_DBE                count                  -> retired_pages_dbe
    DCGM_FI_DEV_RETIRED_PENDING            > 0                    -> retired_pages_pending
    DCGM_FI_DEV_ECC_DBE_VOL_TOTAL          count                  -> ecc_volatile_uncorrected

An alert on another field, or without a value, is posted as received with a line saying no host
rule judges it. A resolved alert gets a one-line "resolved".
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.host_report import GpuProbe, KernelLogReport, ProbeReport, XidEvent
from bot.messages import say

MAX_ALERTS = 500
MAX_LABEL = 512

XID_FIELD = "DCGM_FI_DEV_XID_ERRORS"
COUNTER_FIELDS = {
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": "remapped_rows_uncorrectable",
    "DCGM_FI_DEV_RETIRED_DBE": "retired_pages_dbe",
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": "ecc_volatile_uncorrected",
}
FLAG_FIELDS = {
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": "remapped_rows_failure",
    "DCGM_FI_DEV_ROW_REMAP_PENDING": "remapped_rows_pending",
    "DCGM_FI_DEV_RETIRED_PENDING": "retired_pages_pending",
}
# Alert names commonly used for these fields, for rules that do not add `metric`.
ALERTNAME_FIELDS = {"GpuXidError": XID_FIELD, "GPUXidError": XID_FIELD, "GpuRowRemapFailure": "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                    "GpuRowRemapPending": "DCGM_FI_DEV_ROW_REMAP_PENDING",
                    "GpuRetiredPagesDbe": "DCGM_FI_DEV_RETIRED_DBE", "GpuEccDbeVolatile": "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"}


class AmAlert(BaseModel):
    model_config = ConfigDict(extra="allow")

    status: Literal["firing", "resolved"]
    labels: dict[str, str] = Field(default_factory=dict, max_length=64)
    annotations: dict[str, str] = Field(default_factory=dict, max_length=64)
    startsAt: str | None = None
    endsAt: str | None = None
    fingerprint: str | None = None


class AmPayload(BaseModel):
    """Alertmanager's webhook body (version 4); fields we do not use are kept, not refused."""

    model_config = ConfigDict(extra="allow")

    version: str = "4"
    status: Literal["firing", "resolved"]
    receiver: str | None = None
    alerts: list[AmAlert] = Field(max_length=MAX_ALERTS)


def _label(alert: AmAlert, *names: str) -> str | None:
    for name in names:
        value = alert.labels.get(name)
        if value:
            return value[:MAX_LABEL]
    return None


def alert_host(alert: AmAlert) -> str:
    host = _label(alert, "Hostname", "hostname", "instance", "node") or "unknown host"
    return re.sub(r":\d+$", "", host)


def alert_field(alert: AmAlert) -> str | None:
    return _label(alert, "metric", "field") or ALERTNAME_FIELDS.get(alert.labels.get("alertname", ""))


def alert_value(alert: AmAlert) -> float | None:
    raw = alert.annotations.get("value") or alert.labels.get("value")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def probe_for(alert: AmAlert) -> ProbeReport | None:
    """The probe report this alert says about its GPU, for the host rules; None when no rule judges it."""
    field, value = alert_field(alert), alert_value(alert)
    gpu_text = _label(alert, "gpu")
    index = int(gpu_text) if gpu_text and gpu_text.isdigit() and int(gpu_text) < 64 else 0
    if field is None or value is None:
        return None
    pci = _label(alert, "pci_bus_id")
    bus = pci or f"00000000:{index + 1:02X}:00.0"  # a placeholder the report needs; never shown
    gpu = {"index": index, "bus_id": bus, "name": _label(alert, "modelName")}
    events: list[XidEvent] = []
    if field == XID_FIELD:
        if value <= 0:
            return None
        code = int(value)
        events.append(XidEvent(code=code, pci=pci or f"GPU {index}",
                               time=alert.startsAt, message=f"Xid {code} reported by DCGM-exporter (Alertmanager)"))
    elif field in COUNTER_FIELDS:
        gpu[COUNTER_FIELDS[field]] = int(value)
    elif field in FLAG_FIELDS:
        gpu[FLAG_FIELDS[field]] = value > 0
    else:
        return None
    return ProbeReport(source="nvml", gpus=[GpuProbe(**gpu)],
                       kernel_log=KernelLogReport(source="alertmanager", readable=True, events=events))


def advice_text(alert: AmAlert, advisor, language: str = "en", deployment: str = "datacenter") -> str:
    """The Slack text for one alert: the rules' findings on what it reports, with what to do."""
    from bot.dispatch.judge import judge
    from bot.fleet.monitor import problem_lines, problems_of

    host, name = alert_host(alert), alert.labels.get("alertname", "alert")[:MAX_LABEL]
    gpu = _label(alert, "gpu")
    gpu_text = say("fleet.alert_gpu", language, gpu=gpu) if gpu else ""
    if alert.status == "resolved":
        return say("fleet.alert_resolved", language, alertname=name, host=host, gpu=gpu_text)
    lead = say("fleet.alert_lead", language, alertname=name, host=host, gpu=gpu_text)
    report = probe_for(alert)
    problems = problems_of(judge(advisor, host, deployment, None, report, language=language).findings) \
        if report is not None else []
    if not problems:
        detail = f"{alert_field(alert) or 'no metric label'} = {alert_value(alert)}"
        return "\n".join([lead, say("fleet.alert_no_rule", language, detail=detail)])
    return "\n".join([lead, *problem_lines(problems, language)])
