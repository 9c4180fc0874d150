"""Driver vs toolkit vs the wheel's bundled runtime: the compat answer in the question's terms."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse
from bot.render.text import ask_lines

TABLE = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.125.06   Driver Version: 525.125.06   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |                    0 |
|ERR!   38C    P5    49W / 450W |   2021MiB / 23028MiB |      0%   E. Process |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+"""


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


def _answer(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    answer = advisor.answer(req, parsed.language)
    ctx = ComposeContext(requirement=req, answer=answer, catalog=advisor.catalog, language=parsed.language,
                         question=text, paste=req.pasted)
    return answer.model_copy(update={"answers": compose_all(ctx)})


def test_toolkit_question_is_answered_no_because_the_wheel_brings_its_runtime(advisor):
    answer = _answer(advisor, "nvidia-smi shows CUDA 12.2 but torch is cu124, do I need to install CUDA Toolkit 12.4?")
    lead = ask_lines(answer)[0]
    assert lead.startswith("No — the PyTorch cu124 wheel carries its own CUDA 12.4 runtime")
    assert any("minor-version compatibility" in d for d in answer.answers[0].details)


def test_each_wheel_on_a_pasted_driver_gets_its_verdict_before_the_paste_notes(advisor):
    answer = _answer(advisor, f"rented box shows this. can i run a pytorch cu121 wheel on it? what about cu124 / cu128?\n{TABLE}")
    lead = ask_lines(answer)[0]
    assert lead.startswith("On driver 525.125.06: cu121, cu124, cu128 — yes, under minor-version compatibility")
    assert "530.30.02, 550.54.14, 570.26" in lead
    assert any("compute mode E. Process" in d for d in answer.answers[-1].details)  # the paste's note, after


def test_a_driver_too_old_for_the_wheels_major_says_no(advisor):
    answer = _answer(advisor, "driver is 470.182.03, can I pip install torch cu121 wheels?")
    assert "cu121 — no" in ask_lines(answer)[0]


def test_three_versions_are_each_named_and_the_build_mismatch_found(advisor):
    answer = _answer(advisor, 'nvidia-smi says "Driver Version: 550.90.07  CUDA Version: 12.4", nvcc -V says 12.1, and '
                              "torch.version.cuda says 12.6. which one matters?? building flash-attn from source fails on H100")
    reply = answer.answers[0]
    assert "newest CUDA the 550.90.07 driver supports" in reply.lead and "nvcc 12.1" in reply.lead
    assert "torch.version.cuda 12.6" in reply.lead
    assert any("nvcc 12.1 against torch's CUDA 12.6" in d and 'TORCH_CUDA_ARCH_LIST="9.0"' in d for d in reply.details)


def test_chinese_toolkit_question_is_answered_in_chinese(advisor):
    answer = _answer(advisor, "nvidia-smi 显示 CUDA 12.2，torch 是 cu124 的，要不要装 CUDA Toolkit 12.4？")
    assert ask_lines(answer)[0].startswith("不需要——PyTorch 的 cu124 wheel 自带 CUDA 12.4 运行时")


def test_minimum_driver_question_with_the_hosts_driver_checks_it_and_says_the_limits(advisor):
    answer = _answer(advisor, "CUDA 12.8 需要什么驱动版本？我们机器是 535，能不能直接跑用 12.8 编的程序")
    reply = answer.answers[0]
    assert reply.lead.startswith("CUDA 12.8 需要 570.26 及以上的 Linux 驱动")
    assert reply.details[0].startswith("CUDA 12.8 跑在驱动 535 上：可以，靠次版本兼容")
    assert any("原生支持到 CUDA 12.2" in d for d in reply.details) and any("PTX" in d for d in reply.details)
