"""split_paste: pasted output found first, bounded, and kept away from the slot extractors."""

from __future__ import annotations

import time

import pytest

from bot.diagnostics.paste import MAX_PASTE_CHARS, PasteTooLong, split_paste
from bot.nlu.parser import ParseError, parse
from tests.diagnostics.conftest import A100_XML, H100_EXPORTER, H100_Q, H100_TABLE, KERNEL_LOG, needs_fixtures, read, section


def _cut_to_gpus(text: str, count: int) -> str:
    """A `-q` capture cut to its first `count` GPU sections (the header still says 8)."""
    marks = [i for i, line in enumerate(text.splitlines()) if line.startswith("GPU 0000")]
    return "\n".join(text.splitlines()[: marks[count]]) if count < len(marks) else text


@needs_fixtures
@pytest.mark.parametrize("question", ["is this GPU ok?", "这台机器的 GPU 正常吗？"])
@pytest.mark.parametrize("kind, body, gpus", [
    ("nvidia-smi-q", lambda: read(H100_Q), 8),
    ("nvidia-smi-q", lambda: _cut_to_gpus(read(H100_Q), 2), 2),
    ("nvidia-smi-xml", lambda: read(A100_XML), 1),
    ("nvidia-smi-table", lambda: read(H100_TABLE), 8),
    ("nvidia-smi-csv", lambda: section(H100_EXPORTER, "nvidia-smi --query-gpu"), 1),
])
def test_real_captures_pasted_with_a_question(question, kind, body, gpus):
    text = f"{question}\n{body()}"
    rest, paste = split_paste(text)
    assert rest == question
    assert paste.kinds == [kind] and len(paste.report.gpus) == gpus
    parsed = parse(text)
    assert parsed.requirement.gpu_count is None  # the board serial is not a GPU count
    assert parsed.requirement.pasted is not None and parsed.requirement.asks[0].kind == "diagnose"
    assert parsed.language == ("zh" if "正常" in question else "en")


@needs_fixtures
def test_kernel_log_paste_and_the_question_after_it():
    rest, paste = split_paste(read(KERNEL_LOG) + "\nwhat does this mean?")
    assert rest == "what does this mean?" and paste.kinds == ["kernel-log"]
    assert {e.code for e in paste.xids} == {13, 43}


