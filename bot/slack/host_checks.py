"""Host checks from Slack: `/gpu check`, "check HOST" and the "Check a host" modal, or the reason
they are unavailable. Who may check which host is the inventory's `allow` list (users and user
groups), enforced by the checker with the Slack user id from the verified request."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.dispatch.checker import CheckReport
from bot.dispatch.inventory import DispatchError, InventoryError, UnknownHostError
from bot.errors import GpuAdvisorError
from bot.messages import say
from bot.ops.roles import Role
from bot.seams import RuleSource
from bot.slack.cards import escape
from bot.slack.settings import SlackSettingsError
from bot.slack.usergroups import UserGroups, is_group_id

if TYPE_CHECKING:
    from bot.services import Services
    from bot.slack.roles import SlackRoles

log = logging.getLogger("gpu_advisor.slack")

# "check HOST" in a mention or DM, and `/gpu check HOST`.
CHECK_WORDS = re.compile(r"^\s*check\s+(?P<host>[A-Za-z0-9][A-Za-z0-9_.:\-]*)\s*$", re.IGNORECASE)

MAX_CHECKS_PER_HOST = 1  # concurrent checks of one host from Slack; see HostChecks._take_slot
# A Slack check is a probe (a second on a real host): a job still running after this is given up,
# so a stuck agent frees its check worker. An inventory host's `job_deadline_s` can shorten it.
SLACK_JOB_DEADLINE_S = 120.0


class HostChecks:
    """`/gpu check`, "check HOST" and the "Check a host" modal, or the reason they are unavailable.

    Who may check which host is the inventory's `allow` list, enforced by the checker with the
    Slack user id from the verified request.
    """

    def __init__(self, services: Services, groups: UserGroups | None = None, roles: SlackRoles | None = None):
        self.problem: str | None = None
        # The composition root wires each check: inventory, audit (the store's, under `serve`), history.
        self.services = services
        self.rules: RuleSource = services.rules
        self.groups = groups
        self.roles = roles  # with a role file, the checker (benchmarker) role gates checks before the allow lists
        self._running: dict[str, int] = {}  # host -> checks of it running now
        self._running_lock = threading.Lock()
        try:
            inventory = services.inventory  # None when no inventory is configured
        except InventoryError as exc:  # its message names the file, line and field
            raise SlackSettingsError(f"GPU_ADVISOR_INVENTORY: {exc}") from exc
        if inventory is None:
            self.problem = "Host checks are not configured: set GPU_ADVISOR_INVENTORY to the inventory file."

    @property
    def inventory(self):
        """The inventory in force, read each time: an edited file serves within seconds and a bad
        edit keeps the previous one (`Services.inventory_config`), so no copy is kept here."""
        return self.services.inventory

    def groups_of(self, user_id: str) -> list[str]:
        """The user's Slack user groups, looked up only when some `allow` list names a group."""
        if self.groups is None or self.inventory is None:
            return []
        if not any(is_group_id(entry) for host in self.inventory.hosts for entry in host.allow):
            return []
        return self.groups.groups_of(user_id)

    def hosts_for(self, user_id: str) -> list[str]:
        if not self.inventory or (self.roles is not None and not self.roles.gate(Role.CHECKER, user_id)):
            return []
        return [host.name for host in self.inventory.hosts_for(user_id, self.groups_of(user_id))]

    def run(self, host: str, user_id: str, progress: Callable[[str], None] | None = None, *,
            benchmarks: list[str] | None = None) -> CheckReport:
        """The check's report (with `benchmarks` run in it); `HostCheckFailed` with a message for
        the user when there is none."""
        if self.inventory is None:
            raise HostCheckFailed(self.problem or "Host checks are not configured.", ":wrench:")
        self.require_role(Role.BENCHMARKER if benchmarks else Role.CHECKER, user_id)
        slot = None
        try:
            groups = self.groups_of(user_id)
            slot = self._take_slot(host, user_id, groups)
            # A checker per check, over the rule base serving now (a reload may have swapped it).
            with self.rules.advisor() as advisor:
                checker = self.services.checker(advisor, job_deadline_s=SLACK_JOB_DEADLINE_S)
                return asyncio.run(checker.check(host, user_id, benchmarks, progress=progress, groups=groups))
        except (PermissionError, UnknownHostError) as exc:
            # One answer for "not yours" and "no such host": it must not tell which hosts exist.
            raise HostCheckFailed(f"You may not check `{escape(host)}`: it is not an inventory host that you or a "
                                  "user group of yours may check.", ":lock:") from exc
        except HostCheckFailed:
            raise
        except DispatchError as exc:
            raise HostCheckFailed(f"Could not check `{escape(host)}`: {escape(str(exc))}", ":x:") from exc
        except Exception as exc:
            log.exception("host check of %s failed", host)
            raise HostCheckFailed(f"The check of `{escape(host)}` failed; the error is in the bot's log.",
                                  ":x:") from exc
        finally:
            if slot is not None:
                with self._running_lock:
                    self._running[slot] -= 1

    def require_role(self, role: Role, user_id: str) -> None:
        """`HostCheckFailed` unless the user holds `role`. Benchmarks need it even without a role
        file (the default book gives it to whoever an allow list names, as the CLI always did);
        a plain check needs the checker role only under a role file (the allow lists decide otherwise)."""
        if self.roles is None:
            return
        allowed = self.roles.has(role, user_id) if role == Role.BENCHMARKER else self.roles.gate(role, user_id)
        if not allowed:
            raise HostCheckFailed(say("slack.needs_role", "en", role=role.value), ":lock:")

    def _take_slot(self, host: str, user_id: str, groups: list[str]) -> str | None:
        """Hold one of the host's MAX_CHECKS_PER_HOST check slots, so a slow or dead host can tie up
        that many check workers at most and never starve checks of other hosts. None (no slot
        needed) when the user may not check it: the checker refuses and audits that."""
        try:
            self.inventory.authorize(host, user_id, groups)
        except (PermissionError, DispatchError):
            return None
        with self._running_lock:
            if self._running.get(host, 0) >= MAX_CHECKS_PER_HOST:
                raise HostCheckFailed(f"A check of `{escape(host)}` is already running; its answer comes when it "
                                      "finishes. Try again after that.", ":hourglass_flowing_sand:")
            self._running[host] = self._running.get(host, 0) + 1
        return host


class HostCheckFailed(GpuAdvisorError):
    """No report: the message (mrkdwn, escaped) says why."""

    def __init__(self, message: str, emoji: str):
        self.message = message
        self.emoji = emoji
        super().__init__(message)
