"""What a paste was read as (issue #25): its blocks, the GPUs they describe, the Xid events, the
topology, and the error messages, all typed and bounded. `bot.diagnostics.paste.split_paste`
builds a `Paste`; the question's `Requirement.pasted` carries it to the fact builder (host facts,
judged by the same rules as an agent's probe) and to the `diagnose` composer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.diagnostics.mig import MAX_MIG_DEVICES, MigDevice
from bot.host_report import ProbeReport, XidEvent

MAX_BLOCKS = 64
MAX_ERRORS = 64
MAX_LINE = 300

BlockKind = Literal[
    "nvidia-smi-q",      # `nvidia-smi -q` text, whole or an excerpt (one GPU's block, the ECC section)
    "nvidia-smi-xml",    # `nvidia-smi -q -x`
    "nvidia-smi-csv",    # `nvidia-smi --query-gpu=… --format=csv` (with or without units)
    "nvidia-smi-table",  # plain `nvidia-smi`
    "nvidia-smi-topo",   # `nvidia-smi topo -m`
    "kernel-log",        # dmesg / kern.log / journalctl lines (NVRM: Xid …)
    "error",             # PyTorch / CUDA error messages and tracebacks
    "nccl",              # NCCL INFO / WARN log lines
]


class PasteBlock(BaseModel):
    """One block of pasted tool output: its format and where it was in the message (characters)."""

    model_config = ConfigDict(extra="forbid")

    kind: BlockKind
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    lines: int = Field(ge=0)
    # Recognised but not readable (truncated, edited): what was wrong, for the answer to say.
    problem: str | None = Field(default=None, max_length=MAX_LINE)


class GpuThresholds(BaseModel):
    """What `nvidia-smi -q` states beside a GPU's readings that the probe model does not keep:
    its temperature thresholds and its performance state."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    slowdown_temp_c: int | None = None
    shutdown_temp_c: int | None = None
    max_operating_temp_c: int | None = None
    pstate: str | None = Field(default=None, max_length=8)
    # The plain table's fan column reads "ERR!" (the driver cannot read the fan), and its compute mode.
    fan_error: bool | None = None
    compute_mode: Literal["Default", "E. Process", "E. Thread", "Prohibited"] | None = None


