"""The checkpoint composer through the whole answer: spot notices per provider, Young's interval
from the user's numbers or stated defaults, restart scope across nodes."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _replies(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)


def test_interval_across_nodes_divides_the_interruption_interval_and_says_the_restart_scope(advisor):
    replies = _replies(advisor, "two things about our 2-week pretraining job on 16 H100s (2 p5 nodes): spot or "
                                "on-demand? and what checkpoint interval should we use?")
    reply = next(r for r in replies if r.rule == "checkpoint.young-interval")
    assert reply.lead.startswith("Checkpoint about every 31 min")  # √(2 × 2 × 240): 8 h per node ÷ 2 nodes
    assert "÷ 2 nodes" in reply.lead and "assumed" in reply.lead  # 2 nodes, not the 5 of "p5"
    assert any("restarts all 16 GPUs" in d for d in reply.details)
    assert any("S3" in d for d in reply.details)  # p5 is AWS: its storage and its 2-minute notice
    assert any("2 minutes" in d for d in reply.details)
    assert "young-1974" in reply.sources


def test_the_users_write_time_and_interruption_rate_are_used(advisor):
    replies = _replies(advisor, "we get interrupted every 10h on spot, a checkpoint takes 3 min to write. "
                                "how often should we checkpoint?")
    reply = next(r for r in replies if r.rule == "checkpoint.young-interval")
    assert reply.lead.startswith("Checkpoint about every 60 min")  # √(2 × 3 × 600)
    assert "assumed" not in reply.lead


def test_chinese_notice_and_checkpoint_parts_are_answered_each_once(advisor):
    replies = _replies(advisor, "在阿里云上用抢占式 GPU 跑训练，实例回收前会给多长时间的预警？断了之后怎么续上，别丢进度？")
    notice = next(r for r in replies if r.rule == "checkpoint.spot-notice")
    interval = next(r for r in replies if r.rule == "checkpoint.young-interval")
    assert notice.lead.startswith("阿里云回收抢占式实例前会提前约5分钟通知") and notice.figures["notice_s"] == 300
    assert "OSS" in " ".join(interval.details)
    assert not any("收到通知（" in d for d in interval.details)  # the notice's how is said once, in its own part


def test_without_a_provider_every_providers_notice_is_listed(advisor):
    replies = _replies(advisor, "我们用抢占式实例训练，会提前通知吗？提前多久？checkpoint 怎么做")
    reply = replies[0]
    assert "AWS 2分钟" in reply.lead and "谷歌云 30秒" in reply.lead and "阿里云 约5分钟" in reply.lead
    assert any(d.startswith("大约每 44 分钟存一次 checkpoint") for d in reply.details)


def test_a_question_about_something_else_is_not_answered_with_checkpoints(advisor):
    replies = _replies(advisor, "what is the difference between H100 SXM and H100 PCIe?")
    assert not any((r.rule or "").startswith("checkpoint.") for r in replies)


def test_reclaimed_spot_nodes_what_then_and_is_it_worth_gets_notice_schedule_and_overhead():
    from bot.advisor import Advisor
    from bot.compose import ComposeContext, compose_all
    from bot.nlu.parser import parse
    advisor = Advisor()
    text = "打算在阿里云用 3 台 8 卡抢占式实例做多机训练，实例被回收时怎么处理？这样划算吗"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    assert reply.lead.startswith("阿里云回收抢占式实例前会提前约5分钟通知")
    text = "\n".join(reply.details)
    assert "3 台一起跑时" in text and "开销" in text and "划算" in text


def test_the_trainer_on_multi_node_spot_is_told_the_whole_job_restarts():
    from bot.advisor import Advisor
    from bot.compose import ComposeContext, compose_all
    from bot.nlu.parser import parse
    advisor = Advisor()
    text = "we run multi-node training on AWS spot; what warning do we get and how should the job handle a reclaim?"
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    assert reply.lead.startswith("AWS warns 2 minutes")
    assert any("whole job restarts" in d and "--max-restarts" in d for d in reply.details)
    assert any("Checkpoint about every" in d for d in reply.details)


def test_an_instance_named_per_node_counts_its_gpus_on_every_node(advisor):
    replies = _replies(advisor, "spot training across 3 p4d nodes, what checkpoint interval should we pick?")
    reply = next(r for r in replies if r.rule == "checkpoint.young-interval")
    assert "÷ 3 nodes" in reply.lead  # 8 h per node ÷ 3: √(2 × 2 × 160) ≈ 25 min
    assert reply.lead.startswith("Checkpoint about every 25 min")
    assert any("restarts all 24 GPUs" in d for d in reply.details)  # 3 × the p4d's 8 A100s


def test_a_full_fine_tune_s_checkpoint_size_and_the_write_rate_a_notice_needs_per_node(advisor):
    replies = _replies(advisor, "we run a full fine-tune of a 30B on 2 nodes of p5 spot instances. how often should we "
                                "checkpoint and what happens on the interruption notice?")
    text = "\n".join(d for r in replies for d in [r.lead, *r.details])
    # 30B x 14 bytes (bf16 weights, fp32 master, Adam moments) = 420 GB; 210 GB a node in 120 s
    assert "~420 GB" in text and "≥ 1.75 GB/s sustained on each node" in text
    zh = "\n".join(d for r in _replies(advisor, "单机 8 卡做 14B 全参训练，检查点多久存一次合适？") for d in [r.lead, *r.details])
    assert "约 196 GB" in zh and "实测写入耗时" in zh


def test_an_alibaba_notice_answer_says_the_protection_hour_and_its_cheaper_no_protection_mode(advisor):
    reply = _replies(advisor, "阿里云的抢占式 GPU 实例会提前多久通知回收？我们想拿它跑几天的微调")[0]
    assert reply.rule == "checkpoint.spot-notice" and "5分钟" in reply.lead
    assert any("1 小时保护期" in d and "10%" in d for d in reply.details)
    assert "aliyun-preemptible-protection" in reply.sources
    aws = _replies(advisor, "how much warning does an AWS spot instance get before it is reclaimed?")[0]
    assert not any("protection" in d for d in aws.details)


def test_how_to_save_checkpoints_beside_the_notice_asked_gets_the_schedule_too(advisor):
    reply = _replies(advisor, "谷歌云 Spot 实例跑训练，会提前多久通知回收？检查点怎么保存比较好")[0]
    assert "30秒" in reply.lead
    assert any("Young" in d for d in reply.details)


def test_a_rebalance_signal_is_explained_first_then_the_notice(advisor):
    reply = _replies(advisor, "what does an EC2 spot rebalance signal mean for our fine-tuning job, and how much warning do we get?")[0]
    assert reply.lead.startswith("A rebalance recommendation is EC2's early signal")
    assert reply.details[0].startswith("AWS warns 2 minutes") and "aws-rebalance-recommendations" in reply.sources


def test_one_node_lost_asked_outright_is_answered_with_the_restart_scope(advisor):
    replies = _replies(advisor, "GCP spot, 2 nodes x 8 A100 for a week of training: how much warning do we get, "
                                "and if one node is preempted does the whole run crash?")
    reply = next(r for r in replies if r.rule == "checkpoint.spot-notice")
    assert reply.lead.startswith("Google Cloud warns 30 seconds")
    assert reply.details[0].startswith("Yes, one reclaimed node stops the whole job") and "all 16 GPUs" in reply.details[0]
    assert any("--max-restarts" in d for d in reply.details) and "pytorch-elastic" in reply.sources


def test_asked_whether_the_others_carry_on_the_answer_is_no_and_leads(advisor):
    reply = _replies(advisor, "4 nodes on aws spot for pretraining: if a node gets reclaimed, will the rest keep going?")[0]
    assert reply.lead.startswith("No, the others do not carry on") and "all 32 GPUs" in reply.lead
    assert any(d.startswith("Checkpoint about every") for d in reply.details)


def test_the_job_node_count_is_the_largest_stated_not_the_one_reclaimed(advisor):
    notice, whole = _replies(advisor, "阿里云抢占式实例 3 机 8 卡训练，提前多久通知？要是有一台被回收了，整个作业是不是都会停？")[:2]
    assert notice.lead.startswith("阿里云回收抢占式实例前会提前约5分钟通知")
    assert whole.lead.startswith("是的，有一台被回收整个任务就会停") and "3 台一起跑" in whole.lead and "24 张卡" in whole.lead


def test_a_save_time_written_in_chinese_with_dagai_is_the_users_c(advisor):
    reply = _replies(advisor, "用 AWS spot 训 13B，保存一次 checkpoint 大概 5 分钟，平均每 6 小时被回收一次，多久存一次合适？")[0]
    # √(2 × 5 × 360) ≈ 60 min, with the user's 5 min, not the assumed 2
    assert reply.lead.startswith("大约每 60 分钟存一次") and "假设值，请实测" not in reply.lead


def test_save_and_interruption_figures_written_loosely_are_still_the_users(advisor):
    reply = _replies(advisor, "spot H100s on AWS: checkpointing takes roughly 6 minutes and we get interrupted around once "
                              "every 4 hours. how often should we checkpoint?")[0]
    # √(2 × 6 × 240) ≈ 54 min from the user's own C and M
    assert reply.lead.startswith("Checkpoint about every 54 min") and "assumed" not in reply.lead


def test_a_checkpoint_size_and_write_rate_make_the_write_time(advisor):
    reply = _replies(advisor, "spot on GCP, our checkpoint is 240 GB and the bucket takes about 1.6 GB/s, preempted roughly "
                              "every 5 hours. how often to checkpoint?")[0]
    # C = 240 / 1.6 = 150 s = 2.5 min; √(2 × 2.5 × 300) ≈ 39 min
    assert reply.lead.startswith("Checkpoint about every 39 min") and "~240 GB at 1.6 GB/s" in reply.lead


def test_a_provider_without_a_documented_notice_is_planned_on_no_notice(advisor):
    # Tencent Cloud documents how a job hears of a reclaim (metadata) but no warning time
    for text, expected in (("腾讯云竞价实例会提前多久通知？要不要 checkpoint", ("腾讯云的文档没有写明", "spot/termination-time")),
                           ("how much warning does tencent cloud give before a spot reclaim?",
                            ("Tencent Cloud documents no fixed warning time", "spot/termination-time"))):
        reply = next(r for r in _replies(advisor, text) if r.rule == "checkpoint.spot-notice")
        assert all(part in reply.lead for part in expected), reply.lead
        assert "AWS" not in reply.lead  # not every other provider's figure in place of the one asked
        assert "tencent-spot-termination" in reply.sources


def test_chinese_clouds_are_known_providers_not_unknown_names(advisor):
    for text, provider in (("火山引擎的抢占式实例跑训练靠谱吗", "volcano"), ("华为云 GPU 包年包月和按需哪个好", "huawei"),
                           ("is Tencent Cloud spot OK for a 2-day finetune?", "tencent")):
        parsed = parse(text, advisor.catalog)
        assert parsed.requirement.provider == provider, text
        assert not any("provider" in (s.slot or "") for s in parsed.ignored), parsed.ignored
