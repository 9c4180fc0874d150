"""Parse `nvidia-smi -q -x` (XML), `nvidia-smi -q` (text) and capture files into a ProbeReport.

The agent's fallback when the NVML library is absent and its `--replay` backend, and the reader of
`nvidia-smi -q` pasted into a question (bot.diagnostics.paste; `parse_excerpt` takes one GPU's
block or a single section without the `==NVSMI LOG==` header). Both formats
become the same tree of `Entry(key, value, children)` with snake_case keys, and one mapping reads
the report from either tree, trying the XML and the text spelling of each field.

Missing values appear as `N/A`, `[N/A]`, `[Not Supported]`, `ERR!` or `[Requested functionality has
been deprecated]`: all become None. A file that is not `-q` output, or is truncated, raises
`SmiParseError` with a message that says what was found.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from bot.diagnostics.probe_fields import BY_NAME, SMI_PLAIN
from bot.host_report import CLOCK_EVENT_REASONS, OPTIONAL_GPU_FIELDS, GpuProbe, GpuProcess, ProbeReport
from bot.errors import ConfigError

MAX_CAPTURE_BYTES = 16 * 1024 * 1024
_MISSING = {"", "n/a", "not supported", "unknown error", "err!", "requested functionality has been deprecated",
            "insufficient permissions", "not available"}
_LINE = re.compile(r"^(?P<key>\S.*?)\s+:\s?(?P<value>.*)$")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?")
_SECTION = re.compile(r"^# (?P<state>[\w-]+) :: (?P<name>.+?)\s*$")


class SmiParseError(ConfigError):
    """Input that is not usable `nvidia-smi -q` output; the message says why."""


@dataclass
class Entry:
    key: str
    value: str | None = None
    children: list[Entry] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.strip().lower()).strip("_")


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if value.lower().strip("[]") in _MISSING:
        return None
    return value


# -- reading both formats into one tree ----------------------------------------------------


def _text_tree(text: str) -> Entry:
    root = Entry("root")
    stack: list[tuple[int, Entry]] = [(-1, root)]
    for raw in text.splitlines():
        if not raw.strip() or raw.strip().startswith("====="):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        match = _LINE.match(line)
        entry = Entry(_norm_key(match["key"]), match["value"]) if match else Entry(_norm_key(line), None, attrs={"label": line})
        while stack[-1][0] >= indent:
            stack.pop()
        stack[-1][1].children.append(entry)
        stack.append((indent, entry))  # a "key : value" line may hold lines too ("Process ID" holds "Name")
    return root


def _xml_tree(text: str, origin: str) -> Entry:
    try:
        element = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", text, count=1))
    except ET.ParseError as exc:
        line, column = exc.position
        raise SmiParseError(f"{origin}:{line}:{column}: not well-formed nvidia-smi XML: {exc}") from exc

    def convert(el: ET.Element) -> Entry:
        kids = [convert(child) for child in el]
        return Entry(el.tag, None if kids else (el.text or ""), kids, dict(el.attrib))

    return convert(element)


def _first(node: Entry | None, *paths: str) -> Entry | None:
    """The first entry found along any of the slash-separated paths."""
    if node is None:
        return None
    for path in paths:
        current: Entry | None = node
        for part in path.split("/"):
            current = next((c for c in current.children if c.key == part), None) if current else None
        if current is not None:
            return current
    return None


def _value(node: Entry | None, *paths: str) -> str | None:
    """The first value that is present and not N/A along the paths, in order."""
    for path in paths:
        found = _first(node, path)
        value = _clean(found.value) if found is not None else None
        if value is not None:
            return value
    return None


def _version(node: Entry | None, *paths: str) -> str | None:
    """`610.57.04 [Deprecated; ...]` -> `610.57.04`."""
    value = _value(node, *paths)
    match = re.match(r"\d+(\.\d+)+", value) if value else None
    return match.group(0) if match else None


def _int(node: Entry | None, *paths: str) -> int | None:
    value = _value(node, *paths)
    match = _NUMBER.match(value) if value else None
    return int(float(match.group(0))) if match else None


def _float(node: Entry | None, *paths: str) -> float | None:
    value = _value(node, *paths)
    match = _NUMBER.match(value) if value else None
    return round(float(match.group(0)), 2) if match else None


def _bool(node: Entry | None, *paths: str) -> bool | None:
    value = _value(node, *paths)
    if value is None:
        return None
    lowered = value.lower()
    if lowered in ("enabled", "yes", "active", "true"):
        return True
    if lowered in ("disabled", "no", "not active", "false", "none"):
        return False
    return None


# -- the mapping -----------------------------------------------------------------------------


def _ecc_counts(node: Entry | None, scope: str) -> tuple[int | None, int | None]:
    """(corrected, uncorrected) totals for `volatile` or `aggregate`, in every format seen."""
    section = _first(node, f"ecc_errors/{scope}")
    if section is None:
        return None, None
    old_sbe, old_dbe = _int(section, "single_bit/total"), _int(section, "double_bit/total")
    if _first(section, "single_bit", "double_bit") is not None:
        return old_sbe, old_dbe
    corrected = uncorrected = None
    for child in section.children:
        if child.children or "threshold" in child.key:
            continue
        value = _clean(child.value)
        match = _NUMBER.match(value) if value is not None else None
        if match is None:
            continue
        count = int(match.group(0))
        if "uncorrectable" in child.key:
            uncorrected = (uncorrected or 0) + count
        elif "correctable" in child.key:
            corrected = (corrected or 0) + count
    return corrected, uncorrected


def _reason_name(key: str) -> str:
    for prefix in ("clocks_event_reason_", "clocks_throttle_reason_"):
        key = key.removeprefix(prefix)
    return {"idle": "gpu_idle", "display_clocks_setting": "display_clock_setting"}.get(key, key)


def _clock_reasons(node: Entry) -> list[str] | None:
    section = _first(node, "clocks_event_reasons", "clocks_throttle_reasons")
    if section is None:
        return None
    active, seen = [], False

    def walk(entry: Entry) -> None:
        nonlocal seen
        for child in entry.children:
            name = _reason_name(child.key)
            state = _bool(Entry("x", children=[child]), child.key)
            if name in CLOCK_EVENT_REASONS and state is not None:
                seen = True
                if state:
                    active.append(name)
            walk(child)

    walk(section)
    if not seen:
        return None
    return sorted(active, key=lambda n: CLOCK_EVENT_REASONS[n])


def _processes(node: Entry) -> list[GpuProcess] | None:
    section = _first(node, "processes")
    if section is None:
        return None
    processes = []
    for child in section.children:
        if child.key == "process_info":  # XML
            pid = _int(child, "pid")
            name, memory = _value(child, "process_name"), _int(child, "used_memory")
        elif child.key == "process_id":  # text: details are nested under the pid line
            pid = _int(Entry("x", children=[child]), "process_id")
            name, memory = _value(child, "name"), _int(child, "used_gpu_memory")
        else:
            continue
        if pid is not None:
            processes.append(GpuProcess(pid=pid, name=name, used_memory_mib=memory))
    return processes


_READERS = {"str": _value, "int": _int, "float": _float, "bool": _bool}


def _gpu(node: Entry, index: int, bus_id: str) -> GpuProbe:
    """One GPU's section: every plain field by its paths in the field table, then the four ECC
    totals, the clock event reasons and the processes, which are more than one value."""
    values = {f.name: _READERS[f.kind](node, *f.smi) for f in SMI_PLAIN}
    ecc_vc, ecc_vu = _ecc_counts(node, "volatile")
    ecc_ac, ecc_au = _ecc_counts(node, "aggregate")
    gpu = GpuProbe(
        index=index, bus_id=_value(node, *BY_NAME["bus_id"].smi) or bus_id, **values,
        ecc_volatile_corrected=ecc_vc, ecc_volatile_uncorrected=ecc_vu,
        ecc_aggregate_corrected=ecc_ac, ecc_aggregate_uncorrected=ecc_au,
        clock_event_reasons=_clock_reasons(node), processes=_processes(node),
    )
    return gpu.mark_unsupported()


# -- entry points --------------------------------------------------------------------------


def parse_xml(text: str, origin: str = "<xml>") -> ProbeReport:
    root = _xml_tree(text, origin)
    if root.key != "nvidia_smi_log":
        raise SmiParseError(f"{origin}: XML root is <{root.key}>, not <nvidia_smi_log> from `nvidia-smi -q -x`")
    gpus = [c for c in root.children if c.key == "gpu"]
    if not gpus:
        raise SmiParseError(f"{origin}: no <gpu> element in the nvidia-smi XML")
    return ProbeReport(
        source="nvidia-smi-xml",
        driver=_version(root, "kmd_version", "driver_version"),
        cuda_driver=_version(root, "cuda_umd_version", "cuda_version"),
        gpus=[_gpu(g, i, g.attrs.get("id", "")) for i, g in enumerate(gpus)],
    )


def parse_text(text: str, origin: str = "<text>") -> ProbeReport:
    if "NVSMI LOG" not in text[:2000]:
        raise SmiParseError(f"{origin}: no '==NVSMI LOG==' header; not `nvidia-smi -q` output")
    root = _text_tree(text)
    gpus = [c for c in root.children if c.value is None and c.key.startswith("gpu_") and "label" in c.attrs]
    if not gpus:
        raise SmiParseError(f"{origin}: no 'GPU <bus id>' section in the nvidia-smi -q text")
    declared = _int(root, "attached_gpus")
    if declared is not None and declared != len(gpus):
        raise SmiParseError(f"{origin}: 'Attached GPUs' says {declared} but the text holds {len(gpus)} GPU "
                            "section(s); the capture is truncated or edited")
    for entry in gpus:
        if _first(entry, "fb_memory_usage") is None:
            raise SmiParseError(f"{origin}: {entry.attrs['label']}: no 'FB Memory Usage' section; the GPU "
                                "section is truncated")
    return ProbeReport(
        source="nvidia-smi-text",
        driver=_version(root, "kmd_version", "driver_version"),
        cuda_driver=_version(root, "cuda_umd_version", "cuda_version"),
        gpus=[_gpu(g, i, g.attrs["label"].split(" ", 1)[-1]) for i, g in enumerate(gpus)],
    )


# section -> the section `-q` nests it in, from the probe fields' paths ("gpu_link_info" -> "pci")
_PARENTS = {parts[i + 1]: parts[i] for f in SMI_PLAIN for path in f.smi
            for parts in [path.split("/")] for i in range(len(parts) - 2)}

# field -> its section, for a field of only one section ("gpu_current_temp" -> "temperature"): an excerpt that
# cut the section header away ("GPU Current Temp : 74 C" at the top) still reads it
_GENERIC_LEAVES = {"gpu", "pending", "total", "used", "correctable_error", "uncorrectable_error", "current", "max", "sm"}
_LEAF_PARENTS = {path.split("/")[1]: path.split("/")[0] for f in reversed(SMI_PLAIN) for path in reversed(f.smi)
                 if path.count("/") == 1 and path.split("/")[1] not in _GENERIC_LEAVES}


def _adopted(root: Entry) -> Entry:
    """Top-level fields whose section header was cut, put in that section (once; a field already read at
    the top, or a section already present, is left as it is)."""
    present = {c.key for c in root.children}
    strays = [c for c in root.children if c.value is not None and c.key in _LEAF_PARENTS and _LEAF_PARENTS[c.key] not in present]
    if not strays:
        return root
    sections: dict[str, Entry] = {}
    for stray in strays:
        sections.setdefault(_LEAF_PARENTS[stray.key], Entry(_LEAF_PARENTS[stray.key])).children.append(stray)
    return Entry(root.key, root.value, [*(c for c in root.children if c not in strays), *sections.values()], root.attrs)


def _reparented(root: Entry) -> Entry:
    """An excerpt whose cut ("...") took a section's parent ("PCI" above "GPU Link Info"): the orphan
    section put back under its parent, as `-q` nests it, so its fields read by their usual paths; a
    section cut from two levels ("PCIe Generation" without "GPU Link Info" and "PCI") climbs each."""
    for _ in range(4):  # the deepest probe path nests four sections
        lifted = _reparented_once(root)
        if lifted is root:
            return root
        root = lifted
    return root


def _reparented_once(root: Entry) -> Entry:
    """One level of `_reparented`: the same entry when nothing moved."""
    # A section the cut left under the line above it ("Product Name : …" then, deeper, "GPU Link Info")
    # is that line's neighbour: lifted to the top first.
    lifted = [k for c in root.children if c.value is not None for k in c.children if k.value is None and k.key in _PARENTS]
    if lifted:
        root = Entry(root.key, root.value, [*(Entry(c.key, c.value, [k for k in c.children if k not in lifted], c.attrs)
                                              for c in root.children), *lifted], root.attrs)
    orphans = [c for c in root.children if c.value is None and c.key in _PARENTS
               and not any(p.key == _PARENTS[c.key] for p in root.children)]
    if not orphans:
        return root
    parents: dict[str, Entry] = {}
    for orphan in orphans:
        parents.setdefault(_PARENTS[orphan.key], Entry(_PARENTS[orphan.key])).children.append(orphan)
    return Entry(root.key, root.value, [*(c for c in root.children if c not in orphans), *parents.values()], root.attrs)


def parse_excerpt(text: str, origin: str = "<excerpt>") -> ProbeReport:
    """Part of `nvidia-smi -q` text: one or more `GPU <bus id>` blocks, or a single section (ECC
    Errors, Remapped Rows, Clocks Event Reasons, Temperature …) of one GPU, header or not. Raises
    SmiParseError when no field of a GPU is in it."""
    root = _text_tree(text)
    gpus = [c for c in root.children if c.value is None and c.key.startswith("gpu_") and "label" in c.attrs
            and re.match(r"GPU [0-9A-Fa-f]{4,8}:", c.attrs["label"])]
    if gpus:
        parsed = [_gpu(g, i, g.attrs["label"].split(" ", 1)[-1]) for i, g in enumerate(gpus)]
    else:
        parsed = [_gpu(_reparented(_adopted(root)), 0, "")]
    if all(len(g.not_supported) == len(OPTIONAL_GPU_FIELDS) for g in parsed):
        raise SmiParseError(f"{origin}: no GPU field of `nvidia-smi -q` in the text")
    return ProbeReport(source="nvidia-smi-text", driver=_version(root, "kmd_version", "driver_version"),
                       cuda_driver=_version(root, "cuda_umd_version", "cuda_version"), gpus=parsed)


def read_q_versions(text: str) -> tuple[str | None, str | None] | None:
    """(driver, the CUDA it supports) from the header lines of `-q` text ("Driver Version : 535.161.08",
    "CUDA Version : 12.2"), which an excerpt may hold without any GPU field; None when neither is there."""
    root = _text_tree(text)
    versions = (_version(root, "kmd_version", "driver_version"), _version(root, "cuda_umd_version", "cuda_version"))
    return versions if any(versions) else None


def gpu_sections(text: str) -> list[Entry]:
    """The per-GPU subtrees of `-q` text or XML (the whole tree for a one-GPU excerpt)."""
    if text.lstrip().startswith("<"):
        root = _xml_tree(text, "<xml>")
        return [c for c in root.children if c.key == "gpu"]
    root = _text_tree(text)
    gpus = [c for c in root.children if c.value is None and c.key.startswith("gpu_") and "label" in c.attrs
            and re.match(r"GPU [0-9A-Fa-f]{4,8}:", c.attrs["label"])]
    return gpus or [root]


def thresholds(node: Entry) -> dict[str, int | str | None]:
    """The temperature thresholds and performance state a GPU's `-q` block states."""
    return {
        "slowdown_temp_c": _int(node, "temperature/gpu_slowdown_temp", "temperature/gpu_temp_slow_threshold"),
        "shutdown_temp_c": _int(node, "temperature/gpu_shutdown_temp", "temperature/gpu_temp_max_threshold"),
        "max_operating_temp_c": _int(node, "temperature/gpu_max_operating_temp", "temperature/gpu_temp_max_gpu_threshold"),
        "pstate": _value(node, "performance_state"),
    }


