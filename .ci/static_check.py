#!/usr/bin/env python3
"""Type check (mypy) and lint (ruff) of bot/ against a committed baseline that may only shrink.

    python .ci/static_check.py                   # exit 1 on any error not in the baseline
    python .ci/static_check.py --update          # rewrite the baseline; refuses if a count grows
    python .ci/static_check.py --update --allow-growth   # ... unless code moved between files
    python .ci/static_check.py --shrink bot/agent bot/ops  # lower only what fell, only there

Both tools read their settings from pyproject.toml ([tool.mypy], [tool.ruff]). Each error is
normalised to (path, tool and code, message) without its line, so editing above an old error does
not make it new; the baseline (.ci/static-baseline.json) counts each such error per file, and an
error is new when its file holds more of it than the baseline allows. tests/test_static_checks.py
runs this, so the README's test command (and .ci/run) fails on a new error.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "static-baseline.json"
TARGET = "bot"

# "already defined on line 12", "from line 37": line numbers inside messages move with edits too
_LINE_IN_MESSAGE = re.compile(r"\bline \d+\b")


@dataclass(frozen=True)
class Error:
    path: str  # relative to the repository root, POSIX separators
    line: int
    key: str  # "[tool code] message", the line-free identity the baseline counts

    def show(self) -> str:
        return f"{self.path}:{self.line}: {self.key}"


class ToolFailure(RuntimeError):
    """A checker that did not run to a verdict (crash, bad config, not installed)."""


def _key(tool: str, code: str | None, message: str) -> str:
    message = _LINE_IN_MESSAGE.sub("line N", " ".join(message.split()))
    return f"[{tool} {code or '-'}] {message}"


def _relative(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(ROOT)
        except ValueError:
            pass
    return p.as_posix()


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ToolFailure(f"cannot run {' '.join(args)}: {exc}") from exc


def run_mypy() -> list[Error]:
    """mypy over bot/ (the files and settings of [tool.mypy]); exit 1 means errors, 2 a failure."""
    proc = _run([sys.executable, "-m", "mypy", "--output", "json", "--no-error-summary"])
    if proc.returncode not in (0, 1):
        raise ToolFailure(f"mypy exited {proc.returncode}:\n{proc.stderr or proc.stdout}")
    errors = []
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        item = json.loads(line)
        if item.get("severity") != "error":  # notes explain an error; they are not one
            continue
        errors.append(Error(_relative(item["file"]), int(item["line"]), _key("mypy", item.get("code"), item["message"])))
    if proc.returncode == 1 and not errors:
        raise ToolFailure(f"mypy reported failure but no errors:\n{proc.stdout}{proc.stderr}")
    return errors


def run_ruff() -> list[Error]:
    """ruff check over bot/ (the rules of [tool.ruff.lint]); exit 1 means errors, 2 a failure."""
    proc = _run([sys.executable, "-m", "ruff", "check", TARGET, "--output-format", "json", "--no-fix",
                 "--exit-zero"])
    if proc.returncode != 0:
        raise ToolFailure(f"ruff exited {proc.returncode}:\n{proc.stderr or proc.stdout}")
    try:
        items = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError as exc:
        raise ToolFailure(f"ruff printed no JSON ({exc}):\n{proc.stdout[:2000]}{proc.stderr}") from exc
    return [Error(_relative(i["filename"]), int(i["location"]["row"]), _key("ruff", i.get("code"), i["message"]))
            for i in items]


def tool_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("mypy", "ruff"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


# -- the baseline ------------------------------------------------------------------------------


def counts(errors: list[Error]) -> Counter[tuple[str, str]]:
    return Counter((e.path, e.key) for e in errors)


def load_baseline(path: Path = BASELINE) -> tuple[Counter[tuple[str, str]], dict[str, str]]:
    if not path.exists():
        return Counter(), {}
    data = json.loads(path.read_text(encoding="utf-8"))
    base: Counter[tuple[str, str]] = Counter()
    for file, keys in data.get("errors", {}).items():
        for key, n in keys.items():
            base[(file, key)] = int(n)
    return base, data.get("tools", {})


def write_baseline(current: Counter[tuple[str, str]], path: Path = BASELINE) -> None:
    by_file: dict[str, dict[str, int]] = {}
    for (file, key), n in sorted(current.items()):
        by_file.setdefault(file, {})[key] = n
    data = {
        "about": "Errors mypy and ruff report in bot/ today, per file, without line numbers; may only shrink. "
                 "Written by `python .ci/static_check.py --update`.",
        "tools": tool_versions(),
        "total": sum(current.values()),
        "errors": by_file,
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")


@dataclass
class Comparison:
    new: list[Error]  # each occurrence of a (path, key) whose count exceeds the baseline
    grown: dict[tuple[str, str], tuple[int, int]]  # (path, key) -> (baseline, now), now > baseline
    shrunk: dict[tuple[str, str], tuple[int, int]]  # now < baseline


def compare(errors: list[Error], base: Counter[tuple[str, str]]) -> Comparison:
    now = counts(errors)
    grown = {k: (base.get(k, 0), n) for k, n in now.items() if n > base.get(k, 0)}
    shrunk = {k: (n, now.get(k, 0)) for k, n in base.items() if now.get(k, 0) < n}
    # the lines cannot tell which of several equal errors is the new one: show them all
    new = sorted((e for e in errors if (e.path, e.key) in grown), key=lambda e: (e.path, e.line))
    return Comparison(new, grown, shrunk)


def summary(errors: list[Error], base: Counter[tuple[str, str]]) -> str:
    by_tool: Counter[str] = Counter(e.key.split(" ", 1)[0].lstrip("[") for e in errors)
    base_tool: Counter[str] = Counter()
    for (_, key), n in base.items():
        base_tool[key.split(" ", 1)[0].lstrip("[")] += n
    parts = []
    for tool in ("mypy", "ruff"):
        files = len({e.path for e in errors if e.key.startswith(f"[{tool} ")})
        parts.append(f"{tool}: {by_tool[tool]} errors in {files} files (baseline {base_tool[tool]})")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--update", action="store_true", help="rewrite the baseline to today's errors")
    ap.add_argument("--allow-growth", action="store_true",
                    help="with --update: let counts grow (code moved between files; say so in the commit)")
    ap.add_argument("--shrink", nargs="*", metavar="PATH",
                    help="lower the baseline where today's counts fell, never raising one, only under these "
                         "paths (all when none): for a shared checkout where others' work is not committed yet")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    args = ap.parse_args(argv)

    try:
        errors = run_mypy() + run_ruff()
    except ToolFailure as exc:
        print(f"static check could not run: {exc}", file=sys.stderr)
        return 2
    base, tools = load_baseline(args.baseline)
    result = compare(errors, base)
    print(summary(errors, base))
    installed = tool_versions()
    if tools and tools != installed:
        print(f"note: the baseline was written with {tools}, this is {installed}: messages may differ")

    if args.update:
        if result.grown and not args.allow_growth:
            print(f"refusing to grow the baseline ({len(result.new)} error(s) not in it); fix them, or pass "
                  "--allow-growth when code moved between files:", file=sys.stderr)
            for e in result.new:
                print(f"  {e.show()}", file=sys.stderr)
            return 1
        write_baseline(counts(errors), args.baseline)
        print(f"wrote {_relative(str(args.baseline))}: {len(errors)} errors "
              f"({sum(n - m for n, m in result.shrunk.values())} fewer, "
              f"{sum(m - n for n, m in result.grown.values())} more)")
        return 0

    if args.shrink is not None:
        under = tuple(p.rstrip("/") for p in args.shrink)
        lowered = {k: now for k, (_, now) in result.shrunk.items()
                   if not under or any(k[0] == p or k[0].startswith(p + "/") for p in under)}
        kept = Counter({k: n for k, n in {**base, **lowered}.items() if n > 0})
        write_baseline(kept, args.baseline)
        print(f"wrote {_relative(str(args.baseline))}: {sum(kept.values())} errors "
              f"({sum(base[k] - n for k, n in lowered.items())} fewer)")
        return 0

    if result.new:
        print(f"\n{len(result.new)} error(s) beyond the baseline (fix them; the baseline may only shrink):")
        for (path, key), (was, now) in sorted(result.grown.items()):
            print(f"  {path}: {key}  [baseline {was}, now {now}]")
            for e in result.new:
                if (e.path, e.key) == (path, key):
                    print(f"    line {e.line}")
        return 1
    if result.shrunk:
        gone = sum(n - m for n, m in result.shrunk.values())
        print(f"{gone} baseline error(s) are fixed: the baseline can shrink "
              "(python .ci/static_check.py --update, and commit .ci/static-baseline.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
