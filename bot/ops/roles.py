"""Who may do what: the roles asker, checker, benchmarker and rule admin, from Slack user groups and
user ids in a YAML file (`GPU_ADVISOR_ROLES`), or, without one, from today's allow lists.

    # roles.yaml
    roles:
      asker:       {everyone: true}                   # the default: anyone who can reach the bot
      checker:     {groups: [S0INFRA], users: [U012ABCDEF]}
      benchmarker: {groups: [S0PERF]}                 # implies checker
      rule_admin:  {users: [U0ADMIN1, U0ADMIN2]}

Every role implies asker, and benchmarker implies checker (a benchmark runs inside a check). A
checker still checks only the hosts whose inventory `allow` list names them or one of their
groups: the role is who may use `check` at all, the allow list is which hosts.

Without a role file (`default_role_book`), the mapping is today's behaviour:
- asker: everyone;
- checker and benchmarker: every user id and group id named in some inventory `allow` list
  (until now any user allowed on a host could also ask for benchmarks there);
- rule admin: the user ids in GPU_ADVISOR_SLACK_ADMINS.

The file is read strictly (unknown keys, a group id where a user id belongs, a malformed id are
errors naming file:line:column and the field). `bot.ops.reloadable` reloads it without a restart.
This module imports nothing from Slack.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from bot.errors import ConfigError
from bot.yamlio import YamlError, describe_validation_error, load_yaml

ROLES_ENV = "GPU_ADVISOR_ROLES"


class Role(StrEnum):
    ASKER = "asker"
    CHECKER = "checker"
    BENCHMARKER = "benchmarker"
    RULE_ADMIN = "rule_admin"


# A role held implies these (asker for all: whoever may check may also ask).
IMPLIES: dict[Role, tuple[Role, ...]] = {
    Role.ASKER: (),
    Role.CHECKER: (Role.ASKER,),
    Role.BENCHMARKER: (Role.CHECKER, Role.ASKER),
    Role.RULE_ADMIN: (Role.ASKER,),
}

# Slack ids: users U…/W… (Enterprise Grid), user groups S…
_SLACK_ID = re.compile(r"^[A-Z][A-Z0-9]{2,30}$")


def _user_id(value: str) -> str:
    if not _SLACK_ID.match(value) or value[0] not in "UW":
        hint = "; S… is a user group: list it under `groups`" if value.startswith("S") else ""
        raise ValueError(f"{value!r} is not a Slack user id (U… or W…, capital letters and digits){hint}")
    return value


def _group_id(value: str) -> str:
    if not _SLACK_ID.match(value) or value[0] != "S":
        hint = "; U…/W… is a user: list it under `users`" if value[:1] in ("U", "W") else ""
        raise ValueError(f"{value!r} is not a Slack user-group id (S…, capital letters and digits){hint}")
    return value


UserId = Annotated[str, AfterValidator(_user_id)]
GroupId = Annotated[str, AfterValidator(_group_id)]


class RoleConfigError(ConfigError):
    """A role file that cannot be used; the message names file:line:column and the field."""


class Grant(BaseModel):
    """Who holds one role: everyone, or the listed users and members of the listed groups."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    everyone: bool = False
    users: tuple[UserId, ...] = ()
    groups: tuple[GroupId, ...] = ()


class RoleFile(BaseModel):
    """The role file's schema. A role left out is held by nobody, except asker (everyone)."""

    model_config = ConfigDict(extra="forbid")

    roles: dict[Role, Grant] = Field(description="role -> who holds it")


