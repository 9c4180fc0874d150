"""Users served: 'single user', '单用户' -> concurrency 1; 'for 10 users', '50个用户' -> 10, 50 (when
no concurrency is stated); users served imply an inference workload unless the text says otherwise."""

from __future__ import annotations

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan

_USERS = lx.rx(
    rf"\B<(?:a\s+)?(single|one)[\s-]+(?:user|person|request\s+at\s+a\s+time)>\E"
    rf"|(单用户|单人使用|单个用户|一个用户)"
    rf"|(?:\B<(?:for|to|serve|serving|support|supporting|with|by)\s+)?{lx.INT}\s*(?:\B<(?:users?|people|customers|clients|seats)>\E|个?用户|人使用|个人用)"
)


def extract(scan: Scan) -> None:
    if "concurrency" in scan.fields:
        return
    m = next(scan.matches(_USERS), None)
    if m is None:
        return
    value = 1 if (m.group(1) or m.group(2)) else int(m.group(3))
    if value > 0:
        scan.set("concurrency", value, m.start(), m.end(), note="users", kind="users")


def served(scan: Scan) -> None:
    """Users are served: "run a 13B model for 10 users" is inference, unless the text says otherwise."""
    users = next((s for s in scan.spans if s.slot == "concurrency" and s.kind == "users"), None)
    if users is not None and "workload" not in scan.fields:
        scan.set("workload", "inference", users.start, users.end, note="implied by the users served", kind="implied")