def capture_sections(text: str) -> list[tuple[str, str, str, str]]:
    """A capture file's sections as (state, name, command, body)."""
    sections: list[tuple[str, str, str, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _SECTION.match(lines[i])
        if match and i + 1 < len(lines) and lines[i + 1].startswith("# $ "):
            command = lines[i + 1][4:].strip()
            j = i + 2
            while j < len(lines) and not lines[j].startswith("#####"):
                j += 1
            k = j + 1
            while k < len(lines) and not _SECTION.match(lines[k]):
                k += 1
            sections.append((match["state"], match["name"], command, "\n".join(lines[j + 1:k])))
            i = k
        else:
            i += 1
    return sections


def parse_capture(text: str, origin: str = "<capture>", prefer_state: str = "load") -> ProbeReport:
    """The `nvidia-smi -q` (or `-q -x`) section of a capture file; the `prefer_state` one if several."""
    candidates = [(s, body) for s, _, cmd, body in capture_sections(text)
                  if re.fullmatch(r"nvidia-smi -q( -x)?", cmd.strip())]
    if not candidates:
        raise SmiParseError(f"{origin}: capture file has no `nvidia-smi -q` section")
    state, body = next(((s, b) for s, b in candidates if s == prefer_state), candidates[0])
    body = "\n".join(line for line in body.splitlines() if not line.startswith("#"))
    return parse_xml(body, f"{origin} [{state}]") if body.lstrip().startswith("<") else parse_text(body, f"{origin} [{state}]")


def parse_smi(text: str, origin: str = "<input>") -> ProbeReport:
    """Any supported nvidia-smi output: XML, text `-q`, or a capture file holding one of them."""
    stripped = text.lstrip()
    if stripped.startswith("<"):
        return parse_xml(text, origin)
    if "NVSMI LOG" in text[:2000]:
        return parse_text(text, origin)
    if stripped.startswith("#") and capture_sections(text):
        return parse_capture(text, origin)
    if "+-----" in text[:500] and "NVIDIA-SMI" in text[:1000]:
        raise SmiParseError(f"{origin}: this is the plain `nvidia-smi` table; capture `nvidia-smi -q -x` instead")
    if stripped.startswith("GPU ") and "Link " in text:
        raise SmiParseError(f"{origin}: this is `nvidia-smi nvlink -s` output, not `nvidia-smi -q`")
    if "--query-gpu" in text[:3000]:
        raise SmiParseError(f"{origin}: this is `nvidia-smi --help-query-gpu` output, not `nvidia-smi -q`")
    raise SmiParseError(f"{origin}: not nvidia-smi -q output (neither XML, '==NVSMI LOG==' text, nor a capture file)")


def parse_smi_file(path: Path | str) -> ProbeReport:
    path = Path(path)
    try:
        if path.stat().st_size > MAX_CAPTURE_BYTES:
            raise SmiParseError(f"{path}: larger than {MAX_CAPTURE_BYTES} bytes; not an nvidia-smi capture")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SmiParseError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return parse_smi(text, str(path))
