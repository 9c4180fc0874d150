"""Example cards from real answers, for docs/cards/ (paste any file into Slack's Block Kit Builder).

    python -m bot.slack.examples [OUT_DIR]      # default: docs/cards

Messages are written as `{"blocks": [...]}`; the "Why?" modal and App Home as their view objects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.knowledge import PROJECT_ROOT
from bot.seams import RuleSource

DEFAULT_OUT = PROJECT_ROOT / "docs" / "cards"
CORPUS = PROJECT_ROOT / "tests" / "nlu" / "corpus.yaml"

# name -> a question as a user would type it in Slack
EXAMPLE_QUESTIONS: dict[str, str] = {
    "blocked-geforce-datacenter": "Can I fine-tune a 7B model with LoRA on an RTX 4090 in our datacenter?",
    "fits-7b-on-4090": "can I fine-tune a 7B model on a single 4090?",
    "inference-70b-on-2-h100": "Llama 3 70B inference on 2 H100, 8k context, 32 concurrent users",
    "xid-79-fallen-off-bus": "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.",
    "needs-more-detail": "which GPU should I rent?",
}


def example_cards(rules: RuleSource) -> dict[str, dict]:
    """name -> Block Kit JSON, every card built from a real answer of `rules` (a RuleBaseManager)."""
    from bot.conversation import Conversations
    from bot.ruletools.explain import render_why
    from bot.slack import cards

    conversations = Conversations(rules)
    out: dict[str, dict] = {}
    answers = {}
    for index, (name, question) in enumerate(EXAMPLE_QUESTIONS.items(), start=1):
        answers[name] = conversations.ask(f"example:{name}", question)
        out[name] = cards.answer_card(answers[name], f"a{index}").to_dict()
    blocked = answers["blocked-geforce-datacenter"]
    with rules.engine() as engine:
        tree = render_why(blocked, rules.catalog, engine.rulebase)
    why = cards.preformatted(tree) + cards.split_text(cards.sources_text(blocked, rules.catalog.sources))
    out["why-modal"] = cards.why_view(why).to_dict()
    with rules.engine() as engine:
        version, count = f"{engine.version}+{rules.catalog.content_hash}", len(engine.rulebase)
    out["app-home"] = cards.home_view(cards.HomeInfo(
        rule_base_version=version, rule_count=count, knowledge_date=str(rules.catalog.knowledge_date),
        recent_questions=list(EXAMPLE_QUESTIONS.values())[:3])).to_dict()
    return out


def corpus_answers(rules: RuleSource, corpus: Path = CORPUS) -> list[tuple[str, object]]:
    """(question, answer) for every question of the NLU corpus, each its own conversation."""
    import yaml

    from bot.conversation import Conversations, QuestionError

    conversations = Conversations(rules)
    out = []
    for index, item in enumerate(yaml.safe_load(corpus.read_text(encoding="utf-8"))["questions"]):
        try:
            out.append((item["text"], conversations.ask(f"corpus:{index}", item["text"])))
        except QuestionError:
            continue  # the corpus also holds questions that are wrong on purpose
    return out


def longest(answers: list[tuple[str, object]]) -> tuple[str, object]:
    """The answer whose full JSON is largest: the hardest one to fit on a card."""
    return max(answers, key=lambda qa: len(qa[1].model_dump_json()))


def write_examples(out_dir: Path, rules: RuleSource, corpus: Path | None = CORPUS) -> list[Path]:
    from bot.slack import cards

    payloads = example_cards(rules)
    if corpus is not None and corpus.exists():
        _, answer = longest(corpus_answers(rules, corpus))
        payloads["longest-in-corpus"] = cards.answer_card(answer, "a99").to_dict()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, payload in payloads.items():
        path = out_dir / f"{name}.json"
        path.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    from bot.services import Services

    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0]) if args else DEFAULT_OUT
    with Services() as services:
        for path in write_examples(out_dir, services.rules):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
