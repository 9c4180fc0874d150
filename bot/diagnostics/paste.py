"""Pasted tool output in a message: found first, read by the agent's parsers, kept away from the
question's slot extractors (issue #25).

`split_paste(text) -> (question_text, paste)` walks the message line by line and takes out each
block of tool output it recognises:

- `nvidia-smi -q -x` XML, `nvidia-smi -q` text (whole, cut to a few GPUs, or one section such as
  ECC Errors / Remapped Rows / Clocks Event Reasons), the plain `nvidia-smi` table,
  `--query-gpu` CSV (header row required; units or not), `nvidia-smi topo -m`;
- kernel-log lines (dmesg, `dmesg -T`, kern.log, journalctl) with `NVRM:`;
- NCCL INFO/WARN lines; Python tracebacks and CUDA / PyTorch error lines.

What is left is the question, joined with newlines where blocks were cut out (spans the parser
reports refer to that question text). Error messages quoted inside a sentence stay in the
question and are read too. Readings written inline ("SW Thermal Slowdown: Active, 88℃, 300/700 W")
become one GPU's readings and are taken out of the question, so "700 W" is not read as a PSU.

Bounded: a message of more than MAX_PASTE_CHARS raises PasteTooLong (say which block to paste);
at most MAX_BLOCKS blocks; every parser bounds its own rows. A block that is recognised but
cannot be read (a truncated XML) is kept with its `problem`, never raised.
"""

from __future__ import annotations

import re

from bot.diagnostics.errors import ERROR_LINE, NCCL_LINE, read_errors, read_nccl
from bot.diagnostics.kernel_log import XID_LINE, parse_xids
from bot.diagnostics.mig import read_mig_devices
from bot.diagnostics.models import MAX_BLOCKS, GpuThresholds, Paste, PasteBlock
from bot.diagnostics.query_gpu import is_header, parse_query_csv
from bot.diagnostics.smi import SmiParseError, gpu_sections, parse_excerpt, parse_text, parse_xml, read_q_versions, thresholds
from bot.diagnostics.table import flat_rows, parse_table, read_header
from bot.diagnostics.topo import parse_topo
from bot.errors import InputError
from bot.host_report import CLOCK_EVENT_REASONS, GpuProbe, ProbeReport

MAX_PASTE_CHARS = 256_000
MAX_XIDS = 200

# Anything that could start a block; a message without one is returned untouched, at once.
_ANY = re.compile(r"NVSMI LOG|nvidia_smi_log|NVIDIA-SMI|GPU0\s|NVRM|NCCL|Traceback|Error|error|Warning|"
                  r"[A-Za-z]\s{2,}:|, *[a-z_]+\.[a-z_.]+|Active|Slowdown|Remap|Pending|MIG|E\. Process|MiB\s*/\s*\d+\s*MiB\s*\|", re.I)
_KV = re.compile(r"^\s*[A-Za-z][^:\n]{0,70}?\s{2,}:\s?.*$|^\s+[A-Za-z][^:\n]{0,70}?\s+:\s?.*$")
_GPU_HEADER = re.compile(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*$")
_TABLE_START = re.compile(r"^\s*[+|]-{10,}|NVIDIA-SMI \d")
_TOPO_HEADER = re.compile(r"^\s*(?:\x1b\[[0-9;]*m|\[4m)?GPU0\s+(?:GPU1|NIC0|CPU Affinity|NV\d|X\b)")
_TOPO_LINE = re.compile(r"^\s*(?:GPU\d+|NIC\d+)\s|^\s*$|^Legend|^\s+[A-Z#]+\s+=|^NIC Legend|^\s+NIC\d+:")
_KERNEL_LINE = re.compile(r"NVRM:|^\s*\[\s*\d+\.\d+\]|^\w{3} +\d+ \d\d:\d\d:\d\d \S+ kernel:|^kern\s+:")
_TRACE_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_EXCEPTION_LINE = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception|Warning)\b:?|^\s*\[rank\d+\]|^\s*CUDA error:"
                             r"|^\s*(?:terminate called|what\(\):)|^\s*\S+:\d+:\d+ \[\d+\] "
                             r"|^\s*(?:CUDA kernel errors might be|For debugging consider passing|Compile with .TORCH_USE_CUDA_DSA)")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# "..." where the user cut lines out of a block: the block goes on after it.