def test_traceback_is_a_block_and_its_error_is_read():
    rest, paste = split_paste('my job died:\nTraceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
                              "    x.cuda()\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                              "I use an RTX 5090")
    assert rest == "my job died:\nI use an RTX 5090"
    assert paste.kinds == ["error"] and [e.kind for e in paste.errors] == ["no-kernel-image"]


def test_inline_readings_become_one_gpu_and_leave_the_question():
    rest, paste = split_paste("SW Thermal Slowdown: Active, HW Slowdown: Active, 88℃, 300/700 W 这正常吗？")
    gpu = paste.report.gpus[0]
    assert gpu.clock_event_reasons == ["hw_slowdown", "sw_thermal_slowdown"]
    assert (gpu.temperature_c, gpu.power_draw_w, gpu.power_limit_w) == (88, 300.0, 700.0)
    assert "700" not in rest and rest.endswith("这正常吗？")


def test_a_plain_question_is_untouched():
    for question in ("How much memory does a 70B model need on 8x H100?", "nvidia-smi shows CUDA 12.2 but torch is cu124",
                     "Key facts: price is 2 USD/h : cheap?"):
        assert split_paste(question) == (question, None)


def test_a_quoted_error_stays_in_the_question_and_is_read():
    question = '"no kernel image is available … RTX 5090 with CUDA capability sm_120 is not compatible" what now?'
    rest, paste = split_paste(question)
    assert rest == question and {e.kind for e in paste.errors} == {"arch-unsupported", "no-kernel-image"}
    assert paste.errors[0].arch == "sm_120"


def test_a_truncated_xml_is_kept_with_its_problem_not_raised():
    _, paste = split_paste("ok?\n<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<gpu id=\"00000000:01:00.0\">\n<product_name>X")
    assert paste.blocks[0].kind == "nvidia-smi-xml" and "not well-formed" in paste.blocks[0].problem
    assert paste.report is None


@needs_fixtures
def test_a_40_kb_paste_is_read_in_under_a_second():
    text = "is this ok?\n" + _cut_to_gpus(read(H100_Q), 4)
    assert 30_000 < len(text) < 45_000
    parse("warm up")
    start = time.perf_counter()
    parse(text)
    assert time.perf_counter() - start < 1.0


def test_a_1_mb_paste_gets_a_clear_error():
    text = "is this ok?\n" + ("    Pending                           : No\n" * 30_000)
    assert len(text) > MAX_PASTE_CHARS
    with pytest.raises(PasteTooLong, match="too long.*Paste the GPU's block"):
        split_paste(text)
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.field == "question" and "too long" in info.value.message


def test_what_the_paste_says_fills_the_question_slots_with_spans_on_the_message():
    text = ("is this ok?\n[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python, GPU has fallen off the bus.\n"
            "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
            "I rented 2 H100")
    parsed = parse(text)
    req = parsed.requirement
    assert (req.xids, req.symptoms, req.driver, req.driver_cuda, req.gpu_count) == (
        [79], ["fallen-off-bus"], "550.54.15", "12.4", 2)
    for span in parsed.spans:
        assert text[span.start:span.end] == span.text, span
    assert {s.slot for s in parsed.spans} >= {"xids", "symptoms", "driver", "driver_cuda", "gpu_count"}


def test_a_sentence_quoting_a_kernel_line_stays_the_question():
    text = "dmesg 里有 NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus. 怎么办"
    assert split_paste(text) == (text, None)
    assert parse(text).requirement.xids == [79]


def test_lines_that_look_like_output_but_say_nothing_are_no_paste():
    assert split_paste("NVRM:") == ("NVRM:", None)


def test_a_pasted_xid_outside_the_range_is_refused_as_before():
    with pytest.raises(ParseError) as info:
        parse("NVRM: Xid (PCI:0000:3b:00): 0, pid=1")
    assert info.value.field == "xids" and "0" in str(info.value)


def test_long_runs_of_letters_and_digits_are_read_in_linear_time():
    for text in ("how many H100 " + "h100" * 4000, "，" * 10000 + "h100" * 2000):
        start = time.perf_counter()
        split_paste(text)
        assert time.perf_counter() - start < 1.0


def test_the_paste_survives_a_dump_and_the_parse_reports_it():
    from bot.models import Requirement

    parsed = parse("is this ok?\n    Remapped Rows\n        Correctable Error                 : 0\n"
                   "        Uncorrectable Error               : 1\n        Pending                           : Yes\n")
    assert "pasted" in parsed.extracted and parsed.summary()["slots"]["pasted"]["blocks"][0]["kind"] == "nvidia-smi-q"
    again = Requirement.model_validate(parsed.requirement.model_dump(include=set(parsed.extracted)))
    assert again.pasted.report.gpus[0].remapped_rows_pending is True
    assert "pasted" not in parse("How much memory for a 7B model?").requirement.model_dump()


def test_an_nvidia_bug_report_snippet_is_read_and_its_framing_left_out():
    text = ("is this GPU dead? from nvidia-bug-report.log:\n____________________________________________\n\n"
            "*** /usr/bin/nvidia-smi --query\n*** ls: -rwxr-xr-x 1 root root 0 2025-01-21 04:41:44.000000000 +0000 "
            "/usr/bin/nvidia-smi\n\n==============NVSMI LOG==============\n\n"
            "Driver Version                            : 535.161.08\nCUDA Version                              : 12.2\n\n"
            "Attached GPUs                             : 1\nGPU 00000000:3B:00.0\n"
            "    Product Name                          : NVIDIA A100-SXM4-80GB\n    Remapped Rows\n"
            "        Uncorrectable Error               : 3\n        Pending                           : No\n"
            "        Remapping Failure Occurred        : Yes\n\n____________________________________________\n\n"
            "*** dmesg\n[  123.456789] NVRM: Xid (PCI:0000:3b:00): 64, pid=2211, name=python, Row remapper error.\n")
    question, paste = split_paste(text)
    assert question == "is this GPU dead? from nvidia-bug-report.log:"
    assert paste.kinds == ["nvidia-smi-q", "kernel-log"] and paste.report.gpus[0].remapped_rows_failure is True
    assert [x.code for x in paste.xids] == [64] and paste.driver == "535.161.08"


def test_one_gpus_block_is_the_gpu_the_question_names_with_the_xid_lines_bus_id():
    text = ("the run on gpu 5 crashed, here is what the box says\n"
            "NVRM: Xid (PCI:0000:9c:00): 94, pid=4242, name=python, Contained: SM (0x1)\n"
            "    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 1\n"
            "        Pending                           : Yes\n        Remapping Failure Occurred        : No\n")
    _, paste = split_paste(text)
    assert paste is not None and paste.report is not None
    gpu = paste.report.gpus[0]
    assert (gpu.index, gpu.bus_id) == (5, "00000000:9C:00.0")


def test_a_block_of_several_gpus_keeps_its_own_indices():
    text = ("gpu 3 looks off\nindex, temperature.gpu, clocks.sm [MHz]\n0, 60, 1980 MHz\n1, 88, 1200 MHz\n")
    _, paste = split_paste(text)
    assert paste is not None and [g.index for g in paste.report.gpus] == [0, 1]


HEADER_ONLY = ("Driver Version                            : 550.54.15\nCUDA Version                              : 12.4\n"
               "...\n    Product Name                          : NVIDIA L40S\n")


def test_a_header_of_versions_alone_is_read_for_its_versions_and_asks_for_compatibility():
    parsed = parse(f"our node says:\n{HEADER_ONLY}\nthanks")
    req = parsed.requirement
    assert (req.driver, req.driver_cuda) == ("550.54.15", "12.4")
    assert req.pasted is not None and [b.problem for b in req.pasted.blocks] == [None]
    assert req.asks[0].kind == "compat"  # nothing to diagnose in versions: whether the stack runs on them


def test_an_excerpt_whose_cut_took_a_sections_parent_is_read_by_the_usual_paths():
    excerpt = ("    Product Name                          : NVIDIA L40S\n...\n        GPU Link Info\n"
               "            PCIe Generation\n                Max                       : 4\n"
               "                Current                   : 2\n            Link Width\n"
               "                Max                       : 16x\n                Current                   : 8x\n")
    _, paste = split_paste(f"slow copies?\n{excerpt}")
    [gpu] = paste.report.gpus
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current, gpu.pcie_width_max) == (2, 4, 8, 16)
