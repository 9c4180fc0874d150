"""bot.compose.checkpoint_serving: "is spot worth it?" for inference gets serving advice (spot replicas across
zones above an on-demand floor, drained on the notice; batch work requeued), never a training checkpoint
schedule, and a message about tok/s and output tokens is not asked whether it is training or inference."""

from __future__ import annotations

from bot.nlu import parse
from tests.compose.answering import answer_of


def _spot_reply(advisor, text):
    answer = answer_of(advisor, text)
    replies = [a for a in answer.answers if a.rule and a.rule.startswith("checkpoint.spot-")]
    assert replies, [a.lead for a in answer.answers]
    return replies[0], answer


def test_a_service_on_spot_gets_replicas_and_an_on_demand_floor(advisor):
    reply, _ = _spot_reply(advisor, "our chat API runs mistral-7b on AWS g5 instances at about 900 tok/s. "
                                    "would spot be worth it?")
    assert reply.rule == "checkpoint.spot-serving"
    assert "on-demand replica" in reply.lead and "zones" in reply.lead and "2 minutes" in reply.lead
    assert not any("Young" in d or "interval" in d.lower() for d in reply.details)


def test_the_same_in_chinese(advisor):
    reply, _ = _spot_reply(advisor, "线上推理服务跑 Qwen2.5-7B，用抢占式实例划算吗？")
    assert reply.rule == "checkpoint.spot-serving"
    assert "按需副本" in reply.lead and "摘流" in reply.lead


def test_batch_inference_on_spot_is_requeued_work(advisor):
    reply, _ = _spot_reply(advisor, "offline batch inference of 5M prompts on AWS, is spot worth it?")
    assert reply.rule == "checkpoint.spot-batch-inference"
    assert "requeue" in reply.lead


def test_training_on_spot_still_gets_the_checkpoint_schedule(advisor):
    reply, _ = _spot_reply(advisor, "fine-tuning a 7B on spot A100s on AWS, is spot worth it? how often to checkpoint?")
    assert reply.rule != "checkpoint.spot-serving"


def test_a_price_of_output_tokens_reads_as_inference():
    assert parse("what would the $/1M output tokens be on an L4?").requirement.workload == "inference"
    assert parse("每百万输出 token 多少钱，用 L4").requirement.workload == "inference"