_ELISION = re.compile(r"^\s*(?:\.{3,}|…+|\[\.{3}\]|\[…\]|<snip>|\(snip\))\s*$")


class PasteTooLong(InputError):
    """A message with more pasted output than the advisor reads."""


def split_paste(text: str) -> tuple[str, Paste | None]:
    """The question without its pasted blocks, and what the blocks say (None when there are none)."""
    if len(text) > MAX_PASTE_CHARS:
        raise PasteTooLong("question", f"{len(text):,} characters is too long: this advisor reads up to "
                           f"{MAX_PASTE_CHARS:,} characters of pasted output. Paste the GPU's block (one "
                           "'GPU 0000…' section of nvidia-smi -q, or the --query-gpu row), or the lines around "
                           "the error, not the whole log")
    if not _ANY.search(text) and not ERROR_LINE.search(text):
        return text, None
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found = _find_blocks([line.rstrip("\r\n") for line in lines])
    removed = [_block_span(lines, offsets, kind, start, end) for kind, start, end in found]
    if found:  # nvidia-bug-report.log framing between its sections ("____…", "*** /usr/bin/nvidia-smi --query")
        removed += [(offsets[i], offsets[i + 1]) for i, line in enumerate(lines) if _BUG_REPORT_FRAME.match(line)]
    question, pieces = _cut(text, removed)
    inline, cut = _inline_readings(question)
    rows, row_extras, row_cut = flat_rows(question)
    gpus = [inline] if inline is not None else rows
    cut += row_cut
    if cut:
        removed += [(_to_original(pieces, a), _to_original(pieces, b, end=True)) for a, b in cut]
        question, pieces = _cut(text, removed)
    paste = _read(text, lines, offsets, found, gpus, row_extras if inline is None else [])
    if paste is None:
        return text, None
    paste.mig_devices = read_mig_devices(question)
    paste.question_map = pieces
    _one_gpu_as_stated(paste, question)
    return question, paste


# nvidia-smi's header quoted inside a sentence: 'the box shows "NVIDIA-SMI 535.161.08  Driver Version: 535.161.08
# CUDA Version: 12.2", 8x H100. will it run?'
_HEADER_IN_PROSE = re.compile(r"NVIDIA-SMI\s+[\d.]+.*?CUDA Version:\s*[\d.]+[\"'”’]?")


def _block_span(lines: list[str], offsets: list[int], kind: str, start: int, end: int) -> tuple[int, int]:
    """Where a block lies in the message: its lines, or only the header where a one-line table is nvidia-smi's
    header quoted in a sentence (the words around it are the question)."""
    if kind == "nvidia-smi-table" and end == start + 1:
        line = lines[start]
        header = _HEADER_IN_PROSE.search(line)
        if header is not None and (line[:header.start()].strip() or line[header.end():].strip(" |\r\n")):
            return offsets[start] + header.start(), offsets[start] + header.end()
    return offsets[start], offsets[end]


# "job on gpu 3 … died", "`nvidia-smi -q -i 3`": the one GPU a single-GPU block is about.
_STATED_GPU = re.compile(r"\bgpu\s*#?\s*([0-9]{1,2})\b(?!\s*(?:x|×|gpus?|cards?|nodes?|hours?|%))|nvidia-smi\b[^\n]*?\s(?:-i|--id[= ])\s*([0-9]{1,2})\b"
                         r"|(?:第\s*)?([0-9]{1,2})\s*号\s*(?:卡|GPU)", re.IGNORECASE)


