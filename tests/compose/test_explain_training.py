"""ZeRO answers in the terms asked: a stage on one GPU shards nothing, and "how many with ZeRO-N?"
gets the fewest GPUs under that stage, through the real parser, sizer and planner."""


from bot.conversation import Conversations
from bot.render.text import render_text
from bot.sizing.memory import PER_B


def ask(advisor, text):
    return Conversations(advisor).ask("t", text)


def test_a_zero_stage_on_one_gpu_is_said_to_shard_nothing(advisor):
    answer = ask(advisor, "full fine-tune of a 13B model on a single A100 80GB with ZeRO-3, bf16 adamw, seq 2048 — ok?")
    text = render_text(answer)
    states = 13 * 16 * PER_B
    assert f"{states:,.0f} GB" in text and "shards anything" in text
    assert "DDP" not in text.splitlines()[1]  # no per-stage table for one GPU: every stage is the same


def test_the_fewest_gpus_under_the_named_stage_hold_the_job(advisor):
    answer = ask(advisor, "one H100 for a full finetune of qwen2.5 7b with zero3, 4k seq? what's the smallest number of cards with zero-3")
    text = render_text(answer)
    line = next(row for row in text.splitlines() if row.strip().startswith("ZeRO-3 on H100 SXM"))
    floor = int(line.split(":")[1].split("GPUs")[0])
    assert floor >= 2
    need, have = (float(x) for x in line.split("(~")[1].split(" GB")[0].split(" of "))
    assert need <= have


def test_the_stated_count_that_holds_the_job_gets_no_fewest_line(advisor):
    text = render_text(ask(advisor, "13B full fine-tune on 8x A100 80GB: zero2 or zero3?"))
    assert "is the floor" not in text and "ZeRO-2" in text


def test_chinese_single_card_zero_answer_is_chinese(advisor):
    text = render_text(ask(advisor, "一张 H800 80G 用 ZeRO-2 全参训练 Llama-3.1-8B，seq 4096，够吗？ZeRO-3 最少几张"))
    assert "单卡上任何 ZeRO 阶段都切不了东西" in text
    assert "ZeRO-3 用 H800" in text


def test_how_many_nodes_for_a_deadline_is_the_gpu_hours_over_the_hours_in_whole_nodes():
    from bot.advisor import Advisor
    from bot.compose import ComposeContext, compose_all
    from bot.nlu.parser import parse
    advisor = Advisor()
    text = "we want to pretrain a 7B on 2T tokens within 3 weeks, how many 8x H100 nodes is that?"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    # 6 x 7e9 x 2e12 = 8.4e22 FLOPs / (989e12 x 0.4) = ~59,000 GPU-hours / 504 h = 118 GPUs: 15 nodes
    assert reply.lead.startswith("15 nodes (120× H100 SXM) to finish in 21 days")
    assert reply.figures["nodes"] == 15 and 58_000 <= reply.figures["gpu_hours"] <= 60_000


def test_zero_2_or_3_is_picked_on_the_sized_plans_and_leads_consistently(advisor):
    import re as _re
    from tests.compose.answering import answer_of
    answer = answer_of(advisor, "full fine-tune of a 13B model, 2k context, on 8x H100. zero-2 or zero-3? does it fit?")
    reply = answer.answers[0]
    assert reply.lead.startswith("Pick ZeRO-3: about 34.2 of 79.1 GB")
    # the ZeRO-2 figure in the pick is the fit verdict's own figure, not the paper's floor plus activations
    z2 = _re.search(r"ZeRO-2 only just fits at about ([0-9.]+) GB", reply.lead).group(1)
    assert f"needs about {z2} GB per GPU" in reply.details[0]
    ranked = [r for r in answer.recommendations if r.rank == 1]
    assert ranked and "ZeRO-3" in (ranked[0].strategy or "") + (ranked[0].why or "")


def test_the_stage_asked_in_chinese_over_pcie_says_the_traffic_crosses_pcie(advisor):
    from bot.conversation import Conversations
    from bot.render.text import render_text
    text = render_text(Conversations(advisor).ask("t", "三个问题：1）Qwen2.5-7B 全参微调显存要多少 2）8 张 A100 40G PCIe 够吗 "
                                                       "3）DeepSpeed 该用哪个 stage"))
    line = next(x for x in text.splitlines() if x.startswith("3)"))
    assert line.startswith("3) 选 ZeRO-3")
    assert "没有 NVLink" in line and "放不下" in line


def test_what_each_stage_saves_keeps_the_table_first(advisor):
    from tests.compose.answering import answer_of
    answer = answer_of(advisor, "13B full fine-tune on 8x A100 80GB: what does each ZeRO stage save per GPU? zero2 vs zero3")
    reply = next(a for a in answer.answers if "ZeRO paper's floor" in a.lead)
    assert "ZeRO paper's floor" in reply.lead
    assert any(d.startswith("Pick ZeRO-") for d in reply.details)
