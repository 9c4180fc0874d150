"""The default text answer: verdict, options, key findings, questions; 20 lines at most."""

from bot.models import Answer, Finding, Recommendation, Requirement, Verdict
from bot.render.text import MAX_LINES, recommendation_line, render_text


def answer(language="en", findings=30, questions=5) -> Answer:
    return Answer(
        requirement=Requirement(gpu="rtx-4090"), language=language,
        verdict=Verdict(answer="no", text="No — 116 GB needed; 24 GB on one card.", rule="verdict.does-not-fit"),
        recommendations=[Recommendation(rank=i + 1, kind="more-gpus", gpu="rtx-4090", count=2 ** (i + 1),
                                        strategy="zero3", fits=True, need_gb=20, have_gb=24, headroom_pct=16.7,
                                        hours=10.0 * i if i else None, why="why", rule="advice.more-gpus")
                         for i in range(5)],
        findings=[Finding(rule=f"r.{i}", topic="memory", severity="warn" if i % 2 else "info",
                          message=f"Finding {i}. It has a second sentence.", tier="key" if i % 2 else "more")
                  for i in range(findings)],
        questions=[f"question {i}?" for i in range(min(questions, 3))],
        more_questions=[f"question {i}?" for i in range(3, questions)],
    )


def test_the_order_is_verdict_options_warnings_questions_and_a_pointer_to_the_rest():
    lines = render_text(answer()).splitlines()
    assert lines[0] == "No — 116 GB needed; 24 GB on one card."  # no rule id in the brief text
    assert lines[1] == "What to do:"
    assert lines[2].startswith("  1. 2× RTX 4090 (ZeRO-3 / FSDP over 2 GPUs): fits, 20/24 GB (17% free)")
    watch = lines.index("Watch out:")
    ask = lines.index("To sharpen this, tell me:")
    assert 7 == watch < ask
    assert lines[watch + 1] == "  [WARN] Finding 1."  # one line each: the first sentence
    assert lines[ask + 1:ask + 4] == ["  ? question 0?", "  ? question 1?", "  ? question 2?"]
    assert lines[-1].startswith("8 more warning") and "--full" in lines[-1]  # the key warnings left out
    assert len(lines) == MAX_LINES


def test_a_short_answer_stays_short():
    short = answer(findings=1, questions=0).model_copy(update={"recommendations": []})
    # a primer behind --full is no reason for a pointer to it
    assert render_text(short).splitlines() == ["No — 116 GB needed; 24 GB on one card."]


def test_chinese_labels_and_options_are_chinese():
    text = render_text(answer(language="zh"))
    assert "建议：" in text and "注意：" in text and "补充这些信息可以判断得更准：" in text
    assert "2 张 RTX 4090（ZeRO-3 / FSDP 分片，2 卡）：放得下，20/24 GB（空余 17%）" in text
    assert "rtx-4090" not in text
    assert "What to do" not in text and "free" not in text


def test_recommendation_lines_carry_time_and_cost_when_known():
    rec = Recommendation(rank=1, kind="compare", gpu="h100-sxm", count=8, strategy="zero3", fits=True,
                         need_gb=36, have_gb=80, headroom_pct=55, hours=1826, cost=36366, currency="USD",
                         why="one of the options you asked about", rule="advice.compare-fits")
    assert recommendation_line(rec, "en") == ("8 x h100-sxm (ZeRO-3 / FSDP over 8 GPUs): fits, 36/80 GB (55% free), "
                                              "~1,826 h, $36,366 — one of the options you asked about")
    tight = rec.model_copy(update={"tight": True, "headroom_pct": 6})
    assert ": tight, 36/80 GB (6% free)" in recommendation_line(tight, "en")



