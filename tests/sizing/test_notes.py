"""bot.sizing.notes (issue #27): the deciding assumptions are coded notes whose text comes from
bot/messages/sizing.yaml in English and Chinese, with display names and formatted numbers only."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bot.knowledge import default_catalog
from bot.messages import catalog as messages
from bot.models import Requirement, SizingNote
from bot.sizing.notes import note_text, notes_text
from bot.sizing.sizer import shape_from_arch, size_requirement

CJK = re.compile(r"[\u4e00-\u9fff]")
QUESTIONS = [
    dict(workload="inference", model="deepseek-v3", precision="fp8", gpu="h200-sxm", gpu_count=8, context=32768),
    dict(workload="inference", model="qwen3-235b-a22b", gpu="h100-sxm", gpu_count=8, context=32768, concurrency=8),
    dict(workload="inference", model="llama-3.1-405b", gpu="h100-sxm", gpu_count=16, context=8192),
    dict(workload="inference", model="llama-3.1-70b", gpu="h100-sxm", gpu_count=8),
    dict(workload="training", method="full", model="llama-2-13b", precision="fp16", gpu="v100-sxm2", gpu_count=1,
         offload="optimizer"),
    dict(workload="training", method="pretraining", model="llama-3.1-405b", dataset_tokens_b=15600, gpu="h100-sxm",
         gpu_count=16384, mfu=0.38, context=8192),
    dict(workload="training", method="pretraining", model="deepseek-v3", precision="fp8", dataset_tokens_b=14800,
         gpu="h800-sxm", gpu_count=2048),
    dict(workload="training", method="full", model="llama-2-7b", recompute="none", attention="eager",
         dataset_tokens_b=1, gpu="a100-80gb-sxm"),
    dict(workload="training", method="full", model="llama-2-7b", dataset_tokens_b=1, gpu="a100-80gb-sxm"),
    dict(workload="training", method="pretraining", model="llama-3.1-405b", gpu="h100-sxm", gpu_count=128,
         context=8192),
]


@pytest.fixture(scope="module")
def results():
    catalog = default_catalog()
    out = []
    for fields in QUESTIONS:
        req = Requirement(**fields)
        out.append(size_requirement(req, shape_from_arch(catalog.models[req.model]), catalog, selected={req.gpu},
                                    today=dt.date(2026, 12, 1)))
    return out


def test_every_emitted_code_has_english_and_chinese_text(results):
    emitted = {n.code for r in results for n in r.estimate.notes}
    assert {"memory_measured", "memory_marketing", "kv_mla_replicated", "kv_tp_replicated", "kv_tp_split",
            "pp_decode", "recompute_fallback", "three_d_plan", "offload_plan", "mfu_model_flops", "mfu_default",
            "fp8_training", "gpu_hours_plan", "attention_eager"} <= emitted
    assert {"recompute_none", "recompute_none_default_batch"} & emitted
    for r in results:
        for note in r.estimate.notes:
            en, zh = note_text(note, "en"), note_text(note, "zh")
            assert en and CJK.search(zh), note
            assert not any(gpu in en or gpu in zh for gpu in default_catalog().gpus), note  # display names only


def test_the_catalog_entries_take_the_same_parameters_in_both_languages():
    from bot.messages import parameters
    for key, templates in messages().items():
        if key.startswith("sizing."):
            assert parameters(templates["en"]) == parameters(templates["zh"]), key


def test_a_note_renders_with_its_parameters():
    note = SizingNote(code="kv_tp_replicated", params={"tp": 8, "kv_heads": 4, "divisor": 4, "copies": 2})
    assert note_text(note) == ("KV cache per GPU = total / 4, not / 8: only 4 KV heads for tensor parallel x8, so "
                               "each head is held on 2 GPUs (vLLM and SGLang replicate KV heads past the head count)")
    assert "每个头要在 2 张卡上各存一份" in note_text(note, "zh")
    assert notes_text([note], "zh") == [note_text(note, "zh")]


def test_a_training_estimate_without_a_batch_says_the_micro_batch_it_assumed_in_the_recompute_line():
    """The default micro-batch is stated, not asked: one line with the activations' recompute."""
    catalog = default_catalog()
    plain = size_requirement(Requirement(workload="training", model="llama-2-7b", method="full", gpu="h100-sxm"),
                             shape_from_arch(catalog.models["llama-2-7b"]), catalog, selected={"h100-sxm"},
                             today=dt.date(2026, 12, 1))
    codes = [n.code for n in plain.estimate.notes]
    assert "recompute_full_default_batch" in codes and "recompute_full" not in codes
    en = " ".join(notes_text(plain.estimate.notes, "en"))
    assert "micro-batch of 1 per GPU at 2,048 tokens" in en and "gradient accumulation" in en
    given = size_requirement(Requirement(workload="training", model="llama-2-7b", method="full", gpu="h100-sxm",
                                         batch_size=4), shape_from_arch(catalog.models["llama-2-7b"]), catalog,
                             selected={"h100-sxm"}, today=dt.date(2026, 12, 1))
    assert "recompute_full" in [n.code for n in given.estimate.notes]  # a stated batch is not called a default
