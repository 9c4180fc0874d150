"""Continuous fleet health (issue #29): scheduled host checks that alert a Slack channel, and an
Alertmanager webhook receiver that turns GPU alerts into the same rule-justified advice.

- `config`: the fleet YAML (GPU_ADVISOR_FLEET): channel, the acting user, concurrency, groups of
  hosts with an interval and a jitter;
- `monitor`: `FleetMonitor` checks each group on its schedule through `HostChecker`, at most
  `concurrency` hosts at once, each bounded by `host_timeout_s`, and keeps one state per host:
  one alert when it degrades, thread replies while it changes, one "resolved" when it clears;
- `alertmanager`: the webhook payload (Alertmanager's documented JSON, version 4) from
  DCGM-exporter alerts, judged by the host rules;
- `slack`: the poster (chat.postMessage) both use.
"""
