"""What the docs quote from the running bot is what it writes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "rules" / "README.md").read_text()


def quoted_log_line() -> dict:
    [line] = [raw for raw in README.splitlines() if raw.startswith('{"time"') and "reload rejected" in raw]
    return json.loads(line)


def test_the_reload_log_line_in_rules_readme_is_the_one_the_bot_writes():
    from bot.slack.replies import reload_text

    quoted = quoted_log_line()
    version, problem = "1a2b3c4d5e6f", quoted["message"].split(": ", 1)[1]
    result = SimpleNamespace(ok=False, changed=False, version=version, problems=[problem])
    source = (ROOT / "bot" / "slack" / "shared.py").read_text()
    [fmt] = re.findall(r'log\.warning\("(rule base reload rejected[^"]*)"', source)
    assert fmt % (version, problem) == quoted["message"]
    assert quoted["logger"] == "gpu_advisor.slack" and quoted["level"] == "WARNING"
    notice = reload_text(result).splitlines()[0]
    assert notice in README  # the admin notice the README shows
