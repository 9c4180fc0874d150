from __future__ import annotations

import pytest

from bot.dispatch.inventory import DispatchError, InventoryError, load_inventory

ISSUE_FORM = """\
hosts:
  - name: gpu-node-7
    url: http://10.0.0.7:8700
    secret_env: GPU_NODE_7_SECRET
    allow: [U012ABCDEF, S0INFRA]
    expect: {gpu: h100-sxm, count: 8}
"""


def test_the_issue_form_loads(tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM)
    inventory = load_inventory(path)
    host = inventory.hosts[0]
    assert (host.name, host.url, host.secret_env, host.expect.gpu, host.expect.count) == (
        "gpu-node-7", "http://10.0.0.7:8700", "GPU_NODE_7_SECRET", "h100-sxm", 8)
    assert inventory.hosts_for("U012ABCDEF") == [host]
    assert inventory.hosts_for("U999", groups=["S0INFRA"]) == [host]
    assert inventory.hosts_for("U999", groups=["S0OTHER"]) == []
    assert inventory.deployment(host) == "datacenter"


def test_the_shipped_example_loads():
    from bot.knowledge import PROJECT_ROOT

    assert load_inventory(PROJECT_ROOT / "docs" / "inventory.example.yaml").hosts


def test_bad_entries_name_line_and_field(tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM.replace("http://10.0.0.7:8700", "http://user:pw@10.0.0.7:8700/x?y=1"))
    with pytest.raises(InventoryError, match=r"inventory.yaml:3:\d+: hosts.0.url: .*credentials"):
        load_inventory(path)
    path.write_text(ISSUE_FORM + ISSUE_FORM.split("\n", 1)[1])
    with pytest.raises(InventoryError, match="duplicate host name 'gpu-node-7'"):
        load_inventory(path)


@pytest.mark.parametrize("name", ["10.0.0.7", "http://10.0.0.7:8700", "10.0.0.7:8700", "[::1]", "169.254.169.254"])
def test_raw_addresses_are_refused(tmp_path, name):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM)
    with pytest.raises(DispatchError, match="looks like an address"):
        load_inventory(path).get(name)


def test_unknown_name_and_not_allowed(tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM)
    inventory = load_inventory(path)
    with pytest.raises(DispatchError, match="unknown host 'gpu-node-8': not in the inventory$"):
        inventory.get("gpu-node-8")
    with pytest.raises(PermissionError, match="U999 may not check gpu-node-7"):
        inventory.authorize("gpu-node-7", "U999")


def test_plain_http_to_another_machine_loads_with_a_warning(tmp_path, caplog):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM)
    with caplog.at_level("WARNING", logger="bot.dispatch.inventory"):
        inventory = load_inventory(path)
    assert inventory.hosts[0].url == "http://10.0.0.7:8700"
    [warning] = caplog.records
    assert f"{path}:3:" in warning.getMessage()
    assert "gpu-node-7: http://10.0.0.7:8700 is plain HTTP to another machine" in warning.getMessage()
    assert "allow_plain_http: true" in warning.getMessage()


@pytest.mark.parametrize("url,extra", [
    ("https://10.0.0.7:8700", ""),
    ("http://127.0.0.1:8700", ""),
    ("http://[::1]:8700", ""),
    ("http://10.0.0.7:8700", "    allow_plain_http: true\n"),
])
def test_no_warning_for_tls_loopback_or_an_explicit_opt_in(tmp_path, caplog, url, extra):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM.replace("http://10.0.0.7:8700", url) + extra)
    with caplog.at_level("WARNING", logger="bot.dispatch.inventory"):
        inventory = load_inventory(path)
    assert caplog.records == [] and inventory.hosts[0].allow_plain_http == bool(extra)


def test_localhost_is_not_taken_for_loopback(tmp_path, caplog):
    path = tmp_path / "inventory.yaml"
    path.write_text(ISSUE_FORM.replace("http://10.0.0.7:8700", "http://localhost:8700"))
    with caplog.at_level("WARNING", logger="bot.dispatch.inventory"):
        load_inventory(path)
    assert "plain HTTP to another machine" in caplog.records[0].getMessage()
