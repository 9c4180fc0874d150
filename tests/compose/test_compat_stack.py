"""Driver vs toolkit vs the wheel's bundled runtime: the compat answer in the question's terms."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse
from bot.render.text import ask_lines
from tests.compose.answering import answer_of as _answer

# A real plain `nvidia-smi` table (driver 525.125.06, compute mode E. Process), read from the shared fixtures.
TABLE = (Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "nvidia-smi"
         / "default-table-525__525.125.06__nvidia-smi__leptonai-gpud.txt")


def test_toolkit_question_is_answered_no_because_the_wheel_brings_its_runtime(advisor):
    answer = _answer(advisor, "nvidia-smi shows CUDA 12.2 but torch is cu124, do I need to install CUDA Toolkit 12.4?")
    lead = ask_lines(answer)[0]
    assert lead.startswith("No — the PyTorch cu124 wheel carries its own CUDA 12.4 runtime")
    assert any("minor-version compatibility" in d for d in answer.answers[0].details)


@pytest.mark.skipif(not TABLE.is_file(), reason=f"shared fixture {TABLE.name} is not beside this checkout")
def test_each_wheel_on_a_pasted_driver_gets_its_verdict_before_the_paste_notes(advisor):
    question = "got this from the provider's node. will torch builds for cu118 and cu126 work on it?"
    answer = _answer(advisor, f"{question}\n{TABLE.read_text()}")
    lead = ask_lines(answer)[0]
    # 11.8 natively (its minimum 520.61.05 <= 525.125.06); 12.6 only under 12.x minor-version compatibility
    assert lead.startswith("On driver 525.125.06: cu118 — yes") and "520.61.05" in lead
    assert "cu126 — yes, under minor-version compatibility" in lead and "560.28.03" in lead
    assert any("compute mode E. Process" in d for d in answer.answers[-1].details)  # the paste's note, after


def test_a_driver_too_old_for_the_wheels_major_says_no(advisor):
    answer = _answer(advisor, "driver is 470.182.03, can I pip install torch cu121 wheels?")
    assert "cu121 — no" in ask_lines(answer)[0]


def test_three_versions_are_each_named_and_the_build_mismatch_found(advisor):
    answer = _answer(advisor, "driver 535.183.01 and nvidia-smi reports CUDA 12.2, but nvcc --version prints 11.8 and "
                              "torch.version.cuda is 12.1 — which of these counts? compiling apex on our A100s errors out")
    reply = answer.answers[0]
    assert "newest CUDA the 535.183.01 driver supports" in reply.lead and "nvcc 11.8" in reply.lead
    assert "torch.version.cuda 12.1" in reply.lead
    # the A100 is sm_80: the arch list is the card's, not a fixed one
    assert any("nvcc 11.8 against torch's CUDA 12.1" in d and 'TORCH_CUDA_ARCH_LIST="8.0"' in d for d in reply.details)


def test_chinese_toolkit_question_is_answered_in_chinese(advisor):
    answer = _answer(advisor, "nvidia-smi 显示 CUDA 12.2，torch 是 cu124 的，要不要装 CUDA Toolkit 12.4？")
    assert ask_lines(answer)[0].startswith("不需要——PyTorch 的 cu124 wheel 自带 CUDA 12.4 运行时")


def test_minimum_driver_question_with_the_hosts_driver_checks_it_and_says_the_limits(advisor):
    answer = _answer(advisor, "用 CUDA 12.6 编译的程序，最低要装哪个版本的驱动？集群上现在是 550，能直接跑吗")
    reply = answer.answers[0]
    assert reply.lead.startswith("CUDA 12.6 需要 560.28.03 及以上的 Linux 驱动")
    assert reply.details[0].startswith("CUDA 12.6 跑在驱动 550 上：可以，靠次版本兼容")
    assert any("原生支持到 CUDA 12.4" in d for d in reply.details) and any("PTX" in d for d in reply.details)


def test_a_minimum_driver_question_in_other_words_gets_the_minimum_and_the_hosts_check(advisor):
    answer = _answer(advisor, "what driver do I need for CUDA 12.4? our cluster is on 535")
    reply = answer.answers[0]
    assert reply.rule == "compat.min-driver" and reply.lead.startswith("CUDA 12.4 needs Linux driver 550.54.14 or newer")
    assert reply.details[0].startswith("CUDA 12.4 on driver 535: yes, under minor-version compatibility")


def test_a_plain_install_of_a_named_release_is_judged_by_its_default_build_with_the_build_that_fits(advisor):
    answer = _answer(advisor, "our nodes run driver 550.54 — will the default pip package of torch 2.11 work, "
                              "or does a CUDA 12 toolkit inside docker get around it?")
    lead = ask_lines(answer)[0]
    assert "PyTorch 2.11" in lead and "CUDA 13.0" in lead and "≥ 580" in lead  # 2.11's default is cu130
    assert "whl/cu128" in lead  # its newest build the 550 driver runs (12.x minor-version compatibility)
    details = answer.answers[0].details
    assert any(d.startswith("No — a CUDA toolkit installed in the container") for d in details)


def test_a_blackwell_card_is_not_pointed_at_a_build_without_its_kernels(advisor):
    answer = _answer(advisor, "RTX 5090 on driver 570.86: I ran pip install torch and cuda is not available, "
                              "what now?")
    text = "\n".join([ask_lines(answer)[0], *answer.answers[0].details])
    assert "cu126" not in text  # no sm_120 in a CUDA 12.6 build
    assert "cu128" in text and "sm_120" in text and "570.26" in text


def test_a_plain_install_on_a_new_enough_driver_is_a_yes(advisor):
    answer = _answer(advisor, "driver 580.95 on the box, is a plain pip install torch of the latest release fine?")
    assert "runs on driver 580.95" in ask_lines(answer)[0]


def test_a_gpu_the_newest_cuda_dropped_is_told_which_pytorch_build_still_carries_it(advisor):
    answer = _answer(advisor, "Our V100 PCIe nodes — is a CUDA 13 image with today's torch wheels an option for them?")
    details = answer.answers[0].details
    assert ask_lines(answer)[0].startswith("No — CUDA 13")
    assert any("cannot carry sm_70" in d and "whl/cu126" in d for d in details)


def test_a_precision_asked_of_several_cards_is_judged_for_each(advisor):
    answer = _answer(advisor, "can the RTX 4090, A100 80GB or H200 run FP8?")
    lead = ask_lines(answer)[0]
    assert lead.startswith("FP8: ") and "A100 80GB SXM — no" in lead
    assert len(answer.answers[0].details) == 3  # one line per card named


def test_a_fix_that_must_leave_the_driver_leads_with_the_build_that_runs_on_it(advisor):
    answer = _answer(advisor, "our A100 80GB hosts are on driver 550.54.15 and ops won't touch the driver. pip install "
                              "torch grabbed 2.11 and cuda is unavailable. how do we fix it?")
    lead = ask_lines(answer)[0]
    assert lead.startswith("Yes, without a driver upgrade: install PyTorch 2.11's CUDA 12.8 build"), lead
    assert "torch==2.11.*" in lead and "whl/cu128" in lead and "≥ 525.60.13" in lead
    details = answer.answers[0].details
    assert details[0].startswith("Why it failed: a plain `pip install torch` of PyTorch 2.11")  # the release they got
    assert any("cuda-compat-13-0" in d and "data-centre GPU" in d for d in details)


def test_a_geforce_card_is_not_offered_forward_compatibility(advisor):
    answer = _answer(advisor, "RTX 4090 box, driver 550.54.15, cannot upgrade the driver; pip install torch of 2.11 "
                              "says the driver is too old")
    assert ask_lines(answer)[0].startswith("Yes, without a driver upgrade")
    assert not any("cuda-compat" in d for d in answer.answers[0].details)


def test_without_a_constraint_on_the_driver_the_plain_install_verdict_still_leads(advisor):
    answer = _answer(advisor, "driver 550.54.15 here; pip install torch installed 2.11, is the driver too old?")
    assert ask_lines(answer)[0].startswith("A plain `pip install torch` of PyTorch 2.11"), ask_lines(answer)[0]


def test_a_container_image_needs_the_hosts_driver_and_the_container_toolkit_not_a_cuda_toolkit(advisor):
    answer = _answer(advisor, "we deploy nvcr image built on nvidia/cuda:12.6.3-runtime; hosts have driver 535.183. "
                              "will that container work, and do we need a CUDA toolkit on the hosts too?")
    lines = [ask_lines(answer)[0], *answer.answers[0].details]
    assert lines[0].startswith("CUDA 12.6 on driver 535.183: yes, under minor-version compatibility"), lines[0]
    assert lines[1].startswith("No — the container image carries its own CUDA 12.6 runtime") and "Container Toolkit" in lines[1]
    assert "cu126 wheel" not in " ".join(lines)  # an image, not a PyTorch wheel
    zh = _answer(advisor, "镜像是 CUDA 12.4 的，宿主机驱动 470.182，需要在宿主机上装 CUDA 吗？")
    assert ask_lines(zh)[0].startswith("不需要——容器镜像自带 CUDA 12.4 运行时"), ask_lines(zh)[0]
    assert any("470.182" in d and "不行" in d for d in zh.answers[0].details)  # the driver too old for it, said


def test_a_precision_no_verdict_rule_judges_is_answered_from_the_cards_tensor_cores(advisor):
    answer = _answer(advisor, "is FP4 supported on H100?")
    assert ask_lines(answer)[0].startswith("No — H100 SXM (Hopper, compute capability 9.0) has no FP4 tensor cores")


def test_the_forward_compatibility_package_asked_by_name_is_answered_per_gpu_class(advisor):
    def first(text):
        parsed = parse(text, advisor.catalog)
        ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                             catalog=advisor.catalog, language=parsed.language, question=text)
        return compose_all(ctx)[0]

    geforce = first("could cuda-compat let our RTX 5090 workstations run the cu130 torch build on driver 575?")
    assert geforce.lead.startswith("No — cuda-compat"), geforce.lead
    assert geforce.details[0].startswith("On driver 575: cu130 — no")
    dc = first("L40S 服务器驱动 550，用前向兼容包能跑 cu130 的 torch 吗？")
    assert dc.lead.startswith("只有在 NVIDIA 兼容性表列出你的驱动分支时才行"), dc.lead


def test_a_release_default_wheel_named_after_the_version_is_the_plain_install(advisor):
    parsed = parse("L40S on driver 550.54, is that enough for the torch 2.11 default wheel?", advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=parsed.requirement.asks[0].text)
    reply = compose_all(ctx)[0]
    assert reply.rule == "compat.plain-install", reply.lead
    assert reply.lead.startswith("A plain `pip install torch` of PyTorch 2.11 takes its CUDA 13.0 build"), reply.lead


@pytest.mark.parametrize("text,lang", [
    ("AutoDL 的 4090 机器 nvidia-smi 显示 CUDA Version 12.2，能装 PyTorch 2.11 默认版本吗？", "zh"),
    ("租的 A100 上 nvidia-smi 里 CUDA Version 是 12.2，直接 pip install torch 2.11 能用吗", "zh"),
    ("nvidia-smi shows CUDA Version 12.2, can I pip install torch 2.11?", "en"),
    ("our RunPod box: nvidia-smi says CUDA Version 12.2. Will the default torch 2.11 wheel work?", "en"),
    ("nvidia-smi says CUDA Version: 12.2 — will torch 2.11 from pip run?", "en"),
])
def test_the_cuda_version_nvidia_smi_prints_stands_for_the_driver_a_plain_install_is_judged_on(advisor, text, lang):
    answer = _answer(advisor, text)
    assert [a.kind for a in answer.requirement.asks] == ["compat"]  # not a fit, a primer, or the provider's billing
    reply = answer.answers[0]
    assert reply.rule == "compat.plain-install" and reply.figures["works"] == "no"
    assert "cu130" in reply.lead and "580" in reply.lead and "535" in reply.lead  # 12.2's driver is the 535 branch
    assert "/whl/cu12" in reply.lead  # the 12.x build that runs on it, from PyTorch's index
    said = reply.details[0]
    assert "12.2" in said and "535" in said and ("Toolkit" in said if lang == "zh" else "toolkit" in said)
    # the versions were given: no question asks for them again
    assert not any("driver" in q.lower() or "驱动" in q for q in answer.questions)


def test_a_ceiling_new_enough_for_the_default_build_is_a_yes(advisor):
    answer = _answer(advisor, "nvidia-smi 显示 CUDA Version 13.0，能装 PyTorch 2.11 默认版本吗？")
    reply = answer.answers[0]
    assert reply.rule == "compat.plain-install" and reply.figures["works"] == "yes"


def test_a_driver_named_without_a_build_is_a_plain_install_of_that_release(advisor):
    answer = _answer(advisor, "驱动 535，能装 PyTorch 2.11 吗？")
    reply = answer.answers[0]
    assert reply.rule == "compat.plain-install" and reply.figures["works"] == "no" and "cu130" in reply.lead
