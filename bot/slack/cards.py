"""Block Kit rendering: answer cards, the "Why?" and "More" modals, the App Home tab, help.

Blocks are built with `slack_sdk.models.blocks`, whose validators check Slack's per-block limits
when a block is serialised (`to_dict`). The limits those validators leave out (blocks per
message or view, an overall size a reader can take in) are enforced here: a long answer is
trimmed to fit and gets a "More" button that opens the complete list in a modal.

Every string that can carry user text goes through `escape`: Slack parses `<!channel>`,
`<!here>` and `<@U…>` out of mrkdwn, and escaping `&`, `<`, `>` is what stops echoed input from
pinging a channel.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextObject,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.models import TOPICS, Answer, Candidate, Finding
from bot.knowledge import default_catalog
from bot.messages.format import display_text
from bot.render.text import ask_lines, recommendation_line, said_ranks
from bot.render.zh import localise

MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
SECTION_TEXT_MAX = 3000
HEADER_TEXT_MAX = 150
CONTEXT_TEXT_MAX = 2000
BUTTON_VALUE_MAX = 2000
FALLBACK_TEXT_MAX = 3000
# What one card shows before trimming: enough for a decision, short enough to read in Slack.
CARD_TEXT_BUDGET = 9000
FINDING_MESSAGE_MAX = 700
CARD_CANDIDATES = 5

ACTION_WHY = "why"
ACTION_CHECK_HOST = "check_host"
ACTION_SHOW_CHART = "show_chart"
ACTION_MORE = "more"
VIEW_CHECK_HOST = "check_host_view"
HOST_SELECT_BLOCK = "host"
HOST_SELECT_ACTION = "host_select"

_SEVERITY_ORDER = {"block": 0, "warn": 1, "info": 2}
_SEVERITY_MARK = {"block": ":no_entry:", "warn": ":warning:", "info": ":information_source:"}

_LABELS = {
    "en": {
        "blocked": "Not as asked: {n} blocking issue{s}",
        "fits": "Fits: {count} × {gpu}, {headroom:.1f} GB headroom",
        "no_fit": "Does not fit: {count} × {gpu} needs {need:.1f} GB, has {have:.0f} GB",
        "options_fit": "{n} GPU option{s} fit ({need:.1f} GB needed)",
        "nothing_fits": "Nothing fits on one GPU ({need:.1f} GB needed)",
        "warnings": "Workable, with {n} warning{s}",
        "need_more": "I need a little more detail",
        "info": "Here is what the rules say",
        "no_rule": "Here is what I can say",
        "understood": "Understood", "assumed": "Assumed", "memory": "Memory",
        "candidates": "Fits, with headroom", "needs": "needs {need:.1f} of {have:.0f} GB",
        "headroom": "headroom", "tell_me": "To answer better, tell me (reply in this thread)",
        "cost": "Cost", "cheapest": "cheapest", "rule_base": "rule base",
        "why": "Why?", "check_host": "Check a host", "chart": "Show chart", "more": "More",
        "trimmed": "{n} more finding{s} not shown: press More.",
        "covers": "covers",
        "verdict": {"yes": "Yes", "no": "No", "tight": "Only just", "depends": "It depends",
                    "info": "Here is the answer", "ask": "I need a little more detail"},
        "options": "What to do", "watch": "Watch out", "more_title": "All findings",
        "more_hint": "{n} more finding{s}, the memory sum, assumptions and candidates: press More.",
    },
    "zh": {
        "blocked": "不可行：{n} 个阻断问题",
        "fits": "可行：{count} × {gpu}，余量 {headroom:.1f} GB",
        "no_fit": "放不下：{count} × {gpu} 需要 {need:.1f} GB，只有 {have:.0f} GB",
        "options_fit": "{n} 种 GPU 可容纳（需要 {need:.1f} GB）",
        "nothing_fits": "单卡都放不下（需要 {need:.1f} GB）",
        "warnings": "可行，但有 {n} 个警告",
        "need_more": "还需要一些信息",
        "info": "规则给出的结论",
        "no_rule": "我能给出的信息",
        "understood": "理解的需求", "assumed": "假设", "memory": "显存",
        "candidates": "可容纳（含余量）", "needs": "需要 {need:.1f} / {have:.0f} GB",
        "headroom": "余量", "tell_me": "请在本线程中补充",
        "cost": "费用", "cheapest": "最便宜", "rule_base": "规则库",
        "why": "依据", "check_host": "检查主机", "chart": "图表", "more": "更多",
        "trimmed": "还有 {n} 条结论未显示：点“更多”。",
        "covers": "包含",
        "verdict": {"yes": "可以", "no": "不行", "tight": "勉强可以", "depends": "取决于情况",
                    "info": "结论", "ask": "还需要一些信息"},
        "options": "建议", "watch": "注意", "more_title": "全部结论",
        "more_hint": "另有 {n} 条结论，以及显存明细、假设和候选配置：点“更多”。",
    },
}


def escape(text: str) -> str:
    """Slack's mrkdwn escaping: `<!channel>` becomes inert `&lt;!channel&gt;`."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, ending in an ellipsis when cut (never inside an escape)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut + "…"


