"""The answer assembler: verdict first, ranked options, tiered findings, at most three questions."""

from bot.advice.assemble import MAX_QUESTIONS, AnswerParts, assemble, rank
from bot.engine.session import EngineResult, RecommendationRecord
from bot.models import Finding, Requirement, Verdict


def record(option: str, need: float, tight: bool = False, fits: bool = True, rule: str = "r", priority: int = 100,
           **extra) -> RecommendationRecord:
    data = {"option": option, "gpu": extra.pop("gpu", "g"), "count": extra.pop("count", 1), "fits": fits,
            "tight": tight, "need_gb": need, "have_gb": 24.0, "headroom_pct": round((24 - need) / 24 * 100, 1),
            **extra}
    return RecommendationRecord(rule=rule, option=data, why="because", priority=priority)


def result(**fields) -> EngineResult:
    base = dict(findings=[], questions=[], facts={}, firings=[], version="v")
    base.update(fields)
    base.setdefault("finding_tiers", [None] * len(base["findings"]))
    base.setdefault("finding_premises", [[] for _ in base["findings"]])
    return EngineResult(**base)


def test_the_user_s_working_setup_ranks_first_then_changes_then_the_cheapest_comfortable_setup():
    ranked = rank([
        record("comfortable", 10, gpu="l40s"),
        record("more-gpus", 12, count=2),
        record("method", 9, method="qlora", priority=101),
        record("method", 19, method="lora", priority=100),
        record("stated", 20),
    ])
    assert [(r.kind, r.method) for r in ranked] == [
        ("stated", None), ("method", "lora"), ("method", "qlora"), ("more-gpus", None), ("comfortable", None)]
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5]


def test_a_tight_plan_never_ranks_above_a_comfortable_one():
    ranked = rank([record("stated", 23, tight=True), record("precision", 12, precision="int8"),
                   record("comfortable", 30, gpu="l40s")])
    assert [r.kind for r in ranked] == ["precision", "comfortable", "stated"]
    assert ranked[-1].tight is True


def test_options_that_do_not_fit_are_not_recommended_except_compared_ones():
    ranked = rank([record("stated", 30, fits=False), record("compare", 30, fits=False, gpu="l4"),
                   record("compare", 20, gpu="a100")])
    assert [(r.kind, r.gpu, r.fits) for r in ranked] == [("compare", "a100", True), ("compare", "l4", False)]


def test_compared_options_rank_by_cost_to_finish():
    ranked = rank([record("compare", 10, gpu="h100", cost=36000.0, hours=1800.0),
                   record("compare", 10, gpu="a100", cost=30000.0, hours=5000.0)])
    assert [r.gpu for r in ranked] == ["a100", "h100"]


def test_the_same_setup_reached_two_ways_is_listed_once():
    ranked = rank([record("more-gpus", 12, count=2, gpu="rtx-3090"), record("comfortable", 12, count=2, gpu="rtx-3090")])
    assert [r.kind for r in ranked] == ["more-gpus"]


def test_at_most_five_recommendations():
    assert len(rank([record("comfortable", i, gpu=f"g{i}") for i in range(9)])) == 5


def verdict(answer: str, text: str, rule: str = "verdict.x") -> Verdict:
    return Verdict(answer=answer, text=text, rule=rule)


def test_a_no_verdict_names_the_changes_that_fit_but_not_tight_ones():
    res = result(verdicts=[verdict("no", "No — 116 GB needed.")], recommendations=[
        record("method", 19, method="lora"), record("method", 23, method="qlora", tight=True)])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.verdict.text == "No — 116 GB needed. LoRA (≈19 GB) fits on it."


def test_the_best_priority_verdict_leads():
    res = result(verdicts=[verdict("no", "first", "verdict.a"), verdict("yes", "second", "verdict.b")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert (answer.verdict.rule, answer.verdict.answer) == ("verdict.a", "no")


def finding(rule: str, severity: str, topic: str = "memory", message: str = "m") -> Finding:
    return Finding(rule=rule, topic=topic, severity=severity, message=message)


def test_tiers_warnings_and_asked_topics_are_key_primers_are_more():
    findings = [finding("a", "warn"), finding("b", "info", "spot"), finding("c", "info", "memory"),
                finding("d", "block", "license"), finding("e", "info", "spot")]
    res = result(findings=findings, finding_tiers=[None, None, None, None, "more"], verdicts=[verdict("info", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(topics=["spot"]), result=res, language="en",
                                  rule_base_version="v"))
    assert [f.tier for f in answer.findings] == ["key", "key", "more", "key", "more"]


def test_without_verdict_rules_every_finding_is_shown():
    res = result(findings=[finding("a", "info")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.verdict is None and [f.tier for f in answer.findings] == ["key"]


def test_findings_repeated_per_variant_are_merged():
    findings = [finding("r", "warn", message="On one h100-sxm it needs 90 GB."),
                finding("r", "warn", message="On one h100-pcie it needs 90 GB."),
                finding("r", "warn", message="On one h100-nvl it needs 99 GB.")]
    res = result(findings=findings, verdicts=[verdict("no", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(gpu="h100"), result=res, language="en",
                                  rule_base_version="v", gpu_family=["h100-sxm", "h100-pcie", "h100-nvl"]))
    assert [f.message for f in answer.findings] == ["On one h100 (h100-sxm, h100-pcie) it needs 90 GB.",
                                                    "On one h100-nvl it needs 99 GB."]
    assert len(answer.derivations) == 2


def test_at_most_three_questions_the_rest_on_request():
    res = result(questions=[f"q{i}" for i in range(5)], verdicts=[verdict("ask", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.questions == ["q0", "q1", "q2"] and answer.more_questions == ["q3", "q4"]
    assert MAX_QUESTIONS == 3


def test_plan_details_are_not_asked_when_the_job_is_far_too_big():
    from bot.engine.session import FactRecord

    asked = ["precision?", "optimizer?", "where will it run?"]
    rules = ["selection.ask-training-precision", "selection.ask-optimizer", "license.ask-deployment"]
    far = {"f1": FactRecord(fid="f1", kind="option", data={"option": "stated", "fits": False, "need_gb": 116.0,
                                                          "have_gb": 24.0})}
    near = {"f1": FactRecord(fid="f1", kind="option", data={"option": "stated", "fits": False, "need_gb": 28.0,
                                                           "have_gb": 24.0})}
    for facts, expected in ((far, ["where will it run?"]), (near, asked)):
        res = result(questions=asked, question_rules=rules, facts=facts, verdicts=[verdict("no", "t")])
        answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
        assert answer.questions == expected
