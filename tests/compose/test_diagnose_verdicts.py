"""The diagnosis opens in the terms the question asks it: "is something wrong?" gets yes/no the other way
round from "is this normal?", a GPU's Xid verdict leads over an error message's generic cause when the
question asks about the GPU, and "our code? can we fix it ourselves?" gets both answers before the line.
Messages written for these tests; the real advisor answers them."""

from __future__ import annotations

from bot.compose import ComposeContext
from bot.compose.diagnose import compose
from bot.compose.judged_words import NORMAL_Q, WRONG_Q
from bot.models import Ask
from bot.nlu.parser import parse

HEADER = ("index, name, temperature.gpu, power.draw [W], power.limit [W], clocks.sm [MHz], clocks.max.sm [MHz], "
          "clocks_event_reasons.active\n")
BRAKE = HEADER + "0, NVIDIA H100 80GB HBM3, 31, 71.20 W, 700.00 W, 90 MHz, 1980 MHz, 0x0000000000000088\n"
CAPPED = HEADER + "0, NVIDIA H100 80GB HBM3, 66, 699.00 W, 700.00 W, 1755 MHz, 1980 MHz, 0x0000000000000004\n"
APP_XIDS = ("NVRM: Xid (PCI:0000:1a:00): 13, pid=7781, name=python, Graphics SM Warp Exception on (GPC 2, TPC 0, SM 0): "
            "Out Of Range Address\n"
            "NVRM: Xid (PCI:0000:1a:00): 43, pid=7781, name=python, Ch 00000010\n")
OFF_BUS = ("NVRM: Xid (PCI:0000:5e:00): 79, pid=1204, name=torchrun, GPU has fallen off the bus.\n"
           "NVRM: GPU 0000:5e:00.0: GPU has fallen off the bus.\n")


def _diagnose(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ask = next((a for a in req.asks if a.kind == "diagnose"), Ask(kind="diagnose", text=text))
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text, paste=req.pasted)
    return compose(ask, ctx)


def test_the_two_ways_of_asking_for_a_judgement_are_told_apart():
    assert WRONG_Q.search("anything wrong with this node?") and not NORMAL_Q.search("anything wrong with this node?")
    assert WRONG_Q.search("这台机器有没有问题") and NORMAL_Q.search("这样正常吗") and not WRONG_Q.search("这样正常吗")
    assert not WRONG_Q.search("we got the wrong quote") and not WRONG_Q.search("price is off")


def test_a_fault_asked_as_is_something_wrong_opens_with_yes(advisor):
    reply = _diagnose(advisor, f"our 4-GPU box feels slow, is something wrong with it?\n{BRAKE}")
    assert reply.lead.startswith("Yes, something is wrong. GPU 0"), reply.lead
    assert "power brake" in reply.lead.lower()
    assert not any(d.startswith("You say") for d in reply.details)  # nothing said about the other GPUs


def test_the_user_saying_every_gpu_shows_it_makes_it_the_nodes_cause(advisor):
    reply = _diagnose(advisor, f"all 4 gpus have this in the query output, anything wrong?\n{BRAKE}")
    shared = next(d for d in reply.details if d.startswith("You say all 4 GPUs"))
    assert "power supplies" in shared and "not 4 faulty boards" in shared
    zh = _diagnose(advisor, f"4 张卡都这样，有没有问题？\n{BRAKE}")
    assert zh.lead.startswith("有问题。") and any(d.startswith("你说 4 张卡都是这样") for d in zh.details)


def test_a_healthy_reading_asked_the_wrong_way_round_says_nothing_wrong(advisor):
    reply = _diagnose(advisor, f"满载的时候是这样，是不是有问题？\n{CAPPED}")
    assert reply.lead.startswith("没有问题：正常，不是故障。"), reply.lead
    assert "没有发现问题" not in reply.lead  # the answer word says it once
    normal = _diagnose(advisor, f"under load it reads like this, is that normal?\n{CAPPED}")
    assert normal.lead.startswith("Normal, not a fault."), normal.lead


def test_the_gpus_verdict_leads_over_the_errors_generic_cause_and_is_not_said_twice(advisor):
    text = ("training crashed with RuntimeError: CUDA error: an illegal memory access was encountered\n"
            f"kernel log:\n{APP_XIDS}is the card faulty, should we ask them to replace it?")
    reply = _diagnose(advisor, text)
    assert reply.lead.startswith("No, no swap or RMA. 0000:1a:00 (Xid 13, 43)"), reply.lead
    assert not any(d.startswith('"an illegal memory access"') for d in reply.details)
    assert any("compute-sanitizer" in d for d in reply.details)


