"""`select` asks (issue #24): a team renting in China gets the cards rented there, judged on its job;
training is never handed to a card with a small share of the market's compute; a training run with
no deadline is planned as a cluster that finishes in weeks. Real parser, sizer, rules and catalog."""

import re


from bot.advice.options import DEFAULT_TRAINING_HOURS, market_for
from bot.conversation import Conversations
from bot.models import Requirement
from bot.render.text import render_text


def ask(advisor, text):
    return Conversations(advisor).ask("t", text)


def test_a_team_that_says_it_is_in_china_rents_in_china():
    assert market_for(Requirement(), "en", "we're a China-based team (Shenzhen)") == "china"
    assert market_for(Requirement(), "en", "a Beijing startup serving a 70B") == "china"
    assert market_for(Requirement(), "en", "we are a team in Berlin") == "global"


def test_a_ruled_out_gpu_is_neither_the_users_gpu_nor_an_unknown_one(advisor):
    answer = ask(advisor, "China-based team, need to train 13B models. which GPUs can we get? don't say H100")
    req = answer.requirement
    assert req.gpu is None and req.unknown_gpu is None
    assert "no specs" not in render_text(answer)


def test_a_china_team_gets_the_cards_rented_there_with_a_training_pick_on_compute(advisor):
    answer = ask(advisor, "we're a China-based team (Shenzhen). need to train 13B models. which NVIDIA GPUs can we get?")
    text = render_text(answer)
    first = text.splitlines()[0]
    # no training method stated: the cards rented there lead, the (full fine-tuning) pick follows, labelled
    assert first.startswith("Cards you can rent in China:")
    for card in ("H800", "A800", "H20", "L20"):
        assert card in first
    assert "H100" not in first and "A40" not in text
    top = answer.recommendations[0]
    assert "china" in advisor.catalog.gpus[top.gpu].markets
    assert not top.gpu.startswith("h20")  # H20's 148 TFLOPS BF16 is no training card
    assert "TFLOPS dense BF16" in text.splitlines()[1] and "the method is not stated" in text.splitlines()[1]


def test_a_chinese_question_gets_the_chinese_market_lead(advisor):
    answer = ask(advisor, "团队打算租卡做 7B 的 LoRA 微调，选哪种卡？")
    first = render_text(answer).splitlines()[0]
    assert first.startswith("这个训练任务选") and "国内能租到的卡：" in first
    # a card rented in China with room to spare (19 GB of a 48 GB card), not a 24 GB card at 80% full nor one rented anywhere
    assert re.match(r"这个训练任务选 1 张 L20：每卡约 \d+/4\d GB", first)


def test_a_long_training_run_without_a_deadline_is_a_cluster_that_finishes_in_weeks(advisor):
    answer = ask(advisor, "预训练一个 7B 模型，1T token，租什么集群，多久训完？")
    top = answer.recommendations[0]
    assert top.count >= 16 and top.hours <= DEFAULT_TRAINING_HOURS
    assert "天" in render_text(answer).splitlines()[0]


def test_a_cluster_for_a_training_run_leads_with_nodes_days_and_cost(advisor):
    answer = ask(advisor, "pretrain a 7B model on 1T tokens, budget is no issue. what cluster should we rent and how long?")
    first = render_text(answer).splitlines()[0]
    top = answer.recommendations[0]
    assert first.startswith(f"{top.count}× ") and f"({-(-top.count // 8)} nodes of 8)" in first
    assert "days" in first and "$" in first and "confirm" in first


def test_compared_options_rank_tensor_parallel_over_many_pcie_cards_last(advisor):
    answer = ask(advisor, "thinking about an 8x RTX 4090 server for Llama-3.1-70B in AWQ int4 rather than 2x H100 SXM, "
                          "since the 4090 box rents for far less per hour — good idea?")
    assert [(r.gpu, r.count) for r in answer.recommendations[:2]] == [("h100-sxm", 2), ("rtx-4090", 8)]


def test_a_yuan_budget_a_month_is_turned_into_the_rate_it_pays_for(advisor):
    answer = ask(advisor, "团队每个月预算两万，想租卡做 7B 的 LoRA 微调，选什么卡？")
    lines = render_text(answer).splitlines()
    budget = next(line for line in lines if "的预算" in line)
    # ¥20,000 over 730 hours for one card: about ¥27.40 per GPU-hour
    assert "每月 ¥20,000 的预算" in budget and "约 ¥27.40/卡时" in budget


def test_a_purchase_budget_is_not_turned_into_a_card_count_without_a_purchase_price(advisor):
    for text, phrase in (("we want to buy servers to serve qwen2.5-72b to 80 users, budget $500k. H100 or H200?",
                          "Purchase prices are not in the catalog"),
                         ("公司要采购服务器做 32B 推理服务，预算 80 万，L20 还是 H20？", "目录里没有采购价")):
        lines = render_text(ask(advisor, text)).splitlines()
        said = [line for line in lines[:4] if phrase in line]
        assert said, (text, lines[:4])
        assert re.search(r"[0-9]+ ?(?:×|张)", said[0])  # the count the job needs, from the sizing


def test_renting_with_a_budget_gets_no_purchase_line(advisor):
    lines = render_text(ask(advisor, "rent for serving qwen2.5-72b to 80 users, budget $20k a month. H100 or H200?")).splitlines()
    assert not any("Purchase prices" in line for line in lines)


def test_a_card_too_small_and_which_then_names_the_smallest_single_card(advisor):
    lines = render_text(ask(advisor, "QLoRA on a 70B with one RTX 3090, 2k sequences, batch 1 — possible? "
                                     "otherwise which card at minimum?")).splitlines()
    assert lines[0].startswith("No")
    assert "base weights alone decide it" in lines[1]  # why not: the 4-bit 70B weights alone exceed 24 GB
    assert "smallest single card that holds it" in lines[2]  # the second part's answer


def test_a_china_team_that_trains_and_also_serves_a_bigger_model_gets_both_picks(advisor):
    lines = render_text(ask(advisor, "Beijing startup: we fine-tune 8B models and will also serve a 72B model. "
                                     "which GPUs can we rent here?")).splitlines()
    serving = [line for line in lines[:4] if line.strip().startswith("Serving the 72B")]
    assert serving and "FP8" in serving[0] and "H20" in serving[0]
    lines = render_text(ask(advisor, "Beijing startup: we fine-tune 8B models. which GPUs can we rent here?")).splitlines()
    assert not any("Serving the" in line for line in lines)
