"""bot.nlu.slots.network: the network speed, read only when the question is about networking."""

from bot.nlu import parse


def test_an_ethernet_speed_is_read_in_english_and_chinese():
    assert parse("we have 100GbE RoCE between the nodes").extracted["network_gbps"] == 100
    assert parse("25G 以太网够不够").extracted["network_gbps"] == 25


def test_a_memory_size_is_not_a_network():
    assert "network_gbps" not in parse("two A100 80G for training").extracted
    # a network question, but "80G" sits by the GPU name, not by a network word
    assert "network_gbps" not in parse("is the network fast enough for our A100 80G cluster").extracted


def test_of_two_networks_named_the_one_asked_about_is_read():
    text = "the host offers 8x400G InfiniBand at extra cost or 2x100G RoCE for free; would 2x100G be enough?"
    assert parse(text).extracted["network_gbps"] == 100
    assert parse("机房有 25G 以太网和 200G IB 两种，200G 够不够").extracted["network_gbps"] == 200


def test_the_network_they_might_move_to_is_not_the_one_they_have():
    assert parse("we have 100GbE between our 2 nodes; is it enough or do we need 400G IB?").extracted["network_gbps"] == 100


def test_a_speed_written_with_its_own_network_noun_is_a_network():
    assert parse("one 100G port per node; will the network hurt?").extracted["network_gbps"] == 100
    assert parse("each node has a single 200G NIC, is the network ok").extracted["network_gbps"] == 200
    assert "network_gbps" not in parse("is the network fine for 2x H100 80G boxes?").extracted