def _one_gpu_as_stated(paste: Paste, question: str) -> None:
    """A block of one GPU, printed without its index (`nvidia-smi -q` excerpts read as GPU 0), is the GPU
    the question names when it names exactly one ("job on gpu 3"); without a bus id it takes the PCI
    address of the one GPU the pasted Xid lines name. The findings then say "GPU 3 (…, 00000000:4E:00.0)"."""
    report = paste.report
    if report is None or len(report.gpus) != 1:
        return
    gpu = report.gpus[0]
    update: dict = {}
    named = {int(next(g for g in m.groups() if g)) for m in _STATED_GPU.finditer(question)}
    if gpu.index == 0 and len(named) == 1 and (n := named.pop()) < 64:
        update["index"] = n
    pcis = {e.pci for e in paste.xids}
    if not gpu.bus_id and len(pcis) == 1:
        update["bus_id"] = _pci_bus(pcis.pop())
    if not update:
        return
    report.gpus[0] = gpu.model_copy(update=update)
    if "index" in update:
        paste.thresholds = [t.model_copy(update={"index": update["index"]}) if t.index == 0 else t for t in paste.thresholds]


def _pci_bus(pci: str) -> str:
    """'0000:4e:00' (an Xid line's address) as nvidia-smi writes a bus id: '00000000:4E:00.0'."""
    domain, _, rest = pci.partition(":")
    return f"{domain.zfill(8)}:{rest.upper()}.0" if rest and "." not in rest else pci.upper()


_BUG_REPORT_FRAME = re.compile(r"^(?:_{20,}|\*\*\* .*|Start of NVIDIA bug report log file.*|End of NVIDIA bug report log file.*)\s*$")
_FILLER = re.compile(r"^[\s,;，；、。.]*$")


def _cut(text: str, removed: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int, int]]]:
    """The text without the removed character ranges, and the pieces kept as (position in the
    result, position in `text`, length). A piece of only punctuation between cuts is dropped, and
    the result is stripped."""
    spans, cursor = [], 0
    for start, end in sorted(removed):
        if start > cursor:
            spans.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < len(text):
        spans.append((cursor, len(text)))
    kept = [(a, b) for a, b in spans if not _FILLER.match(text[a:b])] if removed else spans
    out: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    length = 0
    for a, b in kept:
        if out and not (out[-1][-1:].isspace() or text[a:a + 1].isspace()):
            out.append(" ")
            length += 1
        pieces.append((length, a, b - a))
        out.append(text[a:b])
        length += b - a
    joined = "".join(out)
    lead = len(joined) - len(joined.lstrip())
    question = joined.strip()
    pieces = [(q - lead, o, n) for q, o, n in pieces]
    return question, [(max(q, 0), o + max(0, -q), n - max(0, -q)) for q, o, n in pieces if q + n > 0]


def _to_original(pieces: list[tuple[int, int, int]], position: int, end: bool = False) -> int:
    """A position in the question as a position in the message (`end`: the position after a span)."""
    for q, o, n in pieces:
        if q <= position < q + n or (end and q < position <= q + n):
            return o + position - q
    return pieces[-1][1] + pieces[-1][2] if pieces else position


# -- finding blocks ----------------------------------------------------------------------------


