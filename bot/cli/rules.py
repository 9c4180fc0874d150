"""`gpu-advisor rules …`: lint, test, explain, why, schema, vocabulary, new.

Top-level imports stay light; each handler imports what it needs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.errors import InputError

EXIT_FAIL = 1


def _paths(values: list[str] | None) -> list[Path] | None:
    return [Path(v) for v in values] if values else None


def _cmd_lint(args: argparse.Namespace) -> int:
    from bot.ruletools.lint import format_github, format_human, format_json, lint_paths

    report = lint_paths(_paths(args.paths))
    formatter = {"text": format_human, "json": format_json, "github": format_github}[args.format]
    text = formatter(report)
    if text:
        print(text)
    return 0 if report.ok else EXIT_FAIL


def _cmd_test(args: argparse.Namespace) -> int:
    from bot.ruletools.reload import run_rule_tests, rule_test_scope
    from bot.engine.rulebase import RuleBaseError
    from bot.knowledge import example_prices_catalog
    from bot.services import Services

    try:
        rule_roots, test_files = rule_test_scope(_paths(args.paths))
        # fixed price rows: the snapshot changes with `prices update`
        advisor = Services(rules_dir=rule_roots, catalog=example_prices_catalog()).advisor()
        run = run_rule_tests(test_files, advisor)
    except RuleBaseError as exc:
        print("the rule base does not load (run `gpu-advisor rules lint`):", file=sys.stderr)
        print(str(exc), file=sys.stderr)
        return EXIT_FAIL
    except FileNotFoundError as exc:
        raise InputError(None, str(exc)) from exc
    for problem in run.load_errors:
        print(f"ERROR {problem}")
    for case in run.results:
        if case.ok and not args.verbose:
            continue
        print(f"{'ok  ' if case.ok else 'FAIL'} {case.file}::{case.case.name}")
        for failure in case.failures:
            print(f"     {failure}")
    print(f"{run.passed} passed, {run.failed} failed, {len(run.load_errors)} file error(s) "
          f"in {len(test_files)} test file(s); rule base {run.version}")
    return 0 if run.ok else EXIT_FAIL


def _load_base():
    from bot.engine.rulebase import load_rulebase
    from bot.knowledge import default_catalog

    catalog = default_catalog()
    return catalog, load_rulebase(known_sources=set(catalog.sources))


def _cmd_explain(args: argparse.Namespace) -> int:
    from bot.ruletools.explain import explain_rule, render_dot
    from bot.engine.rulebase import RuleBaseError

    try:
        catalog, rulebase = _load_base()
        explanation = explain_rule(rulebase, args.rule_id, catalog)
    except RuleBaseError as exc:
        raise InputError(None, f"the rule base does not load (run `gpu-advisor rules lint`):\n{exc}") from exc
    except KeyError as exc:
        raise InputError(None, exc.args[0]) from exc
    print(render_dot(explanation) if args.dot else explanation.text)
    return 0


def requirement_from_question(text: str, catalog):
    """The NLU's reading of `text` (a ParseError is an InputError: one line, exit 2)."""
    from bot.nlu import parse

    return parse(text, catalog).requirement


def _cmd_why(args: argparse.Namespace) -> int:
    from bot.ruletools.explain import render_why
    from bot.services import Services

    advisor = Services().advisor()
    question = " ".join(args.question)
    requirement = requirement_from_question(question, advisor.catalog)
    language = args.lang or ("zh" if any("\u4e00" <= ch <= "\u9fff" for ch in question) else "en")
    answer = advisor.answer(requirement, language=language)
    understood = requirement.model_dump(exclude_defaults=True)
    print(f"question understood as: {understood or '(nothing specific)'}")
    print()
    print(render_why(answer, advisor.catalog, advisor.engine.rulebase))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from bot.ruletools.lint import schema_reference
    from bot.engine.rulebase import DEFAULT_RULES_DIR, rule_files
    from bot.engine.vocabulary import SCHEMA_PATH, schema_text, stamp

    if args.stamp:
        changed = [p for p in rule_files(_paths(args.paths) or [DEFAULT_RULES_DIR]) if stamp(p, schema_reference(p))]
        for path in changed:
            print(f"stamped {path}")
        print(f"{len(changed)} file(s) stamped")
        return 0
    text = schema_text()
    if args.check:
        target = Path(args.output) if args.output else SCHEMA_PATH
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is out of date: run `gpu-advisor rules schema -o {target}`", file=sys.stderr)
            return EXIT_FAIL
        print(f"{target} is up to date")
        return 0
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _cmd_vocabulary(args: argparse.Namespace) -> int:
    from bot.engine.vocabulary import README, render_vocabulary, update_readme

    if not (args.write or args.check):
        sys.stdout.write(render_vocabulary())
        return 0
    current = README.read_text(encoding="utf-8")
    try:
        updated = update_readme(current)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_FAIL
    if args.check:
        if updated != current:
            print(f"{README}: the fact vocabulary is out of date: run `gpu-advisor rules vocabulary --write`",
                  file=sys.stderr)
            return EXIT_FAIL
        print(f"{README}: vocabulary is up to date")
        return 0
    README.write_text(updated, encoding="utf-8")
    print(f"updated {README}")
    return 0


