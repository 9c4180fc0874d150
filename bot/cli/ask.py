"""`gpu-advisor ask`: one question, answered as text or one JSON object.

Also the requirement flags and `key=value` words, which `rules why` reads too.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys

from bot.errors import InputError

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


def add_requirement_flags(parser: argparse.ArgumentParser) -> None:
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
        raise validation_input_error(exc) from exc


def _parse_cost(text: str) -> dict:
    """`A:1.20:80` or `A:1.20:80:h100-sxm` -> label, hourly rate, hours[, gpu]."""
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise InputError("cost", f"expected LABEL:RATE_PER_HOUR:HOURS[:GPU], got {text!r}")
    try:
        rate, hours = float(parts[1]), float(parts[2])
    except ValueError as exc:
        raise InputError("cost", f"rate and hours must be numbers in {text!r}") from exc
    cost = {"label": parts[0], "hourly_rate": rate, "hours": hours}
    if len(parts) == 4:
        cost["gpu"] = parts[3]
    return cost


def validation_input_error(exc) -> InputError:
    """A pydantic ValidationError as one InputError naming the first field ("field: why (got value)")."""
    errors = exc.errors()
    fields = [".".join(str(p) for p in err["loc"]) for err in errors]
    reasons = [f"{err['msg']} (got {err.get('input')!r})" for err in errors]
    # one field: "field: why"; several: "a: why; b: why" with the first field as `field`
    message = "; ".join([reasons[0]] + [f"{f}: {r}" for f, r in zip(fields[1:], reasons[1:])])
    return InputError(fields[0] if fields else None, message)


def _cmd_ask(args: argparse.Namespace) -> int:
    # One question: reference counting frees what it allocates, and the cyclic collector's passes
    # over the freshly loaded catalog and rule base cost a tenth of a cold start.
    gc.disable()
    try:
        return _ask(args)
    finally:
        gc.enable()


def _ask(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from bot.advice.assemble import with_parse
    from bot.models import Requirement
    from bot.nlu import parse
    from bot.render.text import render_text
    from bot.services import Services

    requirement, rest = requirement_from_args(args, args.question)
    if not rest and not requirement.model_fields_set:
        raise InputError(None, 'ask needs a question, e.g. gpu-advisor ask "Can we fine-tune a 7B model on '
                               'one RTX 4090?", or flags such as --gpu 4090 --params 7 (see ask --help)')
    advisor = Services().advisor()
    stated = parse(" ".join(rest), advisor.catalog)  # free text first; flags and key=value words override it
    flags = requirement.model_dump(include=requirement.model_fields_set)
    try:
        requirement = Requirement.model_validate(stated.requirement.model_dump(include=set(stated.extracted)) | flags)
    except ValidationError as exc:
        raise validation_input_error(exc) from exc
    requirement.quantities = list(stated.requirement.quantities)  # typed numbers are not in the dump
    language = args.lang or stated.language
    answer = advisor.answer(requirement, language=language)
    answer = with_parse(answer, stated)
    if args.json:
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False))
    else:
        print(render_text(answer, full=args.full))
    if args.chart:
        from bot.sizing.chart import ChartError, render_charts

        try:
            print(f"chart written to {render_charts(answer, args.chart)}", file=sys.stderr)
        except (ChartError, OSError) as exc:
            raise InputError(f"--chart {args.chart}", str(exc)) from exc
    return 0


def configure_ask(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", nargs="*", help="the question, and/or key=value words (gpu=4090 params=7)")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--full", action="store_true",
                        help="print everything: the parse, memory sum, assumptions, candidates, every finding")
    parser.add_argument("--lang", choices=["en", "zh"], help="answer language (default: the question's)")
    parser.add_argument("--chart", metavar="PATH", help="also draw the memory and cost charts to this PNG")
    add_requirement_flags(parser)
    parser.set_defaults(handler=_cmd_ask)
