"""Roles in Slack (issue #29): who may check hosts, run benchmarks and reload the rules, from the
role book (`bot.ops.roles`, reloadable: GPU_ADVISOR_ROLES) and the user's Slack user groups
(`usergroups.py`, looked up only when the book names a group).

Without a role file the book is today's allow lists and GPU_ADVISOR_SLACK_ADMINS, and the checks
behave exactly as before: the inventory's `allow` lists alone decide (the checker refuses and
audits); only a role file adds the "may this user check at all" gate in front of them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.messages import say
from bot.ops.roles import Role, RoleBook
from bot.slack.cards import escape
from bot.slack.usergroups import UserGroups

log = logging.getLogger("gpu_advisor.slack")

# What each role lets a user do in Slack, for `/gpu whoami` (catalog keys).
_ROLE_LABEL = {Role.ASKER: "slack.role_asker", Role.CHECKER: "slack.role_checker",
               Role.BENCHMARKER: "slack.role_benchmarker", Role.RULE_ADMIN: "slack.role_rule_admin"}


class SlackRoles:
    """The roles of a Slack user, with the grant behind each.

    `book` returns the role book in force (a reloader's `current`, so an edited role file counts
    from its next reload); `configured` says whether it comes from a role file."""

    def __init__(self, book: Callable[[], RoleBook], groups: UserGroups | None, *,
                 configured: Callable[[], bool] = lambda: False):
        self._book = book
        self._groups = groups
        self._configured = configured

    @property
    def configured(self) -> bool:
        return self._configured()

    def why(self, user_id: str) -> dict[Role, str]:
        """Each role the user holds -> where it came from (the user, a group, everyone, implied)."""
        book = self._book()
        groups: list[str] = []
        if self._groups is not None and book.names_groups():
            groups = self._groups.groups_of(user_id)
        return book.why(user_id, groups)

    def has(self, role: Role, user_id: str) -> bool:
        return role in self.why(user_id)

    def gate(self, role: Role, user_id: str) -> bool:
        """Whether a role file lets the user do what `role` allows; always True without a file,
        where the allow lists (checks) decide as before."""
        return not self.configured or self.has(role, user_id)

    def whoami(self, user_id: str, language: str = "en") -> str:
        """`/gpu whoami`: the user's roles, each with its grant, in mrkdwn."""
        try:
            held = self.why(user_id)
        except Exception:  # the user-group lookup or a broken book: say so, never a stack trace
            log.warning("looking up the roles of %s failed", user_id, exc_info=True)
            return say("slack.whoami_failed", language)
        book = self._book()
        lines = [say("slack.whoami_head", language, user=escape(user_id), source=escape(book.source))]
        for role, why in held.items():
            lines.append(say("slack.whoami_role", language, role=role.value, does=say(_ROLE_LABEL[role], language),
                             why=escape(why)))
        missing = [role.value for role in Role if role not in held]
        if missing:
            lines.append(say("slack.whoami_missing", language, roles=", ".join(missing)))
        return "\n".join(lines)
