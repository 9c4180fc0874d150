"""`/gpu`: its acknowledging part (usage, help, the rule base, prices: answered in the ack itself)
and its slow part (an answer in the channel, a host check, a reload), run after the ack."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.dispatch.checker import BENCHMARKS
from bot.knowledge import UnknownNameError
from bot.messages import say
from bot.ops.roles import Role
from bot.slack import cards
from bot.slack.cards import escape
from bot.slack.host_checks import CHECK_WORDS
from bot.slack.price_card import price_card

if TYPE_CHECKING:
    from bot.slack.shared import SlackServices

_USER_ID = re.compile(r"^[UW][A-Z0-9]+$")
_UNAVAILABLE_STATUSES = {"not_in_channel", "channel_not_found", "is_archived"}


def parse_command(text: str) -> tuple[str, str]:
    sub, _, rest = (text or "").strip().partition(" ")
    return sub.lower(), rest.strip()


def ack_gpu_command(ack, command: dict, context):
    services: SlackServices = context["services"]
    sub, rest = parse_command(command.get("text", ""))
    user = command.get("user_id", "")

    def reply(text: str) -> None:
        ack(text=text, response_type="ephemeral")

    if sub in ("", "help"):
        reply(cards.HELP_TEXT)
    elif sub == "rules" and not rest:
        info = services.home_info(user)
        reply(f":books: Rule base `{escape(info.rule_base_version)}`: {info.rule_count} rules, "
              f"knowledge as of {info.knowledge_date}.")
    elif sub == "rules" and rest == "reload":
        if services.may_reload_rules(user):
            reply(":hourglass_flowing_sand: Reloading the rule base…")
        elif services.roles.configured:
            reply(say("slack.needs_role", "en", role=Role.RULE_ADMIN.value))
        else:
            reply(":lock: Only admins can reload the rule base (see GPU_ADVISOR_SLACK_ADMINS).")
    elif sub == "whoami":
        reply(services.roles.whoami(user))
    elif sub == "ask" and rest:
        ack()
    elif sub == "ask":
        reply("Usage: `/gpu ask <question>`, e.g. `/gpu ask will a 70B model fit on 2 H100 for inference?`")
    elif sub == "check" and CHECK_WORDS.match(f"check {rest}"):
        if services.host_checks.problem:
            reply(f":wrench: {services.host_checks.problem}")
        else:
            reply(f":hourglass_flowing_sand: Checking `{escape(rest)}`…")
    elif sub == "check":
        reply("Usage: `/gpu check <host>` (a host name from the inventory)")
    elif sub == "bench" and parse_bench(rest) is not None:
        host, benchmarks = parse_bench(rest)
        if services.host_checks.problem:
            reply(f":wrench: {services.host_checks.problem}")
        else:
            reply(f":hourglass_flowing_sand: Checking `{escape(host)}` with {', '.join(benchmarks)}…")
    elif sub == "bench":
        reply(_BENCH_USAGE)
    elif sub == "prices":
        reply_prices(ack, services.rules.catalog, rest)
    else:
        reply(f"I don't know `/gpu {escape(sub)}`.\n{cards.HELP_TEXT}")


_BENCH_USAGE = ("Usage: `/gpu bench <host> [" + "|".join(BENCHMARKS) + " …]` (default matmul): a host check "
                "that also runs these benchmarks; needs the benchmarker role")


def parse_bench(rest: str) -> tuple[str, list[str]] | None:
    """`/gpu bench HOST [matmul membw …]` -> (host, benchmarks), or None when it is not that."""
    words = rest.replace(",", " ").split()
    if not words or not CHECK_WORDS.match(f"check {words[0]}"):
        return None
    benchmarks = [w.lower() for w in words[1:]] or ["matmul"]
    if any(b not in BENCHMARKS for b in benchmarks):
        return None
    return words[0], list(dict.fromkeys(benchmarks))


_PRICE_USAGE = "Usage: `/gpu prices <GPU> [spot] [region]`, e.g. `/gpu prices H100 us-east-1`"


def reply_prices(ack, catalog, rest: str) -> None:
    """`/gpu prices H100 [spot] [us-east-1]`: the price table of a GPU as a compact card, like
    `gpu-advisor prices show` (the catalog's source and reading date on it)."""
    words = rest.split()
    spot = any(w.lower() == "spot" for w in words)
    words = [w for w in words if w.lower() != "spot"]
    if not words:
        ack(text=_PRICE_USAGE, response_type="ephemeral")
        return
    region = words[1] if len(words) > 1 else None
    try:
        gpus = catalog.resolve_gpu(words[0][:40])
    except UnknownNameError as exc:
        ack(text=f":grey_question: {escape(str(exc))}\n{_PRICE_USAGE}", response_type="ephemeral")
        return
    card = price_card(catalog, gpus, region=region[:40] if region else None, spot=spot)
    ack(text=card.text, blocks=card.blocks, response_type="ephemeral")


def run_gpu_command(command: dict, context, client: WebClient, respond):
    services: SlackServices = context["services"]
    sub, rest = parse_command(command.get("text", ""))
    user = command.get("user_id", "")
    if sub == "ask" and rest:
        answer_command(services, command, client, respond, rest)
    elif sub == "check" and rest and not services.host_checks.problem and CHECK_WORDS.match(f"check {rest}"):
        def check() -> None:
            card = services.host_check_card(rest, user, channel=command.get("channel_id", ""), private=True)
            respond(text=card.text, blocks=card.blocks, response_type="ephemeral", replace_original=True)

        services.run_check(check)
    elif sub == "bench" and not services.host_checks.problem and parse_bench(rest) is not None:
        host, benchmarks = parse_bench(rest)

        def bench() -> None:
            card = services.host_check_card(host, user, channel=command.get("channel_id", ""), private=True,
                                            benchmarks=benchmarks)
            respond(text=card.text, blocks=card.blocks, response_type="ephemeral", replace_original=True)

        services.run_check(bench)
    elif sub == "rules" and rest == "reload" and services.may_reload_rules(user):
        respond(text=services.reload_rules(), response_type="ephemeral")


def answer_command(services: SlackServices, command: dict, client: WebClient, respond, question: str) -> None:
    """`/gpu ask`: the answer goes in the channel as a thread root, so replies can follow up."""
    team, channel, user = command.get("team_id", ""), command["channel_id"], command.get("user_id", "")
    asked_by = f"<@{user}> asked: " if _USER_ID.match(user) else "Asked: "
    asked_by += f"_{escape(cards.clip(question, 500))}_"
    working = cards.working_card(question)
    try:
        posted = client.chat_postMessage(channel=channel, text=working.text, blocks=working.blocks)
    except SlackApiError as exc:
        if exc.response.get("error") not in _UNAVAILABLE_STATUSES:
            raise
        # Not a member of this conversation: answer privately to the user instead.
        card = services.answer_card(f"{team}:{channel}:{command.get('trigger_id', '')}", user, question,
                                    channel=channel, private=True)
        respond(text=card.text, blocks=card.blocks, response_type="ephemeral")
        return
    card = services.answer_card(f"{team}:{channel}:{posted['ts']}", user, question, channel=channel,
                                asked_by=asked_by)
    client.chat_update(channel=channel, ts=posted["ts"], text=card.text, blocks=card.blocks)
