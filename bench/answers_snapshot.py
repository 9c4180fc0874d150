"""Snapshot every question set's `ask --json` answer into one JSON file, to prove a refactor
changes no answer (issue #30).

usage: python -m bench.answers_snapshot OUT.json [--compare OTHER.json]

Questions: ../shared/dev-questions/questions.yaml (where present), docs/eval/fresh-questions.yaml
and every `questions:` list under tests/ and docs/ (tests/nlu/*.yaml). All run in this process
through the CLI's own entry point (`bot.cli.main(["ask", "--json", q])`), once each, plus the
plain text answer (`ask q`), so the text render is held too. The JSON is kept both as printed
(`raw`, byte for byte, key order included) and parsed (`stdout`, so a difference names its path).

Time-dependent fields: none found (two runs minutes apart are byte-identical; price ages are
printed as dates read from the catalog, not as "N days ago"). `--compare` still prints the first
differing paths so a new one would show.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def question_sets() -> dict[str, list[str]]:
    """{set name: [question text, ...]} for every question list this checkout and ../shared hold."""
    sets: dict[str, list[str]] = {}
    candidates = [ROOT.parent / "shared" / "dev-questions" / "questions.yaml",
                  ROOT / "docs" / "eval" / "fresh-questions.yaml"]
    candidates += sorted((ROOT / "tests").rglob("*.yaml")) + sorted((ROOT / "docs").rglob("*.yaml"))
    seen: set[Path] = set()
    for path in candidates:
        if not path.is_file() or path in seen:
            continue
        seen.add(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:  # deliberately broken fixtures (rule-lint tests)
            continue
        items = data.get("questions") if isinstance(data, dict) else data
        if not isinstance(items, list):
            continue
        texts = [item.get("question") or item.get("text") for item in items if isinstance(item, dict)]
        texts = [t for t in texts if isinstance(t, str) and t.strip()]
        if texts and len(texts) * 2 >= len(items):
            sets[os.path.relpath(path, ROOT)] = texts
    return sets


def ask(argv: list[str]) -> dict:
    from bot.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}


def snapshot() -> dict:
    result: dict = {}
    for name, texts in question_sets().items():
        entries = []
        for text in texts:
            as_json = ask(["ask", "--json", text])
            as_json["raw"] = as_json["stdout"]  # the bytes as printed (key order included)
            try:
                as_json["stdout"] = json.loads(as_json["stdout"])
            except ValueError:
                pass
            entries.append({"question": text, "json": as_json, "text": ask(["ask", text])})
        result[name] = entries
    return result


def _diff(a, b, path="") -> list[str]:
    if type(a) is not type(b):
        return [path or "/"]
    if isinstance(a, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{path}/{key}")
            else:
                out += _diff(a[key], b[key], f"{path}/{key}")
        return out
    if isinstance(a, list):
        out = [f"{path} (length {len(a)} vs {len(b)})"] if len(a) != len(b) else []
        for i, (x, y) in enumerate(zip(a, b)):
            out += _diff(x, y, f"{path}/{i}")
        return out
    return [] if a == b else [path]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--compare", help="a snapshot to compare against; exit 1 on any difference")
    args = parser.parse_args()
    data = snapshot()
    text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
    Path(args.out).write_text(text, encoding="utf-8")
    count = sum(len(v) for v in data.values())
    print(f"{count} questions in {len(data)} sets -> {args.out}")
    if args.compare:
        other = Path(args.compare).read_text(encoding="utf-8")
        if other == text:
            print("identical, byte for byte")
            return 0
        diffs = _diff(json.loads(other), data)
        print(f"{len(diffs)} differing paths, first 20:", *diffs[:20], sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
