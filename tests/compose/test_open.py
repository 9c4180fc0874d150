"""Open asks (bot/compose/open.py): a default with its reason, then at most two questions."""

from __future__ import annotations

import re

import pytest

from bot.conversation import Conversations


def _open(advisor, text):
    answer = Conversations(advisor).ask("t", text).answers[0]
    assert answer.kind == "open"
    return answer, [d for d in answer.details if d.startswith("? ")]


@pytest.mark.parametrize("text, node", [
    ("our lab needs a fine-tuning machine, any suggestions?", "8× H100 SXM"),
    ("课题组要一台做微调的机器，怎么配", "8 卡 H800"),
])
def test_a_team_box_is_a_node_or_a_few_four_gpu_servers_not_one_card(advisor, text, node):
    answer, questions = _open(advisor, text)
    assert node in answer.lead and re.search(r"4× L40S|4 卡 L20", answer.lead)
    assert "1× H100 SXM" not in answer.lead and "1 张" not in answer.lead
    assert 1 <= len(questions) <= 2


def test_a_stated_purchase_leads_with_what_to_buy_and_never_asks_whether_to_buy(advisor):
    answer, questions = _open(advisor, "thinking about purchasing a couple of GPUs for training")
    assert answer.lead.startswith("Default purchase for training") and "data-centre licensed" in answer.lead
    assert not any("is buying on the table" in q for q in questions)
    assert any("where will the machine sit" in q for q in questions)


@pytest.mark.parametrize("text", ["给推荐下 GPU", "公司内部想用大模型做问答，机器怎么配"])
def test_a_chinese_default_names_a_licensed_card_and_the_geforce_caveat_without_us_rates(advisor, text):
    answer, questions = _open(advisor, text)
    lines = " ".join([answer.lead, *answer.details])
    assert "L20 48 GB" in lines and "GeForce 许可不允许数据中心部署" in lines
    assert "$" not in lines and "美国云" not in lines
    assert 1 <= len(questions) <= 2


@pytest.mark.parametrize("text, card", [
    ("small group here, want to experiment with fine-tuning, not sure yet which models. what should we rent?", "L40S"),
    ("我们组想先摸索一下微调，租什么卡合适？", "L20"),
])
def test_exploring_fine_tuning_gets_one_card_by_the_hour_not_a_node(advisor, text, card):
    answer, questions = _open(advisor, text)
    assert card in answer.lead and "8×" not in answer.lead and "8 卡" not in answer.lead
    assert 1 <= len(questions) <= 2


@pytest.mark.parametrize("text", ["想在公司内网本地部署个大模型，买啥服务器", "we want to self-host an LLM for the office, what box?"])
def test_a_local_model_for_a_company_is_a_serving_setup_with_its_sizes(advisor, text):
    answer, questions = _open(advisor, text)
    assert re.search(r"7-8B", answer.lead) and re.search(r"70B", answer.lead)  # sizes by model, numbers first
    assert len(questions) <= 2 and answer.rule == "open.default-setup"


@pytest.mark.parametrize("text, clouds", [
    ("国内租 GPU 服务器，找哪家比较靠谱", ("腾讯云", "火山引擎", "华为云", "AutoDL")),
    ("which provider should we rent GPU servers from?", ("AWS", "Tencent Cloud", "Vast.ai")),
])
def test_which_provider_names_the_chinese_clouds_and_says_to_trial_first(advisor, text, clouds):
    answer, questions = _open(advisor, text)
    said = " ".join([answer.lead, *answer.details])
    assert all(name in said for name in clouds), said
    assert re.search(r"先租 1–2 天|trial a node for a day or two", said)
    assert len(questions) <= 2


@pytest.mark.parametrize("text, starts", [
    ("which graphics card would you recommend for AI stuff?", "Depends mainly on what you'll run (training or inference"),
    ("想租几张卡搞大模型，在国内，用什么卡好？", "主要看你要跑什么（训练还是推理、模型多大）——"),
])
def test_a_vague_ask_leads_with_the_deciding_question_and_the_default(advisor, text, starts):
    from tests.compose.answering import answer_of
    first = answer_of(advisor, text).answers[0]
    assert first.lead.startswith(starts), first.lead
    assert sum(d.startswith("? ") for d in first.details) <= 1