def test_watch_out_holds_warnings_said_once_and_none_the_answer_already_says():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    warn = Finding(rule="r.warn", topic="memory", severity="warn", tier="key", message="Keep a spare node for restarts.")
    primer = Finding(rule="r.info", topic="storage", severity="info", tier="key", message="Training reads data often.")
    said = Finding(rule="r.said", topic="memory", severity="warn", tier="key", message="The job needs about 200 GB.")
    answer = Answer(requirement=Requirement(), answers=[AskAnswer(kind="fit", lead="No — the job needs about 200 GB.")],
                    findings=[warn, warn.model_copy(update={"rule": "r.again"}), primer, said])
    assert [f.rule for f in watch_outs(answer, ["No — the job needs about 200 GB in all."])] == ["r.warn"]
    bare = Answer(requirement=Requirement(), findings=[primer])  # a rule base without verdicts: its primers show
    assert [f.rule for f in watch_outs(bare, [])] == ["r.info"]


def test_a_brief_line_is_a_whole_first_sentence_never_cut_mid_sentence():
    from bot.render.text import _first_sentence

    long = ("Keep the hosts on a 12.x toolkit with a driver of the 535 branch or newer, because the wheels built "
            "for the newer major no longer carry kernels for this architecture, so every import of the extension "
            "fails at start-up with a missing kernel image on older boards that the vendor still ships")
    assert _first_sentence(long) == long  # no sentence end: all of it, no "…"
    assert _first_sentence(long + ". A second sentence.") == long + "."
    asked = "How many requests arrive at once (typical and peak)? Size the benchmark to that."
    assert _first_sentence(asked) == "How many requests arrive at once (typical and peak)?"
    assert _first_sentence("先确认驱动分支是否支持这张卡？再看框架。") == "先确认驱动分支是否支持这张卡？"
    assert _first_sentence("Use e.g. bf16 here. Then more.") == "Use e.g. bf16 here."


def test_a_warning_the_option_lines_already_call_short_is_not_said_again():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    too_small = Finding(rule="memory.single-gpu-too-small", topic="memory", severity="warn", tier="key",
                        message="On one card of this kind the job needs well over its memory.")
    other = Finding(rule="r.other", topic="memory", severity="warn", tier="key", message="Order spare fans early.")
    picked = Answer(requirement=Requirement(), answers=[AskAnswer(kind="select", lead="Pick the larger card.")],
                    findings=[too_small, other])
    assert [f.rule for f in watch_outs(picked, ["Pick the larger card.", "  3. 1 x rtx-4090: does not fit, 37/24 GB"])] \
        == ["r.other"]
    assert [f.rule for f in watch_outs(picked, ["Pick the larger card."])] == ["memory.single-gpu-too-small", "r.other"]


def test_a_question_keeps_its_reason_where_both_fit_one_line_else_it_is_asked_alone():
    from bot.render.text import _question_line

    short = "Which optimizer will you use? Adam keeps two extra values per weight."
    assert _question_line(short) == short
    reason = " ".join(["The answer moves with it by tens of percent on every card we compare here"] * 3) + "."
    assert _question_line("How long are the prompts? " + reason) == "How long are the prompts?"


def test_a_warning_is_a_restatement_whichever_name_it_gives_the_card():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    probe = Finding(rule="r.probe", topic="health", severity="warn", tier="key",
                    message="GPU 2 (NVIDIA H100 80GB HBM3) is power-throttled (hw_power_brake_slowdown; drawing 71.3 W of a 700.0 W limit).")
    named = Finding(rule="r.named", topic="license", severity="warn", tier="key",
                    message="RTX 4090 is a GeForce card: the licence restricts the software for commercial hosting services.")
    answer = Answer(requirement=Requirement(), answers=[AskAnswer(kind="diagnose", lead="x")], findings=[probe, named])
    lines = ["GPU 2 (H100 SXM): HW power brake slowdown, 71 of 700 W — throttled; check the power limit",
             "Yes: the licence restricts the software for commercial hosting on an RTX 4090."]
    assert watch_outs(answer, lines) == []


