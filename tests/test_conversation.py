"""Conversations: follow-ups fill missing slots, new values override, errors come back as one type."""

from __future__ import annotations

import json
import threading

import pytest

from bot.advisor import Advisor
from bot.conversation import ConversationState, Conversations, MemoryConversationStore, QuestionError


@pytest.fixture(scope="module")
def advisor() -> Advisor:
    return Advisor()


@pytest.fixture
def chat(advisor) -> Conversations:
    return Conversations(advisor)


def stated(answer) -> dict:
    return {k: v for k, v in answer.requirement.model_dump(mode="json").items() if v not in (None, [])}


def test_a_follow_up_fills_the_missing_slots(chat):
    first = chat.ask("t1", "Which GPU should I rent to fine-tune a 7B model?")
    assert first.language == "en"
    assert first.questions, "the answer asks for what it is missing"
    second = chat.ask("t1", "LoRA, on two RTX 4090s")
    req = stated(second)
    assert req["workload"] == "training" and req["params_b"] == 7
    assert req["method"] == "lora" and req["gpu"] == "rtx-4090" and req["gpu_count"] == 2
    slots = {k: v for k, v in second.parse["slots"].items() if k != "asks"}  # asks: tests/nlu/slots/test_asks.py
    assert slots == {"workload": "training", "method": "lora", "gpu": "rtx-4090", "gpu_count": 2}


def test_a_newly_stated_value_overrides_the_earlier_one(chat):
    chat.ask("t2", "serve a 13B model on an L40S in bf16")
    answer = chat.ask("t2", "and with 4-bit?")
    req = stated(answer)
    assert req["precision"] == "int4" and req["params_b"] == 13 and req["gpu"] == "l40s"


def test_the_answer_follows_the_language_of_each_message(chat):
    first = chat.ask("t3", "两张 3090 能跑 7B 推理吗？")
    assert first.language == "zh"
    assert any("\u4e00" <= ch <= "\u9fff" for f in first.findings for ch in f.message)
    second = chat.ask("t3", "what about 32k context?")
    assert second.language == "en" and stated(second)["context"] == 32768
    assert stated(second)["gpu"] == "rtx-3090"
    forced = chat.ask("t3", "what about 8k?", language="zh")
    assert forced.language == "zh"


def test_conversations_do_not_share_state(chat):
    chat.ask("a", "fine-tune a 70B model")
    other = chat.ask("b", "on 8x H100")
    assert "params_b" not in stated(other)


def test_xids_accumulate_across_a_troubleshooting_thread(chat):
    chat.ask("t4", "NVRM: Xid (PCI:0000:3b:00): 48, pid=1")
    answer = chat.ask("t4", "now we also see Xid 79")
    assert answer.requirement.xids == [48, 79]


def test_parse_and_advisor_errors_reach_the_caller_as_question_error(chat):
    with pytest.raises(QuestionError) as info:
        chat.ask("t5", "train a 500000B model")
    assert info.value.field == "params_b" and "500000" in str(info.value)
    chat.ask("t5", "fine-tune a 7B model")
    with pytest.raises(QuestionError, match="language"):
        chat.ask("t5", "hello", language="fr")
    # a refused message leaves the conversation as it was
    assert stated(chat.ask("t5", "on a 4090"))["params_b"] == 7


def test_reset_starts_over(chat):
    chat.ask("t6", "fine-tune a 7B model")
    chat.reset("t6")
    assert "params_b" not in stated(chat.ask("t6", "on a 4090"))


def test_state_is_json_serialisable_for_other_stores(chat):
    store = MemoryConversationStore()
    conversations = Conversations(chat.advisor, store)
    conversations.ask("t7", "A costs $1.20/h and takes 80 h; B costs $2.40/h and takes 35 h")
    state = store.get("t7")
    restored = ConversationState.model_validate(json.loads(state.model_dump_json()))
    assert restored == state and len(restored.requirement.costs) == 2 and restored.turns == 1


def test_concurrent_follow_ups_in_one_conversation_are_all_merged(advisor):
    conversations = Conversations(advisor)
    conversations.ask("t8", "fine-tune a 7B model")
    messages = ["in bf16", "batch size 4", "on two 4090s", "context 4k"]
    threads = [threading.Thread(target=conversations.ask, args=("t8", m)) for m in messages]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    req = conversations.store.get("t8").requirement
    assert (req.precision, req.batch_size, req.gpu_count, req.context, req.params_b) == ("bf16", 4, 2, 4096, 7)


def test_unknown_gpu_name_is_raised_as_a_question_not_dropped(chat):
    # (H800 is a catalog GPU now; AMD's MI300X is not)
    answer = chat.ask("unknown-gpu", "CUDA 12.4 container on an MI300X host, driver 550.54.14")
    assert answer.parse["ignored"][0]["text"] == "MI300X"
    assert any("MI300X" in q and "no specs" in q for q in answer.questions)
    zh = chat.ask("unknown-gpu-zh", "我们有八张 MI300X，能训练 7B 吗？")
    assert any("MI300X" in q and "规格" in q for q in zh.questions)


def test_which_gpu_should_i_rent_asks_what_it_needs_then_the_follow_up_fills_it(chat):
    first = chat.ask("rent-1", "which GPU should I rent?")
    assert first.findings, "the answer still gives what it can"
    # an open ask: the deciding question (training or inference) with the default in its first line, then at
    # most two questions of its own
    default = first.answers[0]
    asked = [d for d in default.details if d.startswith("?")]
    assert default.kind == "open" and 1 <= len(asked) <= 2 and first.questions == []
    assert "training or inference" in default.lead.lower() or any("Training or inference" in q for q in asked)
    assert not first.candidates
    follow = chat.ask("rent-1", "inference of Llama-3-8B for 8 concurrent users")
    assert follow.requirement.workload == "inference" and follow.requirement.model == "llama-3-8b"
    assert not any("training" in q and "inference" in q for q in follow.questions)
    assert any(c.fits for c in follow.candidates)


def test_a_cost_follow_up_keeps_the_earlier_quotes_and_replaces_only_what_it_restates():
    from bot.advisor import Advisor
    from bot.conversation import Conversations
    talk = Conversations(Advisor())
    talk.ask("c", "one vendor bills an H100 at $2.40 per GPU hour on demand, another wants $1.4k per GPU "
                  "per month, one month minimum; our usage is around 380 hours a month. which is better?")
    answer = talk.ask("c", "what if we use it 700 hours a month?")
    cost = next(a for a in answer.answers if a.kind == "cost")
    assert "700 h" in cost.lead and "subscription is cheaper by $280" in cost.lead.lower()  # 700 x 2.40 - 1,400
    roles = sorted(q.role for q in answer.requirement.quantities)
    assert roles == ["hours-per-month", "quote", "subscription"]
    talk.ask("c", "spot is $0.90/h vs $3.00 on-demand, the job is ~200 GPU hours on one GPU")  # quotes of its own
    answer = talk.ask("c", "no, 300 GPU-hours")
    cost = next(a for a in answer.answers if a.kind == "cost")
    assert "$270" in cost.lead and "$900" in cost.lead  # 300 x 0.90 and 300 x 3.00: the new work, the same quotes
    assert not any(q.role == "subscription" for q in answer.requirement.quantities)  # the older thread's quote is gone
