"""The model catalog (issue #12): current models from their config.json, aliases, unknown names,
maximum context, and a bare size sized with a reference shape."""

from __future__ import annotations

import pytest

from bot.knowledge import UnknownNameError, default_catalog
from bot.nlu.parser import parse
from bot.sizing.estimate import SizingInput, estimate_memory
from bot.sizing.sizer import REFERENCE_MODELS, reference_shape, shape_from_arch

ISSUE_MODELS = [
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.3-70b",
    "qwen2-7b", "qwen2-72b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b",
    "qwen2.5-32b", "qwen2.5-72b", "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b",
    "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3", "deepseek-r1", "mistral-nemo-12b", "mistral-small-24b",
    "gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b", "phi-3-mini-4k", "phi-3-medium-4k", "phi-4",
]


def counted_params_b(m) -> float:
    """Parameters from the config.json shape: embeddings, attention, gated MLP (norms are negligible)."""
    attention = m.hidden * m.heads * m.head_dim * 2 + m.hidden * m.kv_heads * m.head_dim * 2
    mlp = 3 * m.hidden * m.intermediate
    return (m.layers * (attention + mlp) + m.vocab * m.hidden * (1 if m.tie_embeddings else 2)) / 1e9


def test_every_model_the_issue_names_is_in_the_catalog_with_a_source():
    catalog = default_catalog()
    for model_id in ISSUE_MODELS:
        model = catalog.models[model_id]
        assert model.sources and all(s in catalog.sources for s in model.sources)
        assert model.max_context > 0


@pytest.mark.parametrize("model_id", ISSUE_MODELS)
def test_shapes_add_up_to_the_published_parameter_count(model_id):
    # A typo in a config.json field shows up as a parameter count that no longer matches the model card:
    # DeepSeek-V3 671B total / 37B activated (README_WEIGHTS), Qwen3-30B-A3B 30.5B / 3.3B, and so on.
    model = default_catalog().models[model_id]
    assert model.counted_params_b == pytest.approx(model.params_b, rel=0.01)
    if model.active_params_b:
        assert model.counted_active_params_b == pytest.approx(model.active_params_b, rel=0.02)


def test_mixture_of_experts_entries_carry_routing():
    catalog = default_catalog()
    for model_id, experts, k in [("qwen3-30b-a3b", 128, 8), ("qwen3-235b-a22b", 128, 8), ("deepseek-v3", 256, 8),
                                 ("mixtral-8x7b", 8, 2)]:
        model = catalog.models[model_id]
        assert (model.experts, model.experts_per_token) == (experts, k)
        assert model.active_params_b < model.params_b


@pytest.mark.parametrize(("name", "model_id"), [
    ("Qwen2-7B", "qwen2-7b"), ("llama3.1 70b", "llama-3.1-70b"), ("DeepSeek R1", "deepseek-r1"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"), ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"),
    ("Mistral Nemo", "mistral-nemo-12b"), ("gemma-3-27b-it", "gemma-3-27b"), ("Phi-4", "phi-4"),
])
def test_aliases_resolve(name, model_id):
    assert default_catalog().resolve_model(name).id == model_id


@pytest.mark.parametrize(("question", "model_id"), [
    ("serve Qwen2-7B on one L4", "qwen2-7b"),
    ("llama3.1 70b inference at 32k context", "llama-3.1-70b"),
    ("how many H200 for DeepSeek R1", "deepseek-r1"),
    ("fine-tune Qwen2.5-0.5B with LoRA", "qwen2.5-0.5b"),
])
def test_questions_name_the_new_models(question, model_id):
    assert parse(question).requirement.model == model_id


def test_an_unknown_model_name_is_said_plainly():
    with pytest.raises(UnknownNameError, match="unknown model 'Falcon-40B'"):
        default_catalog().resolve_model("Falcon-40B")


def test_a_bare_size_uses_a_scaled_llama_reference_and_says_so():
    catalog = default_catalog()
    eight = reference_shape(catalog, 8.03)
    llama = catalog.models["llama-3.1-8b"]
    assert (eight.layers, eight.hidden, eight.kv_heads, eight.vocab) == (llama.layers, llama.hidden, 8, llama.vocab)
    assert eight.intermediate == pytest.approx(llama.intermediate, rel=0.02)
    for size in (0.5, 3, 7, 13, 34, 70, 180, 400):
        shape = reference_shape(catalog, size)
        assert shape.complete and shape.heads % shape.kv_heads == 0
        ref = catalog.models[next(i for i in REFERENCE_MODELS if catalog.models[i].name == shape.reference)]
        assert shape.vocab == ref.vocab
        approx = counted_params_b(shape)
        assert approx == pytest.approx(size, rel=0.06), size
    seven = reference_shape(catalog, 7)
    est = estimate_memory(SizingInput("inference", None, seven))
    line = next(a for a in est.assumptions if "no model named" in a)
    assert "generic 7B" in line and "Llama-3.1-8B" in line and "128256" in line
    assert "BLOOM" not in " ".join(est.assumptions) and "250880" not in " ".join(est.assumptions)


def test_llama31_context_comes_from_its_rope_scaling_and_llama3_points_to_it():
    catalog = default_catalog()
    assert catalog.models["llama-3.1-8b"].max_context == 131072
    assert catalog.models["llama-3-8b"].max_context == 8192
    assert catalog.models["llama-3-8b"].long_context_variant == "llama-3.1-8b"
    qwen = shape_from_arch(catalog.models["qwen2.5-72b"])
    assert (qwen.max_context, qwen.extension_max_context) == (32768, 131072) and "YaRN" in qwen.extension_method