RULE_TEMPLATE = """\
# yaml-language-server: $schema={schema}
rules:
  - id: {rule_id}
    title: "TODO: what the rule advises, in a few words"
    topic: {topic}
    severity: {severity}
    priority: 100  # lower fires first
    # Placeholder condition: fires whenever the question is about `{topic}`. Replace it with the
    # facts the advice depends on (see rules/README.md, "Fact vocabulary").
    when:
      - fact: topic
        where: {{name: {topic}}}
    then:
      finding:
        en: "TODO: the advice, in English."
        zh: "TODO: 中文建议。"
    sources: [{source}]  # TODO: the ids in knowledge/sources.yaml this advice comes from
"""

TEST_TEMPLATE = """\
tests:
  - name: {rule_id} fires for a question about {topic}
    requirement: {{topics: [{topic}]}}
    expect:
      fires: [{rule_id}]
      findings:
        - {{rule: {rule_id}, severity: {severity}}}
"""


def scaffold_paths(rule_id: str, rules_dir: Path) -> tuple[Path, Path]:
    group, _, name = rule_id.partition(".")
    stem = name.replace(".", "-")
    return rules_dir / group / f"{stem}.yaml", rules_dir / group / f"{stem}.tests.yaml"


def _cmd_new(args: argparse.Namespace) -> int:
    import re

    from bot.ruletools.lint import schema_reference
    from bot.engine.rulebase import DEFAULT_RULES_DIR, RuleBaseError, load_rulebase
    from bot.engine.schema import RULE_ID
    from bot.knowledge import default_catalog
    from bot.models import TOPICS

    if not re.match(RULE_ID, args.rule_id):
        raise InputError(None, f"rule id {args.rule_id!r} must be dotted lowercase words, e.g. memory.kv-cache-budget")
    if args.topic not in TOPICS:
        raise InputError(None, f"--topic {args.topic!r} is not a topic; topics: {', '.join(TOPICS)}")
    rules_dir = Path(args.dir) if args.dir else DEFAULT_RULES_DIR
    rule_path, test_path = scaffold_paths(args.rule_id, rules_dir)
    for path in (rule_path, test_path):
        if path.exists():
            raise InputError(None, f"{path} already exists; pick another id or edit that file")
    try:
        if args.rule_id in load_rulebase([rules_dir]).by_id:
            raise InputError(None, f"rule {args.rule_id} already exists in {rules_dir}")
    except RuleBaseError:
        pass  # a base that does not load yet cannot hold the id in a usable way
    catalog = default_catalog()
    source = "rental-selection-guide" if "rental-selection-guide" in catalog.sources else sorted(catalog.sources)[0]
    rule_path.parent.mkdir(parents=True, exist_ok=True)
    values = {"rule_id": args.rule_id, "topic": args.topic, "severity": args.severity, "source": source,
              "schema": schema_reference(rule_path)}
    rule_path.write_text(RULE_TEMPLATE.format(**values), encoding="utf-8")
    test_path.write_text(TEST_TEMPLATE.format(**values), encoding="utf-8")
    print(f"created {rule_path}\ncreated {test_path}")
    print(f"next: fill in the TODOs, then `gpu-advisor rules lint {rule_path}` and `gpu-advisor rules test {test_path}`")
    return 0


def configure_rules(parser) -> None:
    rules = parser.add_subparsers(dest="rules_command", required=True)

    lint = rules.add_parser("lint", help="check rule files; exit 1 on errors")
    lint.add_argument("paths", nargs="*", help="rule files or folders (default: rules/)")
    lint.add_argument("--format", choices=["text", "json", "github"], default="text")
    lint.set_defaults(handler=_cmd_lint)

    test = rules.add_parser("test", help="run the YAML rule tests; exit 1 on failure")
    test.add_argument("paths", nargs="*", help="test files, rule files or folders (default: rules/)")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing cases too")
    test.set_defaults(handler=_cmd_test)

    explain = rules.add_parser("explain", help="a rule in plain words, its dependencies and sources")
    explain.add_argument("rule_id")
    explain.add_argument("--dot", action="store_true", help="print the dependency graph as Graphviz")
    explain.set_defaults(handler=_cmd_explain)

    why = rules.add_parser("why", help="the derivation tree of every finding for a question")
    why.add_argument("question", nargs="+", help="the question, and/or key=value words (gpu=4090 deployment=datacenter)")
    why.add_argument("--lang", choices=["en", "zh"])
    why.set_defaults(handler=_cmd_why)

    schema = rules.add_parser("schema", help="print or write the JSON Schema for rule files")
    schema.add_argument("-o", "--output", help="write it here (e.g. rules/rule.schema.json)")
    schema.add_argument("--check", action="store_true", help="exit 1 if the written schema is out of date")
    schema.add_argument("--stamp", action="store_true",
                        help="add the `# yaml-language-server: $schema=` line to rule files lacking it")
    schema.add_argument("paths", nargs="*", help="with --stamp: rule files or folders (default: rules/)")
    schema.set_defaults(handler=_cmd_schema)

    vocabulary = rules.add_parser("vocabulary", help="print the fact vocabulary (markdown), or update rules/README.md")
    vocabulary.add_argument("--write", action="store_true", help="update the generated section of rules/README.md")
    vocabulary.add_argument("--check", action="store_true", help="exit 1 if rules/README.md is out of date")
    vocabulary.set_defaults(handler=_cmd_vocabulary)

    new = rules.add_parser("new", help="scaffold a rule file and its test file")
    new.add_argument("rule_id", help="dotted id, e.g. memory.kv-cache-budget")
    new.add_argument("--topic", required=True)
    new.add_argument("--severity", choices=["info", "warn", "block"], default="info")
    new.add_argument("--dir", help="rules folder (default: rules/)")
    new.set_defaults(handler=_cmd_new)
