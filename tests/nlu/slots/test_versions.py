"""bot.nlu.slots.versions: driver and CUDA versions, and the CUDA version nvidia-smi reports."""

from pathlib import Path

import pytest

from bot.nlu import ParseError, parse
from tests.nlu import stated

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("text, driver, cuda", [
    ("driver 535.104 with CUDA 12.1", "535.104", "12.1"),
    ("驱动版本 550，cuda 12.4", "550", "12.4"),
    ("节点 driver 是 550.xx，跑 CUDA 12.6 的镜像", "550", "12.6"),  # "driver 是 …", the minor elided
    ("image nvidia/cuda:12.4.1-devel-ubuntu22.04 on driver 535.129", "535.129", "12.4"),  # a tag's patch level: its release
    ("A100 driver 550.54 with CUDA 12.4", "550.54", "12.4"),  # a model number's digits are not a driver
    ("R570 driver, CUDA 12.8", "570", "12.8"),
])
def test_driver_and_toolkit_versions(text, driver, cuda):
    slots = parse(text).extracted
    assert (slots["driver"], slots["cuda"]) == (driver, cuda)


def test_the_cuda_version_nvidia_smi_prints_is_the_drivers_not_the_toolkit():
    slots = parse((FIXTURES / "nvidia_smi_header.txt").read_text()).extracted
    assert slots["driver_cuda"] == "12.4" and "cuda" not in slots
    slots = parse("nvidia-smi shows CUDA Version: 12.2 but torch is cu121").extracted
    assert (slots["driver_cuda"], slots["cuda"]) == ("12.2", "12.1")


def test_pasted_nvcc_output_gives_the_toolkit_release():
    result = parse((FIXTURES / "nvcc_version.txt").read_text())
    assert stated(result) == {"cuda": "11.8"}
    assert [s.text for s in result.spans if s.slot != "asks"] == ["release 11.8"]


def test_a_cuda_version_that_never_existed_is_refused():
    with pytest.raises(ParseError, match="not a CUDA release"):
        parse("CUDA 45")


def test_a_driver_named_by_the_machines_running_it():
    from bot.nlu import parse
    assert parse("CUDA 12.8 需要什么驱动？我们机器是 535").requirement.driver == "535"
    assert parse("our nodes are on 535 - can we run the cu128 wheel?").requirement.driver == "535"
    assert parse("our nodes are on 550 GB disks").requirement.driver is None  # not about drivers at all
    assert parse("cu126 的 wheel 能用吗？集群上现在是 550").requirement.driver == "550"
    assert parse("节点目前装的 570.86，跑 CUDA 12.8 编的程序行不行").requirement.driver == "570.86"
    assert parse("our cluster is on 535, is the cu124 wheel fine?").requirement.driver == "535"
    assert parse("CUDA 12.4 的机器是 512 GB 内存").requirement.driver is None  # memory, not a driver
