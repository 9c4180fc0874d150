"""Lint's findings: the issue codes, `LintIssue`, `LintReport`, and the three ways to print a report
(for people, as JSON, as GitHub annotations)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.engine.rulebase import LoadedRule
from bot.yamlio import YamlDocument

IssueSeverity = Literal["error", "warning"]

CODES: dict[str, tuple[IssueSeverity, str]] = {
    "yaml-syntax": ("error", "the file is not valid YAML"),
    "schema": ("error", "the file does not match the rule schema (rules/rule.schema.json)"),
    "unknown-topic": ("error", "a topic that is not one of bot.models.TOPICS"),
    "duplicate-id": ("error", "two rules share an id"),
    "unknown-fact": ("error", "a fact kind that is not in bot/engine/fact_kinds.py"),
    "unknown-field": ("error", "a field the fact kind does not have"),
    "bad-reference": ("error", "a $alias.field that no earlier condition binds"),
    "bad-assert": ("error", "asserting an input fact, or leaving out a required field"),
    "template-unbound": ("error", "a message template using a field the conditions don't bind"),
    "template-optional": ("warning", "a template field that may be absent (renders as '?')"),
    "unknown-source": ("error", "a source id not in knowledge/sources.yaml"),
    "unknown-gpu": ("error", "a GPU id not in knowledge/gpus.yaml"),
    "unknown-knowledge": ("error", "a provider, model, billing mode, Xid or topic the knowledge base lacks"),
    "never-fires": ("error", "a condition no fact can ever satisfy"),
    "shadowed": ("warning", "a rule with the same conditions as a higher-priority rule"),
    "cycle": ("error", "rules that feed each other in a loop"),
    "untested": ("error", "no test in a *.tests.yaml fires the rule"),
    "bad-test": ("error", "a rule test file that does not load or names an unknown rule"),
    "schema-header": ("warning", "the file lacks the `# yaml-language-server: $schema=` first line"),
    "placeholder": ("warning", "scaffolded TODO text left in a rule"),
    "knowledge": ("error", "the knowledge catalog does not load, so references were not checked"),
    "no-rules": ("error", "no rule files were found"),
}


@dataclass(frozen=True)
class LintIssue:
    code: str
    file: str
    line: int
    col: int
    message: str
    rule: str | None = None

    @property
    def severity(self) -> IssueSeverity:
        return CODES[self.code][0]

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def as_dict(self) -> dict:
        return {"severity": self.severity, "code": self.code, "file": self.file, "line": self.line,
                "col": self.col, "rule": self.rule, "message": self.message}


@dataclass
class LintReport:
    issues: list[LintIssue]
    files: list[Path]
    rules: list[LoadedRule] = field(default_factory=list)

    @property
    def errors(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def codes(self) -> set[str]:
        return {i.code for i in self.issues}


# -- helpers -----------------------------------------------------------------------------------


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class _Collector:
    def __init__(self):
        self.issues: list[LintIssue] = []

    def add(self, code: str, doc_or_path: YamlDocument | Path, loc: tuple, message: str,
            rule: str | None = None) -> None:
        if isinstance(doc_or_path, YamlDocument):
            line, col = doc_or_path.position(loc)
            path = doc_or_path.path
        else:
            line, col, path = 1, 1, doc_or_path
        self.issues.append(LintIssue(code, _display(path), line, col, message, rule))

    def at(self, code: str, item: LoadedRule, loc: tuple, message: str) -> None:
        self.add(code, item.doc, ("rules", item.index, *loc), message, item.rule.id)


# -- output -----------------------------------------------------------------------------------


def format_human(report: LintReport) -> str:
    lines = []
    for title, issues in (("errors", report.errors), ("warnings", report.warnings)):
        if issues:
            lines.append(f"{title} ({len(issues)}):")
            for i in issues:
                who = f" {i.rule}:" if i.rule else ""
                lines.append(f"  {i.location}: [{i.code}]{who} {i.message}")
    lines.append(f"{len(report.rules)} rule(s) in {len(report.files)} file(s): {len(report.errors)} error(s), "
                 f"{len(report.warnings)} warning(s)")
    return "\n".join(lines)


def format_json(report: LintReport) -> str:
    return json.dumps({
        "ok": report.ok,
        "rules": len(report.rules),
        "files": [_display(p) for p in report.files],
        "errors": [i.as_dict() for i in report.errors],
        "warnings": [i.as_dict() for i in report.warnings],
    }, ensure_ascii=False, indent=2)


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(report: LintReport) -> str:
    """GitHub Actions workflow commands: one annotation per issue."""
    lines = []
    for i in report.issues:
        level = "error" if i.severity == "error" else "warning"
        title = _gh_escape(f"{i.code}" + (f" {i.rule}" if i.rule else ""), prop=True)
        lines.append(f"::{level} file={_gh_escape(i.file, True)},line={i.line},col={i.col},title={title}::"
                     f"{_gh_escape(i.message)}")
    return "\n".join(lines)
