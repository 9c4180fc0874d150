"""Scheduled host checks, alerting a Slack channel once per degraded host (issue #29).

Each group of hosts is checked every `interval_s` (plus up to `jitter_s`, at random, so groups
and replicas do not check in lock-step), through the same `HostChecker` `check --all` uses, at
most `concurrency` hosts at once over all groups. Each check is bounded by `host_timeout_s`:
a host that hangs costs one slot for that long and is reported as not answering; the others'
results are posted as they finish, never after the hung one.

A host is *degraded* when its check has a warn or block finding on its health (`topic: health`:
Xids, ECC, retired pages, remapped rows; `power`: throttling) or its GPUs are not the ones the
inventory expects (a GPU missing), or when it cannot be checked. Per host, per process:
- healthy -> degraded: one top-level alert listing each problem with its rule, reasons, sources;
- degraded, same problems: nothing (de-duplicated while the state lasts);
- degraded, other problems: one reply in the alert's thread;
- degraded -> healthy: one "resolved" reply in the alert's thread.
The state lives in this process: run the schedule on one replica (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterable

from pydantic import BaseModel

from bot.fleet.config import FleetConfig, HostGroup
from bot.fleet.slack import Poster
from bot.messages import say
from bot.ops.metrics import record_host_check

log = logging.getLogger("gpu_advisor.fleet")
ALERT_TOPICS = frozenset({"health", "power"})
ALERT_RULES = frozenset({"host.count-not-as-expected", "host.gpu-not-as-expected"})
ALERT_SEVERITIES = frozenset({"warn", "block"})
MAX_FINDINGS_IN_ALERT = 10


class Problem(BaseModel):
    rule: str
    severity: str
    message: str
    sources: list[str] = []


class HostOutcome(BaseModel):
    """One scheduled check of one host: its problems, or why it could not be checked."""

    host: str
    group: str
    problems: list[Problem] = []
    error: str | None = None

    @property
    def degraded(self) -> bool:
        return bool(self.problems) or self.error is not None

    @property
    def signature(self) -> frozenset[str]:
        return frozenset({"unreachable"}) if self.error is not None else frozenset(p.rule for p in self.problems)


class HostState(BaseModel):
    signature: frozenset[str]
    thread_ts: str | None = None


def problems_of(findings: Iterable) -> list[Problem]:
    """The findings that make a host degraded, most severe first."""
    found = [Problem(rule=f.rule, severity=f.severity, message=f.message, sources=list(f.sources))
             for f in findings
             if f.severity in ALERT_SEVERITIES and (f.topic in ALERT_TOPICS or f.rule in ALERT_RULES)]
    return sorted(found, key=lambda p: (p.severity != "block", p.rule))


def problem_lines(problems: list[Problem], language: str) -> list[str]:
    lines = [say("fleet.finding_line", language, severity=p.severity.upper(), message=p.message, rule=p.rule,
                 sources=", ".join(p.sources) or "—") for p in problems[:MAX_FINDINGS_IN_ALERT]]
    if len(problems) > MAX_FINDINGS_IN_ALERT:
        lines.append(f"… +{len(problems) - MAX_FINDINGS_IN_ALERT}")
    return lines


class _HeldSlot:
    """A concurrency slot taken already (so a host's timeout never counts the wait for it), handed
    to the checker to free once the agent has answered; freed at most once."""

    def __init__(self, gate: asyncio.Semaphore) -> None:
        self.gate = gate
        self.held = True

    async def __aenter__(self) -> _HeldSlot:
        return self

    async def __aexit__(self, *exc_info) -> None:
        self.release()

    def release(self) -> None:
        if self.held:
            self.held = False
            self.gate.release()


class FleetMonitor:
    def __init__(self, checker, inventory, poster: Poster, config: FleetConfig, rng: random.Random | None = None):
        self.checker = checker
        self.inventory = inventory
        self.poster = poster
        self.config = config
        self.states: dict[str, HostState] = {}
        self.gate = asyncio.Semaphore(config.concurrency)
        self.rng = rng or random.Random()
        self.posted = 0

    def hosts_of(self, group: HostGroup) -> list[str]:
        if group.hosts == ["*"]:
            return [h.name for h in self.inventory.hosts_for(self.config.as_user, [])]
        return list(group.hosts)

    async def check_host(self, host: str, group: HostGroup) -> HostOutcome:
        """One bounded check: `host_timeout_s` at most (counted once its slot is taken), whatever the
        host does. The checker frees the slot as soon as the agent has answered, before judging."""
        await self.gate.acquire()
        slot = _HeldSlot(self.gate)
        try:
            done = await asyncio.wait_for(
                self.checker.check(host, self.config.as_user, language=self.config.language, slot=slot),
                self.config.host_timeout_s)
        except asyncio.TimeoutError:
            return HostOutcome(host=host, group=group.name,
                               error=f"no answer within {self.config.host_timeout_s:g} s")
        except Exception as exc:  # DispatchError, PermissionError, anything: this host only
            return HostOutcome(host=host, group=group.name, error=str(exc)[:300] or type(exc).__name__)
        finally:
            slot.release()  # a check that failed before it used the slot, or was cancelled
        return HostOutcome(host=host, group=group.name, problems=problems_of(done.answer.findings))

    async def run_group(self, group: HostGroup) -> list[HostOutcome]:
        """Check every host of `group` once; each outcome is acted on as soon as it is in."""
        outcomes = []
        for next_done in asyncio.as_completed([self.check_host(h, group) for h in self.hosts_of(group)]):
            outcome = await next_done
            outcomes.append(outcome)
            await self.record(outcome)
        return outcomes

    async def record(self, outcome: HostOutcome) -> None:
        record_host_check(outcome.host, good=not outcome.degraded)  # the time of each host's last good check
        language = self.config.language
        state = self.states.get(outcome.host)
        if not outcome.degraded:
            if state is not None:
                del self.states[outcome.host]
                await self._post(say("fleet.resolved", language, host=outcome.host, group=outcome.group),
                                 state.thread_ts)
                log.info("fleet: %s resolved", outcome.host)
            return
        if state is not None and state.signature == outcome.signature:
            return  # still the same problems: alerted already
        if outcome.error is not None:
            text = say("fleet.unreachable_lead", language, host=outcome.host, group=outcome.group, error=outcome.error)
        else:
            lead = "fleet.changed_lead" if state is not None else "fleet.degraded_lead"
            text = "\n".join([say(lead, language, host=outcome.host, group=outcome.group,
                                  count=len(outcome.problems)), *problem_lines(outcome.problems, language)])
        if state is None:
            ts = await self._post(text)
            self.states[outcome.host] = HostState(signature=outcome.signature, thread_ts=ts)
            log.warning("fleet: %s degraded: %s", outcome.host, ", ".join(sorted(outcome.signature)))
        else:
            await self._post(text, state.thread_ts)
            self.states[outcome.host] = HostState(signature=outcome.signature, thread_ts=state.thread_ts)

    async def _post(self, text: str, thread_ts: str | None = None) -> str | None:
        self.posted += 1
        return await self.poster.post(self.config.channel, text, thread_ts)

    async def run_forever(self, stop: asyncio.Event, rounds: int | None = None) -> None:
        """Every group on its own schedule until `stop` is set (or each group ran `rounds` times)."""

        async def loop(group: HostGroup) -> None:
            done = 0
            while not stop.is_set() and (rounds is None or done < rounds):
                jitter = self.rng.uniform(0, group.jitter_s) if group.jitter_s else 0.0
                if jitter and await _stopped(stop, jitter):
                    return
                try:
                    await self.run_group(group)
                except Exception:  # never let one round end the schedule
                    log.exception("fleet: a round of group %s failed", group.name)
                done += 1
                if rounds is not None and done >= rounds:
                    return
                if await _stopped(stop, group.interval_s):
                    return

        await asyncio.gather(*(loop(g) for g in self.config.groups))


async def _stopped(stop: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds` or until `stop`; True when stopped."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
        return True
    except asyncio.TimeoutError:
        return False
