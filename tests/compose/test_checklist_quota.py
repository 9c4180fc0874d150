"""AWS quota answers: the vCPUs to request per family quota for the instances named, Spot apart."""

from __future__ import annotations

import pytest

from bot.advisor import Advisor
from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


@pytest.fixture(scope="module")
def advisor():
    return Advisor()


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