def _find_blocks(lines: list[str]) -> list[tuple[str, int, int]]:
    """(kind, first line, line after the last) for each block, in order."""
    blocks: list[tuple[str, int, int]] = []
    i, n = 0, len(lines)
    while i < n and len(blocks) < MAX_BLOCKS:
        line = lines[i]
        end, kind = None, None
        if "<?xml" in line or "<nvidia_smi_log" in line or "<!DOCTYPE nvidia_smi_log" in line:
            kind = "nvidia-smi-xml"
            end = next((j + 1 for j in range(i, n) if "</nvidia_smi_log>" in lines[j]), n)
        elif "NVSMI LOG" in line or _GPU_HEADER.match(line) or _starts_q_run(lines, i):
            kind, end = "nvidia-smi-q", _q_run_end(lines, i)
            if end is None:
                kind = None
        elif _TABLE_START.search(line) and _is_table(lines, i):
            kind, end = "nvidia-smi-table", _table_end(lines, i)
        elif _TOPO_HEADER.match(line):
            kind, end = "nvidia-smi-topo", _run_end(lines, i + 1, lambda s: bool(_TOPO_LINE.match(s)))
        elif "," in line and is_header(line):
            kind, end = "nvidia-smi-csv", _run_end(lines, i + 1, lambda s: "," in s)
        elif (XID_LINE.search(line) or ("NVRM" in line and _KERNEL_LINE.search(line))) and not _CJK.search(line):
            kind, end = "kernel-log", _run_end(lines, i + 1, lambda s: bool(_KERNEL_LINE.search(s) or XID_LINE.search(s))
                                               and not _CJK.search(s))
        elif _NCCL_START.search(line) or (NCCL_LINE.search(line) and "NET/" in line):
            kind, end = "nccl", _run_end(lines, i + 1, lambda s: bool(NCCL_LINE.search(s)))
        elif _TRACE_START.match(line):
            kind, end = "error", _traceback_end(lines, i)
        elif _is_error_line(line):
            kind, end = "error", _run_end(lines, i + 1, _is_error_line)
        if kind is None or end is None:
            i += 1
            continue
        if kind == "nvidia-smi-table" and i > 0 and re.match(r"^\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}\s*$", lines[i - 1]):
            i -= 1  # the timestamp line nvidia-smi prints above its table
            if blocks and blocks[-1][2] > i:
                i += 1
        blocks.append((kind, i, end))
        i = end
    return blocks


# A line NCCL printed, or a variable set ("export NCCL_IB_HCA=mlx5_0"), or one quoting the transport it chose: a
# prose line that only names a variable ("…NCCL_DEBUG=INFO shows:") stays in the question, with the setup it states
_NCCL_START = re.compile(r"\bNCCL (?:INFO|WARN|version)\b|^\s*(?:export\s+|\$\s*)?NCCL_[A-Z_]+=|set by environment to")


def _run_end(lines: list[str], j: int, belongs) -> int:
    while j < len(lines) and lines[j].strip() and belongs(lines[j]):
        j += 1
    return j


def _starts_other(line: str) -> bool:
    """The line opens a block of another format (it ends a `-q` run)."""
    return bool(XID_LINE.search(line) or "NVRM:" in line or _KERNEL_LINE.match(line) or NCCL_LINE.search(line)
                or _TRACE_START.match(line) or _TOPO_HEADER.match(line) or "NVIDIA-SMI" in line
                or ("," in line and is_header(line)))


def _starts_q_run(lines: list[str], i: int) -> bool:
    """A section of `-q` text without its header: 3+ `Key   : value` lines, or a title line over them."""
    head = lines[i]
    if _CJK.search(head) or len(head) > 120 or _starts_other(head):
        return False
    window = lines[i: i + 4]
    if _KV.match(head):
        # "Driver Version : …", "CUDA Version : …", "...", "GPU 00000000:81:00.0": the header lines over an elision
        near = [s for s in lines[i: i + 6] if not _ELISION.match(s)][:4]
        return sum(bool(_KV.match(s)) for s in window) >= 3 or (
            sum(bool(_KV.match(s)) for s in near) >= 2 and any(_GPU_HEADER.match(s) for s in near))
    return (bool(re.fullmatch(r"\s*[A-Z][\w /().-]{2,60}", head)) and len(lines) > i + 1
            and lines[i + 1].startswith((" ", "\t")) and sum(bool(_KV.match(s)) for s in lines[i + 1: i + 4]) >= 2)


def _q_run_end(lines: list[str], i: int) -> int | None:
    """The end of `-q` text from line i: `Key : value` lines, indented titles, blank lines inside."""
    j, kv = i + 1, int(bool(_KV.match(lines[i])))
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            nxt = next((k for k in range(j + 1, min(j + 3, len(lines))) if lines[k].strip()), None)
            if nxt is None or not (lines[nxt].startswith((" ", "\t")) or _GPU_HEADER.match(lines[nxt])
                                   or _KV.match(lines[nxt]) or lines[nxt].startswith("==")):
                break
            j += 1
            continue
        if _ELISION.match(line):
            j += 1
            continue
        if _CJK.search(line) or _starts_other(line):
            break
        if _KV.match(line):
            kv += 1
        elif not (line.startswith((" ", "\t", "=")) or _GPU_HEADER.match(line)):
            break
        j += 1
    return j if kv >= 3 else None


