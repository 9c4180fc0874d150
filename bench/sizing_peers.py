"""Side-by-side sizing bench (issue #27): the bot against llm-analysis 0.2.2 and vramcalc 0.1.2, per case,
against a reference that is a published figure, a real nvidia-smi capture, DeepSpeed's estimator, or a
closed-form formula from the paper that defines the quantity (named per case). Prints, per case, each
tool's value and error and who is closest; exits 1 unless the bot is closest or within 5 points of the
closest on every case.

Run: pip install -e '.[sizing-peers]'  (offline: both are on the project's package index)
     python bench/sizing_peers.py [--only NAME]

A peer that is not installed, or cannot express a case (vramcalc has no tensor parallelism, ZeRO,
offload or time model; llm-analysis has no offload, MLA or 8-bit optimizer), shows "-" for it; a peer
missing altogether is said once at the top, and the bench still runs the bot's side.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import io
import json
import logging
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.knowledge import ModelArch, default_catalog, load_gpu_memory
from bot.models import Requirement
from bot.sizing.estimate import SizingInput, estimate_memory
from bot.sizing.memory import activations_parallel_gb, kv_tp_divisor, zero_offload_model_states
from bot.sizing.performance import DEFAULT_BANDWIDTH_EFFICIENCY
from bot.sizing.plans import per_gpu_memory
from bot.sizing.sizer import gpu_slot, shape_from_arch, size_requirement

TOLERANCE = 0.05  # the bot may trail the closest peer by at most 5 points of relative error
TODAY = dt.date(2026, 12, 1)
CATALOG = default_catalog()

try:  # llm-analysis logs through its own logger; keep the bench output to the table
    from llm_analysis import analysis as llm_analysis
    logging.getLogger("llm_analysis").setLevel(logging.ERROR)
except Exception as exc:  # noqa: BLE001 - any import failure means "not available"
    llm_analysis, LLM_ANALYSIS_MISSING = None, f"{type(exc).__name__}: {exc}"
else:
    LLM_ANALYSIS_MISSING = None
try:
    import vramcalc
    from vramcalc import gpus as vram_gpus
    from vramcalc import memory as vram_memory
    from vramcalc.arch import Arch as VramArch
except Exception as exc:  # noqa: BLE001
    vramcalc, VRAMCALC_MISSING = None, f"{type(exc).__name__}: {exc}"
else:
    VRAMCALC_MISSING = None


@dataclass
class Case:
    name: str
    unit: str
    reference: float
    source: str
    bot: Callable[[], float | None]
    llm_analysis: Callable[[], float | None] | None = None
    vramcalc: Callable[[], float | None] | None = None


# -- model configs for the peers ------------------------------------------------------------------

def arch(model_id: str) -> ModelArch:
    return CATALOG.models[model_id]


def hf_config(model_id: str) -> dict:
    m = arch(model_id)
    return {"model_type": "llama", "hidden_size": m.hidden, "num_hidden_layers": m.layers,
            "num_attention_heads": m.heads, "num_key_value_heads": m.kv_heads, "head_dim": m.head_dim,
            "intermediate_size": m.intermediate, "vocab_size": m.vocab, "tie_word_embeddings": m.tie_embeddings,
            "_name_or_path": model_id}


_LLM_DIR = Path(tempfile.mkdtemp(prefix="sizing-peers-"))


def llm_model(model_id: str) -> str:
    """An llm-analysis model config file for a catalog model (its MLP as 4h-equivalent width: the
    tool models a two-matrix MLP, so the gated MLP's 3 x h x i parameters are kept as 2 x h x ffn)."""
    m = arch(model_id)
    ffn = round(3 * m.intermediate / 2 / m.hidden) * m.hidden
    path = _LLM_DIR / f"{model_id}.json"
    path.write_text(json.dumps({"name": model_id, "num_layers": m.layers, "n_head": m.heads, "hidden_dim": m.hidden,
                                "vocab_size": m.vocab, "max_seq_len": m.max_context, "num_key_value_heads": m.kv_heads,
                                "ffn_embed_dim": ffn, "model_type": "llama"}))
    return str(path)


def quiet(fn: Callable[[], dict]) -> dict:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn()


def unbounded(gpu: str) -> str:
    """llm-analysis refuses a job that does not fit its GPU; the bench compares quantities, not verdicts, so
    each case runs on a copy of the GPU config with the same FLOPS and bandwidth and unbounded memory."""
    from llm_analysis import config as la_config

    name = f"{gpu}-unbounded"
    if name not in la_config.gpu_configs:
        base = la_config.gpu_configs[gpu]
        la_config.gpu_configs[name] = dataclasses.replace(base, name=name, mem_per_GPU_in_GB=1e6)
    return name


def la_train(model_id: str, gpu: str, **kw) -> dict:
    base = dict(model_name=llm_model(model_id), gpu_name=unbounded(gpu), dtype_name="w16a16e16", log_level="ERROR",
                batch_size_per_gpu=1, flash_attn=True, hbm_memory_efficiency=0.9)
    return quiet(lambda: llm_analysis.train(**{**base, **kw}))


def la_infer(model_id: str, gpu: str, **kw) -> dict:
    base = dict(model_name=llm_model(model_id), gpu_name=unbounded(gpu), dtype_name="w16a16e16", log_level="ERROR",
                num_tokens_to_generate=1)
    return quiet(lambda: llm_analysis.infer(**{**base, **kw}))


def vc_arch(model_id: str) -> VramArch:
    return VramArch.from_config(hf_config(model_id))


GB = 1e9


# -- the bot's side -------------------------------------------------------------------------------

def bot_size(**fields):
    req = Requirement(**fields)
    return size_requirement(req, shape_from_arch(arch(req.model)), CATALOG, selected={req.gpu} if req.gpu else set(),
                            today=TODAY)


def bot_estimate(model_id: str, workload: str, **kw):
    return estimate_memory(SizingInput(workload, kw.pop("method", "full" if workload == "training" else None),
                                       shape_from_arch(arch(model_id)), **kw))


def stated(result, gpu: str, count: int):
    return next(c for c in result.candidates if c.gpu == gpu and c.count == count)


def layer_activations(est) -> float:
    return est.activations - est.logits


def model_states(est) -> float:
    return est.weights + est.gradients + est.optimizer


# -- cases ----------------------------------------------------------------------------------------

def kv_total(model_id: str, tokens: int, batch: int) -> float:
    m = arch(model_id)
    per_token = (m.kv_lora_rank + m.qk_rope_head_dim) * m.layers if m.kv_lora_rank else 2 * m.layers * m.kv_heads * m.head_dim
    return per_token * 2 * tokens * batch / GB


def cases() -> list[Case]:
    measured = load_gpu_memory()
    p7 = arch("llama-2-7b").params_b * 1e9
    p13 = arch("llama-2-13b").params_b * 1e9
    out: list[Case] = []

    # 1-3: usable memory, against a real capture (total - reserved)
    for gpu, vc_name, la_gpu in (("h100-sxm", "H100 80GB", "h100-sxm-80gb"), ("rtx-4090", "RTX 4090", None),
                                 ("t4", "T4", None)):
        row = measured[gpu]
        out.append(Case(
            f"usable memory {gpu}", "GB", row.usable_bytes / GB, f"nvidia-smi -q capture {row.capture}",
            bot=lambda g=gpu: gpu_slot(CATALOG.gpus[g]).memory_gb,
            llm_analysis=(lambda n=la_gpu: json.loads((Path(llm_analysis.__file__).parent / "gpu_configs" /
                                                       f"{n}.json").read_text())["mem_per_GPU_in_GB"] * 2**30 / GB)
            if la_gpu else None,
            vramcalc=lambda n=vc_name: vram_gpus.lookup(n)[1] * vram_gpus.USABLE_RATIO / GB,
        ))

    # 4: weights in bf16
    out.append(Case(
        "llama-3.1-8b bf16 weights", "GB", arch("llama-3.1-8b").params_b * 2, "config.json parameter count x 2 B",
        bot=lambda: bot_estimate("llama-3.1-8b", "inference", precision="bf16").weights,
        llm_analysis=lambda: la_infer("llama-3.1-8b", "h100-sxm-80gb", seq_len=1024)["weight_memory_per_gpu"] / GB,
        vramcalc=lambda: vram_memory.weights(vc_arch("llama-3.1-8b"), 2) / GB,
    ))

    # 5-8: KV cache per GPU under tensor parallelism (vLLM: heads per rank = max(1, kv_heads // tp))
    for model_id, tp, tokens, batch in (("llama-3.1-8b", 1, 8192, 1), ("llama-3.1-70b", 8, 32768, 8),
                                        ("qwen3-235b-a22b", 8, 32768, 8), ("deepseek-v3", 8, 32768, 4)):
        m = arch(model_id)
        divisor = kv_tp_divisor(tp, m.kv_heads, latent=bool(m.kv_lora_rank))
        out.append(Case(
            f"{model_id} KV per GPU, TP{tp}, {tokens} x {batch}", "GB", kv_total(model_id, tokens, batch) / divisor,
            "vLLM get_num_kv_heads (max(1, kv_heads // TP); MLA cache whole per rank)",
            bot=lambda i=model_id, t=tp, s=tokens, b=batch: stated(bot_size(
                workload="inference", model=i, gpu="h200-sxm", gpu_count=t, context=s, concurrency=b,
                precision="fp8" if i == "deepseek-v3" else "bf16", kv_precision="bf16"), "h200-sxm", t).memory_gb.kv_cache,
            llm_analysis=(lambda i=model_id, t=tp, s=tokens, b=batch: la_infer(
                i, "h100-sxm-80gb", seq_len=s, batch_size_per_gpu=b, tp_size=t)["kv_cache_memory_per_gpu"] / GB)
            if not m.kv_lora_rank and not m.experts else None,
            vramcalc=(lambda i=model_id, s=tokens, b=batch: vram_memory.kv_cache(vc_arch(i), b, s, 2) / GB)
            if tp == 1 else None,
        ))

    # 9-12: training model states
    out.append(Case(
        "llama-2-7b full FT model states, 1 GPU", "GB", 16 * p7 / GB, "ZeRO paper: 2 + 2 + 12 bytes/param",
        bot=lambda: model_states(bot_estimate("llama-2-7b", "training", precision="bf16")),
        llm_analysis=lambda: la_train("llama-2-7b", "a100-sxm-80gb", seq_len=2048, total_num_tokens=1e9,
                                      total_num_gpus=1, ds_zero=0)["(weight+op_state+grad)_memory_per_gpu"] / GB,
        vramcalc=lambda: (lambda e: (e.weights + e.gradients + e.optimizer) / GB)(
            vramcalc.estimate(hf_config("llama-2-7b"), mode="train", seq_len=2048)),
    ))
    out.append(Case(
        "llama-2-7b ZeRO-2 x8 model states per GPU", "GB", (4 * p7 + 16 * p7 / 8) / GB,
        "DeepSpeed estimate_zero2_model_states_mem_needs: 4P + 16P/N",
        bot=lambda: (lambda c: c.memory_gb.weights + c.memory_gb.gradients + c.memory_gb.optimizer)(stated(bot_size(
            workload="training", method="full", model="llama-2-7b", gpu="a100-80gb-sxm", gpu_count=8, zero_stage=2),
            "a100-80gb-sxm", 8)),
        llm_analysis=lambda: la_train("llama-2-7b", "a100-sxm-80gb", seq_len=2048, total_num_tokens=1e9,
                                      total_num_gpus=8, dp_size=8, ds_zero=2)["(weight+op_state+grad)_memory_per_gpu"] / GB,
    ))
    largest13 = max(arch("llama-2-13b").vocab * arch("llama-2-13b").hidden,
                    arch("llama-2-13b").hidden * arch("llama-2-13b").intermediate)
    out.append(Case(
        "llama-2-13b ZeRO-3 x8 model states per GPU", "GB", (4 * largest13 + 18 * p13 / 8) / GB,
        "DeepSpeed estimate_zero3_model_states_mem_needs: 4 x largest layer + 18P/N",
        bot=lambda: (lambda c: c.memory_gb.weights + c.memory_gb.gradients + c.memory_gb.optimizer)(stated(bot_size(
            workload="training", method="full", model="llama-2-13b", gpu="a100-80gb-sxm", gpu_count=8, zero_stage=3),
            "a100-80gb-sxm", 8)),
        llm_analysis=lambda: la_train("llama-2-13b", "a100-sxm-80gb", seq_len=2048, total_num_tokens=1e9,
                                      total_num_gpus=8, dp_size=8, ds_zero=3)["(weight+op_state+grad)_memory_per_gpu"] / GB,
    ))
    out.append(Case(
        "llama-2-13b ZeRO-Offload on one V100 32GB, GPU model states", "GB",
        zero_offload_model_states(p13, 1, stage=2)[0] / GB, "DeepSpeed estimate_zero2(cpu_offload=True): 2P",
        bot=lambda: stated(bot_size(workload="training", method="full", model="llama-2-13b", precision="fp16",
                                    gpu="v100-sxm2", gpu_count=1, offload="optimizer"), "v100-sxm2", 1).memory_gb.weights,
    ))
    out.append(Case(
        "llama-2-7b pure bf16 model states", "GB", 8 * p7 / GB, "2 + 2 + 4 bytes/param (bf16 moments, no master)",
        bot=lambda: model_states(bot_estimate("llama-2-7b", "training", precision="pure-bf16")),
        llm_analysis=lambda: la_train("llama-2-7b", "a100-sxm-80gb", seq_len=2048, total_num_tokens=1e9,
                                      total_num_gpus=1, master_weights_dtype_bytes=0)["(weight+op_state+grad)_memory_per_gpu"] / GB,
        vramcalc=lambda: (lambda e: (e.weights + e.gradients + e.optimizer) / GB)(
            vramcalc.estimate(hf_config("llama-2-7b"), mode="train", seq_len=2048, precision="pure")),
    ))
    out.append(Case(
        "llama-2-7b 8-bit AdamW model states", "GB", (2 + 2 + 4 + 2) * p7 / GB,
        "bitsandbytes 8-bit AdamW: 2 B of state + fp32 master 4 (Dettmers et al. 2021)",
        bot=lambda: model_states(bot_estimate("llama-2-7b", "training", precision="bf16", optimizer="adam8bit")),
    ))

    # 15-18: activations (transformer layers only; logits are compared nowhere)
    s, h, a, layers = 2048, 4096, 32, 32
    for recompute, attention, ref, what in (
        ("none", "flash", 34 * s * h * layers, "34*s*b*h*L, FlashAttention (no s x s scores)"),
        ("none", "eager", s * h * (34 + 5 * a * s / h) * layers, "s*b*h*(34 + 5as/h)*L, eager attention"),
        ("full", "flash", 2 * s * h * layers + 34 * s * h, "2*s*b*h*L + one layer's 34*s*b*h"),
    ):
        out.append(Case(
            f"llama-2-7b activations s=2048 b=1, recompute {recompute}, {attention}", "GB", ref / GB,
            f"Korthikanti et al. 2022: {what}",
            bot=lambda r=recompute, at=attention: layer_activations(bot_estimate(
                "llama-2-7b", "training", precision="bf16", recompute=r, attention=at, context=2048, batch_size=1)),
            llm_analysis=lambda r=recompute, at=attention: (lambda d: (d["activation_memory_attn_per_gpu"]
                                                                       + d["activation_memory_mlp_per_gpu"]
                                                                       + d["activation_memory_layernorm_per_gpu"]) / GB)(
                la_train("llama-2-7b", "a100-sxm-80gb", seq_len=2048, total_num_tokens=1e9, total_num_gpus=1,
                         activation_recomputation=2 if r == "full" else 0, flash_attn=at == "flash"))
            if recompute == "none" else None,
            vramcalc=lambda r=recompute, at=attention: (
                layers * vram_memory.per_layer_act(vc_arch("llama-2-7b"), 1, 2048, "sdpa" if at == "flash" else at, 2) * 2
                if r == "none" else (layers * 2048 * h * 2 + vram_memory.per_layer_act(vc_arch("llama-2-7b"), 1, 2048,
                                                                                       "sdpa", 2) * 2)) / GB,
        ))
    S405, H405, L405 = 8192, 16384, 126
    out.append(Case(
        "llama-3.1-405b activations per GPU, TP8 x PP16, s=8192, selective", "GB", 34 * S405 * H405 * L405 / 8 / GB,
        "Korthikanti et al. 2022, 4.2.3: 34*s*b*h*L/t on the first 1F1B stage",
        bot=lambda: per_gpu_memory(bot_estimate("llama-3.1-405b", "training", method="pretraining", precision="bf16",
                                                recompute="selective", context=8192, batch_size=1),
                                   "training", "3d", 16384, 8, 16)["activations"]
        - bot_estimate("llama-3.1-405b", "training", method="pretraining", context=8192, batch_size=1).logits / 8,
        llm_analysis=lambda: (lambda d: (d["activation_memory_attn_per_gpu"] + d["activation_memory_mlp_per_gpu"]
                                         + d["activation_memory_layernorm_per_gpu"]) / GB)(
            la_train("llama-3.1-405b", "h100-sxm-80gb", seq_len=8192, total_num_tokens=1e9, total_num_gpus=16384,
                     tp_size=8, pp_size=16, dp_size=128, activation_recomputation=1)),
    ))

    # 20-25: time
    def gpu_hours_case(name, ref, source, model_id, gpu, la_gpu, count, tokens_b, mfu, method="pretraining",
                       precision="bf16", context=None):
        def bot():
            r = bot_size(workload="training", method=method, model=model_id, gpu=gpu, gpu_count=count,
                         dataset_tokens_b=tokens_b, mfu=mfu, precision=precision, context=context)
            return stated(r, gpu, count).gpu_hours
        def peer():
            m = arch(model_id)
            kw = dict(seq_len=context or 4096, total_num_tokens=tokens_b * 1e9, total_num_gpus=count,
                      flops_efficiency=mfu, activation_recomputation=1)
            if count >= 8 and m.params_b > 20:
                kw.update(tp_size=8, dp_size=count // 8)
            else:
                kw.update(dp_size=count, ds_zero=3)
            return la_train(model_id, la_gpu, **kw)["gpu_hours"]
        out.append(Case(name, "GPU-h", ref, source, bot=bot, llm_analysis=peer if la_gpu else None))

    gpu_hours_case("llama-2-7b pretraining, 2T tokens", 184_320, "Llama 2 paper, Table 2: 184,320 A100-80GB hours",
                   "llama-2-7b", "a100-80gb-sxm", "a100-sxm-80gb", 2048, 2000, 0.4)
    gpu_hours_case("llama-2-13b pretraining, 2T tokens", 368_640, "Llama 2 paper, Table 2: 368,640 A100-80GB hours",
                   "llama-2-13b", "a100-80gb-sxm", "a100-sxm-80gb", 2048, 2000, 0.4)
    gpu_hours_case("llama-2-70b pretraining, 2T tokens", 1_720_320, "Llama 2 paper, Table 2: 1,720,320 A100-80GB hours",
                   "llama-2-70b", "a100-80gb-sxm", "a100-sxm-80gb", 2048, 2000, 0.4)
    gpu_hours_case("llama-3.1-405b pretraining, 15.6T tokens, MFU 0.38", 30.84e6,
                   "Llama 3.1 model card: 30.84M H100-80GB hours (Llama 3 paper: 38-43% MFU)",
                   "llama-3.1-405b", "h100-sxm", "h100-sxm-80gb", 16384, 15600, 0.38, context=8192)
    gpu_hours_case("deepseek-v3 FP8 pretraining, 14.8T tokens", 2.664e6,
                   "DeepSeek-V3 report: 2.664M H800 GPU-hours", "deepseek-v3", "h800-sxm", None, 2048, 14800, 0.4,
                   precision="fp8")
    n70 = arch("llama-3.1-70b").params_b * 1e9
    out.append(Case(
        "llama-3.1-70b, 100B tokens on 64 H100 at 40% MFU (wall-clock)", "h",
        6 * n70 * 100e9 / (64 * 989e12 * 0.4) / 3600, "6*N*D / (GPUs x peak x MFU): MFU counts model FLOPs",
        bot=lambda: stated(bot_size(workload="training", method="full", model="llama-3.1-70b", gpu="h100-sxm",
                                    gpu_count=64, dataset_tokens_b=100, mfu=0.4), "h100-sxm", 64).hours,
        llm_analysis=lambda: la_train("llama-3.1-70b", "h100-sxm-80gb", seq_len=4096, total_num_tokens=100e9,
                                      total_num_gpus=64, tp_size=8, dp_size=8, flops_efficiency=0.4,
                                      activation_recomputation=2)["total_training_latency"] / 3600,
    ))
    # 26-27: decode time per token (bandwidth bound, one stage's TP at a time)
    for model_id, count in (("llama-3.1-70b", 8), ("llama-3.1-405b", 16)):
        tp, pp = (count, 1) if count <= 8 else (8, count // 8)
        m = arch(model_id)
        weights = m.params_b * 1e9 * 2
        kv = kv_total(model_id, 4096, 1) * GB
        ref = (weights / tp + kv / min(tp, m.kv_heads)) / (3350e9 * DEFAULT_BANDWIDTH_EFFICIENCY) * 1000
        out.append(Case(
            f"{model_id} decode TPOT, TP{tp} x PP{pp}, 4K context", "ms", ref,
            "bytes read per step / (TP x HBM bandwidth x 0.7): the stages run in turn",
            bot=lambda i=model_id, c=count: stated(bot_size(workload="inference", model=i, gpu="h100-sxm", gpu_count=c,
                                                            context=4096, concurrency=1), "h100-sxm", c).tpot_ms,
            llm_analysis=lambda i=model_id, t=tp, p=pp: la_infer(
                i, "h100-sxm-80gb", seq_len=4096, tp_size=t, pp_size=p, num_tokens_to_generate=2,
                hbm_memory_efficiency=DEFAULT_BANDWIDTH_EFFICIENCY)["decode_latency"] * 1000,
        ))
    return out


# -- running --------------------------------------------------------------------------------------

def run(fn: Callable[[], float | None] | None, available: bool) -> tuple[float | None, str | None]:
    if fn is None or not available:
        return None, None
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - a peer that cannot run a case is reported, not fatal
        return None, f"{type(exc).__name__}: {str(exc)[:80]}"
    return (float(value), None) if value is not None and math.isfinite(value) else (None, None)


def error(value: float | None, ref: float) -> float | None:
    return None if value is None else abs(value - ref) / abs(ref)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the cases whose name contains this text")
    args = parser.parse_args(argv)
    if LLM_ANALYSIS_MISSING:
        print(f"llm-analysis not available ({LLM_ANALYSIS_MISSING}): its column is skipped; "
              "install with pip install -e '.[sizing-peers]'")
    if VRAMCALC_MISSING:
        print(f"vramcalc not available ({VRAMCALC_MISSING}): its column is skipped")
    selected = [c for c in cases() if not args.only or args.only in c.name]
    failures, notes = [], []
    print(f"{'case':<66} {'unit':>5} {'reference':>12} {'bot':>18} {'llm-analysis':>18} {'vramcalc':>18}  closest")
    for case in selected:
        results = {
            "bot": run(case.bot, True),
            "llm-analysis": run(case.llm_analysis, llm_analysis is not None),
            "vramcalc": run(case.vramcalc, vramcalc is not None),
        }
        errors = {who: error(v, case.reference) for who, (v, _) in results.items()}
        known = {who: e for who, e in errors.items() if e is not None}
        closest = min(known, key=known.get) if known else "-"
        cells = []
        for who in ("bot", "llm-analysis", "vramcalc"):
            v, why = results[who]
            cells.append("-" if v is None else f"{v:,.3g} ({errors[who]:+.0%})".replace("+", ""))
            if why:
                notes.append(f"{case.name}: {who}: {why}")
        ok = errors["bot"] is not None and errors["bot"] <= min(known.values()) + TOLERANCE
        if not ok:
            failures.append(case.name)
        print(f"{case.name:<66} {case.unit:>5} {case.reference:>12,.4g} {cells[0]:>18} {cells[1]:>18} {cells[2]:>18}"
              f"  {closest}{'' if ok else '  <- bot not within 5 points'}")
    print()
    for case in selected:
        print(f"  reference, {case.name}: {case.source}")
    for note in notes:
        print(f"  not run: {note}")
    print(f"\n{len(selected) - len(failures)}/{len(selected)} cases: the bot is closest or within "
          f"{TOLERANCE:.0%} of the closest")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
