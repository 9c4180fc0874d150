"""One table, two paths: a capture read by the agent (parse_smi_file / read_kernel_log -> host_facts
-> judge) and the same capture pasted into a question (parse -> Requirement.pasted -> the
question's facts) give the same health findings, from the same rules."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.agent.kernel_log import read_kernel_log
from bot.agent.smi import parse_smi_file
from bot.dispatch.judge import judge
from bot.nlu.parser import parse
from tests.diagnostics.conftest import A100_XML, H100_Q, KERNEL_LOG, SMI, needs_fixtures, read

pytestmark = needs_fixtures

CASES = [
    H100_Q,
    A100_XML,
    SMI / "8x-rtx-4090-a__535.154.05__nvidia-smi-q__leptonai-gpud.txt",
    SMI / "tesla-t4__515.105.01__nvidia-smi-q-x__influxdata-telegraf.xml",
    SMI / "rtx-3090__525.147.05__nvidia-smi-q-x__influxdata-telegraf.xml",
    SMI / "gt-1030__470.74__nvidia-smi-q-x__influxdata-telegraf-old.xml",
]


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def _host_rules(answer) -> list[tuple[str, str]]:
    return sorted((f.rule, f.message) for f in answer.findings if f.rule.startswith("host."))


def _chat(advisor, text):
    parsed = parse(text, advisor.catalog)
    return advisor.answer(parsed.requirement, parsed.language)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name[:40])
@pytest.mark.parametrize("question", ["is this GPU ok?", "这台机器的 GPU 有问题吗？"])
def test_a_capture_gives_the_same_findings_through_the_agent_and_the_chat(advisor, path, question):
    language = "zh" if "问题" in question else "en"
    agent = judge(advisor, "this host", "cloud", None, parse_smi_file(path), language=language)
    chat = _chat(advisor, f"{question}\n{read(path)}")
    assert _host_rules(chat) == _host_rules(agent)
    assert chat.verdict.rule == agent.verdict.rule


def test_a_capture_with_its_kernel_log_gives_the_same_xid_findings(advisor):
    report = parse_smi_file(H100_Q)
    report.kernel_log = read_kernel_log(replay=KERNEL_LOG)
    agent = judge(advisor, "this host", "cloud", None, report)
    chat = _chat(advisor, f"is this ok?\n{read(H100_Q)}\n{read(KERNEL_LOG)}")
    assert _host_rules(chat) == _host_rules(agent)
    assert {"host.xid-application"} <= {f.rule for f in chat.findings}


def test_the_rented_count_is_held_against_a_whole_listing(advisor):
    chat = _chat(advisor, f"I rented 16x H100, is that what I got?\n{read(H100_Q)}")
    assert "host.count-not-as-expected" in {f.rule for f in chat.findings}
    agent = judge(advisor, "this host", "cloud", None, parse_smi_file(H100_Q), expect_gpu="h100-sxm", expect_count=16)
    assert "host.count-not-as-expected" in {f.rule for f in agent.findings}


def test_a_paste_answer_is_a_diagnosis_without_sizing(advisor):
    chat = _chat(advisor, f"is this GPU ok?\n{read(H100_Q)}")
    assert chat.requirement.gpu_count is None and not chat.recommendations
    assert not [q for q in chat.questions if "model" in q.lower()]


def test_the_power_cap_at_full_draw_is_not_a_throttle_finding(advisor):
    capped = ("index, name, temperature.gpu, power.draw [W], power.limit [W], utilization.gpu [%], clocks_event_reasons.active\n"
              "0, NVIDIA GeForce RTX 4090, 74, 435.24 W, 450.00 W, 96 %, 0x0000000000000004\n"
              "1, NVIDIA GeForce RTX 4090, 60, 250.00 W, 450.00 W, 96 %, 0x0000000000000004\n")
    chat = _chat(advisor, f"is this normal?\n{capped}")
    throttled = [f.message for f in chat.findings if f.rule == "host.power-throttle"]
    assert len(throttled) == 1 and throttled[0].startswith("GPU 1 ")


def test_a_rented_model_is_held_only_against_names_the_paste_spells_out(advisor):
    table = read(SMI / "default-table-525__525.125.06__nvidia-smi__leptonai-gpud.txt")  # "NVIDIA GeForce ..."
    chat = _chat(advisor, f"租了台 4090，是不是被坑了？\n{table}")
    assert "host.gpu-not-as-expected" not in {f.rule for f in chat.findings}
    other = _chat(advisor, f"I rented an A100, is this it?\n{read(H100_Q)}")
    assert "host.gpu-not-as-expected" in {f.rule for f in other.findings}


def test_lines_cut_out_with_an_ellipsis_do_not_end_the_block(advisor):
    text = ("full load, SW Power Cap active, ok?\n    Clocks Event Reasons\n        Idle                              : Not Active\n"
            "        SW Power Cap                      : Active\n        HW Slowdown                       : Not Active\n...\n"
            "    GPU Power Readings\n        Power Draw                        : 435.24 W\n"
            "        Current Power Limit               : 450.00 W\n")
    gpu = parse(text).requirement.pasted.report.gpus[0]
    assert (gpu.clock_event_reasons, gpu.power_draw_w, gpu.power_limit_w) == (["sw_power_cap"], 435.24, 450.0)
    assert "host.power-throttle" not in {f.rule for f in _chat(advisor, text).findings}
