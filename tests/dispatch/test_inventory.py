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
    with pytest.raises(DispatchError, match="unknown host 'gpu-node-8'; inventory hosts: gpu-node-7"):
        inventory.get("gpu-node-8")
    with pytest.raises(PermissionError, match="U999 may not check gpu-node-7"):
        inventory.authorize("gpu-node-7", "U999")
