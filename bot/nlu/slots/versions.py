"""Driver and CUDA versions: 'driver 535.104', '驱动版本 550', 'CUDA 12.1', 'cu121', pasted `nvcc
--version` output -> driver, cuda; the "CUDA Version" nvidia-smi prints -> driver_cuda."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.model import ParseError
from bot.nlu.scan import Scan

_CUDA = lx.rx(
    r"\B<cuda\s*(?:toolkit\s*)?(?:version\s*|版本\s*)?(?:is\s+|=\s*|:\s*|v|是\s*|为\s*)?([0-9]{1,2}(?:\.[0-9]{1,2}){0,2})(?![0-9.]*[0-9])>\E"
    r"|\B<cu([0-9]{2})([0-9])>\E"
)
_SMI_HEADER = re.compile(r"CUDA Version:")  # nvidia-smi's own header, capitalised as it prints it
_CU_WHEEL = re.compile(r"(?<![a-z0-9])cu[0-9]{3}(?![0-9])")
_SMI_BEFORE = re.compile(r"nvidia-smi[^.;,，。]{0,20}$|smi\s*(?:shows|says|显示|里)[^.;,，。]{0,12}$")
_DRIVER = lx.rx(
    r"(?:\B<(?:nvidia\s+)?driver\s*(?:version\s*)?(?:(?:upgrade[ds]?|update[ds]?|is|was|now|at|of|version)\s+){0,3}(?:to\s+|=\s*|:\s*|v|r|是\s*|为\s*)?"
    r"|驱动\s*(?:版本)?\s*(?:升级到|更新到|是|为|:)?\s*)"
    r"([0-9]{3}(?:\.[0-9]{1,3}){0,2})(?![0-9.]*[0-9])"
    # "535 driver", "R550 驱动"; not a model number's digits ("H100 driver 525.60": the H100's 100)
    r"|(?<![0-9.A-QS-Za-qs-z])([0-9]{3}(?:\.[0-9]{1,3}){0,2})\s*(?:driver>\E|驱动)"
)
# Pasted `nvcc --version` output: "Cuda compilation tools, release 11.8, V11.8.89".
_NVCC_RELEASE = lx.rx(r"\B<(?:nvcc|cuda\s+compilation\s+tools)>\E[^\n]{0,60}?\B<(release\s+([0-9]{1,2}\.[0-9]{1,2}))(?![0-9.]*[0-9])")


# "our A100 nodes are on 535", "我们机器是 535": a driver branch named by the machines running it, read
# only when the message is about CUDA or drivers at all.
_HOST_DRIVER = lx.rx(
    r"\B<(?:machines?|nodes?|hosts?|boxes?|servers?|clusters?)\s+(?:are|is|run|runs|running)?\s*(?:on|at)>\E\s+"
    r"([4-6][0-9]{2}(?:\.[0-9]{1,3}){0,2})(?![0-9.]*[0-9])(?!\s*(?:gb|w\b|mhz|tflops|g\b))"
    # "我们机器是 535", "集群上现在是 525", "节点目前装的 550"
    r"|(?:机器|机子|节点|服务器|主机|宿主机|集群)\s*上?\s*(?:现在|目前|都)?\s*(?:是|用的是|装的是|跑的是|装的|用的)\s*"
    r"([4-6][0-9]{2}(?:\.[0-9]{1,3}){0,2})(?![0-9.]*[0-9])(?!\s*(?:gb|g\b|w\b|瓦|块|张|台))"
)
_ABOUT_VERSIONS = lx.rx(r"\B<(?:cuda|cu1[0-9]{2}|driver|wheel|toolkit|nvcc)>\E|驱动")


def extract(scan: Scan) -> None:
    for m in scan.matches(_NVCC_RELEASE):
        scan.set("cuda", m.group(2), m.start(1), m.end(1))
    for m in scan.matches(_DRIVER):
        scan.set("driver", m.group(1) or m.group(2), m.start(), m.end())
    if "driver" not in scan.fields and _ABOUT_VERSIONS.search(scan.text):
        for m in scan.matches(_HOST_DRIVER):
            scan.set("driver", m.group(1) or m.group(2), m.start(), m.end())
            break
    for m in scan.matches(_CUDA):
        # "nvidia/cuda:12.8.0-runtime": the release is its major.minor (NVIDIA's driver table is per release)
        version = ".".join((m.group(1) or f"{int(m.group(2))}.{m.group(3)}").split(".")[:2])
        if not 1 <= int(version.split(".")[0]) <= 30:
            raise ParseError("cuda", f"CUDA version {version} ({scan.written(m)!r}) is not a CUDA release")
        if m.group(1) and _from_nvidia_smi(scan, m) and "driver_cuda" not in scan.fields:
            scan.set("driver_cuda", version, m.start(), m.end())
        else:
            scan.set("cuda", version, m.start(), m.end())


def _from_nvidia_smi(scan: Scan, m: re.Match) -> bool:
    """The "CUDA Version" nvidia-smi prints is the newest CUDA the driver supports, not the toolkit;
    a wheel tag (cu124) next to it is the toolkit."""
    if _SMI_BEFORE.search(scan.text, max(0, m.start() - 30), m.start()) or _SMI_HEADER.match(scan.original, m.start()):
        return True
    return bool(_CU_WHEEL.search(scan.text)) and not _CU_WHEEL.match(scan.text, m.start())