def test_warnings_of_one_rule_that_differ_only_in_the_card_named_are_one_line_naming_each():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    def warn(gpu: str) -> Finding:
        return Finding(rule="r.hosting", topic="license", severity="warn", tier="key",
                       message=f"Hosting paid inference on {gpu} needs the vendor's written terms. Ask first.")
    other = Finding(rule="r.fans", topic="power", severity="warn", tier="key", message="Order spare fans early.")
    answer = Answer(requirement=Requirement(), answers=[AskAnswer(kind="price", lead="$0.30 an hour.")],
                    findings=[warn("rtx-5090"), warn("GeForce RTX 4090"), other])
    shown = watch_outs(answer, ["$0.30 an hour."])
    assert [f.rule for f in shown] == ["r.hosting", "r.fans"]
    assert shown[0].message == "Hosting paid inference on rtx-5090 / GeForce RTX 4090 needs the vendor's written terms."
    text = render_text(answer)
    assert "RTX 5090 / GeForce RTX 4090" in text and text.count("[WARN]") == 2


def test_the_pointer_to_full_shows_only_where_it_hides_a_warning_and_is_one_line():
    from bot.models import AskAnswer

    primers = [Finding(rule=f"r.primer{i}", topic="memory", severity="info", tier="more", message=f"Primer {i}.")
               for i in range(6)]
    base = Answer(requirement=Requirement(), answers=[AskAnswer(kind="explain", lead="It depends on the link.")],
                  findings=primers, language="zh")
    assert render_text(base).splitlines() == ["It depends on the link."]
    # warnings the room leaves out are worth one line pointing to them
    warnings = [Finding(rule=f"r.w{i}", topic="power", severity="warn", tier="key", message=f"Check fan {i} of {i + 1}.")
                for i in range(30)]
    crowded = base.model_copy(update={"findings": warnings})
    lines = render_text(crowded).splitlines()
    assert len(lines) <= MAX_LINES and lines[-1].startswith("另有 ") and "--full" in lines[-1]
    assert sum("--full" in line for line in lines) == 1


def test_an_xid_the_answer_already_judged_is_no_watch_out_and_chinese_marks_are_chinese():
    from bot.models import AskAnswer

    xid = Finding(rule="r.xid", topic="health", severity="warn", tier="key", message="Xid 31: a memory page fault. Restart.")
    other = Finding(rule="r.other", topic="health", severity="warn", tier="key", message="Xid 119: GSP timed out. Upgrade.")
    answer = Answer(requirement=Requirement(), language="zh", findings=[xid, other],
                    answers=[AskAnswer(kind="diagnose", lead="0000:1a:00（Xid 31、95）：应用程序错误，不是坏卡。")])
    lines = render_text(answer).splitlines()
    assert lines[1:] == ["注意：", "  [警告] Xid 119: GSP timed out."]  # Xid 31 is judged in the lead already


def test_no_number_reads_in_scientific_notation_whichever_calculator_wrote_it():
    from bot.render.text import plain_numbers

    assert plain_numbers("spot: 4.9e+02 expected interruptions, 1.2E+06 tokens") == "spot: 490 expected interruptions, 1,200,000 tokens"
    assert plain_numbers("H100 at 3e-2 per token, sm_90a and 12e4b stay") == "H100 at 0.03 per token, sm_90a and 12e4b stay"
    assert plain_numbers("GPU-1e5-8d41 and 0x1e5 stay; about 2.5e+03.") == "GPU-1e5-8d41 and 0x1e5 stay; about 2,500."
    brief = Answer(requirement=Requirement(), verdict=Verdict(answer="info", text="About 4.9e+02 restarts.", rule="verdict.x"))
    assert render_text(brief) == "About 490 restarts."
    assert "4.9e+02" not in render_text(brief, full=True)