def _labels(answer: Answer) -> dict[str, str]:
    return _LABELS.get(answer.language, _LABELS["en"])


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


def _section(text: str) -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=clip(text, SECTION_TEXT_MAX)))


def _context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=clip(text, CONTEXT_TEXT_MAX))])


def _header(text: str) -> HeaderBlock:
    return HeaderBlock(text=PlainTextObject(text=clip(text, HEADER_TEXT_MAX), emoji=True))


def split_text(text: str, limit: int = SECTION_TEXT_MAX) -> list[str]:
    """Split at line breaks into chunks of at most `limit` characters (long lines are cut)."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        line = clip(line, limit)
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


# -- the answer card ----------------------------------------------------------------------


def selected_candidate(answer: Answer) -> Candidate | None:
    gpu = answer.requirement.gpu
    if not gpu:
        return None
    wanted = answer.requirement.gpu_count or 1
    names = {gpu, *answer.gpu_family}
    matches = [c for c in answer.candidates if c.gpu in names]
    exact = [c for c in matches if c.count == wanted]
    return (exact or matches or [None])[0]


_VERDICT_MARK = {"yes": ":white_check_mark:", "no": ":x:", "tight": ":warning:", "depends": ":scales:",
                 "info": ":information_source:", "ask": ":grey_question:"}


def headline(answer: Answer) -> str:
    """The card's header: the verdict's answer in a word or two (its sentence follows below)."""
    t = _labels(answer)
    if answer.verdict is not None:
        return f"{_VERDICT_MARK[answer.verdict.answer]} {t['verdict'][answer.verdict.answer]}"
    blocking = [f for f in answer.findings if f.severity == "block"]
    if blocking:
        return ":no_entry: " + t["blocked"].format(n=len(blocking), s=_plural(len(blocking)))
    chosen = selected_candidate(answer)
    if chosen is not None:
        if chosen.fits:
            return ":white_check_mark: " + t["fits"].format(count=chosen.count, gpu=chosen.gpu,
                                                             headroom=chosen.headroom_gb)
        return ":x: " + t["no_fit"].format(count=chosen.count, gpu=chosen.gpu, need=chosen.need_gb,
                                           have=chosen.have_gb)
    warnings = [f for f in answer.findings if f.severity == "warn"]
    if answer.candidates:
        fitting = [c for c in answer.candidates if c.fits]
        need = answer.candidates[0].need_gb
        if fitting and not warnings:
            return ":white_check_mark: " + t["options_fit"].format(n=len(fitting), s=_plural(len(fitting)), need=need)
        if not fitting:
            return ":x: " + t["nothing_fits"].format(need=need)
    if warnings:
        return ":warning: " + t["warnings"].format(n=len(warnings), s=_plural(len(warnings)))
    if answer.questions and not answer.findings:
        return ":grey_question: " + t["need_more"]
    if answer.findings:
        return ":information_source: " + t["info"]
    return ":grey_question: " + t["no_rule"]


def _understood(answer: Answer) -> str | None:
    t = _labels(answer)
    read_as = _read_as(answer)
    lines = []
    if read_as:
        lines.append(f"*{t['understood']}:* " + read_as)
    if answer.gpu_family:
        lines.append(f"{escape(answer.requirement.gpu or '')} {t['covers']}: {escape(', '.join(answer.gpu_family))}")
    memory = answer.estimate.memory_gb
    if memory and memory.total:
        lines.append(f"*{t['memory']}:* {memory.sum_text()} = *{memory.total:.1f} GB*")
    if answer.estimate.assumptions:
        lines.append(f"*{t['assumed']}:*")
        lines += [f"• {escape(localise(a, answer.language))}" for a in answer.estimate.assumptions]
    return "\n".join(lines) if lines else None


def _read_as(answer: Answer) -> str:
    """`key=value` for every slot the question (and its thread) stated; the asks by their kinds, in order
    ("asks=`fit, price`"), so a misreading is visible."""
    req = answer.requirement.model_dump(exclude={"costs", "asks", "pasted"})
    parts = []
    if answer.requirement.asks:
        parts.append(f"asks=`{escape(', '.join(a.kind for a in answer.requirement.asks))}`")
    for key, value in req.items():
        if value in (None, [], {}):
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        parts.append(f"{key}=`{escape(shown)}`")
    return " · ".join(parts)


def _candidates(answer: Answer) -> str | None:
    t = _labels(answer)
    chosen = selected_candidate(answer)
    shown = [c for c in answer.candidates if c.fits][:CARD_CANDIDATES]
    if chosen is not None and chosen not in shown:
        shown.insert(0, chosen)
    if not shown:
        return None
    lines = [f"*{t['candidates']}:*"]
    for c in shown:
        mark = ":white_check_mark:" if c.fits else ":x:"
        star = " ←" if c is chosen else ""
        lines.append(f"{mark} {c.count} × `{escape(c.gpu)}`: {t['needs'].format(need=c.need_gb, have=c.have_gb)}, "
                     f"{t['headroom']} {c.headroom_gb:+.1f} GB{star}")
    return "\n".join(lines)


def _cost_line(answer: Answer) -> str | None:
    if not answer.costs:
        return None
    t = _labels(answer)
    cheapest = min(answer.costs, key=lambda c: c.total)
    parts = [
        f"{escape(c.label)}{' [' + escape(c.gpu) + ']' if c.gpu else ''}: {c.hourly_rate:g}/h × {c.hours:g} h = "
        f"*{c.total:,.2f} {escape(c.currency)}*"
        for c in answer.costs
    ]
    suffix = f" ({t['cheapest']}: {escape(cheapest.label)})" if len(answer.costs) > 1 else ""
    return f":moneybag: *{t['cost']}:* " + " · ".join(parts) + suffix


def finding_groups(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    """Findings grouped by topic; groups with a blocking finding first, each group worst first."""
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.topic, []).append(finding)
    for items in groups.values():
        items.sort(key=lambda f: _SEVERITY_ORDER[f.severity])
    topic_order = {topic: i for i, topic in enumerate(TOPICS)}
    return sorted(groups.items(), key=lambda kv: (_SEVERITY_ORDER[kv[1][0].severity], topic_order.get(kv[0], 99)))


def _finding_line(finding: Finding, with_rule: bool = True, language: str = "en") -> str:
    """One finding; its rule id only where people look for the reasoning ("More", "Why?"); in the
    answer card with display names, as the brief text has them."""
    message = finding.message if with_rule else display_text(finding.message, default_catalog(), language)
    line = f"{_SEVERITY_MARK[finding.severity]} {escape(clip(message, FINDING_MESSAGE_MAX))}"
    return f"{line} _({escape(finding.rule)})_" if with_rule else line


def _topic_title(topic: str) -> str:
    return topic.replace("_", " ").capitalize()


def _finding_sections(findings: list[Finding], title: str | None = None,
                      with_rule: bool = True, language: str = "en") -> list[tuple[int, str]]:
    """(finding count, section text) pairs, in display order, each within a section's limit:
    under one `title`, or grouped by topic."""
    groups = [(title, findings)] if title else [(f"{_topic_title(topic)}", items) for topic, items in
                                                 finding_groups(findings)]
    sections: list[tuple[int, str]] = []
    for name, items in groups:
        if not items:
            continue
        heading = f"*{name}*"
        current, count = heading, 0
        for finding in items:
            line = _finding_line(finding, with_rule, language)
            if count and len(current) + 1 + len(line) > SECTION_TEXT_MAX:
                sections.append((count, current))
                current, count = f"{heading} (cont.)", 0
            current, count = f"{current}\n{line}", count + 1
        sections.append((count, current))
    return sections


@dataclass
class Card:
    """A message: blocks (validated, as JSON-ready dicts) plus the notification/fallback text."""

    blocks: list[dict]
    text: str
    trimmed: int = 0

    def to_dict(self) -> dict:
        return {"blocks": self.blocks}


def _verdict_section(answer: Answer) -> Block | None:
    verdict = answer.verdict
    if verdict is None:
        return None
    return _section(f"*{escape(clip(verdict.text, FINDING_MESSAGE_MAX))}* _({escape(verdict.rule)})_")


def _lead_section(answer: Answer) -> Block | None:
    """Each ask's answer first (the verdict where the primary ask's composer added nothing), with
    display names and no rule ids: the card's answer to what was asked."""
    lines = [display_text(line, default_catalog(), answer.language) for line in ask_lines(answer)]
    if not lines:
        return None
    first, rest = lines[0], lines[1:]
    text = f"*{escape(clip(first, FINDING_MESSAGE_MAX))}*"
    if rest:
        text += "\n" + escape("\n".join(rest))
    return _section(clip(text, SECTION_TEXT_MAX))