TopoLinkKind = Literal["X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "other"]


class TopoLink(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str = Field(max_length=16)
    b: str = Field(max_length=16)
    link: str = Field(max_length=16, description="as printed: NV18, PIX, SYS …")
    kind: TopoLinkKind
    nvlinks: int | None = Field(default=None, description="the # of NV#")


class Topology(BaseModel):
    """`nvidia-smi topo -m`: how each GPU pair (and GPU-NIC pair) is connected."""

    model_config = ConfigDict(extra="forbid")

    gpus: list[str] = Field(default_factory=list, max_length=1024)
    nics: list[str] = Field(default_factory=list, max_length=1024)
    gpu_links: list[TopoLink] = Field(default_factory=list)
    nic_links: list[TopoLink] = Field(default_factory=list)

    @property
    def nvlink_pairs(self) -> int:
        return sum(1 for link in self.gpu_links if link.kind == "NV")

    @property
    def pcie_pairs(self) -> int:
        return sum(1 for link in self.gpu_links if link.kind in ("PIX", "PXB", "PHB", "NODE", "SYS"))

    @property
    def cross_socket_pairs(self) -> int:
        return sum(1 for link in self.gpu_links if link.kind == "SYS")


ErrorKind = Literal[
    "arch-unsupported",     # "… with CUDA capability sm_120 is not compatible with the current PyTorch installation"
    "no-kernel-image",      # "no kernel image is available for execution on the device"
    "driver-too-old",       # "CUDA driver version is insufficient for CUDA runtime version" / "driver … too old"
    "oom",                  # "CUDA out of memory. Tried to allocate …"
    "illegal-address",      # "an illegal memory access was encountered"
    "ecc",                  # "uncorrectable ECC error encountered"
    "device-assert",        # "device-side assert triggered"
    "no-device",            # "no CUDA-capable device is detected" / "Found no NVIDIA driver"
    "cpu-build",            # "Torch not compiled with CUDA enabled"
    "missing-library",      # "libcudart.so.12: cannot open shared object file"
    "smi-no-driver",        # "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
    "nccl-error",           # ncclSystemError / ncclInternalError / NCCL WARN …
    "nccl-timeout",         # "Watchdog caught collective operation timeout"
    "nccl-ib-completion",   # "NET/IB : Got completion from peer … with status=12 …": a failed RDMA work completion
]


class ErrorReading(BaseModel):
    """One error message read for what matters in it: the GPU's arch and the build's arch list,
    the CUDA versions, an OOM's numbers (GiB)."""

    model_config = ConfigDict(extra="forbid")

    kind: ErrorKind
    line: str = Field(max_length=MAX_LINE)
    gpu_name: str | None = Field(default=None, max_length=80)
    arch: str | None = Field(default=None, max_length=16, description="the GPU's sm_XY")
    supported_archs: list[str] = Field(default_factory=list, max_length=64)
    driver_cuda: str | None = Field(default=None, max_length=16, description="CUDA the driver supports, when stated")
    tried_gib: float | None = None
    total_gib: float | None = None
    free_gib: float | None = None
    allocated_gib: float | None = None
    reserved_gib: float | None = None
    gpu_index: int | None = None
    ib_status: int | None = Field(default=None, ge=0, le=64, description="the ibv_wc_status of a failed RDMA completion")


class NcclReading(BaseModel):
    """What NCCL's own log lines say: its version, the transport it chose between nodes, the
    IB devices it found, and any warnings."""

    model_config = ConfigDict(extra="forbid")

    version: str | None = Field(default=None, max_length=32)
    transport: Literal["socket", "ib"] | None = None
    ib_devices: list[str] = Field(default_factory=list, max_length=64)
    socket_interfaces: list[str] = Field(default_factory=list, max_length=64)
    warnings: list[str] = Field(default_factory=list, max_length=32)
    p2p_disabled: bool | None = None
    ib_disabled: bool | None = None


# What a reading is, in the words the question's symptom slot uses (bot.nlu.lexicon.SYMPTOMS).
ERROR_SYMPTOMS: dict[str, str] = {
    "arch-unsupported": "no-kernel-image", "no-kernel-image": "no-kernel-image", "oom": "oom", "ecc": "ecc-errors",
    "driver-too-old": "cuda-error", "illegal-address": "cuda-error", "device-assert": "cuda-error",
    "no-device": "cuda-error", "cpu-build": "cuda-error", "missing-library": "cuda-error",
    "smi-no-driver": "cuda-error", "nccl-error": "nccl-error", "nccl-timeout": "nccl-error",
    "nccl-ib-completion": "nccl-error",
}
XID_SYMPTOMS: dict[int, str] = {79: "fallen-off-bus", 48: "ecc-errors",
                                63: "remapped-rows", 64: "remap-failure"}


class Paste(BaseModel):
    """Everything a message's pasted output says, read by the parsers the agent uses."""

    model_config = ConfigDict(extra="forbid")

    blocks: list[PasteBlock] = Field(default_factory=list, max_length=MAX_BLOCKS)
    # The GPUs of every nvidia-smi block, one report (a later block adds what an earlier one lacks).
    report: ProbeReport | None = None
    thresholds: list[GpuThresholds] = Field(default_factory=list)
    xids: list[XidEvent] = Field(default_factory=list)
    xids_truncated: bool = False
    topology: Topology | None = None
    errors: list[ErrorReading] = Field(default_factory=list, max_length=MAX_ERRORS)
    nccl: NcclReading | None = None
    # Kernel-log lines of the Linux OOM killer (oom-kill, oom_reaper): host memory, not the GPU's.
    host_oom: bool = False
    # The MIG GPU instances `nvidia-smi -L` lists (or the message names), in order.
    mig_devices: list[MigDevice] = Field(default_factory=list, max_length=MAX_MIG_DEVICES)
    # The driver and its CUDA as nvidia-smi printed them (a table header alone has them too).
    driver: str | None = Field(default=None, max_length=32)
    driver_cuda: str | None = Field(default=None, max_length=16)
    # Where each piece of the question is in the message: (position in the question, position in
    # the message, length); spans read from the question are moved back with `original`.
    question_map: list[tuple[int, int, int]] = Field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(b.kind for b in self.blocks))

    @property
    def has_hardware(self) -> bool:
        """The paste describes GPUs or their kernel log: judged by the host health rules."""
        return bool((self.report and self.report.gpus) or self.xids)

    @property
    def symptoms(self) -> list[str]:
        """The symptoms the pasted errors and Xids are, in order."""
        found = [ERROR_SYMPTOMS[e.kind] for e in self.errors] + [XID_SYMPTOMS[x.code] for x in self.xids
                                                                 if x.code in XID_SYMPTOMS]
        return list(dict.fromkeys(found))

    def original(self, position: int, end: bool = False) -> int:
        """A position in the question as a position in the message (`end`: just after a span)."""
        for q, o, n in self.question_map:
            if q <= position < q + n or (end and q < position <= q + n):
                return o + position - q
        last = self.question_map[-1] if self.question_map else (0, 0, 0)
        return last[1] + last[2] if self.question_map else position

    def threshold(self, index: int) -> GpuThresholds | None:
        return next((t for t in self.thresholds if t.index == index), None)