def test_merged_warnings_name_each_card_only_where_they_differ():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    def short(gpu: str, gb: int) -> Finding:
        return Finding(rule="r.short", topic="memory", severity="warn", tier="key",
                       message=f"One {gpu} ({gb} GB) is too small, unlike the B200 (180 GB).")
    answer = Answer(requirement=Requirement(), answers=[AskAnswer(kind="select", lead="Take the H200 SXM.")],
                    findings=[short("H200 SXM", 140), short("H100 SXM", 79)])
    [merged] = watch_outs(answer, ["Take it."])
    assert merged.message == "One H200 SXM / H100 SXM (140 / 79 GB) is too small, unlike the B200 (180 GB)."


def test_merged_warnings_keep_the_sign_of_each_negative_number():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    def short(gpu: str, have: int, headroom: float) -> Finding:
        return Finding(rule="r.short", topic="memory", severity="warn", tier="key",
                       message=f"One {gpu} has {have} GB (headroom {headroom:.1f} GB), 10-20% short.")
    answer = Answer(requirement=Requirement(), answers=[AskAnswer(kind="select", lead="Take two.")],
                    findings=[short("H20 96GB", 95, -103.2), short("A800 SXM4 80GB", 79, -119.2)])
    [merged] = watch_outs(answer, ["Take it."])
    assert merged.message == "One H20 96GB / A800 SXM4 80GB has 95 / 79 GB (headroom -103.2 / -119.2 GB), 10-20% short."


def test_a_chinese_warning_that_says_the_answer_again_is_no_watch_out():
    from bot.models import AskAnswer
    from bot.render.text import watch_outs

    again = Finding(rule="r.again", topic="license", severity="warn", tier="key",
                    message="这张消费级显卡的驱动许可限制提供商业托管。")  # 9 of its 19 pairs said above
    new = Finding(rule="r.new", topic="power", severity="warn", tier="key", message="整机电源要按每张卡的满载功耗配足。")
    lead = "有授权风险：驱动许可不允许数据中心部署，并限制用它提供商业托管服务；装在机房里对外收费正是条款针对的情形。"
    answer = Answer(requirement=Requirement(), language="zh", answers=[AskAnswer(kind="compat", lead=lead)],
                    findings=[again, new])
    assert [f.rule for f in watch_outs(answer, [lead])] == ["r.new"]


def test_a_chinese_answer_names_a_card_by_its_chinese_name_whatever_name_a_rule_wrote():
    from bot.knowledge import default_catalog
    from bot.models import AskAnswer

    spec = next(s for s in default_catalog().gpus.values() if s.name_zh)
    warn = Finding(rule="r.link", topic="parallelism", severity="warn", tier="key", message=f"{spec.name} 没有高速互联，多卡只能走 PCIe。")
    answer = Answer(requirement=Requirement(), language="zh", answers=[AskAnswer(kind="select", lead="选另一张卡。")],
                    findings=[warn])
    text = render_text(answer)
    assert spec.name_zh in text and spec.name not in text
    assert spec.name in render_text(answer.model_copy(update={"language": "en"}))


def test_a_heading_the_line_limit_leaves_without_lines_under_it_is_dropped():
    """However long the part above, a section heading is never the last line shown."""
    for language, heading in (("en", "To sharpen this, tell me:"), ("zh", "补充这些信息可以判断得更准：")):
        base = answer(language=language, findings=0, questions=3)
        for n in range(MAX_LINES - 4, MAX_LINES + 2):  # the heading lands before, on and after the cut
            recs = [base.recommendations[0].model_copy(update={"rank": i + 1, "count": i + 2}) for i in range(n)]
            lines = render_text(base.model_copy(update={"recommendations": recs})).splitlines()
            assert len(lines) <= MAX_LINES
            assert lines[-1].startswith(("  ", "另有 ")) or not lines[-1].endswith((":", "：")), (language, n, lines[-1])
            if heading in lines:
                assert lines.index(heading) < len(lines) - 1
