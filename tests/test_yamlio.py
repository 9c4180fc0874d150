"""Issue 15 item 6: the one YAML loader bounds depth, size and alias expansion, for every file the
bot reads (rules, knowledge, prices, inventory), and says where the problem is."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from bot.dispatch.inventory import InventoryError, load_inventory
from bot.engine.rulebase import RuleBaseError, load_rulebase
from bot.yamlio import MAX_YAML_BYTES, MAX_YAML_DEPTH, YamlError, load_yaml


def alias_bomb(levels: int = 9) -> str:
    """The "billion laughs" in YAML: 9 levels of 9 aliases each, ~390 bytes, 9^9 values expanded."""
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    names = "abcdefghijklm"
    for previous, name in zip(names, names[1:levels + 1]):
        text += f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]\n"
    return text


def test_an_alias_bomb_is_refused_quickly_and_small():
    bomb = alias_bomb()
    assert len(bomb) < 420
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(YamlError, match=r"^bomb\.yaml:\d+:\d+: more than \d+ values once aliases are expanded"):
        load_yaml("bomb.yaml", bomb)
    seconds = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert seconds < 15 and peak < 200 * 1024 * 1024  # wide: the reference machine is shared


def test_a_rule_file_nested_999_deep_is_a_rule_base_error_not_a_recursion_error(tmp_path):
    deep = "[" * 999 + "]" * 999
    (tmp_path / "deep.yaml").write_text(f"rules: {deep}\n")
    with pytest.raises(RuleBaseError) as caught:
        load_rulebase([tmp_path])
    assert any(f"nested more than {MAX_YAML_DEPTH} levels deep" in p for p in caught.value.problems)


def test_block_style_nesting_is_bounded_too():
    text = "".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "leaf: 1\n"
    with pytest.raises(YamlError, match=f"nested more than {MAX_YAML_DEPTH} levels deep"):
        load_yaml("block.yaml", text)


def test_an_oversized_file_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("x: " + "a" * (MAX_YAML_BYTES + 1) + "\n")
    with pytest.raises(YamlError, match=rf"big\.yaml: \d+ bytes; YAML files are read up to {MAX_YAML_BYTES}"):
        load_yaml(path)


def test_an_inventory_alias_bomb_is_an_inventory_error(tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_text(alias_bomb())
    with pytest.raises(InventoryError, match="aliases are expanded"):
        load_inventory(path)


def test_ordinary_aliases_and_positions_still_work():
    doc = load_yaml("ok.yaml", "base: &b {gpu: h100}\nhosts:\n  - *b\n  - {gpu: a100, n: [1, 2]}\n")
    assert doc.data == {"base": {"gpu": "h100"}, "hosts": [{"gpu": "h100"}, {"gpu": "a100", "n": [1, 2]}]}
    assert doc.where(("hosts", 1, "n", 1)) == "ok.yaml:4:24"
    assert doc.where(("hosts", 1, "gpu")) == "ok.yaml:4:6"


def test_a_price_dated_february_30_is_a_clear_error_naming_the_line(tmp_path):
    from bot.knowledge import KnowledgeError, load_prices

    path = tmp_path / "prices.yaml"
    path.write_text("prices:\n  - {gpu: h100-sxm, provider: runpod, billing: on-demand, hourly_rate: 2.69, "
                    "currency: USD, quoted_on: 2026-02-30, note: quoted}\n")
    with pytest.raises(KnowledgeError, match=r"prices\.yaml:2:\d+: '2026-02-30' is not a valid date"):
        load_prices(path)

