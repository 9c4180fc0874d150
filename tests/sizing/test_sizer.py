"""What the sizer decides beyond memory (issue #12): precision support per GPU, the stated GPU count
that cannot hold a job, and the context against the model's maximum."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.engine.fact_kinds import fact_kind
from bot.knowledge import default_catalog
from bot.models import Requirement


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


def size(advisor: Advisor, **fields):
    facts, sizing, _, _ = advisor.facts(advisor.resolve(Requirement(**fields)))
    return facts, sizing


def no_bf16() -> set[str]:
    return {g.id for g in default_catalog().gpus.values() if "bf16" not in g.tensor_precisions}


def test_no_bf16_training_plan_on_gpus_without_bf16(advisor):
    # The catalog itself says V100 and T4 have no BF16 tensor cores (NVIDIA datasheets).
    assert {"v100-sxm2", "t4"} <= no_bf16()
    for precision in (None, "bf16", "pure-bf16"):
        _, sizing = size(advisor, workload="training", method="full", params_b=1, precision=precision)
        assert not {c.gpu for c in sizing.candidates} & no_bf16()
        assert set(sizing.excluded_gpus) == no_bf16()
        assert any(a.startswith("left out: ") and "no bf16 tensor cores" in a for a in sizing.assumptions)
    # Asked for fp16, they are sized again.
    _, fp16 = size(advisor, workload="training", method="full", params_b=1, precision="fp16")
    assert no_bf16() <= {c.gpu for c in fp16.candidates} and not fp16.excluded_gpus


def test_a_named_gpu_without_bf16_is_sized_for_fp16_and_says_so(advisor):
    _, sizing = size(advisor, workload="training", method="lora", params_b=1, gpu="v100-sxm2")
    assert any(c.gpu == "v100-sxm2" for c in sizing.candidates)
    assert any("v100-sxm2 has no bf16: sized for fp16 mixed precision" in a for a in sizing.assumptions)


def test_fp8_on_ampere_is_weight_only_and_said_so(advisor):
    _, sizing = size(advisor, workload="inference", model="llama-3.1-8b", precision="fp8", context=8192)
    gpus = {c.gpu for c in sizing.candidates}
    assert "a100-80gb-sxm" in gpus and "h100-sxm" in gpus
    line = next(a for a in sizing.assumptions if a.startswith("fp8 on "))
    assert "a100-80gb-sxm" in line and "h100-sxm" not in line and "weight-only" in line and "bf16 rate" in line
    assert {"v100-sxm2", "t4"} <= set(sizing.excluded_gpus)  # no fp8 kernels before Ampere
    # fp8 training needs fp8 tensor cores: Ampere is left out, Ada/Hopper stay.
    _, train = size(advisor, workload="training", method="full", model="llama-3.2-1b", precision="fp8")
    assert "a100-80gb-sxm" in train.excluded_gpus and "fp8 tensor cores" in train.excluded_gpus["a100-80gb-sxm"]
    assert "h100-sxm" in {c.gpu for c in train.candidates}


def test_stated_count_that_cannot_hold_the_job_gets_the_smallest_plans_hours(advisor):
    # Issue #12: a 70B full fine-tune on 8 x H100 gave no training time at all.
    _, sizing = size(advisor, workload="training", method="full", model="llama-3.1-70b", gpu="h100-sxm",
                     gpu_count=8, dataset_tokens_b=1)
    (short,) = sizing.stated_shortfalls
    assert (short.gpu, short.stated_count) == ("h100-sxm", 8) and short.stated_need_gb > short.have_gb
    smallest = next(c for c in sizing.candidates if c.gpu == "h100-sxm" and c.smallest_fit)
    assert short.smallest_count == smallest.count > 8 and short.smallest_hours == smallest.hours > 0
    line = next(a for a in sizing.assumptions if "cannot hold this job" in a)
    assert "8 x h100-sxm cannot hold this job" in line and f"{smallest.count} x h100-sxm" in line and " h" in line
    # A stated count that fits says nothing of the kind.
    _, fits = size(advisor, workload="training", method="lora", model="llama-3.1-8b", gpu="h100-sxm",
                   gpu_count=8, dataset_tokens_b=1)
    assert not fits.stated_shortfalls and not any("cannot hold" in a for a in fits.assumptions)


def test_llama3_8b_zero2_on_8_l40s_is_not_called_a_fit(advisor):
    # Issue #12: by DeepSpeed's estimator (4P + 16P/N) ZeRO-2 needs 48.2 GB of model states per GPU for
    # Llama-3-8B on 8 GPUs, over the L40S's 48 GB before any activation: the plan must shard the weights.
    _, sizing = size(advisor, workload="training", method="full", model="llama-3-8b", gpu="l40s", gpu_count=8)
    cand = next(c for c in sizing.candidates if c.gpu == "l40s" and c.count == 8)
    assert 4 * 8.03 + 16 * 8.03 / 8 > 48 and cand.strategy == "zero3"


def test_estimate_fact_carries_the_context_against_the_maximum(advisor):
    facts, _ = size(advisor, workload="inference", model="llama-2-7b", context=32768)
    est = next(f for f in facts if fact_kind(f) == "estimate")
    assert (est.context_tokens, est.max_context, est.context_over_max, est.context_extendable) == (
        32768, 4096, True, False)
    facts, _ = size(advisor, workload="training", method="lora", model="gpt2-xl")
    est = next(f for f in facts if fact_kind(f) == "estimate")
    # GPT-2 XL has 1,024 positions: the default training sequence is cut to it, not 2048.
    assert (est.context_tokens, est.context_over_max) == (1024, False)


def test_serving_on_a_named_gpu_without_bf16_uses_fp16_weights(advisor):
    _, sizing = size(advisor, workload="inference", model="llama-3.2-3b", gpu="t4", context=4096)
    assert any(c.gpu == "t4" and c.fits for c in sizing.candidates)
    assert any("t4 has no bf16: sized for fp16 weights" in a for a in sizing.assumptions)
    # Unnamed, they stay candidates for serving (fp16 weights are routine there) unless bf16 is asked for.
    _, plain = size(advisor, workload="inference", model="llama-3.2-3b", context=4096)
    assert {"t4", "v100-sxm2"} <= {c.gpu for c in plain.candidates} and not plain.excluded_gpus
    _, asked = size(advisor, workload="inference", model="llama-3.2-3b", context=4096, precision="bf16")
    assert set(asked.excluded_gpus) == no_bf16()
