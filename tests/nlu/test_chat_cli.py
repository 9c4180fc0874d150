"""`gpu-advisor chat` and `ask` driven as a user would: subprocesses with stdin and arguments."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from bot.advisor import Advisor
from bot.conversation import Conversations
from bot.cli.chat import run_chat


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def test_chat_holds_a_two_language_conversation_with_a_follow_up():
    script = "想微调一个 7B 模型，租什么 GPU？\nLoRA, two RTX 4090s, bf16\n/reset\nwhich GPU?\nexit\n"
    proc = run_cli("chat", "--json", stdin=script)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    first, second, reset, third = lines
    assert first["language"] == "zh" and first["questions"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in first["questions"][0])
    assert second["language"] == "en"
    req = second["requirement"]
    assert (req["workload"], req["params_b"], req["method"], req["gpu"], req["gpu_count"], req["precision"]) == (
        "training", 7, "lora", "rtx-4090", 2, "bf16")
    assert "reset" in reset
    assert third["requirement"]["params_b"] is None


def test_chat_in_text_mode_reports_errors_and_keeps_going():
    out = io.StringIO()
    stdin = io.StringIO("batch size 0\n两张 3090 跑 7B 推理\n")  # ends at EOF, no exit word
    assert run_chat(Conversations(Advisor()), stdin, out, conversation_id="c1") == 0
    text = out.getvalue()
    assert "error: batch_size" in text
    answer = text.split("\n> ")[2]  # after the banner's prompt and the error's
    assert answer.startswith("可以") and "RTX 3090" in answer.splitlines()[0]  # the answer leads with its verdict


def test_ask_json_carries_the_parse_with_spans():
    question = "fine-tune Llama-3-8B with LoRA on two 4090s in our data centre"
    proc = run_cli("ask", "--json", question)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1
    answer = json.loads(lines[0])
    spans = {s["slot"]: s for s in answer["parse"]["spans"]}
    assert answer["parse"]["language"] == "en"
    assert spans["model"]["text"] == "Llama-3-8B" and spans["model"]["value"] == "llama-3-8b"
    for span in answer["parse"]["spans"]:
        assert question[span["start"]:span["end"]] == span["text"]
    assert answer["requirement"]["deployment"] == "datacenter" and answer["requirement"]["gpu_count"] == 2


def test_ask_flags_override_the_free_text():
    proc = run_cli("ask", "--json", "--gpu", "L40S", "serve a 13B model on a 4090", "precision=int8")
    assert proc.returncode == 0, proc.stderr
    req = json.loads(proc.stdout)["requirement"]
    assert (req["gpu"], req["params_b"], req["precision"], req["workload"]) == ("l40s", 13, "int8", "inference")


def test_ask_refuses_out_of_range_numbers_without_a_traceback():
    proc = run_cli("ask", "--json", "我们要训练一个 500000B 的模型")
    assert proc.returncode == 2
    assert "params_b" in proc.stderr and "500000" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