def _is_table(lines: list[str], i: int) -> bool:
    window = "\n".join(lines[i: i + 12])
    return "NVIDIA-SMI" in window and "Driver Version" in window


def _table_end(lines: list[str], i: int) -> int:
    j = i
    while j < len(lines):
        line = lines[j]
        if line.lstrip().startswith(("|", "+")) or "NVIDIA-SMI" in line:
            j += 1
            continue
        if not line.strip():
            nxt = next((k for k in range(j + 1, min(j + 3, len(lines))) if lines[k].strip()), None)
            if nxt is not None and lines[nxt].lstrip().startswith(("|", "+")):
                j = nxt
                continue
        break
    return j


def _traceback_end(lines: list[str], i: int) -> int:
    j = i + 1
    while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
        j += 1
    # the exception line(s) after the frames
    while j < len(lines) and lines[j].strip() and not _CJK.search(lines[j]) and (
            _EXCEPTION_LINE.match(lines[j]) or ERROR_LINE.search(lines[j])):
        j += 1
    return j


def _is_error_line(line: str) -> bool:
    """A line of a log or an exception, not a sentence of the question that quotes one."""
    if _CJK.search(line) or not ERROR_LINE.search(line):
        return False
    return bool(_EXCEPTION_LINE.match(line) or (line.rstrip().endswith((".", ")")) and not line.rstrip().endswith("?")))


# -- inline readings --------------------------------------------------------------------------

_REASON_NAMES = {"sw thermal slowdown": "sw_thermal_slowdown", "hw thermal slowdown": "hw_thermal_slowdown",
                 "hw power brake slowdown": "hw_power_brake_slowdown", "hw slowdown": "hw_slowdown",
                 "sw power cap": "sw_power_cap", "sync boost": "sync_boost", "idle": "gpu_idle",
                 "applications clocks setting": "applications_clocks_setting"}
_INLINE_REASON = re.compile(r"\b(?P<name>SW Thermal Slowdown|HW Thermal Slowdown|HW Power Brake Slowdown|HW Slowdown"
                            r"|SW Power Cap|Sync Boost)\s*[:：=]\s*(?P<state>Not Active|Active)", re.I)
_INLINE_TEMP = re.compile(r"(?<![\d.])(?P<t>\d{2,3})\s*(?:℃|°\s*C|度)")
_INLINE_POWER = re.compile(r"(?<![\d.])(?P<draw>\d{2,4}(?:\.\d+)?)\s*W?\s*/\s*(?P<cap>\d{2,4}(?:\.\d+)?)\s*W\b", re.I)
# nvidia-smi's own words for MIG mode, quoted ("MIG M. Enabled", "MIG mode: Enabled"), or a -L listing's MIG devices.
_INLINE_MIG = re.compile(r"\bMIG\s+(?:M\.|mode)\s*[:：=]?\s*(?:is\s+)?(?P<v>Enabled|Disabled)\b", re.I)
_INLINE_MEMORY = re.compile(r"(?<![\d.])(?P<used>\d{1,6})\s*MiB\s*/\s*(?P<total>\d{3,6})\s*MiB", re.I)
_INLINE_FLAG = re.compile(r"\b(?P<name>Remapping Failure Occurred|Pending)\s*[:：]\s*(?P<v>Yes|No)\b", re.I)