def _recommendations(answer: Answer) -> str | None:
    led = said_ranks(answer)  # already the lead or a line under it: not listed again
    recommendations = [r for r in answer.recommendations if r.rank not in led]
    if not recommendations:
        return None
    t = _labels(answer)
    lines = [f"*{t['options']}:*"]
    lines += [f"{r.rank}. {escape(display_text(recommendation_line(r, answer.language), default_catalog(), answer.language))}"
              for r in recommendations]
    return "\n".join(lines)


def _key_findings(answer: Answer) -> list[Finding]:
    return [f for f in answer.findings if f.tier == "key"]


def answer_card(answer: Answer, answer_id: str | None, *, title: str | None = None,
                asked_by: str | None = None) -> Card:
    """The card for one answer, in the answer's order: the verdict as the header and its sentence,
    the ranked options, the key findings, at most three questions; everything else behind "More".
    `answer_id` keys the buttons; None renders a card without them.

    `asked_by` is a ready-made mrkdwn line (the caller escapes the question in it).
    """
    t = _labels(answer)
    head = headline(answer)
    blocks: list[Block] = []
    if asked_by:
        blocks.append(_context(asked_by))
    blocks.append(_header(f"{escape(title)}: {head}" if title else head))
    lead = _lead_section(answer)
    if lead is not None:
        blocks.append(lead)
    options = _recommendations(answer)
    if options:
        blocks += [_section(chunk) for chunk in split_text(options)]
    tail: list[Block] = []
    if answer.questions:
        tail.append(_section(f"*{t['tell_me']}:*\n" + "\n".join(f"• {escape(q)}" for q in answer.questions[:3])))

    # Key findings fill what the budgets leave: blocks (actions, footer and a trim notice reserved)
    # and characters; the rest is one press of "More" away.
    reserved = len(tail) + 3
    used_chars = sum(len(getattr(getattr(b, "text", None), "text", "") or "") for b in blocks + tail)
    key = _key_findings(answer)
    shown_findings = 0
    if key:
        blocks.append(DividerBlock())
    for count, text in _finding_sections(key, title=t["watch"], with_rule=False, language=answer.language):
        fits_blocks = len(blocks) + 1 + reserved <= MAX_MESSAGE_BLOCKS
        fits_chars = used_chars + len(text) <= CARD_TEXT_BUDGET
        if not (fits_blocks and fits_chars):
            break
        blocks.append(_section(text))
        used_chars += len(text)
        shown_findings += count
    blocks += tail
    hidden = len(answer.findings) - shown_findings
    has_more = bool(hidden or answer.estimate.memory_gb or answer.estimate.assumptions or answer.candidates
                    or answer.costs or answer.more_questions)
    if hidden:
        blocks.append(_context(t["more_hint"].format(n=hidden, s=_plural(hidden))))
    if answer_id is not None:
        buttons = [ButtonElement(text=t["why"], action_id=ACTION_WHY, value=answer_id),
                   ButtonElement(text=t["check_host"], action_id=ACTION_CHECK_HOST, value=answer_id)]
        if answer.estimate.memory_gb is not None or answer.costs:
            buttons.append(ButtonElement(text=t["chart"], action_id=ACTION_SHOW_CHART, value=answer_id))
        if has_more:
            buttons.append(ButtonElement(text=t["more"], action_id=ACTION_MORE, value=answer_id))
        blocks.append(ActionsBlock(elements=buttons))
    # One small line says how the question was read, so a misreading is visible without "More".
    read_as = _read_as(answer)
    blocks.append(_context(clip(f"{read_as + ' · ' if read_as else ''}{t['rule_base']} "
                                f"`{escape(answer.rule_base_version or '?')}` · "
                                f"{len(answer.findings)} finding{_plural(len(answer.findings))}", CONTEXT_TEXT_MAX)))
    fallback = answer.verdict.text if answer.verdict is not None else re.sub(r":[a-z_]+: ", "", head, count=1)
    return Card(blocks=check_limits(blocks, MAX_MESSAGE_BLOCKS), text=clip(escape(fallback), FALLBACK_TEXT_MAX),
                trimmed=hidden)