def test_an_error_without_xids_still_leads_with_its_cause(advisor):
    reply = _diagnose(advisor, "RuntimeError: CUDA error: an illegal memory access was encountered\nbad gpu?")
    assert reply.lead.startswith('No, not the GPU: "an illegal memory access"'), reply.lead  # no Xids: the error leads


def test_off_the_bus_asked_as_our_code_and_fixable_ourselves_gets_both_answers(advisor):
    reply = _diagnose(advisor, f"训练跑着跑着挂了，dmesg：\n{OFF_BUS}是不是我们程序的代码问题？能自己修好吗")
    assert reply.lead.startswith("不是你们代码的问题。软件上修不好。0000:5e:00（Xid 79）"), reply.lead
    assert any("checkpoint" in d and "CUDA_VISIBLE_DEVICES" in d for d in reply.details)
    english = _diagnose(advisor, f"job died, log below\n{OFF_BUS}is this our code? can we fix it ourselves?")
    assert english.lead.startswith("Not your code. No, not from software."), english.lead


def test_no_kernel_image_on_a_named_new_gpu_with_an_old_build_is_its_arch_and_the_driver_is_judged(advisor):
    text = ('RTX 5090 box, our image has torch 2.3 + cu121 and every launch fails with "CUDA error: no kernel image is '
            'available for execution on the device". driver is 572.16. do we have to upgrade the driver?')
    reply = _diagnose(advisor, text)
    assert reply.lead.startswith("No driver change needed: driver 572.16 already meets the cu128 build's minimum (≥ 570.26)"), reply.lead
    assert any("sm_120" in d and "cu128" in d for d in reply.details)
    low = _diagnose(advisor, text.replace("572.16", "560.35.03"))
    assert low.lead.startswith("The driver too: 560.35.03 is below the 570.26"), low.lead
    unasked = _diagnose(advisor, text.replace(" do we have to upgrade the driver?", " fix?"))
    assert unasked.lead.startswith("RTX 5090 is sm_120"), unasked.lead  # the arch leads; the driver line follows
    assert any(d.startswith("No driver change needed") for d in unasked.details)


def test_no_kernel_image_with_a_build_new_enough_for_the_arch_stays_the_generic_cause(advisor):
    reply = _diagnose(advisor, 'H100 with torch cu121: "no kernel image is available for execution on the device" '
                               "in our custom op, driver 550.54.15")
    assert reply.lead.startswith('"no kernel image is available"'), reply.lead  # the extension, not the wheel


def test_a_hot_gpu_stated_in_words_is_judged_as_thermal_slowdown_in_the_questions_terms(advisor):
    reply = _diagnose(advisor, "under load our H100 nodes sit at 91 °C and the SM clock falls to 1350 MHz. is that ok?")
    assert reply.lead.startswith("Not normal. At 91 °C under load with the SM clock down to 1350 MHz"), reply.lead
    assert "not your code" in reply.lead
    assert any("GPU Slowdown Temp" in d for d in reply.details)
    zh = _diagnose(advisor, "L40S 服务器跑满以后温度 88 度，有没有问题？")
    assert zh.lead.startswith("有问题。满载 88 °C"), zh.lead


def test_a_cool_gpu_stated_in_words_keeps_the_symptoms_ranked_causes(advisor):
    reply = _diagnose(advisor, "training got slow on our 8x A100 box, GPUs are at 62C")
    assert not reply.lead.startswith(("Not normal", "At 62")), reply.lead


CORRECTED = ("    ECC Errors\n        Volatile\n            DRAM Correctable              : 87\n"
             "            DRAM Uncorrectable            : 0\n        Aggregate\n"
             "            DRAM Correctable              : 3310\n            DRAM Uncorrectable            : 0\n")


def test_corrected_ecc_counts_are_read_as_a_trend_to_watch_not_a_fault(advisor):
    reply = _diagnose(advisor, f"query output of one H100:\n{CORRECTED}is it failing?")
    assert reply.lead.startswith("No hardware fault in what was pasted. GPU 0 — 87 correctable ECC error(s)"), reply.lead
    assert "3310 over its life" in reply.lead and "not a fault by themselves" in reply.lead