def _inline_readings(question: str) -> tuple[GpuProbe | None, list[tuple[int, int]]]:
    """Readings quoted in the sentence itself: clock-event reasons with their state (and then the
    temperature and power beside them), or remapped-row flags; and the spans they were read from."""
    reasons = list(_INLINE_REASON.finditer(question))
    flags = list(_INLINE_FLAG.finditer(question)) if re.search(r"remap|重映射", question, re.I) else []
    mig = _INLINE_MIG.search(question)
    mig_on = (mig is not None and mig["v"].lower() == "enabled") or (mig is None and bool(read_mig_devices(question)))
    if not reasons and not flags and not mig_on:
        return None, []
    values: dict = {"index": 0, "bus_id": ""}
    cut = [m.span() for m in reasons + flags]
    if mig_on:  # the MIG state, and the whole GPU's memory beside it ("55MiB / 143771MiB, MIG M. Enabled")
        values["mig_mode"] = True
        if (memory := _INLINE_MEMORY.search(question)) is not None:
            values["memory_used_mib"], values["memory_total_mib"] = int(memory["used"]), int(memory["total"])
    if reasons:
        active = {_REASON_NAMES[m["name"].lower()] for m in reasons if m["state"].lower() == "active"}
        values["clock_event_reasons"] = sorted(active, key=lambda n: CLOCK_EVENT_REASONS[n])
        if (temp := _INLINE_TEMP.search(question)) is not None:
            values["temperature_c"] = int(temp["t"])
            cut.append(temp.span())
        if (power := _INLINE_POWER.search(question)) is not None:
            values["power_draw_w"], values["power_limit_w"] = float(power["draw"]), float(power["cap"])
            cut.append(power.span())
    for flag in flags:
        field = "remapped_rows_failure" if flag["name"].lower().startswith("remapping") else "remapped_rows_pending"
        values[field] = flag["v"].lower() == "yes"
    return GpuProbe(**values).mark_unsupported(), cut


def stated_load(text: str) -> tuple[float, float, int | None, int | None] | None:
    """(draw W, cap W, used MiB, total MiB) a message quotes from an nvidia-smi table in prose ("72W / 700W，
    1MiB / 81559MiB"), read with the inline readers above; None without a power pair."""
    power = _INLINE_POWER.search(text)
    if power is None:
        return None
    memory = _INLINE_MEMORY.search(text)
    return (float(power["draw"]), float(power["cap"]), int(memory["used"]) if memory else None,
            int(memory["total"]) if memory else None)


# -- reading the blocks -----------------------------------------------------------------------


# The Linux OOM killer's kernel-log lines (a cgroup or the host out of RAM).
_HOST_OOM = re.compile(r"oom[-_]kill|oom_reaper|Out of memory: Kill(?:ed)? process", re.IGNORECASE)


def _read(text: str, lines: list[str], offsets: list[int], found: list[tuple[str, int, int]],
          inline: list[GpuProbe], inline_extras: list[dict]) -> Paste | None:
    blocks: list[PasteBlock] = []
    reports: list[ProbeReport] = []
    extras: list[dict] = list(inline_extras)
    xid_lines: list[str] = []
    nccl_lines: list[str] = []
    topology = None
    for kind, start, end in found:
        body = "".join(line for line in lines[start:end] if not _ELISION.match(line))
        problem = None
        try:
            if kind == "nvidia-smi-xml":
                reports.append(parse_xml(body, "pasted nvidia-smi -q -x"))
                extras += [dict(thresholds(g), index=i) for i, g in enumerate(gpu_sections(body))]
            elif kind == "nvidia-smi-q":
                reports.append(_q_report(body))
                extras += [dict(thresholds(g), index=i) for i, g in enumerate(gpu_sections(body))]
            elif kind == "nvidia-smi-table":
                report, more = parse_table(body, "pasted nvidia-smi")
                reports.append(report)
                extras += more
            elif kind == "nvidia-smi-csv":
                report, more = parse_query_csv(body, "pasted --query-gpu")
                reports.append(report)
                extras += more
            elif kind == "nvidia-smi-topo":
                topology = parse_topo(body, "pasted topo -m")
            elif kind == "kernel-log":
                xid_lines += lines[start:end]
            elif kind == "nccl":
                nccl_lines += lines[start:end]
        except SmiParseError as exc:
            problem = str(exc)[:300]
            header = read_header(body) if kind == "nvidia-smi-table" else read_q_versions(body) if kind == "nvidia-smi-q" else None
            if header is not None:
                reports.append(ProbeReport(source="nvidia-smi-text", driver=header[0], cuda_driver=header[1]))
                problem = None  # the header alone: its versions are what it says
        blocks.append(PasteBlock(kind=kind, start=offsets[start], end=offsets[end], lines=end - start, problem=problem))
    if inline:
        reports.append(ProbeReport(source="nvidia-smi-text", gpus=inline))
    # Error messages are read from the question and the non-nvidia-smi blocks, never from the
    # nvidia-smi output itself (its fields are not error messages, and it is the bulk of a paste).
    smi_kinds = ("nvidia-smi-xml", "nvidia-smi-q", "nvidia-smi-table", "nvidia-smi-csv", "nvidia-smi-topo")
    previous, parts = 0, []
    for kind, start, end in found:
        if kind in smi_kinds:
            parts.append("".join(lines[previous:start]))
            previous = end
    parts.append("".join(lines[previous:]))
    errors = read_errors("\n".join(parts))
    xids, truncated = parse_xids(xid_lines, MAX_XIDS)
    host_oom = any(_HOST_OOM.search(line) for line in xid_lines)
    nccl = read_nccl(nccl_lines) if nccl_lines else None
    readable = bool(any(r.gpus or r.driver for r in reports) or xids or errors or topology or nccl
                    or any(b.problem for b in blocks))
    if not readable:
        return None  # lines that looked like tool output ("NVRM:") but say nothing
    driver = next((r.driver for r in reports if r.driver), None)
    driver_cuda = next((r.cuda_driver for r in reports if r.cuda_driver), None)
    return Paste(
        driver=driver, driver_cuda=driver_cuda,
        blocks=blocks, report=_merge(reports), xids=xids, xids_truncated=truncated, topology=topology,
        errors=errors, nccl=nccl, host_oom=host_oom,
        thresholds=_thresholds(extras),
    )


