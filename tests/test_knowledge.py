"""Behavioural tests for the knowledge catalog: the real files load, names resolve, facts hold,
and a broken file fails loudly with the file, entry and field named."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pytest

from bot.knowledge import (
    DEFAULT_KNOWLEDGE_DIR,
    KnowledgeError,
    UnknownNameError,
    _norm,
    load_catalog,
    version_number,
)

REQUIRED_GPUS = {
    "rtx-3090", "rtx-4090", "rtx-5090", "l4", "l40s",
    "a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm",
    "h100-pcie", "h100-sxm", "h100-nvl", "h200-sxm", "h200-nvl", "b200",
}


@pytest.fixture(autouse=True)
def _no_user_prices(monkeypatch):
    """The tests use the shipped example price table, whatever the developer's shell exports."""
    monkeypatch.delenv("GPU_ADVISOR_PRICES", raising=False)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")


@pytest.fixture
def knowledge_copy(tmp_path) -> Path:
    target = tmp_path / "knowledge"
    shutil.copytree(DEFAULT_KNOWLEDGE_DIR, target)
    return target


def _corrupt_entry(path: Path, entry_id: str, field: str, new_value: str) -> None:
    """Replace `field:` inside the block of entry `entry_id` (block-style YAML)."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"- id: {entry_id}\n")
    end = text.find("\n  - id: ", start + 1)
    end = len(text) if end == -1 else end
    block = text[start:end]
    new_block, count = re.subn(rf"(\n\s+{field}:) [^\n]*", rf"\1 {new_value}", block, count=1)
    assert count == 1, f"{field} not found in {entry_id}"
    path.write_text(text[:start] + new_block + text[end:], encoding="utf-8")


# -- loading -----------------------------------------------------------------------------


def test_real_catalog_loads(catalog):
    assert set(catalog.gpus) >= REQUIRED_GPUS  # the documents' GPUs, plus older ones users still rent
    assert catalog.models and catalog.providers and catalog.billing_modes and catalog.xids
    assert catalog.cuda.majors and catalog.cuda.releases
    assert catalog.prices
    assert catalog.knowledge_date == dt.date(2026, 11, 30)
    assert re.fullmatch(r"[0-9a-f]{12}", catalog.content_hash)


# The cards teams rent in China and the workstation / Grace Hopper parts (issue #24).
RENTED_GPUS = {
    "a800-80gb-sxm", "a800-80gb-pcie", "a800-40gb-pcie", "a800-40gb-sxm", "h800-sxm", "h800-pcie",
    "h20-96gb", "h20-141gb", "l20", "l40", "a40", "a30", "a10", "gh200-96gb", "gh200-144gb",
    "rtx-4090d", "rtx-4090-48gb", "rtx-4090d-48gb", "rtx-6000-ada", "rtx-a6000", "rtx-pro-6000",
}


def test_every_required_gpu_exists(catalog):
    # + older GPUs users still rent, and the cards of issue #24
    assert set(catalog.gpus) == REQUIRED_GPUS | {"v100-sxm2", "t4"} | RENTED_GPUS


def test_every_cited_source_exists(catalog):
    entries = [
        *catalog.gpus.values(), *catalog.models.values(), *catalog.providers.values(),
        *catalog.billing_modes.values(), *catalog.xids.values(),
        *catalog.cuda.majors, *catalog.cuda.releases,
    ]
    for entry in entries:
        assert entry.sources, entry
        for source in entry.sources:
            assert source in catalog.sources, (entry, source)


def test_seed_documents_are_cited(catalog):
    cited = {s for g in catalog.gpus.values() for s in g.sources}
    assert {"rental-selection-guide", "training-servers-guide"} <= cited
    provider_cites = {s for p in catalog.providers.values() for s in p.sources}
    assert {"rental-selection-guide", "training-servers-guide"} <= provider_cites


# -- GPU name resolution -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("4090", "rtx-4090"),
        ("RTX4090", "rtx-4090"),
        ("RTX 4090", "rtx-4090"),
        ("rtx-4090", "rtx-4090"),
        ("GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("3090", "rtx-3090"),
        ("5090", "rtx-5090"),
        ("H100 80GB", "h100-sxm"),
        ("H100 SXM", "h100-sxm"),
        ("H100 PCIe", "h100-pcie"),
        ("H100 NVL", "h100-nvl"),
        ("H200 NVL", "h200-nvl"),
        ("H200 SXM", "h200-sxm"),
        ("A100 80GB", "a100-80gb-sxm"),
        ("A100 40GB", "a100-40gb-pcie"),
        ("A100 PCIe 80GB", "a100-80gb-pcie"),
        ("B200", "b200"),
        ("NVIDIA B200", "b200"),
        ("L40S", "l40s"),
        ("L4", "l4"),
    ],
)
def test_gpu_aliases_resolve(catalog, name, expected):
    assert catalog.resolve_gpu(name) == [expected]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("H100", {"h100-sxm", "h100-pcie", "h100-nvl"}),
        ("NVIDIA H100", {"h100-sxm", "h100-pcie", "h100-nvl"}),
        ("H200", {"h200-sxm", "h200-nvl"}),
        ("A100", {"a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm"}),
    ],
)
def test_family_names_resolve_to_all_variants(catalog, name, expected):
    assert set(catalog.resolve_gpu(name)) == expected


def test_unknown_gpu_lists_close_names(catalog):
    with pytest.raises(UnknownNameError) as info:
        catalog.resolve_gpu("RTX 9090")
    message = str(info.value)
    assert "RTX 9090" in message
    assert "closest known" in message
    assert "4090" in message or "3090" in message or "5090" in message


def test_unknown_gpu_error_keeps_its_message_in_repr_args_and_across_processes(catalog):
    import pickle

    with pytest.raises(UnknownNameError) as info:
        catalog.resolve_gpu("RTX 9191 Ultra")
    message = str(info.value)
    assert message.startswith("unknown GPU 'RTX 9191 Ultra'")
    assert info.value.args == (message,)
    assert message in repr(info.value)
    copy = pickle.loads(pickle.dumps(info.value))
    assert isinstance(copy, UnknownNameError) and str(copy) == message


def test_no_gpu_name_or_alias_is_shared(catalog):
    owner: dict[str, str] = {}
    for gpu in catalog.gpus.values():
        for name in {_norm(n) for n in [gpu.id, gpu.name, *gpu.aliases]}:
            assert owner.setdefault(name, gpu.id) == gpu.id, f"{name!r} names {owner[name]} and {gpu.id}"
    # A family name shared by several variants must not be captured by one variant's alias.
    families = {}
    for gpu in catalog.gpus.values():
        families.setdefault(_norm(gpu.family), set()).add(gpu.id)
    for family, members in families.items():
        if len(members) > 1:
            assert family not in owner, f"family {family!r} is also an alias of {owner.get(family)}"


# -- GPU facts ---------------------------------------------------------------------------


def test_memory_power_and_form_match_the_spec_pages(catalog):
    g = catalog.gpus
    assert (g["rtx-4090"].memory_gb, g["rtx-4090"].memory_type) == (24, "GDDR6X")
    assert (g["rtx-4090"].board_power_w, g["rtx-4090"].psu_w, g["rtx-4090"].slots) == (450, 850, 3)
    assert (g["rtx-5090"].memory_gb, g["rtx-5090"].memory_type) == (32, "GDDR7")
    assert (g["rtx-5090"].board_power_w, g["rtx-5090"].psu_w, g["rtx-5090"].slots) == (575, 1000, 2)
    assert (g["l4"].memory_gb, g["l4"].board_power_w, g["l4"].slots) == (24, 72, 1)
    assert (g["l40s"].memory_gb, g["l40s"].board_power_w, g["l40s"].slots) == (48, 350, 2)
    assert g["a100-80gb-pcie"].board_power_w == 300 and g["a100-80gb-sxm"].board_power_w == 400
    assert (g["h100-sxm"].memory_gb, g["h100-sxm"].board_power_w) == (80, 700)
    assert (g["h100-nvl"].memory_gb, g["h100-nvl"].board_power_w, g["h100-nvl"].board_power_min_w) == (94, 400, 350)
    assert g["h200-sxm"].memory_gb == g["h200-nvl"].memory_gb == 141
    assert (g["h200-sxm"].board_power_w, g["h200-nvl"].board_power_w) == (700, 600)
    assert (g["b200"].memory_gb, g["b200"].memory_type) == (180, "HBM3e")
    assert g["h100-sxm"].bandwidth_gbs == 3350 and g["h200-sxm"].bandwidth_gbs == 4800
    for gpu in g.values():
        if gpu.form_factor.startswith("SXM"):
            assert gpu.slots is None and gpu.psu_w is None, gpu.id


def test_class_ecc_nvlink_and_mig(catalog):
    for gpu in catalog.gpus.values():
        consumer = gpu.id.startswith("rtx-") and gpu.line != "workstation"
        assert gpu.gpu_class == ("consumer" if consumer else "datacenter"), gpu.id
        assert gpu.line == ("geforce" if consumer else gpu.product_line or "datacenter"), gpu.id
        assert gpu.ecc is (not consumer), gpu.id
        # NVIDIA publishes a PSU figure for its own GeForce cards sold worldwide, never for a data-centre part.
        assert (gpu.psu_w is not None) is (consumer and "global" in gpu.markets and gpu.nvidia_product), gpu.id
        if gpu.nvlink_bandwidth_gbs is not None:
            assert gpu.nvlink, gpu.id
        if gpu.mig_max_instances:
            assert gpu.mig_min_instance_gb, gpu.id
    nvlink = {gid: gpu.nvlink for gid, gpu in catalog.gpus.items()}
    assert nvlink["rtx-3090"] and not nvlink["rtx-4090"] and not nvlink["rtx-5090"]
    assert not nvlink["l4"] and not nvlink["l40s"] and nvlink["h100-pcie"]
    mig = {gid: gpu.mig_max_instances for gid, gpu in catalog.gpus.items()}
    assert mig["a100-40gb-pcie"] == mig["a100-80gb-sxm"] == mig["h100-sxm"] == mig["h200-sxm"] == mig["b200"] == 7
    assert mig["rtx-4090"] == mig["l40s"] == mig["l4"] == 0
    assert catalog.gpus["a100-40gb-pcie"].mig_min_instance_gb == 5
    assert catalog.gpus["a100-80gb-sxm"].mig_min_instance_gb == 10


def test_compute_capability_and_architecture(catalog):
    cc = {gid: gpu.compute_capability for gid, gpu in catalog.gpus.items()}
    assert cc["rtx-3090"] == "8.6" and cc["a100-80gb-sxm"] == "8.0"
    assert cc["rtx-4090"] == cc["l4"] == cc["l40s"] == "8.9"
    assert cc["h100-sxm"] == cc["h200-nvl"] == "9.0"
    assert cc["b200"] == "10.0" and cc["rtx-5090"] == "12.0"
    assert catalog.gpus["rtx-5090"].cc_number == 12.0
    assert cc["v100-sxm2"] == "7.0" and cc["t4"] == "7.5"  # CUDA 13 dropped sm_70, kept sm_75
    assert {g.architecture for g in catalog.gpus.values()} == {
        "Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"}


def test_dense_tflops_are_without_sparsity(catalog):
    g = catalog.gpus
    assert g["h100-sxm"].dense_tflops["bf16"] == pytest.approx(989, rel=0.01)
    assert g["h100-sxm"].dense_tflops["fp8"] == pytest.approx(1979, rel=0.01)
    assert g["a100-80gb-sxm"].dense_tflops["bf16"] == 312
    assert g["rtx-4090"].dense_tflops["bf16"] == pytest.approx(165.2)  # FP32 accumulate, GeForce half rate
    assert g["l40s"].dense_tflops["bf16"] == pytest.approx(362, rel=0.01)
    assert g["l4"].dense_tflops["bf16"] == pytest.approx(121, rel=0.01)
    assert g["b200"].dense_tflops["bf16"] == pytest.approx(2250, rel=0.01)
    assert g["h200-sxm"].dense_tflops == g["h100-sxm"].dense_tflops
    for gpu in g.values():
        # BF16 tensor cores arrived with Ampere: Volta and Turing have FP16 only.
        assert ("bf16" in gpu.dense_tflops) is (gpu.architecture not in {"Volta", "Turing"}), gpu.id
        # Every tensor rate listed is a precision the tensor cores support (fp32/fp64 are CUDA-core rates).
        assert set(gpu.dense_tflops) - {"fp32", "fp64"} <= set(gpu.tensor_precisions), gpu.id
        # Newer architectures add formats: Ada/Hopper fp8, Blackwell fp4.
        if gpu.architecture in {"Ada Lovelace", "Hopper", "Blackwell"}:
            assert "fp8" in gpu.tensor_precisions, gpu.id
        assert ("fp4" in gpu.tensor_precisions) is (gpu.architecture == "Blackwell"), gpu.id


# -- CUDA --------------------------------------------------------------------------------


def test_cuda_minimum_drivers(catalog):
    assert catalog.cuda_release("12.4").min_driver == "550.54.14"
    assert catalog.cuda_release("12.4.1").min_driver == "550.54.14"
    assert catalog.cuda_release("13.0").min_driver == "580.65.06"
    assert catalog.cuda_release("12.7") is None
    assert catalog.cuda_major(13).min_driver.split(".")[0] == "580"
    assert catalog.cuda_major(12).min_driver == "525.60.13"
    assert catalog.cuda_major(11).min_driver == "450.80.02"
    assert catalog.cuda_major(10) is None


def test_cuda_releases_are_ordered_and_parseable(catalog):
    releases = catalog.cuda.releases
    versions = [tuple(int(p) for p in r.version.split(".")) for r in releases]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    drivers = [version_number(r.min_driver) for r in releases]
    assert drivers == sorted(drivers)
    for release in releases:
        assert re.fullmatch(r"\d+(\.\d+)+", release.min_driver), release
        major = catalog.cuda_major(release.major)
        assert major is not None, release.version
        if release.major >= 12:
            assert version_number(release.min_driver) >= version_number(major.min_driver), release.version
    assert {r.version for r in releases} >= {f"11.{n}" for n in range(9)} | {"12.0", "12.9", "13.0", "13.1", "13.2"}


def test_cuda_13_drops_pre_turing(catalog):
    thirteen = catalog.cuda_major(13)
    assert thirteen.min_cc == "7.5"
    assert {"5.0", "6.1", "7.0"} <= set(thirteen.dropped_cc)
    assert "7.5" not in thirteen.dropped_cc


# -- models ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Llama-3-70B", "llama-3-70b"),
        ("Meta-Llama-3-70B", "llama-3-70b"),
        ("llama3 70b", "llama-3-70b"),
        ("Qwen2.5-14B", "qwen2.5-14b"),
        ("Mixtral 8x7B", "mixtral-8x7b"),
        ("Mistral 7B", "mistral-7b"),
        ("Llama-3.1-8B", "llama-3.1-8b"),
        ("gpt2-xl", "gpt2-xl"),
    ],
)
def test_model_aliases_resolve(catalog, name, expected):
    assert catalog.resolve_model(name).id == expected


def test_unknown_model_is_named(catalog):
    with pytest.raises(UnknownNameError, match="llama-9-900b"):
        catalog.resolve_model("llama-9-900b")


def test_no_model_alias_is_shared(catalog):
    owner: dict[str, str] = {}
    for model in catalog.models.values():
        for name in {_norm(n) for n in [model.id, model.name, *model.aliases]}:
            assert owner.setdefault(name, model.id) == model.id, f"{name!r} names {owner[name]} and {model.id}"


def test_param_counts_match_the_architecture(catalog):
    """params_b agrees (within 1%) with the count implied by the config fields (mixture-of-experts
    layouts, latent attention and vision encoders included; see ModelArch.counted_params_b), and so
    does active_params_b (within 2%)."""
    for m in catalog.models.values():
        assert m.counted_params_b == pytest.approx(m.params_b, rel=0.01), m.id
        if m.active_params_b:
            assert m.counted_active_params_b == pytest.approx(m.active_params_b, rel=0.02), m.id
        assert m.heads % m.kv_heads == 0, m.id


def test_model_facts(catalog):
    m = catalog.models
    assert m["llama-2-7b"].params_b == pytest.approx(6.74)
    assert m["llama-3-8b"].params_b == pytest.approx(8.03)
    assert m["llama-3-70b"].params_b == pytest.approx(70.6)
    assert m["qwen2.5-72b"].params_b == pytest.approx(72.7)
    mixtral = m["mixtral-8x7b"]
    assert (mixtral.experts, mixtral.experts_per_token) == (8, 2)
    assert mixtral.active_params_b < mixtral.params_b
    assert m["gemma-2-9b"].head_dim == 256 and m["gemma-2-27b"].head_dim == 128
    assert m["gemma-2-9b"].sliding_window_layers == "alternate"
    assert m["llama-3.1-70b"].max_context == 131072 and m["llama-3-70b"].max_context == 8192
    # The training-servers guide: 7 billion parameters in 16-bit is about 14 GB of weights (decimal GB).
    for model_id in ("llama-2-7b", "mistral-7b", "qwen2.5-7b"):
        weights_gb = m[model_id].params_b * 2
        assert 13 <= weights_gb <= 15.5, model_id


# -- billing, providers, prices ----------------------------------------------------------


def test_billing_modes(catalog):
    assert set(catalog.billing_modes) == {"on-demand", "spot", "subscription", "reserved", "savings-plan", "capacity-block"}
    aliases = {a for b in catalog.billing_modes.values() for a in b.aliases}
    assert {"按量付费", "抢占式实例", "包年包月", "预留实例券", "节省计划"} <= aliases
    assert "checkpoint" in " ".join(catalog.billing_modes["spot"].caveats).lower()
    owner: dict[str, str] = {}
    for mode in catalog.billing_modes.values():
        for name in {_norm(n) for n in [mode.id, mode.name, *mode.aliases]}:
            assert owner.setdefault(name, mode.id) == mode.id, name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Vast.ai", "vast"), ("vastai", "vast"), ("GPU Mart", "gpumart"), ("gpu-mart", "gpumart"),
        ("Cherry Servers", "cherry"), ("Alibaba Cloud", "aliyun"), ("Alibaba", "aliyun"),
        ("阿里云", "aliyun"), ("Amazon Web Services", "aws"), ("EC2", "aws"), ("RunPod", "runpod"),
        ("DediXLAB", "dedixlab"),
    ],
)
def test_provider_aliases_resolve(catalog, name, expected):
    assert catalog.resolve_provider(name) == expected


def test_provider_facts(catalog):
    p = catalog.providers
    assert set(p) == {"aws", "aliyun", "gcp", "cherry", "runpod", "lambda", "gpumart", "vast", "dedixlab", "autodl",
                      "tencent", "volcano", "huawei"}
    assert (p["aws"].billing_granularity_s, p["aws"].minimum_billed_s) == (1, 60)
    assert (p["gcp"].billing_granularity_s, p["gcp"].minimum_billed_s) == (1, 60)
    assert any("0 vCPU" in line for line in p["aws"].confirm)
    assert {"subscription", "on-demand", "spot", "reserved"} <= set(p["aliyun"].billing_modes)
    assert len(p["aliyun"].charged_components) == 6
    for provider in p.values():
        assert set(provider.billing_modes) <= set(catalog.billing_modes), provider.id
        if "training-servers-guide" in provider.sources and provider.id not in {"aws", "aliyun"}:
            assert provider.confirm, provider.id
    assert p["vast"].kind == "marketplace" and p["runpod"].kind == "gpu-cloud"


def test_example_prices_reference_known_things_and_include_a_stale_row(catalog):
    for row in catalog.prices:
        assert row.gpu in catalog.gpus
        assert row.provider in catalog.providers
        assert row.billing in catalog.billing_modes
    ages = [(catalog.knowledge_date - row.quoted_on).days for row in catalog.prices]
    assert any(age > 90 for age in ages)
    assert any(0 <= age <= 90 for age in ages)
    header = (DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml").read_text(encoding="utf-8")
    assert "GPU_ADVISOR_PRICES" in header and "not current prices" in header.lower()


def test_user_price_table_is_used_when_exported(tmp_path, monkeypatch):
    prices = tmp_path / "my-prices.yaml"
    prices.write_text(
        "prices:\n  - {gpu: l4, provider: aws, hourly_rate: 0.8, quoted_on: 2026-11-29}\n", encoding="utf-8"
    )
    monkeypatch.setenv("GPU_ADVISOR_PRICES", str(prices))
    catalog = load_catalog(DEFAULT_KNOWLEDGE_DIR)
    assert [(r.gpu, r.hourly_rate, r.billing, r.currency) for r in catalog.prices] == [("l4", 0.8, "on-demand", "USD")]


# -- broken knowledge fails loudly -------------------------------------------------------


def test_bad_field_names_file_entry_and_field(knowledge_copy):
    gpus = knowledge_copy / "gpus.yaml"
    _corrupt_entry(gpus, "rtx-4090", "memory_gb", "-1")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy)
    message = str(info.value)
    assert str(gpus) in message
    assert "rtx-4090" in message
    assert "memory_gb" in message
    # file:line:column points at the broken line
    line = next(i for i, text in enumerate(gpus.read_text().splitlines(), 1) if "memory_gb: -1" in text)
    assert f"{gpus}:{line}:" in message


def test_unknown_source_id_names_file_entry_and_field(knowledge_copy):
    gpus = knowledge_copy / "gpus.yaml"
    _corrupt_entry(gpus, "l40s", "sources", "[nvidia-l40s-specs, no-such-source]")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy)
    message = str(info.value)
    assert "gpus.yaml" in message and "l40s" in message and "sources" in message
    assert "no-such-source" in message


def test_bad_model_field_is_reported(knowledge_copy):
    models = knowledge_copy / "models.yaml"
    _corrupt_entry(models, "mistral-7b", "sliding_window_layers", "sometimes")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy)
    message = str(info.value)
    assert "models.yaml" in message and "mistral-7b" in message and "sliding_window_layers" in message


def test_unknown_gpu_in_price_table_is_rejected(tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "prices:\n  - {gpu: rtx-9090, provider: aws, hourly_rate: 1, quoted_on: 2026-11-01}\n", encoding="utf-8"
    )
    with pytest.raises(KnowledgeError, match="rtx-9090"):
        load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=prices)


def test_price_quoted_in_the_future_is_rejected_naming_the_row(tmp_path):
    tomorrow = dt.date.today() + dt.timedelta(days=1)
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "prices:\n  - {gpu: l4, provider: aws, hourly_rate: 0.8, quoted_on: 2026-01-02}\n"
        f"  - {{gpu: l40s, provider: runpod, hourly_rate: 0.9, quoted_on: {tomorrow.isoformat()}}}\n",
        encoding="utf-8",
    )
    with pytest.raises(KnowledgeError) as info:
        load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=prices)
    message = str(info.value)
    assert str(prices) in message and "prices[#1]" in message
    assert "l40s at runpod" in message and "in the future" in message and tomorrow.isoformat() in message
    assert "l4 at aws" not in message


def test_catalog_knows_whether_its_prices_are_the_shipped_example(tmp_path):
    # The default is the shipped SkyPilot snapshot (dated, attributed), not the example rows.
    snapshot = load_catalog(DEFAULT_KNOWLEDGE_DIR)
    assert snapshot.prices_path.name == "prices.skypilot.yaml" and not snapshot.prices_are_example
    assert snapshot.prices_origin is not None and snapshot.prices_origin.source == "skypilot-catalog"
    example = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=DEFAULT_KNOWLEDGE_DIR / "prices.example.yaml")
    assert example.prices_are_example and example.prices_origin is None
    own = tmp_path / "team-prices.yaml"
    own.write_text("prices:\n  - {gpu: l4, provider: aws, hourly_rate: 0.8, quoted_on: 2026-01-02}\n",
                   encoding="utf-8")
    team = load_catalog(DEFAULT_KNOWLEDGE_DIR, prices_path=own)
    assert not team.prices_are_example and team.prices_path == own


def test_duplicate_id_is_rejected(knowledge_copy):
    gpus = knowledge_copy / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8").replace("- id: l40s\n", "- id: l4\n", 1)
    gpus.write_text(text, encoding="utf-8")
    with pytest.raises(KnowledgeError, match="duplicate id 'l4'"):
        load_catalog(knowledge_copy)


def test_cuda_11_0_minimum_driver_is_the_ga_row(catalog):
    release = catalog.cuda_release("11.0")
    assert release.min_driver == "450.51.05"
    assert "450.36.06" in release.note and "RC" in release.note


def test_training_precision_figures_share_one_accumulate_mode(catalog):
    # FP8 runs at twice the BF16 rate when both are quoted at FP32 accumulate; a figure taken at
    # FP16 accumulate (2x on GeForce) would break the ratio and overstate training speed.
    for gpu in catalog.gpus.values():
        tflops = gpu.dense_tflops
        if "fp8" in tflops and "bf16" in tflops:
            assert tflops["fp8"] / tflops["bf16"] == pytest.approx(2.0, rel=0.02), gpu.id
    notes = " ".join(catalog.gpus["rtx-5090"].notes)
    assert "fp4 = 1676" in notes and "FP32 accumulate" in notes and "fp8 = 419" in notes


# -- the cards teams rent in China, workstation cards, GH200 (issue #24) ------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("A800 80G", "a800-80gb-sxm"),
        ("NVIDIA A800-SXM4-80GB", "a800-80gb-sxm"),
        ("A800 PCIe", "a800-80gb-pcie"),
        ("A800 40GB", "a800-40gb-pcie"),
        ("H800 80G", "h800-sxm"),
        ("H800 PCIe", "h800-pcie"),
        ("H20 96G", "h20-96gb"),
        ("NVIDIA H20-3e", "h20-141gb"),
        ("H20 141GB", "h20-141gb"),
        ("4090D", "rtx-4090d"),
        ("NVIDIA GeForce RTX 4090 D", "rtx-4090d"),
        ("4090 48G", "rtx-4090-48gb"),
        ("魔改 4090", "rtx-4090-48gb"),
        ("4090D 48G", "rtx-4090d-48gb"),
        ("L20", "l20"),
        ("L40", "l40"),
        ("L40S", "l40s"),  # not captured by the L40
        ("A10", "a10"),
        ("A100 40GB", "a100-40gb-pcie"),  # not captured by the A10
        ("A30", "a30"),
        ("A40", "a40"),
        ("A6000", "rtx-a6000"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
        ("RTX PRO 6000", "rtx-pro-6000"),
        ("RTXPRO6000", "rtx-pro-6000"),
        ("GH200 96GB", "gh200-96gb"),
    ],
)
def test_rented_gpu_names_resolve(catalog, name, expected):
    assert catalog.resolve_gpu(name) == [expected]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("A800", {"a800-80gb-sxm", "a800-80gb-pcie", "a800-40gb-pcie", "a800-40gb-sxm"}),
        ("H800", {"h800-sxm", "h800-pcie"}),
        ("H20", {"h20-96gb", "h20-141gb"}),
        ("NVIDIA GH200", {"gh200-96gb", "gh200-144gb"}),
    ],
)
def test_rented_families_resolve_to_their_variants(catalog, name, expected):
    ids = catalog.resolve_gpu(name)
    assert set(ids) == expected
    assert ids[0] == sorted(expected, key=list(catalog.gpus).index)[0]  # the catalog order: 80 GB SXM / 96 GB first


def test_export_parts_differ_from_their_siblings_where_the_sources_say(catalog):
    g = catalog.gpus
    # A800 = A100 with NVLink cut from 600 to 400 GB/s; H800 = H100 SXM with NVLink 400 and FP64 ~1.
    for a800, a100 in (("a800-80gb-sxm", "a100-80gb-sxm"), ("a800-80gb-pcie", "a100-80gb-pcie"),
                       ("a800-40gb-pcie", "a100-40gb-pcie")):
        assert g[a800].dense_tflops == g[a100].dense_tflops and g[a800].bandwidth_gbs == g[a100].bandwidth_gbs
        assert (g[a800].nvlink_bandwidth_gbs, g[a100].nvlink_bandwidth_gbs) == (400, 600)
    assert g["h800-sxm"].dense_tflops["bf16"] == g["h100-sxm"].dense_tflops["bf16"] == 989
    assert g["h800-sxm"].nvlink_bandwidth_gbs == 400 and g["h800-sxm"].dense_tflops["fp64"] == 1
    assert g["h800-pcie"].nvlink_bandwidth_gbs == 400 and g["h800-pcie"].dense_tflops["bf16"] == 756
    # H20: compute cut to 148/296 dense, memory and NVLink kept.
    h20 = g["h20-96gb"]
    assert (h20.memory_gb, h20.bandwidth_gbs, h20.nvlink_bandwidth_gbs) == (96, 4000, 900)
    assert (h20.dense_tflops["bf16"], h20.dense_tflops["fp8"]) == (148, 296)
    assert "SXM" in h20.form_factor
    # L20 / L40 / L40S are three different cards, none with NVLink.
    assert [g[i].dense_tflops["bf16"] for i in ("l20", "l40", "l40s")] == [119, 181.05, 362.05]
    assert not any(g[i].nvlink for i in ("l20", "l40", "l40s", "rtx-6000-ada", "rtx-4090d", "rtx-pro-6000"))
    assert g["rtx-4090d"].dense_tflops["bf16"] == pytest.approx(165.2 * 114 / 128, rel=0.001)
    assert (g["gh200-96gb"].memory_gb, g["gh200-96gb"].bandwidth_gbs) == (96, 4000)
    assert (g["gh200-144gb"].memory_gb, g["gh200-144gb"].bandwidth_gbs) == (144, 4900)
    assert (g["rtx-pro-6000"].memory_gb, g["rtx-pro-6000"].bandwidth_gbs, g["rtx-pro-6000"].pcie_gen) == (96, 1792, 5)


def test_china_market_cards_are_marked(catalog):
    only_china = {gid for gid, gpu in catalog.gpus.items() if gpu.markets == ["china"]}
    assert {"a800-80gb-sxm", "h800-sxm", "h20-96gb", "h20-141gb", "l20", "rtx-4090d", "rtx-4090-48gb"} <= only_china
    # Rented in China and elsewhere: the GeForce cards of the seed guides, Alibaba's T4/V100/A10/A30.
    both = {gid for gid, gpu in catalog.gpus.items() if set(gpu.markets) == {"global", "china"}}
    assert both == {"rtx-3090", "rtx-4090", "t4", "v100-sxm2", "a10", "a30"}
    assert not (only_china | both) & {"h100-sxm", "a100-80gb-sxm", "l40s", "b200"}


def test_models_published_in_fp8_say_so(catalog):
    assert catalog.models["deepseek-v3"].released_precision == "fp8"
    assert catalog.models["deepseek-r1"].released_precision == "fp8"
    assert catalog.resolve_model("Llama-3.1-70B").released_precision is None


def test_the_48gb_4090_is_a_modified_board_not_an_nvidia_product(catalog):
    for gid in ("rtx-4090-48gb", "rtx-4090d-48gb"):
        gpu = catalog.gpus[gid]
        assert gpu.nvidia_product is False and gpu.line == "geforce" and gpu.confidence == "reported"
        assert gpu.memory_gb == 48
        notes = " ".join(gpu.notes)
        assert "Not an NVIDIA product" in notes and "No NVIDIA warranty" in notes and "geforce-eula" in gpu.sources
    assert all(g.nvidia_product for gid, g in catalog.gpus.items() if not gid.endswith("-48gb"))


def test_reported_figures_are_marked_and_datasheet_ones_are_not(catalog):
    g = catalog.gpus
    # No NVIDIA datasheet exists for A800 (data-centre), H800, H20, L20 or RTX 4090 D.
    for gid in ("a800-80gb-sxm", "h800-sxm", "h20-96gb", "l20", "rtx-4090d"):
        assert g[gid].confidence == "reported" and g[gid].figure_is_reported("bandwidth_gbs"), gid
    assert g["h20-141gb"].figure_confidence["bandwidth_gbs"] == "unverified"
    assert g["rtx-6000-ada"].figure_is_reported("dense_tflops.bf16")  # derived from the FP8-sparse figure
    assert not g["rtx-6000-ada"].figure_is_reported("dense_tflops.fp8")
    assert not g["h100-sxm"].figure_is_reported("bandwidth_gbs")
    assert not g["l40"].figure_is_reported("dense_tflops.bf16")


def test_h200_nvl_bandwidth_is_the_datasheet_figure(catalog):
    nvl = catalog.gpus["h200-nvl"]
    assert nvl.bandwidth_gbs == 4200 and nvl.figure_confidence["bandwidth_gbs"] == "disputed"
    assert catalog.gpus["h200-sxm"].bandwidth_gbs == 4800


def test_figure_confidence_must_name_a_figure_of_the_entry(knowledge_copy):
    path = knowledge_copy / "gpus.yaml"
    _corrupt_entry(path, "l20", "figure_confidence", "{dense_tflops.fp4: derived}")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy, prices_path=knowledge_copy / "prices.example.yaml")
    message = str(info.value)
    assert "gpus.yaml" in message and "gpus[l20]" in message and "dense_tflops.fp4" in message


def test_china_instance_families_resolve(catalog):
    gn8v = catalog.instance("ecs.gn8v-8x.48xlarge")
    assert (gn8v.gpu, gn8v.count, gn8v.gpu_named, gn8v.family) == ("h20-96gb", 8, False, "gn8v")
    assert "names no GPU" in gn8v.note
    assert catalog.instance("gn7s-c32g1.32xlarge").gpu == "a30"  # "ecs." may be left off
    ebm = catalog.instance("ecs.ebmgn8is.32xlarge")
    assert (ebm.gpu, ebm.count, ebm.gpu_named) == ("l20", 8, True)
    assert catalog.instance("ecs.gn7i-8x.32xlarge").count == 8
    # The existing tables keep their own rows: one entry per instance type.
    assert catalog.instance("p4d.24xlarge").gpu == "a100-40gb-sxm"
    assert catalog.instance("g6.12xlarge").count == 4


def test_an_instance_in_both_files_is_rejected_naming_both(knowledge_copy):
    china = knowledge_copy / "instances.china.yaml"
    china.write_text(china.read_text(encoding="utf-8") + (
        "  - {name: p4d.24xlarge, provider: aws, gpu: a100-40gb-sxm, accelerator: A100, count: 8, "
        "sources: [aws-ec2-accelerated-instances]}\n"), encoding="utf-8")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy, prices_path=knowledge_copy / "prices.example.yaml")
    message = str(info.value)
    assert "instances.china.yaml" in message and "p4d.24xlarge" in message and "instances.yaml" in message


def test_an_unnamed_gpu_inference_needs_a_gpu(knowledge_copy):
    china = knowledge_copy / "instances.china.yaml"
    china.write_text(china.read_text(encoding="utf-8") + (
        "  - {name: ecs.gn9x.4xlarge, provider: aliyun, gpu: null, gpu_named: false, accelerator: x, count: 1, "
        "sources: [aliyun-gpu-instance-families]}\n"), encoding="utf-8")
    with pytest.raises(KnowledgeError) as info:
        load_catalog(knowledge_copy, prices_path=knowledge_copy / "prices.example.yaml")
    assert "instances.china.yaml" in str(info.value) and "gpu_named" in str(info.value)
