"""AWS quota answers: the vCPUs to request per family quota for the instances named, Spot apart."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _reply(advisor, text):
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_two_families_get_their_own_quota_in_vcpus(advisor):
    reply = _reply(advisor, "launching g6e.24xlarge and p4d.24xlarge on a fresh AWS account gives VcpuLimitExceeded; which quotas?")
    assert reply.rule == "checklist.aws-quota"
    assert '"Running On-Demand G and VT instances" (L-DB2E81BA) ≥ 96' in reply.lead
    assert '"Running On-Demand P instances" (L-417A185B) ≥ 96' in reply.lead
    text = "\n".join(reply.details)
    assert "L-3819A6DF" in text and "L-7212CCBC" in text  # Spot is separate
    assert "--service-code ec2 --quota-code L-DB2E81BA --desired-value 96" in text


def test_spot_asks_lead_with_the_spot_quota_times_the_instances_run(advisor):
    reply = _reply(advisor, "AWS 上想用 Spot 跑 3 台 p5.48xlarge，配额怎么申请？")
    assert '3× p5.48xlarge（576 个 vCPU）' in reply.lead and "L-7212CCBC" in reply.lead
    assert any("L-417A185B" in d and "按需" in d for d in reply.details)


def test_a_quota_ask_that_also_asks_about_interruptions_gets_the_notice_and_schedule(advisor):
    text = "our g6e.12xlarge spot launch fails with VcpuLimitExceeded; what quota do we need and how do we deal with interruptions?"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    assert "All G and VT Spot Instance Requests" in reply.lead
    assert any(d.startswith("AWS warns 2 minutes") for d in reply.details)
    assert any(d.startswith("Checkpoint about every") for d in reply.details)


def test_a_labelled_interruption_part_after_a_quota_part_gets_the_notice_and_the_schedule(advisor):
    text = ("(1) our first p4d.24xlarge spot request in eu-west-1 fails with VcpuLimitExceeded. "
            "(2) what should we do about spot interruptions during a week-long fine-tune?")
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    replies = compose_all(ctx)
    assert "L-7212CCBC" in replies[0].lead
    second = next(r for r in replies if r.label == "(2)")
    assert second.lead.startswith("AWS warns 2 minutes") and second.rule == "checkpoint.spot-notice"
    assert any("Young" in d for d in second.details)


def test_a_family_named_without_a_size_gets_its_8_gpu_instance_quota(advisor):
    reply = _reply(advisor, "we only need the p4d family, what quota should a new account file before launching?")
    assert reply.rule == "checklist.aws-quota"
    assert 'p4d.24xlarge (96 vCPUs) → "Running On-Demand P instances" (L-417A185B) ≥ 96' in reply.lead


def _text(advisor, text):
    from bot.conversation import Conversations
    from bot.render.text import render_text
    return render_text(Conversations(advisor).ask("t", text)).splitlines()


@pytest.mark.parametrize("text", [
    "p5.48xlarge launch fails with InsufficientInstanceCapacity, but I raised the vCPU quota; need 4 nodes for 2 weeks guaranteed",
    "getting InsufficientInstanceCapacity launching 4x p5.48xlarge in us-east-1, what do we do? we need them for two weeks",
])
def test_insufficient_capacity_is_a_shortage_a_quota_raise_does_not_fix(advisor, text):
    lines = _text(advisor, text)
    assert lines[0].startswith("InsufficientInstanceCapacity is not your quota") and "VcpuLimitExceeded" in lines[0]
    body = "\n".join(lines)
    assert "Capacity Blocks for ML" in body and "On-Demand Capacity Reservation" in body and "another Availability Zone" in body
    assert "≥ 768 vCPUs" in body  # 4 x 192: the quota the four nodes need, to rule it out
    reply = _reply(advisor, text)
    assert reply.rule == "checklist.aws-capacity" and "aws-ec2-launch-capacity" in reply.sources


def test_insufficient_capacity_in_chinese_and_for_one_g_instance(advisor):
    zh = _text(advisor, "p5.48xlarge 启动报 InsufficientInstanceCapacity，vCPU 配额已经提高了，需要 4 台保证用两周")
    assert zh[0].startswith("InsufficientInstanceCapacity 不是配额问题") and any("Capacity Blocks for ML" in x for x in zh)
    one = _text(advisor, "g6e.12xlarge: insufficient capacity error in us-west-2b. quota is fine. options?")
    assert one[0].startswith("InsufficientInstanceCapacity is not your quota")
    assert not any("Capacity Blocks" in x for x in one)  # the P family's, not a G instance's
    assert not any("1×" in x or "all 1" in x for x in one)


def test_vcpu_limit_exceeded_still_gets_the_quota_to_request(advisor):
    reply = _reply(advisor, "p5.48xlarge fails with VcpuLimitExceeded, what quota do I request?")
    assert reply.rule == "checklist.aws-quota"


@pytest.mark.parametrize("text, lead", [
    ("p5.48xlarge 开不出来，报容量不足，要连续用 3 周 8 台", "InsufficientInstanceCapacity 不是配额问题"),
    ("We keep hitting 'We currently do not have sufficient p5.48xlarge capacity in the Availability Zone you requested' "
     "— what are our options for 2 nodes next month?", "InsufficientInstanceCapacity is not your quota"),
])
def test_the_capacity_error_in_its_own_words_or_in_chinese_is_the_shortage(advisor, text, lead):
    lines = _text(advisor, text)
    assert lines[0].startswith(lead) and any("Capacity Blocks for ML" in x for x in lines)


def test_a_one_instance_window_is_not_counted_as_one_times(advisor):
    lines = _text(advisor, "InsufficientInstanceCapacity on p4de.24xlarge in us-east-1a, quota approved last week — why?")
    assert not any("1×" in x for x in lines)


def test_memory_capacity_is_not_an_ec2_shortage(advisor):
    assert not _text(advisor, "显存容量不足，70B 放不下 4090 怎么办")[0].startswith("InsufficientInstanceCapacity")