def test_an_error_of_the_software_stack_blamed_on_the_gpu_opens_with_no(advisor):
    reply = _diagnose(advisor, "rebooted after apt upgrade and now: NVIDIA-SMI has failed because it couldn't "
                               "communicate with the NVIDIA driver.\nbad gpu?")
    assert reply.lead.startswith("No, not the GPU: "), reply.lead
    zh = _diagnose(advisor, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. "
                            "显卡是不是坏了")
    assert zh.lead.startswith("不是显卡的问题："), zh.lead
    unblamed = _diagnose(advisor, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. 怎么办")
    assert not unblamed.lead.startswith("不是显卡的问题")


def test_a_busbw_measured_inside_one_node_is_judged_against_the_acceptance_line(advisor):
    reply = _diagnose(advisor, "our 8x H100 SXM node trains slowly, all_reduce_perf busbw only 150 GB/s. anything wrong?")
    assert reply.lead.startswith("Yes, something is wrong. NCCL all-reduce busbw: 150 GB/s against ≥ ~370 GB/s"), reply.lead
    healthy = _diagnose(advisor, "8 卡 H100 SXM 单机 nccl busbw 465 GB/s，训练还是慢，正常吗")
    assert healthy.lead.startswith("正常，不是故障。NCCL all-reduce busbw：465 GB/s"), healthy.lead


def test_a_temperature_said_by_its_unit_alone_is_read_and_cpu_cores_are_not(advisor):
    reply = _diagnose(advisor, "H20 节点 nvidia-smi 显示 89 度，频率掉到 1300 MHz，是不是有问题")
    assert reply.lead.startswith("有问题。满载 89 °C、SM 频率掉到 1300 MHz"), reply.lead
    assert "96" not in _diagnose(advisor, "EPYC 96C host with 8x H100, training got slow, what's wrong?").lead


def test_xids_with_no_fault_of_the_gpus_and_firmware_halts_get_their_own_verdicts(advisor):
    cleanup = _diagnose(advisor, "after I killed the run dmesg has:\nNVRM: Xid (PCI:0000:2c:00): 45, pid=771, name=python, "
                                 "Ch 00000008\nis the card ok?")
    assert cleanup.lead.startswith("Yes, the GPU is fine. 0000:2c:00 (Xid 45): the driver cleaning up"), cleanup.lead
    halted = _diagnose(advisor, "NVRM: Xid (PCI:0000:9a:00): 62, pid='<unknown>', name=<unknown>, 0000b54c 0000b35a\n"
                                "nvidia-smi hangs now. do we need to RMA it?")
    assert halted.lead.startswith("Not an RMA yet. 0000:9a:00 (Xid 62)") and "reset it" in halted.lead, halted.lead


def test_a_recovery_action_quoted_with_xid_154_is_read_back(advisor):
    reply = _diagnose(advisor, "syslog 里看到 NVRM: Xid (PCI:0000:5a:00): 154, GPU recovery action changed from 0x0 (None) "
                               "to 0x2 (Node Reboot Required)\n怎么办")
    assert reply.lead.startswith("Xid 154：驱动现在要求的恢复动作是 0x2（“Node Reboot Required”）"), reply.lead


def test_xids_named_in_words_get_the_answer_word_the_question_asks_for(advisor):
    rma = _diagnose(advisor, "two of our GPUs logged Xid 95 (uncontained ECC) overnight. do we RMA them?")
    assert rma.lead.startswith("Not an RMA yet. "), rma.lead
    fine = _diagnose(advisor, "训练任务报了 Xid 13 和 Xid 43，卡正常吗？")
    assert fine.lead.startswith("卡没问题。"), fine.lead


PCIE_X8 = ("    PCI\n        GPU Link Info\n            PCIe Generation\n                Max                       : 4\n"
           "                Current                   : 4\n            Link Width\n"
           "                Max                       : 16x\n                Current                   : 8x\n")


def test_a_link_below_its_width_asked_as_a_problem_is_yes_something_is_wrong(advisor):
    assert WRONG_Q.search("is that a problem?") and WRONG_Q.search("should we worry about it") and WRONG_Q.search("要紧吗")
    reply = _diagnose(advisor, "A100 80GB PCIe box, host copies feel slow. -q shows\n" + PCIE_X8 + "are these a concern?")
    assert reply.lead.startswith("Yes, something is wrong."), reply.lead
    assert "x8 of Gen4 x16" in reply.lead


def test_clock_event_reasons_stated_in_words_are_read_like_pasted_ones(advisor):
    cap = _diagnose(advisor, "L4 serving box: nvidia-smi says SW Power Cap is Active, drawing 71/72 W. normal?")
    assert cap.lead.startswith("Normal, not a fault. at its power cap under load"), cap.lead
    held = _diagnose(advisor, "A100 推理时 SW Power Cap 一直 Active，功耗才 150/400 W，有没有问题")
    assert held.lead.startswith("有问题。"), held.lead
    clocks = _diagnose(advisor, "our H100s train slowly; Applications Clocks Setting shows Active. anything wrong?")
    assert clocks.lead.startswith("Yes, something is wrong. clocks are held by an application clocks setting"), clocks.lead
    from bot.compose.diagnose_stated import stated_reasons

    text = "L40S: SW Power Cap Not Active, HW Slowdown: Not Active. is it normal?"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    assert stated_reasons(Ask(kind="diagnose", text=text), ctx) is None  # "Not Active" is no reason