def check_limits(blocks: list[Block], max_blocks: int) -> list[dict]:
    """Slack's limits, checked before anything is sent: count here, per-block ones by slack_sdk
    (`to_dict` raises SlackObjectFormationError). Returns the blocks as dicts."""
    if len(blocks) > max_blocks:
        raise ValueError(f"{len(blocks)} blocks exceed Slack's limit of {max_blocks}")
    return [block.to_dict() for block in blocks]


def notice_card(text: str, emoji: str = ":information_source:") -> Card:
    """A short message: an error, a usage line, a status."""
    body = f"{emoji} {text}"
    return Card(blocks=check_limits([_section(body)], 1), text=clip(body, FALLBACK_TEXT_MAX))


def working_card(question: str) -> Card:
    body = f":hourglass_flowing_sand: Working on: _{escape(clip(question, 500))}_"
    return Card(blocks=check_limits([_section(body)], 1),
                text=clip(f"Working on: {escape(question)}", FALLBACK_TEXT_MAX))


# -- modals -----------------------------------------------------------------------------


def _modal(title: str, blocks: list[Block], **kwargs) -> View:
    if len(blocks) > MAX_VIEW_BLOCKS:
        blocks = blocks[: MAX_VIEW_BLOCKS - 1] + [_context("… cut at Slack's limit of 100 blocks per view.")]
    check_limits(blocks, MAX_VIEW_BLOCKS)
    return View(type="modal", title=PlainTextObject(text=clip(title, 24)),
                close=PlainTextObject(text="Close"), blocks=blocks, **kwargs)


