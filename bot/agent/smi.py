"""The agent's nvidia-smi fallback and `--replay` backend: the parser lives in the core
(`bot.diagnostics.smi`), shared with pasted output in a chat question (issue #25)."""

from bot.diagnostics.smi import (  # noqa: F401  (re-exported for the agent and its callers)
    MAX_CAPTURE_BYTES,
    Entry,
    SmiParseError,
    capture_sections,
    parse_capture,
    parse_smi,
    parse_smi_file,
    parse_text,
    parse_xml,
)
