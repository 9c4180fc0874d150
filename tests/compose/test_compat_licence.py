"""GeForce licence and aftermarket-card answers of the compat composer, through the whole answer."""

from __future__ import annotations

import pytest

from bot.compose import ComposeContext
from bot.nlu.parser import parse
from bot.render.text import ask_lines
from tests.compose.answering import answer_of as _answer


def test_a_paid_api_on_geforce_in_a_colo_is_not_licensed_and_the_alternatives_have_numbers(advisor):
    answer = _answer(advisor, "can we legally run twelve RTX 4090 boxes in a colo and charge clients per token for an "
                              "LLM endpoint? before we sign the PO")
    lines = ask_lines(answer)
    assert lines[0].startswith("Not under NVIDIA's licence") and "commercial hosting" in lines[0]
    assert any("not legal advice" in line for line in lines)
    assert any("L40S (48 GB, 350 W)" in line for line in lines)
    assert "geforce-eula" in answer.answers[0].sources


def test_an_issue_question_is_answered_yes_and_renting_does_not_move_the_risk(advisor):
    answer = _answer(advisor, "我们在某云平台租了 6 卡 4090 的整机，打算拿来给客户提供按调用计费的大模型 API，这样用有没有授权上的麻烦？")
    assert answer.requirement.deployment == "commercial-hosting"
    lines = ask_lines(answer)
    assert lines[0].startswith("有授权风险") and "云厂商" in lines[0]
    assert any("书面说明" in line for line in lines) and any("L20（48 GB" in line for line in lines)
    assert not any(q.rule == "license.ask-deployment" for q in answer.questions)  # where it runs was said


def test_an_aftermarket_card_gets_its_own_answer_and_not_the_generic_pitfalls(advisor):
    answer = _answer(advisor, "买了两张魔改 4090，48G 显存的那种，装 NVIDIA 官网驱动能正常用吗？系统能不能看到完整的 48G？有啥坑")
    lines = ask_lines(answer)
    assert lines[0].startswith("RTX 4090 48GB 魔改卡 不是 NVIDIA 的产品")  # its Chinese name, not the English one
    assert not any("租 GPU 服务器常见的坑" in line for line in lines)


def test_a_data_centre_card_gets_no_licence_answer(advisor):
    answer = _answer(advisor, "is it legal to sell an inference API on L40S cards in our colo?")
    assert not any(a.rule == "compat.geforce-licence" for a in answer.answers)


def test_sharing_a_gpu_without_mig_among_vms_needs_a_vgpu_licence(advisor):
    answer = _answer(advisor, "想把一张 L40S 切给多个虚机/多个租户用，能像 A100 那样开 MIG 吗？需要什么授权？")
    reply = answer.answers[0]
    assert reply.lead.startswith("不能——L40S 不支持 MIG") and "A100" in reply.lead
    assert any("vGPU 软件授权" in d for d in reply.details) and any("时间片共享" in d for d in reply.details)
    assert "nvidia-vgpu-licensing" in reply.sources


def _compat(advisor, text):
    """The compat composer on the whole message, as the router gives it a licence part."""
    from bot.compose.compat_licence import compose
    from bot.models import Ask

    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose(Ask(kind="compat", text=text), ctx)


def test_a_card_said_to_be_fine_for_a_data_centre_is_judged_by_the_licence_and_its_cooler_changes_nothing(advisor):
    reply = _compat(advisor, "a reseller offers us turbo-cooled dual-slot RTX 4090s for our colo racks, to resell "
                             "inference; they claim these are ok for datacenter use. true?")
    assert reply is not None and reply.lead.startswith("Not under NVIDIA's licence"), reply
    assert reply.details[0].startswith("A blower, 2-slot or \"server edition\" RTX 4090 is still a GeForce card")
    assert any("L40S (48 GB, 350 W)" in d for d in reply.details)
    zh = _compat(advisor, "供应商推荐涡轮版 4090 放我们机房做对外推理服务，说服务器版在机房能用吗")
    assert zh is not None and zh.details[0].startswith("涡轮、双槽或所谓“服务器版”的 RTX 4090 仍是 GeForce 卡")


def test_a_geforce_card_without_a_licence_or_placement_question_gets_no_licence_answer(advisor):
    assert _compat(advisor, "is a blower RTX 4090 quieter than the founders edition?") is None


