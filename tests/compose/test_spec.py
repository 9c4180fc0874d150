"""The spec composer (bot/compose/spec.py, issue #24): "how much memory / bandwidth / NVLink does X
have?" leads with the figure from the GPU's own entry, says "reported" where NVIDIA publishes no
datasheet, and names what a buyer must know (modified board, China-market part). EN and ZH."""

from __future__ import annotations

import re

import pytest

from bot.compose import ComposeContext
from bot.compose.spec import asked_figure, compose
from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
from bot.models import Answer, Ask, Requirement

# The cards of issue #24: each must answer a spec question from its own entry.
RENTED = ["a800-80gb-sxm", "a800-80gb-pcie", "a800-40gb-pcie", "a800-40gb-sxm", "h800-sxm", "h800-pcie",
          "h20-96gb", "h20-141gb", "l20", "l40", "rtx-4090d", "rtx-6000-ada", "rtx-a6000", "a40", "a30",
          "gh200-96gb", "gh200-144gb", "rtx-pro-6000", "rtx-4090-48gb", "rtx-4090d-48gb"]
_RAW_ID = re.compile(r"\b[a-z0-9]+-[a-z0-9]+(?:-[a-z0-9]+)*\b")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


def ask(catalog, text: str, subjects: list[str], language: str = "en"):
    req = Requirement()
    ctx = ComposeContext(requirement=req, answer=Answer(requirement=req), catalog=catalog, language=language)
    return compose(Ask(kind="spec", text=text, subjects=subjects), ctx)


def test_the_asked_figure_leads_and_reported_is_said(catalog):
    reply = ask(catalog, "how much memory does the H20 have?", ["h20-96gb"])
    assert reply.kind == "spec" and reply.lead == "H20 96GB: Memory 96 GB (reported)."
    assert reply.figures == {"gpu": "h20-96gb", "confidence": "reported", "figure": "memory_gb", "value": 96.0,
                             "reported": "yes"}
    assert any("NVIDIA publishes no datasheet" in d for d in reply.details)
    assert any("China-market" in d for d in reply.details)
    assert set(reply.sources) == set(catalog.gpus["h20-96gb"].sources)
    zh = ask(catalog, "H20 显存多大", ["h20-96gb"], "zh")
    assert zh.lead == "H20 96GB 的显存：96 GB（据报道）。"


def test_a_datasheet_figure_is_not_marked_reported(catalog):
    reply = ask(catalog, "L40 memory bandwidth?", ["l40"])
    assert reply.lead == "L40: Memory bandwidth 864 GB/s."
    assert reply.figures["reported"] == "no"


def test_nvlink_of_a_family_lists_each_variant(catalog):
    reply = ask(catalog, "A800 的 NVLink 带宽多少？", ["a800"], "zh")
    assert reply.lead == "A800 SXM4 80GB 的NVLink 带宽：400 GB/s（据报道）。"
    assert any(d.startswith("A800 80GB PCIe：400 GB/s") for d in reply.details)
    assert ask(catalog, "does the L20 have NVLink", ["l20"]).lead == "L20: NVLink none (PCIe only) (reported)." or \
        ask(catalog, "does the L20 have NVLink", ["l20"]).lead == "L20: NVLink none (PCIe only)."


def test_a_disputed_figure_says_so(catalog):
    reply = ask(catalog, "H200 NVL bandwidth", ["h200-nvl"])
    assert reply.lead == "H200 NVL: Memory bandwidth 4,200 GB/s (reported)."
    assert "Memory bandwidth of the H200 NVL: disputed between sources." in reply.details


def test_the_modified_4090_is_said_to_be_no_nvidia_product(catalog):
    for language, words in (("en", "not an NVIDIA product"), ("zh", "不是 NVIDIA 产品")):
        reply = ask(catalog, "4090 48G specs", ["rtx-4090-48gb"], language)
        assert "48 GB" in reply.lead
        assert any(words in d for d in reply.details), language


def test_which_figure_is_asked():
    assert asked_figure("How much VRAM?") == "memory_gb"
    assert asked_figure("H20 带宽") == "bandwidth_gbs"
    assert asked_figure("NVLink speed") == "nvlink_gbs"
    assert asked_figure("FP8 TFLOPS") == "fp8"
    assert asked_figure("算力多少") == "bf16"
    assert asked_figure("TDP?") == "board_power_w"
    assert asked_figure("tell me about it") is None


@pytest.mark.parametrize("gpu", RENTED)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_rented_card_answers_a_spec_question_from_its_entry(catalog, gpu, language):
    spec = catalog.gpus[gpu]
    summary = ask(catalog, "specs?", [gpu], language)
    assert summary is not None and f"{spec.memory_gb:g} GB" in summary.lead
    assert "no spec" not in summary.lead.lower() and "规格数据" not in summary.lead
    assert not [w for w in _RAW_ID.findall(summary.lead) if w in catalog.gpus], summary.lead  # display names only
    memory = ask(catalog, "memory?" if language == "en" else "显存多少", [gpu], language)
    reported = spec.figure_is_reported("memory_gb")
    assert (("(reported)" in memory.lead) or ("（据报道）" in memory.lead)) is reported


def test_two_gpus_named_go_side_by_side(catalog):
    reply = ask(catalog, "H800 vs H20 memory", ["h800", "h20"])
    assert reply is not None and "H800" in reply.lead or "H20" in reply.lead
    assert reply.figures["h20-96gb.memory_gb"] == 96


def test_nothing_to_say_without_a_gpu(catalog):
    assert ask(catalog, "how much memory?", []) is None
    assert ask(catalog, "how much memory?", ["llama-3-8b"]) is None


def test_an_instance_the_provider_does_not_name_the_gpu_of_says_so(catalog):
    reply = ask(catalog, "ecs.gn8v-8x.48xlarge 显存多少", ["ecs.gn8v-8x.48xlarge"], "zh")
    assert reply.lead == "H20 96GB 的显存：96 GB（据报道）。"
    assert any(d.startswith("ecs.gn8v-8x.48xlarge：8 张 GPU；云厂商页面没有写明型号") for d in reply.details)
    named = ask(catalog, "g6.12xlarge memory", ["g6.12xlarge"])
    assert named.lead == "L4: Memory 24 GB." and "g6.12xlarge: 4 × L4." in named.details


def test_network_bandwidth_is_no_gpu_figure(catalog):
    assert ask(catalog, "两台 4090 服务器之间的网络带宽多少合适？", ["rtx-4090"], "zh") is None
    assert ask(catalog, "what network bandwidth between the nodes do we need for 8x L40S?", ["l40s"]) is None
    assert ask(catalog, "L40S 带宽多少", ["l40s"], "zh").lead.startswith("L40S 的显存带宽")
