"""The reference lines the acceptance answers share (bot.compose.checklist and the composers that judge a
measured figure or a fabric): the GPU the question is about, the nodes it names, each board's NVLink
links and the single-node all-reduce busbw to pass and to reject. A module of its own so that the
composers the checklist calls can read them without importing the checklist back.
"""

from __future__ import annotations

import re

from bot.advice.options import representative
from bot.compose import ComposeContext
from bot.knowledge import UnknownNameError
from bot.messages import say
from bot.messages.format import count

# nccl-tests busbw of an all-reduce inside an NVSwitch node is bounded by the NVLink bandwidth one GPU
# carries per direction (half the bidirectional catalog figure); healthy boards reach ~75-95% of it
# (A800 ~150-170 of 200, A100 ~230 of 300). Hopper boards with all 18 NVLinks (900 GB/s: H100, H200,
# H20) reduce in the NVSwitch (NVLink SHARP) and read ~460-480 GB/s at large sizes, above the 450 per
# direction; more than 20% under that is a fault (alayanew-nccl-tests: a cloud's acceptance figures).
BUSBW_PASS = 0.75
BUSBW_FAIL = 0.60
NVLS_TYPICAL_GBS = (460, 480)
NVLS_SHORTFALL = 0.80


def _nodes(ctx: ComposeContext) -> int | None:
    # "16 nodes", "16 HGX H200 nodes", "16 台": not "H100 node", nor "400G IB per node"
    m = re.search(r"(?<![A-Za-z0-9.])([0-9]+)\s*(?:-\s*)?(?:nodes?|台|机)|(?<![A-Za-z0-9.])([0-9]+)\s+(?:(?!of\b|per\b)[A-Za-z][\w-]*\s+){1,2}nodes\b",
                  ctx.question or "", re.IGNORECASE)
    if m:
        return int(m.group(1) or m.group(2))
    count = ctx.requirement.gpu_count
    return -(-count // 8) if count and count > 8 else None


def _spec(ctx: ComposeContext):
    """The GPU the checklist is for: a family ("H100") as the advisor judges it, on its SXM variant."""
    gpu = ctx.requirement.gpu
    if not gpu:
        return None
    try:
        return representative(ctx.catalog, gpu)
    except UnknownNameError:
        return None


def is_sxm(spec) -> bool:
    """An SXM module on an NVSwitch (or NVLink-meshed) baseboard: every GPU pair on NVLink."""
    return "SXM" in spec.form_factor.upper()


def nvlink_links(spec) -> tuple[int, float]:
    """NVLink links per GPU and each one's bandwidth per direction: NVLink 3/4 (Ampere, Hopper) carry
    25 GB/s per direction a link (A100 12, A800/H800 8, H100 18), NVLink 5 (Blackwell) 50."""
    per_dir = 50.0 if spec.cc_number >= 10 else 25.0
    return round(spec.nvlink_bandwidth_gbs / (2 * per_dir)), per_dir


def busbw_figures(spec, lang: str) -> dict[str, str]:
    """The single-node all-reduce busbw to pass and to reject, and the basis of the pass line: the
    typical NVLink SHARP figure on full-NVLink Hopper boards, else 75% of the NVLink per direction."""
    per_dir = spec.nvlink_bandwidth_gbs / 2
    fail = count(round(per_dir * BUSBW_FAIL, -1))
    if nvls_board(spec):
        low, high = NVLS_TYPICAL_GBS
        return {"busbw": count(round(low * NVLS_SHORTFALL, -1)), "fail": fail, "typical": f"{low}-{high}",
                "basis": say("checklist.busbw_basis_nvls", lang, typical=f"{low}-{high}", per_dir=count(per_dir))}
    nvls = say("checklist.accept_nccl_nvls", lang) if spec.cc_number >= 9.0 else ""
    return {"busbw": count(round(per_dir * BUSBW_PASS, -1)), "fail": fail, "typical": "",
            "basis": say("checklist.busbw_basis_ratio", lang, per_dir=count(per_dir), nvlink=count(spec.nvlink_bandwidth_gbs),
                         nvls=nvls)}


def nvls_board(spec) -> bool:
    """A Hopper SXM board with all 18 NVLinks (900 GB/s a GPU): its NVSwitch reduces in the fabric."""
    return is_sxm(spec) and 9.0 <= spec.cc_number < 10 and (spec.nvlink_bandwidth_gbs or 0) >= 900
