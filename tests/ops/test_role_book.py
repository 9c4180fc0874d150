"""Roles from a role file (strict, errors name file:line and field) and, without one, today's allow lists."""

from __future__ import annotations

import pytest

from bot.errors import ConfigError
from bot.ops.roles import Role, RoleBook, RoleConfigError, default_role_book, load_role_book

ROLE_FILE = """\
roles:
  checker: {groups: [S0INFRA], users: [U012ABCDEF]}
  benchmarker: {groups: [S0PERF]}
  rule_admin:
    users: [U0ADMIN1]
"""


def _book(tmp_path, text=ROLE_FILE, name="roles.yaml") -> RoleBook:
    path = tmp_path / name
    path.write_text(text)
    return load_role_book(path)


def test_roles_come_from_user_ids_and_groups_with_the_grant_that_gave_each(tmp_path):
    book = _book(tmp_path)
    assert book.roles_of("U0NOBODY", []) == {Role.ASKER}
    assert book.roles_of("U012ABCDEF", []) == {Role.ASKER, Role.CHECKER}
    assert book.roles_of("U0NOBODY", ["S0OTHER", "S0INFRA"]) == {Role.ASKER, Role.CHECKER}
    assert book.roles_of("U0ADMIN1", []) == {Role.ASKER, Role.RULE_ADMIN}
    why = book.why("U0X", ["S0PERF"])
    assert list(why) == [Role.ASKER, Role.CHECKER, Role.BENCHMARKER]  # benchmarker implies checker
    assert why[Role.BENCHMARKER].startswith("group S0PERF in benchmarker.groups")
    assert why[Role.CHECKER] == "implied by benchmarker"
    assert why[Role.ASKER].startswith("asker: everyone")  # asker left out of the file: everyone
    assert book.has(Role.CHECKER, "U0X", ["S0PERF"]) and not book.has(Role.RULE_ADMIN, "U0X", ["S0PERF"])
    assert book.names_groups()


def test_an_asker_list_restricts_asking_but_every_role_still_asks(tmp_path):
    book = _book(tmp_path, "roles:\n  asker: {groups: [S0ML]}\n  rule_admin: {users: [U0ADMIN1]}\n")
    assert book.roles_of("U0OUT", []) == frozenset()
    assert book.roles_of("U0IN", ["S0ML"]) == {Role.ASKER}
    assert book.why("U0ADMIN1", [])[Role.ASKER] == "implied by rule_admin"


def test_the_version_is_the_content_not_the_path(tmp_path):
    a = _book(tmp_path, name="a.yaml")
    (tmp_path / "sub").mkdir()
    b = _book(tmp_path / "sub", ROLE_FILE.replace("rule_admin:", "# a comment\n  rule_admin:"), name="b.yaml")
    assert a.version == b.version and a.source != b.source
    c = _book(tmp_path, ROLE_FILE.replace("U0ADMIN1", "U0ADMIN2"), name="c.yaml")
    assert c.version != a.version


@pytest.mark.parametrize(("text", "where", "says"), [
    ("roles:\n  admin: {users: [U0A]}\n", ":2:3:", "roles.admin"),
    ("roles:\n  rule_admin:\n    users: [S0INFRA]\n", ":3:13:", "list it under `groups`"),
    ("roles:\n  checker:\n    groups: [U0ALICE]\n", ":3:14:", "list it under `users`"),
    ("roles:\n  checker:\n    users: [alice]\n", ":3:13:", "not a Slack user id"),
    ("roles:\n  checker:\n    user: [U0ALICE]\n", ":3:5:", "roles.checker.user: Extra inputs"),
    ("rolez: {}\n", ":1:1:", "rolez"),
    ("- checker\n", ":1:1:", "expected a mapping"),
    ("roles: {checker: [\n", ":", "YAML syntax error"),
])
def test_a_bad_role_file_names_the_line_and_the_field(tmp_path, text, where, says):
    with pytest.raises(RoleConfigError) as caught:
        _book(tmp_path, text)
    message = str(caught.value)
    assert f"roles.yaml{where}" in message and says in message, message
    assert isinstance(caught.value, ConfigError)  # the CLI exits 2 with the message


def test_a_missing_role_file_is_a_config_error(tmp_path):
    with pytest.raises(RoleConfigError, match="cannot read"):
        load_role_book(tmp_path / "absent.yaml")


def test_without_a_role_file_the_allow_lists_and_admins_decide():
    book = default_role_book(admins=["U0ADMIN1"], allow_lists=[["U012ABCDEF", "S0INFRA"], ["cli-user"]])
    assert book.roles_of("U0NOBODY", []) == {Role.ASKER}
    assert book.roles_of("U012ABCDEF", []) == {Role.ASKER, Role.CHECKER, Role.BENCHMARKER}
    assert book.roles_of("U0X", ["S0INFRA"]) == {Role.ASKER, Role.CHECKER, Role.BENCHMARKER}
    assert book.roles_of("cli-user", []) >= {Role.CHECKER}  # a CLI user named in an allow list
    assert book.roles_of("U0ADMIN1", []) == {Role.ASKER, Role.RULE_ADMIN}
    assert "allow lists" in book.why("U0X", ["S0INFRA"])[Role.CHECKER]


def test_the_documented_example_role_file_loads():
    from pathlib import Path

    book = load_role_book(Path(__file__).resolve().parents[2] / "docs" / "roles.example.yaml")
    assert book.roles_of("U0X", ["S0PERF"]) == {Role.ASKER, Role.CHECKER, Role.BENCHMARKER}
    assert book.roles_of("U0ADMIN1", []) >= {Role.RULE_ADMIN}
