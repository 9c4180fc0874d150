"""The `gpu-advisor ask` contract (issue #2): exit codes, errors, and the --json shape."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CONTRACT_REQUIREMENT = {
    "workload", "method", "model", "params_b", "precision", "optimizer", "batch_size", "context",
    "concurrency", "gpu", "gpu_count", "provider", "billing", "deployment", "cuda", "driver", "psu_watts",
}
CONTRACT_MEMORY = {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=60)


def test_ask_json_follows_the_contract():
    proc = run_cli("ask", "--json", "--workload", "training", "--params", "7", "--gpu", "RTX 4090",
                   "--deployment", "datacenter")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, "--json prints exactly one JSON object"
    answer = json.loads(lines[0])
    assert set(answer) >= {"requirement", "estimate", "candidates", "costs", "findings", "questions"}
    assert set(answer["requirement"]) >= CONTRACT_REQUIREMENT
    assert answer["requirement"]["gpu"] == "rtx-4090"
    assert answer["requirement"]["params_b"] == 7
    assert set(answer["estimate"]["memory_gb"]) >= CONTRACT_MEMORY
    assert answer["estimate"]["memory_gb"]["weights"] == pytest.approx(13.04, abs=0.01)  # 7B x 2 bytes = 14e9 bytes = 13.04 GB (GiB)
    assert isinstance(answer["estimate"]["assumptions"], list) and answer["estimate"]["assumptions"]
    for candidate in answer["candidates"]:
        assert set(candidate) >= {"gpu", "count", "fits", "need_gb", "have_gb", "headroom_gb"}
    licence = [f for f in answer["findings"] if f["rule"] == "license.geforce-datacenter"]
    assert licence and licence[0]["severity"] == "block" and licence[0]["topic"] == "license"
    assert licence[0]["sources"] and licence[0]["because"]


def test_ask_key_value_words_and_costs():
    proc = run_cli("ask", "--json", "cost=A:1.20:80", "cost=B:2.40:35")
    assert proc.returncode == 0, proc.stderr
    costs = {c["label"]: c for c in json.loads(proc.stdout)["costs"]}
    assert costs["A"]["total"] == pytest.approx(96.0) and costs["B"]["total"] == pytest.approx(84.0)


@pytest.mark.parametrize("args,field,hint", [
    (["--gpu", "RTX 9090"], "gpu", "rtx-5090"),
    (["--model", "llama-9-7b"], "model", "llama"),
    (["--params", "0"], "params_b", "greater than 0"),
    (["--params", "-3"], "params_b", "greater than 0"),
    (["--params", "200000"], "params_b", "100000"),
    (["--batch", "0"], "batch_size", "greater than 0"),
    (["--cuda", "twelve"], "cuda", "12.4"),
    (["--cuda", "99.9"], "cuda", "13.x"),
    (["--driver", "9999"], "driver", "535.104.05"),
])
def test_bad_input_exits_2_naming_the_field(args, field, hint):
    proc = run_cli("ask", *args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert field in proc.stderr and hint in proc.stderr


def test_text_output_names_rule_and_source():
    proc = run_cli("ask", "gpu=4090", "deployment=datacenter")
    assert proc.returncode == 0, proc.stderr
    assert "GeForce" in proc.stdout and "license.geforce-datacenter" not in proc.stdout  # no rule ids in brief
    full = run_cli("ask", "--full", "gpu=4090", "deployment=datacenter")
    assert full.returncode == 0, full.stderr
    assert "license.geforce-datacenter" in full.stdout and "geforce-eula" in full.stdout  # --full: its sources


def test_ask_without_a_question_says_how_to_ask():
    proc = run_cli("ask")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "ask needs a question" in proc.stderr


def test_unwritable_chart_path_is_a_clear_error(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    target = tmp_path / "a-file" / "chart.png"
    proc = run_cli("ask", "--params", "7", "--workload", "training", "--chart", str(target))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--chart" in proc.stderr and str(target) in proc.stderr


def test_broken_knowledge_is_reported_without_a_traceback(tmp_path, monkeypatch):
    prices = tmp_path / "prices.yaml"
    prices.write_text("prices:\n  - {gpu: rtx-4090, provider: vast, hourly_rate: -1, quoted_on: 2026-01-01}\n")
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "ask", "--params", "7"], capture_output=True, text=True,
                          timeout=60, env={**__import__("os").environ, "GPU_ADVISOR_PRICES": str(prices)})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "knowledge base does not load" in proc.stderr and "hourly_rate" in proc.stderr


# -- the command hub (issue #13.4): subcommands load lazily, errors are one tree ------------------

# What `ask` must not load: servers, storage, plotting, Slack, and the adapter packages.
HEAVY_FOR_ASK = ("fastapi", "starlette", "uvicorn", "sqlalchemy", "psycopg", "slack_bolt", "slack_sdk",
                 "matplotlib", "aiohttp", "websockets", "prometheus_client", "httpx",
                 "bot.store", "bot.slack", "bot.agent", "bot.dispatch", "bot.ops")

_ASK_AND_LIST_MODULES = """
import contextlib, io, json, sys
from bot.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "answer": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def test_ask_loads_no_server_storage_or_plotting_stack():
    proc = subprocess.run([sys.executable, "-c", _ASK_AND_LIST_MODULES, "ask", "--json", "gpu=4090", "params=7"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["code"] == 0 and json.loads(result["answer"])["requirement"]["gpu"] == "rtx-4090"
    loaded = [m for m in result["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY_FOR_ASK)]
    assert loaded == [], f"`ask` imported {loaded}"
    other_commands = [m for m in result["modules"] if m.startswith("bot.cli.") and m != "bot.cli.ask"]
    assert other_commands == [], f"`ask` imported other subcommands: {other_commands}"


def test_every_subcommand_is_listed_and_parses_without_loading_the_others():
    from bot.cli import COMMANDS, build_parser

    full = build_parser()
    for name in COMMANDS:
        assert name in full.format_help()
    args = build_parser(only="ask").parse_args(["ask", "--gpu", "4090"])
    assert args.command == "ask" and args.req_gpu == "4090"
    with pytest.raises(SystemExit):  # only `ask` was configured: `db`'s arguments are unknown
        build_parser(only="ask").parse_args(["db", "status"])


def test_an_unknown_subcommand_is_a_usage_error():
    proc = run_cli("nosuchcommand")
    assert proc.returncode == 2 and "invalid choice: 'nosuchcommand'" in proc.stderr


def test_input_errors_name_their_field_and_print_one_line():
    from bot.cli.ask import _parse_cost
    from bot.errors import InputError

    with pytest.raises(InputError) as caught:
        _parse_cost("A:cheap:80")
    assert caught.value.field == "cost" and str(caught.value) == "cost: rate and hours must be numbers in 'A:cheap:80'"
    proc = run_cli("ask", "cost=A:cheap:80")
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0
    assert proc.stderr.strip() == "gpu-advisor: error: cost: rate and hours must be numbers in 'A:cheap:80'"


def test_the_error_kinds_share_one_tree():
    from bot.engine.rulebase import RuleBaseError
    from bot.errors import ConfigError, GpuAdvisorError, InputError, ServiceError
    from bot.knowledge import KnowledgeError
    from bot.nlu import ParseError
    from bot.yamlio import YamlError

    assert issubclass(ParseError, InputError)
    assert all(issubclass(kind, ConfigError) for kind in (KnowledgeError, RuleBaseError, YamlError))
    assert all(issubclass(kind, GpuAdvisorError) for kind in (InputError, ConfigError, ServiceError))
    assert InputError(None, "just the message").field is None and str(InputError(None, "m")) == "m"


def test_ask_json_leads_with_a_verdict_ranked_recommendations_and_tiered_findings():
    proc = run_cli("ask", "--json", "Can I fully fine-tune a 7B model on one RTX 4090?")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    verdict = answer["verdict"]
    assert set(verdict) >= {"answer", "text", "rule", "because"}
    assert verdict["answer"] == "no" and verdict["rule"] == "verdict.does-not-fit" and verdict["because"]
    recommendations = answer["recommendations"]
    assert 1 <= len(recommendations) <= 5
    keys = {"rank", "gpu", "count", "method", "precision", "plan", "fits", "need_gb", "have_gb", "headroom_pct",
            "hours", "cost", "currency", "why", "rule"}
    for index, rec in enumerate(recommendations, start=1):
        assert set(rec) >= keys and rec["rank"] == index
    # full fine-tuning was asked: the full setups that fit come first, LoRA on the named card after them
    assert recommendations[0]["method"] is None and recommendations[0]["fits"] is True  # None: the job as asked
    assert any(rec["method"] == "lora" and rec["gpu"] == "rtx-4090" and rec["count"] == 1 for rec in recommendations)
    assert {f["tier"] for f in answer["findings"]} == {"key", "more"}
    assert len(answer["questions"]) <= 3


def test_ask_text_is_brief_by_default_and_complete_with_full():
    question = "Can I fully fine-tune a 7B model on one RTX 4090?"
    brief = run_cli("ask", question)
    full = run_cli("ask", "--full", question)
    assert brief.returncode == full.returncode == 0
    lines = brief.stdout.splitlines()
    assert lines[0].startswith("No — ") and "[verdict." not in brief.stdout  # rule ids: --full, --json, Why?
    # the verdict's details (the smallest card that holds it, offload) come before the ranked options
    options = lines.index("What to do:")
    assert all(line.startswith("  ") for line in lines[1:options])
    assert "LoRA (≈" in lines[0]  # the lead says what does fit on the named card
    assert lines[options + 1].startswith("  1. ") and "ZeRO-3 / FSDP" in lines[options + 1]
    # LoRA, which the lead names with its memory, is not listed again under the options
    assert not any("LoRA @ 1× RTX 4090" in line for line in lines[options + 1:])
    assert "verdict.does-not-fit" in full.stdout
    assert len(lines) <= 20
    assert "Memory estimate (GB):" not in brief.stdout and "Memory estimate (GB):" in full.stdout
    assert "sources:" in full.stdout and full.stdout.count("\n") > brief.stdout.count("\n")


def test_ask_answers_chinese_in_chinese():
    proc = run_cli("ask", "用一张 4090 能全参微调 7B 模型吗？")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("不行——") and "建议：" in lines[1:6]
    assert "What to do" not in proc.stdout and "Watch out" not in proc.stdout
