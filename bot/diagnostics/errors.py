"""PyTorch / CUDA error messages and NCCL log lines -> typed readings, with the numbers in them.

`read_errors(text)` finds every known message in the text (a traceback, a log, or a sentence that
quotes the message); each becomes an ErrorReading once per kind and GPU. `read_nccl(lines)` reads
NCCL's own INFO/WARN lines: its version, the inter-node transport it chose (`NET/IB` or
`NET/Socket`), the devices, and warnings. Messages are matched by NVIDIA's and PyTorch's own
wording; nothing here guesses from free prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.diagnostics.models import MAX_ERRORS, MAX_LINE, ErrorReading, NcclReading

_GIB = {"gib": 1.0, "gb": 1.0, "mib": 1 / 1024, "mb": 1 / 1024, "kib": 1 / 1024 / 1024, "tib": 1024.0}

_ARCH = re.compile(r"(?P<gpu>NVIDIA [^\n]{2,60}?|[A-Z][\w ]{2,60}?) with CUDA capability (?P<arch>sm_\d{2,3}a?) is not "
                   r"compatible with the current PyTorch installation", re.I)
_ARCH_LOOSE = re.compile(r"(?:(?P<gpu>(?:NVIDIA )?(?:GeForce )?RTX \w{1,12}|[A-Z]\d{2,3}\w{0,12})\D{0,40}?)?CUDA capability "
                         r"(?P<arch>sm_\d{2,3}a?)\)? is not compatible", re.I)
_ARCH_LIST = re.compile(r"supports CUDA capabilities (?P<list>(?:sm_\d{2,3}a? ?){1,40})", re.I)
_DRIVER_FOUND = re.compile(r"driver on your system is too old \(found version (?P<v>\d{4,6})\)", re.I)
_OOM_TRIED = re.compile(r"(?:CUDA )?out of memory\. Tried to allocate (?P<n>[\d.]+) ?(?P<u>[GMK]i?B)", re.I)
_OOM_NEW = re.compile(r"GPU (?P<i>\d+) has a total capacity of (?P<t>[\d.]+) ?(?P<tu>[GMT]i?B) of which "
                      r"(?P<f>[\d.]+) ?(?P<fu>[GMK]i?B) is free", re.I)
_OOM_OLD = re.compile(r"\(GPU (?P<i>\d+); (?P<t>[\d.]+) ?(?P<tu>[GMT]i?B) total capacity; (?P<a>[\d.]+) ?(?P<au>[GMK]i?B) "
                      r"already allocated; (?P<f>[\d.]+) ?(?P<fu>[GMK]i?B) free", re.I)
_OOM_ALLOC = re.compile(r"(?P<a>[\d.]+) ?(?P<au>[GMK]i?B) is allocated by PyTorch, and (?P<r>[\d.]+) ?(?P<ru>[GMK]i?B) "
                        r"is reserved by PyTorch but unallocated", re.I)
_OOM_RESERVED_OLD = re.compile(r"(?P<r>[\d.]+) ?(?P<ru>[GMK]i?B) reserved in total by PyTorch", re.I)

# (kind, pattern) in the order they are reported.
_SIMPLE: list[tuple[str, re.Pattern]] = [
    ("no-kernel-image", re.compile(r"no kernel image is available", re.I)),
    ("driver-too-old", re.compile(r"CUDA driver version is insufficient for CUDA runtime version"
                                  r"|driver on your system is too old|cudaErrorInsufficientDriver"
                                  r"|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|forward compatibility was attempted", re.I)),
    ("illegal-address", re.compile(r"an illegal memory access was encountered|cudaErrorIllegalAddress", re.I)),
    ("ecc", re.compile(r"uncorrectable ECC error encountered|cudaErrorECCUncorrectable", re.I)),
    ("device-assert", re.compile(r"device-side assert triggered", re.I)),
    ("no-device", re.compile(r"no CUDA-capable device is detected|Found no NVIDIA driver on your system"
                             r"|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE", re.I)),
    ("cpu-build", re.compile(r"Torch not compiled with CUDA enabled", re.I)),
    ("missing-library", re.compile(r"lib(?:cudart|cublas\w*|cudnn\w*|nccl|cuda)\.so(?:\.[\d.]+)?: cannot open shared "
                                   r"object file", re.I)),
    ("smi-no-driver", re.compile(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver", re.I)),
    ("nccl-timeout", re.compile(r"Watchdog caught collective operation timeout|NCCL (?:communicator|operation) .{0,40}timed? ?out", re.I)),
    ("nccl-ib-completion", re.compile(r"NET/IB\s*:\s*Got completion from peer|IBV_WC_[A-Z_]+_ERR|ibv_poll_cq failed", re.I)),
    ("nccl-error", re.compile(r"nccl(?:System|Internal|Remote|UnhandledCuda|InvalidUsage|InvalidArgument)Error"
                              r"|NCCL error in:|NCCL WARN", re.I)),
]
# PyTorch's allocator ("CUDA out of memory", torch.OutOfMemoryError) and the CUDA runtime's own
# cudaErrorMemoryAllocation ("CUDA error: out of memory", what a kernel launch or cuBLAS reports)
_OOM_WORDS = r"CUDA out of memory|CUDA error: out of memory|(?:torch\.(?:cuda\.)?)?OutOfMemoryError"
ERROR_LINE = re.compile("|".join(p.pattern for _, p in _SIMPLE) + "|" + _ARCH_LOOSE.pattern + "|" + _OOM_TRIED.pattern
                        + r"|" + _OOM_WORDS, re.I)


def _gib(number: str, unit: str) -> float:
    return round(float(number) * _GIB.get(unit.lower(), 1.0), 2)


def _cuda_from_driver_number(number: str) -> str:
    """The driver API version in such messages: 11040 -> CUDA 11.4."""
    value = int(number)
    return f"{value // 1000}.{(value % 1000) // 10}"


def _line_of(text: str, start: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin: end if end != -1 else len(text)].strip()[:MAX_LINE]


def read_errors(text: str) -> list[ErrorReading]:
    """Every known error message in `text`, once per kind (the first occurrence, with its numbers)."""
    found: dict[str, ErrorReading] = {}
    arch = (_ARCH.search(text) or _ARCH_LOOSE.search(text)) if "capability" in text.lower() else None
    if arch:
        listed = _ARCH_LIST.search(text, arch.end())
        found["arch-unsupported"] = ErrorReading(
            kind="arch-unsupported", line=_line_of(text, arch.start()), gpu_name=(arch["gpu"] or "").strip()[:80] or None,
            arch=arch["arch"].lower(), supported_archs=listed["list"].split()[:64] if listed else [])
    oom = _OOM_TRIED.search(text)
    if oom is None:
        oom = re.search(_OOM_WORDS, text, re.I)
    if oom:
        reading = ErrorReading(kind="oom", line=_line_of(text, oom.start()))
        if oom.re is _OOM_TRIED:
            reading.tried_gib = _gib(oom["n"], oom["u"])
        new, old = _OOM_NEW.search(text), _OOM_OLD.search(text)
        if new:
            reading.gpu_index, reading.total_gib, reading.free_gib = (
                int(new["i"]), _gib(new["t"], new["tu"]), _gib(new["f"], new["fu"]))
        elif old:
            reading.gpu_index, reading.total_gib, reading.allocated_gib, reading.free_gib = (
                int(old["i"]), _gib(old["t"], old["tu"]), _gib(old["a"], old["au"]), _gib(old["f"], old["fu"]))
        alloc = _OOM_ALLOC.search(text)
        if alloc:
            reading.allocated_gib, reading.reserved_gib = _gib(alloc["a"], alloc["au"]), _gib(alloc["r"], alloc["ru"])
        elif (reserved := _OOM_RESERVED_OLD.search(text)) is not None:
            reading.reserved_gib = _gib(reserved["r"], reserved["ru"])
        found["oom"] = reading
    for kind, pattern in _SIMPLE:
        match = pattern.search(text)
        if match and kind not in found:
            reading = ErrorReading(kind=kind, line=_line_of(text, match.start()))
            if kind == "driver-too-old" and (driver := _DRIVER_FOUND.search(text)) is not None:
                reading.driver_cuda = _cuda_from_driver_number(driver["v"])
            if kind == "nccl-ib-completion":
                reading.ib_status = _ib_status(text)
            found[kind] = reading
    if "nccl-ib-completion" in found:
        found.pop("nccl-error", None)  # the failed completion says what the NCCL WARN lines around it are
    return list(found.values())[:MAX_ERRORS]


# ibv_wc_status (rdma-core's verbs.h, in enum order) by name, for logs that print the name instead of the number
_IBV_STATUS = {"LOC_LEN_ERR": 1, "LOC_QP_OP_ERR": 2, "LOC_PROT_ERR": 4, "WR_FLUSH_ERR": 5, "REM_ACCESS_ERR": 10,
               "REM_OP_ERR": 11, "RETRY_EXC_ERR": 12, "RNR_RETRY_EXC_ERR": 13}
_STATUS = re.compile(r"status\s*[=:]\s*(?P<n>\d{1,2})\b|IBV_WC_(?P<name>[A-Z_]+_ERR)", re.I)


def _ib_status(text: str) -> int | None:
    """The first failed completion's ibv_wc_status: "with status=12", "IBV_WC_RETRY_EXC_ERR"."""
    for m in _STATUS.finditer(text):
        if m["n"] is not None:
            return int(m["n"]) if int(m["n"]) <= 64 else None
        if (n := _IBV_STATUS.get(m["name"].upper())) is not None:
            return n
    return None