def _q_report(body: str) -> ProbeReport:
    """The whole `-q` text when it is whole; a cut one (a few GPUs, one section) as an excerpt."""
    if "NVSMI LOG" in body[:2000]:
        try:
            return parse_text(body, "pasted nvidia-smi -q")
        except SmiParseError:
            pass  # "Attached GPUs : 8" over 2 pasted GPU sections: read what was pasted
    return parse_excerpt(body, "pasted nvidia-smi -q")


def _merge(reports: list[ProbeReport]) -> ProbeReport | None:
    """One report from every nvidia-smi block: GPUs matched by bus id (else index); a later block
    fills what an earlier one left unknown."""
    reports = [r for r in reports if r.gpus]
    if not reports:
        return None
    merged = reports[0].model_copy(deep=True)
    for report in reports[1:]:
        merged.driver = merged.driver or report.driver
        merged.cuda_driver = merged.cuda_driver or report.cuda_driver
        for gpu in report.gpus:
            same = next((g for g in merged.gpus if gpu.bus_id and _bus(g.bus_id) == _bus(gpu.bus_id)), None)
            if same is None:
                same = next((g for g in merged.gpus if g.index == gpu.index and (not g.bus_id or not gpu.bus_id)), None)
            if same is None:
                merged.gpus.append(gpu.model_copy(update={"index": len(merged.gpus)}))
                continue
            for name, value in gpu:
                if name not in ("index", "not_supported", "errors") and getattr(same, name) in (None, "") and value is not None:
                    setattr(same, name, value)
            same.mark_unsupported()
    return merged


def _bus(bus_id: str) -> str:
    """`00000000:19:00.0` and `0000:19:00.0` are one address."""
    domain, _, rest = bus_id.lower().partition(":")
    return f"{int(domain, 16) if re.fullmatch('[0-9a-f]+', domain) else domain}:{rest}"


def _thresholds(extras: list[dict]) -> list[GpuThresholds]:
    out: dict[int, dict] = {}
    for extra in extras:
        current = out.setdefault(extra["index"], {"index": extra["index"]})
        for key, value in extra.items():
            if value is not None and current.get(key) is None:
                current[key] = value
    return [GpuThresholds(**{k: (str(v)[:8] if k == "pstate" else v) for k, v in values.items()})
            for values in out.values() if len(values) > 1]
