"""bot.nlu.slots.options: what a question compares."""

from bot.nlu import parse


def test_a_second_gpu_is_compared_not_dropped_silently():
    result = parse("H100 or B200 for training?")
    assert (result.extracted["gpu"], result.extracted["gpu_options"]) == ("h100", ["h100", "b200"])
    assert not any(s.slot == "gpu" for s in result.ignored)


def test_two_form_factors_of_one_gpu_are_its_variants():
    assert parse("H100 SXM vs H100 PCIe").extracted["gpu_options"] == ["h100-sxm", "h100-pcie"]
    assert parse("H100 PCIe vs SXM").extracted["gpu_options"] == ["h100-pcie", "h100-sxm"]


def test_billing_modes_named_or_quoted_are_compared():
    assert parse("on-demand or reserved?").extracted["billing_options"] == ["on-demand", "reserved"]
    assert parse("按量付费 8元/时 vs 包月 4000元/月").extracted["billing_options"] == ["on-demand", "subscription"]


def test_a_second_provider_is_an_option_and_no_longer_ignored():
    result = parse("RunPod or AWS")
    assert result.extracted["provider_options"] == ["aws"]
    assert not [s for s in result.ignored if s.slot == "provider"]