NCCL_LINE = re.compile(r"\bNCCL (?:INFO|WARN|version)\b|NCCL_[A-Z_]+=")
_NCCL_VERSION = re.compile(r"NCCL version (?P<v>\d+\.\d+\.\d+)(?:\+cuda(?P<cuda>[\d.]+))?")
_NET_IB = re.compile(r"NET/IB\s*:\s*Using\s*(?P<devs>.+)$")
_NET_SOCKET = re.compile(r"NET/Socket\s*:\s*Using\s*(?P<ifs>.+)$")
_NCCL_ENV = re.compile(r"NCCL_(?P<name>IB_DISABLE|P2P_DISABLE)\s*(?:=|set by environment to)\s*(?P<v>\d)")


def read_nccl(lines: Iterable[str]) -> NcclReading | None:
    """What NCCL's log lines say; None when none is an NCCL line."""
    reading = NcclReading()
    seen = False
    for line in lines:
        if not NCCL_LINE.search(line) and "NET/" not in line:
            continue
        seen = True
        if (version := _NCCL_VERSION.search(line)) is not None:
            reading.version = reading.version or version["v"]
        if (ib := _NET_IB.search(line)) is not None:
            reading.transport = "ib"
            reading.ib_devices = re.findall(r"\[\d+\]([\w.:/-]+)", ib["devs"])[:64]
        elif (sock := _NET_SOCKET.search(line)) is not None and reading.transport != "ib":
            reading.transport = "socket"
            reading.socket_interfaces = re.findall(r"\[\d+\]([\w.-]+)", sock["ifs"])[:64]
        elif "NET/Socket" in line and reading.transport is None:
            reading.transport = "socket"  # "Using [0]eth0…", or the user quoting what the log said
        if (env := _NCCL_ENV.search(line)) is not None:
            setattr(reading, "ib_disabled" if env["name"] == "IB_DISABLE" else "p2p_disabled", env["v"] == "1")
        if " WARN " in line and len(reading.warnings) < 32:
            reading.warnings.append(line.strip()[:MAX_LINE])
    return reading if seen else None
