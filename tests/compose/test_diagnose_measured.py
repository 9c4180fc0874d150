"""Figures a user measured and states in a diagnosis: each read with its own direction and kind, and
each judged (a device-to-host copy is not a host-to-device one; two figures get two verdicts).
Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.compose.checklist_measured import figures
from bot.compose.diagnose import compose
from bot.compose.diagnose_stated import stated_busbw
from bot.models import Ask
from bot.nlu.parser import parse


def _ctx(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text, paste=req.pasted)
    return ctx, next((a for a in req.asks if a.kind == "diagnose"), Ask(kind="diagnose", text=text))


def test_each_copy_figure_is_read_with_its_own_direction():
    found = figures("nvbandwidth: device_to_host 12.5 GB/s, host_to_device 49 GB/s; GPU→CPU 13 GB/s")
    assert [(f.kind, f.value) for f in found] == [("d2h", 12.5), ("h2d", 49.0), ("d2h", 13.0)]
    zh = figures("设备到主机 10 GB/s，主机到设备 24 GB/s，锁页内存")
    assert [f.kind for f in zh] == ["d2h", "h2d"]
    assert [f.kind for f in figures("pinned D2H copy 20 GB/s")] == ["d2h"]  # "pinned" says the memory, not the way


def test_a_low_device_to_host_copy_is_judged_as_that_direction(advisor):
    ctx, ask = _ctx(advisor, "H200 box, DtoH bandwidth only 12 GB/s with pinned buffers. is that normal?")
    reply = compose(ask, ctx)
    assert reply is not None and reply.lead.startswith("Not normal. Device-to-host (pinned): 12 GB/s"), reply and reply.lead
    assert "Host-to-device" not in reply.lead


def test_two_copy_figures_get_two_verdicts_and_one_low_direction_is_not_the_link(advisor):
    ctx, ask = _ctx(advisor, "new H100 node: D2H 14 GB/s, H2D 51 GB/s. anything wrong?")
    reply = compose(ask, ctx)
    text = "\n".join([reply.lead, *reply.details])
    # asked "anything wrong?", answered in those terms, as a single figure is
    assert reply.lead.startswith("Yes, something is wrong: device-to-host below"), reply.lead
    assert "Device-to-host (pinned): 14 GB/s" in text and "Host-to-device (pinned): 51 GB/s" in text
    assert "Only device-to-host is low" in text


def test_a_chinese_message_with_a_copy_and_a_gemm_figure_judges_both(advisor):
    text = "刚租的 8 卡 H100 SXM，主机到设备 23 GB/s，BF16 GEMM 跑出来 760 TFLOPS，有没有问题？"
    ctx, _ = _ctx(advisor, text)
    spec = advisor.catalog.gpus["h100-sxm"]
    lead, details, rule, _ = stated_busbw(text, spec, ctx)
    assert rule == "checklist.measured"
    assert lead.startswith("有问题：2 项里有 1 项低于 8 张 H100 SXM"), lead
    joined = "\n".join(details)
    assert "host-to-device（锁页内存）：23 GB/s" in joined and "760 TFLOPS 是稠密 BF16 峰值 989 TFLOPS 的 77%" in joined


def test_one_host_to_device_figure_is_left_to_the_diagnosis_own_reading(advisor):
    text = "H100 host to device only 11 GB/s, normal?"
    ctx, _ = _ctx(advisor, text)
    assert stated_busbw(text, advisor.catalog.gpus["h100-sxm"], ctx) is None


def test_two_rates_in_one_clause_are_two_figures_each_with_its_own_words():
    assert [(f.kind, f.value) for f in figures("pinned copies: H2D 25 GB/s and D2H 11 GB/s")] == [("h2d", 25.0), ("d2h", 11.0)]
    assert [(f.kind, f.value) for f in figures("主机到设备 12 GB/s、设备到主机 12.5 GB/s，显存带宽 1.7 TB/s")] == [
        ("h2d", 12.0), ("d2h", 12.5), ("membw", 1700.0)]
    assert [f.kind for f in figures("GEMM 520 TFLOPS and H2D 24 GB/s")] == ["gemm", "h2d"]


def test_a_diagnosis_with_a_gemm_figure_and_a_copy_rate_judges_both(advisor):
    ctx, ask = _ctx(advisor, "H100 节点实测 H2D 23 GB/s，BF16 GEMM 760 TFLOPS，正常吗")
    reply = compose(ask, ctx)
    assert reply is not None
    text = "\n".join([reply.lead, *reply.details])
    assert "23 GB/s" in text and "760 TFLOPS" in text  # not only the GEMM line