def preformatted(text: str) -> list[str]:
    """Plain text shown verbatim (escaped) as code blocks, one per section, each within its limit."""
    fence = "```"
    chunks = split_text(escape(text), SECTION_TEXT_MAX - 2 * len(fence) - 2)
    return [f"{fence}\n{chunk}\n{fence}" for chunk in chunks]


def sources_text(answer: Answer, sources: dict) -> str:
    """Every source the findings cite, once, with a link where it has one."""
    cited: list[str] = []
    for finding in answer.findings:
        cited += [s for s in finding.sources if s not in cited]
    if not cited:
        return ""
    return "*Sources*\n" + "\n".join(f"• {_source_link(s, sources)}" for s in cited)


def _source_link(source_id: str, sources: dict) -> str:
    source = sources.get(source_id)
    if source is None:
        return escape(source_id)
    title = escape(clip(source.title, 120)).replace("|", "¦")
    if source.url.startswith(("http://", "https://")):
        return f"<{source.url}|{title}>"
    return f"{title} (`{escape(source.url)}`)"


def why_view(sections: list[str]) -> View:
    """A modal showing a justification, one mrkdwn section per item."""
    return _modal("Why this answer", [_section(text) for text in sections if text])


def more_view(answer: Answer) -> View:
    """Everything the card leaves out: the parse, memory sum and assumptions, the candidates and
    costs, every finding by topic, and the remaining questions."""
    t = _labels(answer)
    blocks: list[Block] = [_header(headline(answer))]
    verdict = _verdict_section(answer)
    if verdict is not None:
        blocks.append(verdict)
    for text in (_understood(answer), _candidates(answer), _cost_line(answer)):
        if text:
            blocks += [_section(chunk) for chunk in split_text(text)]
    blocks += [_section(text) for _, text in _finding_sections(answer.findings)]
    if answer.more_questions:
        blocks.append(_section(f"*{t['tell_me']}:*\n" + "\n".join(f"• {escape(q)}" for q in answer.more_questions)))
    return _modal(t["more_title"], blocks)


