"""Which Slack user groups a user belongs to, for inventory `allow` lists (`S0INFRA`).

One `usergroups.list` call (with `include_users`) gives every group and its members; the map is
cached for `ttl_s` seconds, so a burst of checks costs one Web API call. A failure (the
`usergroups:read` scope missing, Slack down) is logged and counts as no groups: user ids in
`allow` keep working, and the next lookup tries again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

log = logging.getLogger("gpu_advisor.slack")


def is_group_id(entry: str) -> bool:
    """Slack user-group ids start with S (user ids with U or W)."""
    return entry.startswith("S")


class UserGroups:
    def __init__(self, client: WebClient, ttl_s: float = 300.0, clock: Callable[[], float] = time.monotonic):
        self.client = client
        self.ttl_s = ttl_s
        self._clock = clock
        self._members: dict[str, frozenset[str]] | None = None  # user id -> group ids
        self._fetched_at = 0.0
        self._lock = threading.Lock()

    def groups_of(self, user_id: str) -> list[str]:
        """The ids of the groups `user_id` is in (sorted); [] when Slack cannot say."""
        with self._lock:  # one fetch at a time: concurrent checks wait for it instead of repeating it
            if self._members is None or self._clock() - self._fetched_at >= self.ttl_s:
                fetched = self._fetch()
                if fetched is None:
                    return []
                self._members, self._fetched_at = fetched, self._clock()
            return sorted(self._members.get(user_id, ()))

    def _fetch(self) -> dict[str, frozenset[str]] | None:
        try:
            response = self.client.usergroups_list(include_users=True, include_disabled=False)
        except (SlackApiError, SlackClientError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else exc
            log.warning("cannot read Slack user groups (%s); only user ids in `allow` lists count. "
                        "The app needs the usergroups:read scope.", error)
            return None
        by_user: dict[str, set[str]] = {}
        for group in response.get("usergroups") or []:
            for user in group.get("users") or []:
                by_user.setdefault(user, set()).add(group["id"])
        return {user: frozenset(groups) for user, groups in by_user.items()}