def test_a_licence_question_about_a_data_centre_card_says_the_geforce_clause_does_not_cover_it(advisor):
    answer = _answer(advisor, "we'd host a paid embedding API on L40S boards in our colo, is that a licence problem?")
    lines = ask_lines(answer)
    assert lines[0].startswith("No GeForce licence issue: L40S is a data-centre GPU"), lines[0]
    assert any("vGPU" in line and "not legal advice" in line for line in lines)
    zh = _answer(advisor, "租 H20 的整机放在 IDC 机房给客户提供收费推理，会有授权问题吗？")
    assert ask_lines(zh)[0].startswith("没有 GeForce 那种授权问题：H20 是数据中心卡"), ask_lines(zh)[0]


def test_a_workstation_line_card_in_a_rack_is_pointed_at_its_server_edition(advisor):
    reply = _compat(advisor, "any licence problem with RTX PRO 6000 Blackwell cards in our data centre racks for a "
                             "paid API?")
    assert reply is not None and reply.lead.startswith("No GeForce licence issue: RTX PRO 6000 Blackwell is an NVIDIA "
                                                       "professional")
    assert reply.details[0].startswith("For racks take its Server Edition")


def test_geforce_cards_for_ones_own_work_are_judged_by_where_they_sit_not_as_a_sale(advisor):
    rack = _answer(advisor, "thinking of two RTX 4090 boxes in our server room for internal training only, no customers; "
                            "is that allowed under the GeForce licence?")
    lead = ask_lines(rack)[0]
    assert lead.startswith("Only as workstations") and "grey zone" in lead and "selling" in lead, lead
    rented = _answer(advisor, "我们在算力平台上租 4090 训练自己的模型，有授权问题吗？")
    assert ask_lines(rented)[0].startswith("对你们来说风险较小"), ask_lines(rented)[0]
    sold = _answer(advisor, "our internal legal team asks: is it legal to run a paid API for customers on RTX 4090s in a colo?")
    assert ask_lines(sold)[0].startswith("Not under NVIDIA's licence"), ask_lines(sold)[0]  # "internal legal" sells nothing


def test_the_blockchain_exception_is_said_to_cover_mining_only(advisor):
    reply = _compat(advisor, "is it legal to run RTX 5090s in a colo for crypto mining and, between jobs, a paid LLM API?")
    assert reply is not None and reply.lead.startswith("Not under NVIDIA's licence")
    assert reply.details[0].startswith("The licence's one exception is blockchain processing") and "not AI" in reply.details[0]


def test_renting_geforce_cards_out_is_hosting_by_the_user_not_renting_from_a_provider(advisor):
    reply = _answer(advisor, "我们打算把 8 张 4090 放在 IDC 机柜里对外出租算力，授权上合规吗").answers[0]
    assert reply.lead.startswith("按 NVIDIA 的许可不行"), reply.lead
    assert "放在机房里对外提供收费服务" in reply.lead and "云厂商" not in reply.lead
    assert not any("租来的也不等于没风险" in d for d in reply.details)  # they are the host, not a renter



@pytest.mark.parametrize("text, lead, deployer, model", [
    ("we rent RTX 4090 boxes on Vast.ai to train a model we will license commercially. does the GeForce EULA put us at risk?",
     "Low risk for you", "binds the one who deploys the cards", "the model you train is not covered"),
    ("在恒源云上租了一批 4090 做继续预训练，模型以后要商用，会不会违反 NVIDIA 的许可", "对你们来说风险较小",
     "约束的是在数据中心部署这些卡的一方", "训练出的模型本身不受该条款约束"),
    ("租了 AutoDL 的 3090 做微调，微调出的模型打算商用，算违规吗", "对你们来说风险较小",
     "约束的是在数据中心部署这些卡的一方", "训练出的模型本身不受该条款约束"),
])
def test_training_on_rented_geforce_cards_puts_the_clause_on_the_platform(advisor, text, lead, deployer, model):
    # the renter trains its own model: the deployer is bound, the renter's exposure is compliance, the model is not covered
    lines = ask_lines(_answer(advisor, text))
    body = "\n".join(lines)
    assert lines[0].startswith(lead), lines
    assert deployer in body and model in body, lines
    assert "selling compute" not in body and "对外出售算力" not in body, lines
    assert "ECC" in body and "workstation for internal" not in body and "装在工作站里做内部研发测试" not in body, lines


def test_serving_a_paid_api_from_rented_geforce_cards_is_still_hosting(advisor):
    lines = ask_lines(_answer(advisor, "we rent 4090 servers from a GPU cloud and train, then serve a paid API from them. licence issue?"))
    assert lines[0].startswith("Yes, there is a licence issue"), lines