def check_host_view(hosts: list[str], metadata: dict) -> View:
    """The "Check a host" modal: pick one of the hosts the user may check."""
    options = [Option(text=clip(h, 75), value=h[:150]) for h in hosts[:100]]
    select = StaticSelectElement(action_id=HOST_SELECT_ACTION, options=options,
                                 placeholder=PlainTextObject(text="Pick a host"))
    return _modal("Check a host", [InputBlock(block_id=HOST_SELECT_BLOCK, label="Host", element=select)],
                  callback_id=VIEW_CHECK_HOST, submit=PlainTextObject(text="Check"),
                  private_metadata=json.dumps(metadata))


def notice_view(title: str, text: str) -> View:
    return _modal(title, [_section(text)])


# -- App Home and help ---------------------------------------------------------------------

HELP_TEXT = "\n".join([
    "*Ask me about NVIDIA GPUs for AI training and inference.* Every answer comes from named rules, with sources.",
    "• Mention me in a channel: `@GPU Advisor will Llama 3 8B LoRA fit on a 4090?` (I answer in a thread; "
    "mention me again in the thread to follow up)",
    "• Send me a direct message with the same kind of question",
    "• `/gpu ask <question>`: answer in this channel",
    "• `/gpu check <host>`: run the checks on a host from the inventory",
    "• `/gpu bench <host> [matmul|membw|h2d|serving …]`: a check that also runs benchmarks (benchmarkers)",
    "• `/gpu prices <GPU> [spot] [region]`: the price table of a GPU, dated (e.g. `/gpu prices H100 us-east-1`)",
    "• `/gpu rules`: the rule base version and rule count",
    "• `/gpu rules reload`: reload the rule base (rule admins only)",
    "• `/gpu whoami`: your roles, and where each comes from",
    "• `/gpu help`: this text",
    "Key=value words work too: `gpu=4090 params=7 workload=training method=lora`.",
])


@dataclass
class HomeInfo:
    rule_base_version: str
    rule_count: int
    knowledge_date: str
    recent_questions: list[str] = field(default_factory=list)


def home_view(info: HomeInfo) -> View:
    blocks: list[Block] = [
        _header("GPU Advisor"),
        _section(HELP_TEXT),
        DividerBlock(),
        SectionBlock(fields=[
            MarkdownTextObject(text=f"*Rule base*\n`{escape(info.rule_base_version)}`"),
            MarkdownTextObject(text=f"*Rules*\n{info.rule_count}"),
            MarkdownTextObject(text=f"*Knowledge as of*\n{escape(info.knowledge_date)}"),
        ]),
        DividerBlock(),
    ]
    if info.recent_questions:
        blocks.append(_section("*Your recent questions*\n" + "\n".join(
            f"• {escape(clip(q, 300))}" for q in info.recent_questions)))
    else:
        blocks.append(_section("*Your recent questions*\nNone yet: ask me something."))
    check_limits(blocks, MAX_VIEW_BLOCKS)
    return View(type="home", blocks=blocks)
