"""How noisy the rule base is on real questions.

    python bench/rule_noise.py [--top 10] [--corpus tests/nlu/corpus.yaml]

Answers every question of the NLU corpus through `Conversations(Advisor()).ask` (a fresh
conversation per question) and prints the average number of findings per answer and the rules
that fire on the largest share of questions (a rule counted once per question however many
findings it gave), with the average findings per firing.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.advisor import Advisor  # noqa: E402
from bot.conversation import Conversations, QuestionError  # noqa: E402
from bot.yamlio import load_yaml  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT / "tests/nlu/corpus.yaml"))
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()

    questions = [q["text"] for q in load_yaml(Path(args.corpus)).data["questions"]]
    conversations = Conversations(Advisor())
    per_answer: list[int] = []
    questions_with = collections.Counter()
    findings_of = collections.Counter()
    errors = 0
    for index, text in enumerate(questions):
        try:
            answer = conversations.ask(f"noise-{index}", text)
        except QuestionError:
            errors += 1
            continue
        per_answer.append(len(answer.findings))
        rules = [f.rule for f in answer.findings]
        findings_of.update(rules)
        questions_with.update(set(rules))

    answered = len(per_answer)
    print(f"questions: {len(questions)}  answered: {answered}  input errors: {errors}")
    print(f"findings per answer: mean {statistics.mean(per_answer):.2f}  "
          f"median {statistics.median(per_answer):.0f}  max {max(per_answer)}")
    print(f"top {args.top} rules by share of answered questions:")
    for rule, count in questions_with.most_common(args.top):
        print(f"  {rule:45s} {count / answered:6.1%}  ({count} questions, "
              f"{findings_of[rule] / count:.1f} findings each)")


if __name__ == "__main__":
    main()
