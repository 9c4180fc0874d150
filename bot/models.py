"""Pydantic models at the advisor's boundaries: Requirement in, Answer out.

The JSON shape of `Answer` is the `gpu-advisor ask --json` contract (issue #2). Later work
adds fields; it never renames or removes one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bot.diagnostics.models import Paste

Workload = Literal["training", "inference"]
Method = Literal["pretraining", "full", "lora", "qlora"]
# "pure-bf16": bf16 weights, gradients and optimizer states with no fp32 master copy (LLaMA-Factory pure_bf16).
Precision = Literal["fp32", "tf32", "bf16", "pure-bf16", "fp16", "fp8", "int8", "int4"]
Billing = Literal["on-demand", "spot", "subscription", "reserved", "savings-plan", "capacity-block"]
Deployment = Literal["datacenter", "commercial-hosting", "workstation", "cloud"]
# How inference requests arrive, named after the MLPerf scenario that measures that load.
RequestMode = Literal["single-stream", "server", "offline"]
Recompute = Literal["none", "selective", "full"]
KvPrecision = Literal["fp32", "bf16", "fp16", "fp8", "int8"]
Severity = Literal["info", "warn", "block"]
Intent = Literal["recommend", "first-check", "how-many"]
Language = Literal["en", "zh"]
# Where a cost's rate came from: the user's own quote, a row of the price table in force, or a row of the
# shipped example table (illustrative, never a price to quote).
CostOrigin = Literal["quote", "catalog", "example"]

TOPICS: tuple[str, ...] = (
    "memory", "precision", "parallelism", "interconnect", "license", "power", "cuda", "mig",
    "billing", "quota", "spot", "cost", "provider", "benchmark", "verification", "health",
    "storage", "network", "cluster",
)
Topic = Literal[
    "memory", "precision", "parallelism", "interconnect", "license", "power", "cuda", "mig",
    "billing", "quota", "spot", "cost", "provider", "benchmark", "verification", "health",
    "storage", "network", "cluster",
]

MAX_PARAMS_B = 100_000.0

# What one sub-question of a message asks for (issue #22). Each kind has one composer,
# `bot.compose.<kind>` (dashes as underscores), that answers it in its own terms.
AskKind = Literal["fit", "price", "cost", "select", "compat", "diagnose", "checklist", "explain", "spec", "open"]
ASK_KINDS: tuple[str, ...] = ("fit", "price", "cost", "select", "compat", "diagnose", "checklist", "explain", "spec",
                              "open")


class Ask(BaseModel):
    """One thing a message asks, with the characters it was read from (`question[start:end]`)."""

    model_config = ConfigDict(extra="forbid")

    kind: AskKind
    text: str = ""
    start: int = Field(default=0, ge=0)
    end: int = Field(default=0, ge=0)
    # What the ask is about, as catalog ids where they resolve (GPUs, instances, models), in order.
    subjects: list[str] = Field(default_factory=list)
    # The user's own label for the part ("1)", "(a)", "Q2"), so the answer can label it the same way.
    label: str | None = None
    # Requirement slots this ask wants computed ("how many users can we hold?" wants concurrency):
    # never asked back as a follow-up question.
    wants: list[str] = Field(default_factory=list)


class StatedCost(BaseModel):
    """A price the user gave: a rate with a duration ("A costs $1.20/h and takes 80 h"), a quote
    without one ("8x H100 at $2.49/GPU-hour": the advisor estimates the hours), or a monthly price
    ("4000 元/月")."""

    model_config = ConfigDict(extra="forbid")

    label: str
    gpu: str | None = None
    hourly_rate: float | None = Field(default=None, gt=0)
    hours: float | None = Field(default=None, gt=0)
    currency: str = "USD"
    per_gpu: bool = Field(default=False, description="the rate is per GPU-hour, not per instance-hour")
    gpu_count: int | None = Field(default=None, gt=0, le=100_000)
    monthly_rate: float | None = Field(default=None, gt=0, description="a subscription price per month")
    hours_shared: bool = Field(default=False, description="the hours were stated once for another quote")
    billing: Billing | None = None

    @model_validator(mode="after")
    def _has_a_price(self) -> "StatedCost":
        if self.hourly_rate is None and self.monthly_rate is None:
            raise ValueError("a stated cost needs an hourly or a monthly rate")
        return self


# The user's own numbers, each with its unit and the role the words around it give it (issue #23).
QuantityKind = Literal["money", "gpu-hours", "time", "usage", "count", "params", "tokens", "size", "latency",
                       "throughput", "mfu", "percent"]
MoneyPer = Literal["gpu-hour", "gpu-minute", "instance-hour", "minute", "day", "month", "year", "gb-month",
                   "mbps-month", "kwh", "once", "gpu-month"]
QuantityRole = Literal[
    # money
    "budget", "quote", "subscription", "fee", "bill-line", "bill-total", "purchase", "residual", "power-price",
    "discount",
    # time
    "work", "duration", "deadline", "hours-per-day", "days-per-week", "hours-per-month", "depreciation",
    "lost-minutes", "restart-minutes", "checkpoint-minutes", "save-minutes", "days-per-month",
    # counts
    "gpus", "nodes", "users", "concurrency", "samples", "tokens-per-sample", "interruptions-per-day",
    # sizes and targets
    "total-params", "active-params", "tokens", "context", "memory", "storage", "bandwidth", "ttft", "tpot",
    "throughput", "mfu", "utilisation", "power-draw",
]
BillItem = Literal["compute", "vcpu-memory", "image", "storage", "bandwidth", "snapshot", "hosting", "power",
                   "support", "public-ip"]


class Quantity(BaseModel):
    """One number the user wrote, read with its unit and role, and bound to the option or bill item it
    belongs to ("¥2,300/月" for 100 Mbps: money per month, a fee, item bandwidth). A range keeps both
    ends (`value` the low end, `high` the high end). `value` is in the unit named by `unit`/`per`
    (money in `currency`; time in hours, minutes where the role says minutes; sizes in billions of
    parameters/tokens, GB, Mbps; mfu/utilisation as a fraction 0-1)."""

    model_config = ConfigDict(extra="forbid")

    kind: QuantityKind
    role: QuantityRole
    value: float = Field(ge=0)
    high: float | None = Field(default=None, ge=0)
    unit: str = ""
    currency: str | None = None
    per: MoneyPer | None = None
    item: BillItem | None = None
    option: str | None = Field(default=None, description="the option the number belongs to: a billing mode, "
                                                         "buy/rent, or the label written before it")
    text: str = ""
    start: int = Field(default=0, ge=0)
    end: int = Field(default=0, ge=0)


class Requirement(BaseModel):
    """What the user wants to do, as understood. Every field is optional: rules ask for gaps."""

    model_config = ConfigDict(extra="forbid")

    workload: Workload | None = None
    method: Method | None = None
    model: str | None = None
    params_b: float | None = Field(default=None, gt=0, le=MAX_PARAMS_B)
    precision: Precision | None = None
    optimizer: str | None = None
    batch_size: int | None = Field(default=None, gt=0, le=1_000_000)
    context: int | None = Field(default=None, gt=0, le=10_000_000)
    concurrency: int | None = Field(default=None, gt=0, le=1_000_000)
    # One request's input tokens as written ("1k in / 256 out", "prompts of ~1,500 tokens", "输入 2k"):
    # what prefill (TTFT) computes; `context` (input + output) is what the KV cache holds (issue #24).
    prompt_tokens: int | None = Field(default=None, gt=0, le=10_000_000, description="one request's input tokens, as stated")
    gpu: str | None = None
    gpu_count: int | None = Field(default=None, gt=0, le=100_000)
    provider: str | None = None
    billing: Billing | None = None
    deployment: Deployment | None = None
    cuda: str | None = None
    driver: str | None = None
    driver_cuda: str | None = Field(default=None, description="the \"CUDA Version\" nvidia-smi prints: the newest CUDA the driver supports")
    psu_watts: int | None = Field(default=None, gt=0, le=100_000)
    request_mode: RequestMode | None = None
    # Sizing inputs (issue #4): training tokens and efficiency, LoRA rank, recompute, KV cache format.
    dataset_tokens_b: float | None = Field(default=None, gt=0, le=1_000_000, description="billions of tokens")
    epochs: float | None = Field(default=None, gt=0, le=10_000)
    mfu: float | None = Field(default=None, gt=0, le=1, description="model FLOPs utilisation, 0-1")
    lora_rank: int | None = Field(default=None, gt=0, le=65_536)
    recompute: Recompute | None = None
    kv_precision: KvPrecision | None = None
    # Sizing inputs (issue #27): CPU offload asked for ("optimizer": ZeRO-Offload; "params": optimizer and
    # parameters, ZeRO-Infinity's CPU tier), a ZeRO stage named, the attention kernel named.
    offload: Literal["optimizer", "params"] | None = None
    zero_stage: int | None = Field(default=None, ge=1, le=3)
    attention: Literal["flash", "eager"] | None = None
    # Attention run data-parallel (SGLang --enable-dp-attention): each rank holds its own requests' MLA cache.
    dp_attention: bool | None = None
    # Everyday intents (issue #11): "recommend a GPU server", "just got an instance, what do I check".
    intent: Intent | None = None
    checkpointing: bool | None = Field(default=None, description="the job saves checkpoints (False: it does not)")
    checkpoint_minutes: float | None = Field(default=None, gt=0, le=100_000, description="minutes between checkpoints")
    instance: str | None = Field(default=None, description="a cloud instance type, e.g. p5.48xlarge")
    unknown_gpu: str | None = Field(default=None, description="a GPU name the catalog does not know, as written")
    unknown_gpu_memory_gb: float | None = Field(default=None, gt=0, le=2000, description="its memory, as the user gave it")
    usage_hours_per_month: float | None = Field(default=None, gt=0, le=744, description="hours of use a month")
    gpu_hours: float | None = Field(default=None, gt=0, le=1e9, description="the job's total GPU-hours, as stated")
    gpu_hours_gpu: str | None = Field(default=None, description="the GPU those GPU-hours were counted on")
    budget: float | None = Field(default=None, gt=0, le=1e12, description="the money the user can spend")
    network_gbps: float | None = Field(default=None, gt=0, le=1e6, description="the inter-node network the user has, Gb/s")
    budget_currency: str | None = None
    # Beyond the core contract: what the question is about when it names no numbers,
    # symptoms for the health rules, and cost pairs stated in the question.
    topics: list[Topic] = Field(default_factory=list)
    xids: list[int] = Field(default_factory=list)
    symptoms: list[str] = Field(default_factory=list)
    costs: list[StatedCost] = Field(default_factory=list)
    # "X or Y", "X vs Y": every option named, the first also in `gpu` / `provider`.
    gpu_options: list[str] = Field(default_factory=list)
    # "one 8x L4 box or a 2x L40S box": the count written with each compared GPU (issue #24).
    gpu_option_counts: dict[str, int] = Field(default_factory=dict, max_length=16)
    # GPUs the user ruled out ("no 4090s", "不要 H20", "don't say H100"): never recommended (issue #24).
    refused_gpus: list[str] = Field(default_factory=list, max_length=32)
    provider_options: list[str] = Field(default_factory=list)
    billing_options: list[Billing] = Field(default_factory=list)
    instance_options: list[str] = Field(default_factory=list)
    # What the message asks, in order (issue #22); the first is the primary ask.
    asks: list[Ask] = Field(default_factory=list)
    # Every number the message states, typed, with its role and the option it belongs to (issue #23).
    # Read from the message each time (bot.nlu.quantities), so left out of dumps and the rule facts.
    quantities: list[Quantity] = Field(default_factory=list, exclude=True)
    # Tool output pasted into the message (issue #25), read by bot.diagnostics: judged as a host's
    # probe by the health rules and answered by the diagnose composer. In the JSON only when present.
    pasted: Paste | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("cuda", "driver_cuda")
    @classmethod
    def _cuda_is_version(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.split(".")
        if not (1 <= len(parts) <= 3 and all(p.isascii() and p.isdigit() for p in parts)):
            raise ValueError(f"CUDA version {value!r} is not of the form 12.4")
        return value

    @field_validator("driver")
    @classmethod
    def _driver_is_version(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.split(".")
        # NVIDIA's Linux driver branches are three-digit (450 … 595): anything else is a typo.
        if not (1 <= len(parts) <= 3 and all(p.isascii() and p.isdigit() for p in parts) and len(parts[0]) == 3):
            raise ValueError(f"driver version {value!r} is not of the form 535.104.05")
        return value


class MemoryBreakdown(BaseModel):
    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    total: float = 0.0

    def sum_text(self) -> str:
        """The non-zero parts as a sum, e.g. 'weights 14.0 + gradients 14.0 + overhead 1.5'."""
        parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
        return " + ".join(f"{name} {getattr(self, name):.1f}" for name in parts if getattr(self, name))


class TrainingTime(BaseModel):
    """The inputs of the training-time formula: FLOPs / (GPUs x dense peak x MFU)."""

    tokens: float
    active_params_b: float
    flops_per_param_token: int
    flops: float
    mfu: float
    precision: str
    formula: str


class InferenceSpeed(BaseModel):
    """The inputs of the TTFT/TPOT estimates (per candidate in Candidate.ttft_s / tpot_ms)."""

    label: str
    prompt_tokens: int
    concurrency: int
    bandwidth_efficiency: float
    prefill_mfu: float
    formula: str
    # One request's prompt behind Candidate.ttft_one_s, and whether it is the default (no prompt
    # length or context given; bot.sizing.estimate.DEFAULT_PROMPT_TOKENS).
    one_prompt_tokens: int | None = None
    one_prompt_default: bool = False


class SizingNote(BaseModel):
    """An assumption that decided the sizing, as a stable code with its parameters; its text is the
    message `sizing.<code>` (bot/messages/sizing.yaml), in English and Chinese (issue #27)."""

    code: str
    params: dict[str, float | int | str] = Field(default_factory=dict)


class Estimate(BaseModel):
    memory_gb: MemoryBreakdown | None = None
    assumptions: list[str] = Field(default_factory=list)
    # The assumptions that decided the verdict (usable bytes, KV replication, PP, recompute,
    # attention kernel, MFU basis), coded for the message catalog (issue #27).
    notes: list[SizingNote] = Field(default_factory=list)
    time: TrainingTime | None = None
    inference: InferenceSpeed | None = None


class Candidate(BaseModel):
    gpu: str
    count: int
    fits: bool
    need_gb: float
    have_gb: float
    headroom_gb: float
    # Multi-GPU plan and speed (issue #4); None where not computed.
    plan: str | None = None
    strategy: str | None = None
    interconnect: str | None = None
    interconnect_ok: bool | None = None
    interconnect_note: str | None = None
    nodes: int | None = None
    smallest_fit: bool | None = None
    memory_gb: MemoryBreakdown | None = None
    hours: float | None = None
    ttft_s: float | None = None
    tpot_ms: float | None = None
    tokens_per_s: float | None = None
    # One request's TTFT prefilled on its own, at InferenceSpeed.one_prompt_tokens (ttft_s prefills
    # every concurrent request's whole context at once).
    ttft_one_s: float | None = None
    # Issue #27: which memory figure `have_gb` is ("measured": an idle GPU's free bytes from a real
    # nvidia-smi -q capture; "marketing": the spec sheet), the plan's TP/PP degrees, CPU memory per node
    # an offload plan needs, and the recompute the plan assumed when it differs from the estimate's.
    memory_basis: str | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    cpu_memory_gb: float | None = None
    recompute: str | None = None
    gpu_hours: float | None = None


class Cost(BaseModel):
    label: str
    gpu: str | None = None
    hourly_rate: float
    hours: float
    total: float
    currency: str = "USD"
    # The rate's origin, which the renderers read ("your quote" vs a dated table row vs an example row).
    origin: CostOrigin = "quote"
    # Cost-to-complete details (issue #4); None for costs stated in the question.
    gpus: int | None = None
    rate_per_gpu: float | None = None
    billing: str | None = None
    billed_hours: float | None = None
    provider: str | None = None
    quoted_on: str | None = None
    stale: bool | None = None
    note: str | None = None
    # No duration could be known: one hour at the quoted rate, so only the rates are compared.
    per_hour_only: bool = False
    # An instance rented whole (a row imported from a provider catalog): its type, region and GPUs.
    instance_type: str | None = None
    region: str | None = None
    instance_gpus: int | None = None
    cheapest: bool | None = None
    fastest: bool | None = None


class Finding(BaseModel):
    rule: str
    topic: Topic
    severity: Severity
    message: str
    because: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    # key: part of the default answer; more: shown on request ("More", "--full").
    tier: Literal["key", "more"] = "more"


VerdictAnswer = Literal["yes", "no", "tight", "depends", "info", "ask"]


class Verdict(BaseModel):
    """The answer to the question that was asked, first, with its deciding number."""

    answer: VerdictAnswer
    text: str
    rule: str
    because: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class ObjectiveCheck(BaseModel):
    """One of the user's objectives judged on one option (issue #24): memory, budget, deadline, TTFT,
    TPOT, market. `met` is None when it cannot be judged (unpriced, no timing); `margin_pct` is how
    far inside (+) or outside (-) the target the option is, as a percentage of the target."""

    model_config = ConfigDict(extra="forbid")

    objective: Literal["memory", "budget", "deadline", "ttft", "tpot", "market"]
    met: bool | None
    value: float | None = None
    target: float | None = None
    margin_pct: float | None = None
    unit: str = ""


class Recommendation(BaseModel):
    """One ranked option: the user's setup when it works, else the cheapest changes that do."""

    rank: int
    kind: str = Field(description="stated, batch, strategy, method, precision, kv-cache, concurrency, context, "
                                  "more-gpus, comfortable, compare")
    gpu: str | None = None
    count: int | None = None
    method: str | None = None
    precision: str | None = None
    plan: str | None = None
    strategy: str | None = None
    batch_size: int | None = Field(default=None, description="kind batch: the micro-batch per GPU")
    accumulation: int | None = Field(default=None, description="kind batch: gradient accumulation steps")
    fits: bool | None = None
    tight: bool = False
    need_gb: float | None = None
    have_gb: float | None = Field(default=None, description="usable GB per GPU (GiB), what fits is judged on")
    rated_gb: float | None = Field(default=None, description="the vendor's capacity figure per GPU (80 for an H100 80GB)")
    headroom_pct: float | None = None
    hours: float | None = None
    cost: float | None = None
    cost_per_hour: float | None = Field(default=None, description="the quoted rate, when no duration is known")
    currency: str | None = None
    why: str
    rule: str
    # Which of the user's objectives it meets, and by how much (bot.advice.options.judge).
    objectives: list[ObjectiveCheck] = Field(default_factory=list)


class AskAnswer(BaseModel):
    """The answer to one ask, in its own terms: `lead` is the line that answers it (a price for a
    price ask, the KV figure for a KV ask, "Yes, badly: …" for "will X hurt?"), `details` the few
    lines that support it. `rule`/`sources` say where the reasoning came from ("Why?", --full)."""

    kind: AskKind
    lead: str
    details: list[str] = Field(default_factory=list)
    label: str | None = None
    rule: str | None = None
    sources: list[str] = Field(default_factory=list)
    # Which of `Requirement.asks` this answers (its index), set by bot.compose.compose_all.
    ask_index: int | None = None
    # The composer's numbers, for code and --json (e.g. {"kv_cache_gib": 128.0}).
    figures: dict[str, float | str | None] = Field(default_factory=dict)


class Answer(BaseModel):
    requirement: Requirement
    estimate: Estimate = Field(default_factory=Estimate)
    candidates: list[Candidate] = Field(default_factory=list)
    costs: list[Cost] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    # Additions beyond the core contract.
    language: Language = "en"
    gpu_family: list[str] = Field(default_factory=list)
    rule_base_version: str = ""
    derivations: list[dict] = Field(default_factory=list)
    # The free-text parse (issue #3): language, slots, and the span each slot was read from.
    parse: dict | None = None
    # The advice (issue #11): the verdict first, ranked options, and what only "More" shows.
    verdict: Verdict | None = None
    recommendations: list[Recommendation] = Field(default_factory=list)
    more_questions: list[str] = Field(default_factory=list)
    # One answer per ask, in the order asked (issue #22); renderers lead with these.
    answers: list[AskAnswer] = Field(default_factory=list)