@dataclass(frozen=True)
class RoleBook:
    """Roles by user id and Slack user groups. `source` says where the grants came from (a path,
    or the allow lists), `version` is a digest of the grants' content (same grants, same version,
    wherever the file lies)."""

    grants: Mapping[Role, Grant]
    source: str = "built in"
    version: str = field(default="")

    def __post_init__(self):
        if not self.version:
            object.__setattr__(self, "version", _digest(self.grants))

    def roles_of(self, user_id: str, user_groups: Iterable[str]) -> frozenset[Role]:
        return frozenset(self.why(user_id, user_groups))

    def why(self, user_id: str, user_groups: Iterable[str]) -> dict[Role, str]:
        """Each role the user holds -> the grant that gave it ("user U…", "group S…", "everyone",
        "implied by checker"), in Role order."""
        groups = set(user_groups)
        direct: dict[Role, str] = {}
        for role in Role:
            grant = self.grants.get(role)
            if grant is None:
                continue
            if user_id in grant.users:
                direct[role] = f"user {user_id} in {role.value}.users ({self.source})"
            elif matched := sorted(groups & set(grant.groups)):
                direct[role] = f"group {matched[0]} in {role.value}.groups ({self.source})"
            elif grant.everyone:
                direct[role] = f"{role.value}: everyone ({self.source})"
        out = dict(direct)
        for role in direct:
            for implied in IMPLIES[role]:
                out.setdefault(implied, f"implied by {role.value}")
        return {role: out[role] for role in Role if role in out}

    def has(self, role: Role, user_id: str, user_groups: Iterable[str]) -> bool:
        return role in self.roles_of(user_id, user_groups)

    def names_groups(self) -> bool:
        """True when some grant names a user group (so a caller must look the user's groups up)."""
        return any(grant.groups for grant in self.grants.values())


def _digest(grants: Mapping[Role, Grant]) -> str:
    canonical = {role.value: {"everyone": g.everyone, "users": sorted(g.users), "groups": sorted(g.groups)}
                 for role, g in sorted(grants.items())}
    return "roles-" + hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()[:12]


def load_role_book(path: Path) -> RoleBook:
    """The role file at `path`, validated; a RoleConfigError naming file:line:column otherwise."""
    path = Path(path)
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise RoleConfigError(str(exc)) from exc
    if not isinstance(doc.data, dict):
        raise RoleConfigError(f"{doc.where(())}: expected a mapping with a `roles:` mapping "
                              f"(roles: {', '.join(r.value for r in Role)})")
    try:
        parsed = RoleFile.model_validate(doc.data)
    except ValidationError as exc:
        raise RoleConfigError("\n".join(describe_validation_error(doc, exc))) from exc
    grants = dict(parsed.roles)
    grants.setdefault(Role.ASKER, Grant(everyone=True))
    return RoleBook(grants=grants, source=str(path))


def default_role_book(admins: Iterable[str] = (), allow_lists: Iterable[Iterable[str]] = ()) -> RoleBook:
    """Today's behaviour without a role file (see the module docstring): `admins` are the
    GPU_ADVISOR_SLACK_ADMINS user ids, `allow_lists` each inventory host's `allow` entries."""
    entries = sorted({entry for allow in allow_lists for entry in allow})
    users = tuple(e for e in entries if not e.startswith("S"))
    groups = tuple(e for e in entries if e.startswith("S"))
    # model_construct: the allow lists and admins were validated where they were read, and a CLI
    # user named there need not look like a Slack id.
    checkers = Grant.model_construct(everyone=False, users=users, groups=groups)
    return RoleBook(grants={
        Role.ASKER: Grant(everyone=True),
        Role.CHECKER: checkers,
        Role.BENCHMARKER: checkers,
        Role.RULE_ADMIN: Grant.model_construct(everyone=False, users=tuple(sorted(set(admins))), groups=()),
    }, source="allow lists")


def role_reloader(path: Path | str | None = None, admins: Iterable[str] = (), inventory=None):
    """The role book in force, reloadable (`bot.ops.reloadable.ConfigReloader`): the role file at
    `path` (default GPU_ADVISOR_ROLES), or without one today's mapping, computed from
    `inventory()` (a callable returning the current inventory, anything with `.hosts[].allow`),
    so a reloaded inventory's allow lists take effect, and the admins given."""
    import os

    from bot.ops.reloadable import ConfigReloader

    if path is None:
        path = os.environ.get(ROLES_ENV) or None
    admins = tuple(admins)
    cache: dict[int, RoleBook] = {}

    def fallback() -> RoleBook:
        current = inventory() if inventory is not None else None
        key = id(current)
        if key not in cache:  # one book per inventory object: a reload makes a new object
            cache.clear()
            hosts = getattr(current, "hosts", None) or []
            cache[key] = default_role_book(admins, (host.allow for host in hosts))
        return cache[key]

    return ConfigReloader("roles", path, load_role_book, fallback=fallback)
