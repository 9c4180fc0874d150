"""MLPerf scenario questions: the scenario that fits the use first, an Offline claim read for what it is."""

from __future__ import annotations


from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _replies(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)


def test_a_chatbot_reads_server_results_and_every_scenario_is_defined_once(advisor):
    replies = _replies(advisor, "MLPerf 推理榜单上 Offline、Server 和 SingleStream 这几个场景分别指什么？"
                                "我们要上线一个在线问答助手，应该参考哪一项？")
    assert len(replies) == 1
    reply = replies[0]
    assert reply.lead.startswith("在线交互的服务（如客服机器人）看 Server 成绩")
    assert [d.split("：")[0] for d in reply.details[:4]] == ["SingleStream", "MultiStream", "Server", "Offline"]
    assert "mlperf-inference-rules" in reply.sources


def test_an_offline_tokens_per_second_claim_for_a_chatbot_is_the_wrong_number(advisor):
    replies = _replies(advisor, 'a hardware vendor quotes "31,500 tokens/s on Llama 3.1 8B (MLPerf Offline)" for their '
                                "8x L40S server. it would back a live support assistant for our users — what do we ask "
                                "them and what do we benchmark ourselves?")
    reply = replies[0]
    assert reply.lead.startswith('"31,500 tokens/s, MLPerf Offline" is the wrong number for an interactive chatbot')
    assert any("Server-scenario results" in d for d in reply.details)
    assert any("AIPerf" in d for d in reply.details)


def test_batch_jobs_read_offline(advisor):
    replies = _replies(advisor, "we run nightly batch jobs, which MLPerf scenario should we look at, Server or Offline?")
    assert any(r.lead.startswith("For batch jobs, read the Offline results") for r in replies)


def test_mlperf_or_aiperf_names_aiperf_first_and_the_mlperf_scenario_to_read(advisor):
    reply = _replies(advisor, "for picking a GPU host for our support assistant, is MLPerf or AIPerf the better thing to rely on?")[0]
    assert reply.lead.startswith("AIPerf first")
    assert "aiperf profile" in reply.details[0] and "--streaming" in reply.details[0]
    assert reply.details[1].startswith("Reading MLPerf for an interactive service: the Server scenario")
    zh = _replies(advisor, "离线批量跑摘要任务，评测机器看 MLPerf 还是自己用 AIPerf 测？")[0]
    assert zh.lead.startswith("先用 AIPerf") and any(d.startswith("批量任务看 MLPerf 的 Offline 场景") for d in zh.details)


def test_an_offline_figure_offered_as_the_acceptance_line_for_chat_is_refused_first_with_the_server_bounds(advisor):
    replies = _replies(advisor, "厂商拿 MLPerf Offline 的吞吐当我们这批 L40S 的验收指标，我们做的是在线对话产品，"
                                "这个数靠谱吗？推理性能该怎么验收")
    assert len(replies) == 1  # the later part (how to accept the serving performance) is answered by the first
    reply = replies[0]
    assert reply.lead.startswith("不能直接用：MLPerf 的 Offline 场景")
    text = "\n".join(reply.details)
    assert "TTFT ≤ 2,000 ms、TPOT ≤ 200 ms" in text and "450 ms 和 40 ms" in text
    assert "AIPerf" in text and "验收清单" not in reply.lead


def test_the_scenario_primer_names_the_server_bounds_of_the_model_benchmarked(advisor):
    replies = _replies(advisor, "what do MLPerf Server vs Offline mean for serving Llama 3.1 8B to users of our app?")
    text = "\n".join(replies[0].details)
    assert "p99 TTFT ≤ 2,000 ms and TPOT ≤ 100 ms" in text and "500 ms and 30 ms" in text


def test_a_throughput_from_one_tool_is_not_read_as_the_other_vendors_mlperf_figure(advisor):
    from bot.compose import ComposeContext, compose_all
    from bot.nlu.parser import parse
    text = ("comparing two 8x H100 offers: vendor A sent a GenAI-Perf run showing 3,100 tokens/s for Llama 3.1 70B, vendor B "
            "only MLPerf Offline results. which is better for our support chatbot?")
    parsed = parse(text, advisor.catalog)
    ctx = ComposeContext(requirement=parsed.requirement, answer=advisor.answer(parsed.requirement, parsed.language),
                         catalog=advisor.catalog, language=parsed.language, question=text)
    reply = compose_all(ctx)[0]
    assert reply.lead.startswith("Neither figure compares with the other") and "3,100 tokens/s in the GenAI-Perf report" in reply.lead
    assert not reply.lead.startswith('"3,100')
    assert any("same AIPerf test" in d for d in reply.details)
