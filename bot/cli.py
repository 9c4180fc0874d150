"""The `gpu-advisor` command line.

Each subcommand lives in its own `register_*` function; heavy imports happen inside the
handlers so `gpu-advisor ask` starts fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

EXIT_INPUT = 2
EXIT_FAILURE = 1

REQUIREMENT_FLAGS: dict[str, str] = {
    # flag / key=value word -> Requirement field
    "workload": "workload", "model": "model", "params": "params_b", "params_b": "params_b",
    "method": "method", "precision": "precision", "optimizer": "optimizer", "batch": "batch_size",
    "batch_size": "batch_size", "context": "context", "concurrency": "concurrency", "gpu": "gpu",
    "gpus": "gpu_count", "gpu_count": "gpu_count", "provider": "provider", "billing": "billing",
    "deployment": "deployment", "cuda": "cuda", "driver": "driver", "psu": "psu_watts",
    "psu_watts": "psu_watts", "topic": "topics", "xid": "xids", "symptom": "symptoms", "cost": "costs",
    "request_mode": "request_mode", "mode": "request_mode",
    "tokens": "dataset_tokens_b", "epochs": "epochs", "mfu": "mfu", "rank": "lora_rank",
    "lora_rank": "lora_rank", "recompute": "recompute", "kv_precision": "kv_precision",
}
_LIST_FIELDS = {"topics", "xids", "symptoms", "costs"}


class CliInputError(ValueError):
    """Bad command-line input; printed without a traceback, exit status 2."""


def parse_key_values(words: list[str]) -> tuple[dict, list[str]]:
    """`gpu=4090 params=7` -> ({'gpu': '4090', 'params_b': '7'}, rest-of-words)."""
    fields: dict = {}
    rest: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        key = key.strip().lower().lstrip("-")
        if sep and key in REQUIREMENT_FLAGS:
            field = REQUIREMENT_FLAGS[key]
            if field in _LIST_FIELDS:
                fields.setdefault(field, []).extend(v for v in value.split(",") if v)
            else:
                fields[field] = value
        else:
            rest.append(word)
    return fields, rest


def _add_requirement_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("requirement")
    for flag, field in REQUIREMENT_FLAGS.items():
        if flag in ("params_b", "batch_size", "gpu_count", "psu_watts"):
            continue
        if field in _LIST_FIELDS:
            group.add_argument(f"--{flag}", dest=f"req_{field}", action="append", metavar="VALUE")
        else:
            group.add_argument(f"--{flag}", dest=f"req_{field}", metavar="VALUE")


def requirement_from_args(args: argparse.Namespace, words: list[str]):
    """Build a Requirement from flags and key=value words; free text is left to the caller."""
    from pydantic import ValidationError

    from bot.models import Requirement

    fields, rest = parse_key_values(words)
    for key, value in vars(args).items():
        if key.startswith("req_") and value is not None:
            field = key[4:]
            if field in _LIST_FIELDS:
                fields.setdefault(field, []).extend(v for item in value for v in item.split(",") if v)
            else:
                fields[field] = value
    if "costs" in fields:
        fields["costs"] = [_parse_cost(text) for text in fields["costs"]]
    try:
        return Requirement.model_validate(fields), rest
    except ValidationError as exc:
        raise CliInputError(_validation_message(exc)) from exc


def _parse_cost(text: str) -> dict:
    """`A:1.20:80` or `A:1.20:80:h100-sxm` -> label, hourly rate, hours[, gpu]."""
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise CliInputError(f"cost: expected LABEL:RATE_PER_HOUR:HOURS[:GPU], got {text!r}")
    try:
        rate, hours = float(parts[1]), float(parts[2])
    except ValueError as exc:
        raise CliInputError(f"cost: rate and hours must be numbers in {text!r}") from exc
    cost = {"label": parts[0], "hourly_rate": rate, "hours": hours}
    if len(parts) == 4:
        cost["gpu"] = parts[3]
    return cost


def _validation_message(exc) -> str:
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"])
        value = err.get("input")
        parts.append(f"{field}: {err['msg']} (got {value!r})")
    return "; ".join(parts)


def _cmd_ask(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from bot.advisor import Advisor, InputError
    from bot.models import Requirement
    from bot.nlu import ParseError, parse
    from bot.render.text import render_text

    requirement, rest = requirement_from_args(args, args.question)
    if not rest and not requirement.model_fields_set:
        raise CliInputError('ask needs a question, e.g. gpu-advisor ask "Can we fine-tune a 7B model on '
                            'one RTX 4090?", or flags such as --gpu 4090 --params 7 (see ask --help)')
    advisor = Advisor()
    try:  # free text first; flags and key=value words override what it says
        stated = parse(" ".join(rest), advisor.catalog)
    except ParseError as exc:
        raise CliInputError(str(exc)) from exc
    flags = requirement.model_dump(include=requirement.model_fields_set)
    try:
        requirement = Requirement.model_validate(stated.requirement.model_dump(include=set(stated.extracted)) | flags)
    except ValidationError as exc:
        raise CliInputError(_validation_message(exc)) from exc
    language = args.lang or stated.language
    try:
        answer = advisor.answer(requirement, language=language)
    except InputError as exc:
        raise CliInputError(str(exc)) from exc
    answer = answer.model_copy(update={"parse": stated.summary(), "questions": answer.questions + stated.notices()})
    if args.json:
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False))
    else:
        print(render_text(answer))
    if args.chart:
        from bot.sizing.chart import ChartError, render_charts

        try:
            print(f"chart written to {render_charts(answer, args.chart)}", file=sys.stderr)
        except (ChartError, OSError) as exc:
            raise CliInputError(f"--chart {args.chart}: {exc}") from exc
    return 0


def register_ask(sub) -> None:
    parser = sub.add_parser("ask", help="answer a question about GPUs for training or inference")
    parser.add_argument("question", nargs="*", help="the question, and/or key=value words (gpu=4090 params=7)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--lang", choices=["en", "zh"], help="answer language (default: the question's)")
    parser.add_argument("--chart", metavar="PATH", help="also draw the memory and cost charts to this PNG")
    _add_requirement_flags(parser)
    parser.set_defaults(handler=_cmd_ask)


REGISTRARS: list[Callable] = [register_ask]

from bot.rules_cli import register_rules  # noqa: E402

REGISTRARS.append(register_rules)

from bot.slack.serve import register_serve  # noqa: E402

REGISTRARS.append(register_serve)

from bot.agent.cli import register_agent  # noqa: E402
from bot.dispatch.cli import register_check  # noqa: E402

REGISTRARS += [register_check, register_agent]

from bot.nlu.chat_cli import register_chat  # noqa: E402

REGISTRARS.append(register_chat)

from bot.ops.doctor import register_doctor, register_ping  # noqa: E402
from bot.store.cli import register_db, register_history  # noqa: E402

REGISTRARS += [register_history, register_db, register_doctor, register_ping]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpu-advisor", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for register in REGISTRARS:
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args) or 0
    except CliInputError as exc:
        print(f"gpu-advisor: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # last resort: one clear line, the traceback only on request
        if os.environ.get("GPU_ADVISOR_DEBUG"):
            raise
        from bot.engine.rulebase import RuleBaseError
        from bot.knowledge import KnowledgeError

        if isinstance(exc, (KnowledgeError, RuleBaseError)):
            what = "the knowledge base" if isinstance(exc, KnowledgeError) else "the rule base"
            print(f"gpu-advisor: error: {what} does not load:\n{exc}", file=sys.stderr)
        else:
            print(f"gpu-advisor: error: {type(exc).__name__}: {exc} "
                  "(set GPU_ADVISOR_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
