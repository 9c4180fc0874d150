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
    # Exactly twice the memory is not yet "more than twice"; an option the user did not state (a larger
    # count the advice offers) says nothing about their plan however far off it is.
    twice = {"f1": FactRecord(fid="f1", kind="option", data={"option": "stated", "fits": False, "need_gb": 48.0,
                                                            "have_gb": 24.0})}
    offered = {"f1": FactRecord(fid="f1", kind="option", data={"option": "more-gpus", "fits": False,
                                                              "need_gb": 116.0, "have_gb": 24.0})}
    for facts, expected in ((far, ["where will it run?"]), (near, asked), (twice, asked), (offered, asked)):
        res = result(questions=asked, question_rules=rules, facts=facts, verdicts=[verdict("no", "t")])
        answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
        assert answer.questions == expected


# -- exact mappings and wording (each case pins one decision a mutation would flip) ----------------

from bot.advice.assemble import _second, option_name, plan_label, with_parse  # noqa: E402
from bot.models import Recommendation  # noqa: E402


def test_an_option_becomes_a_recommendation_field_for_field():
    rec = RecommendationRecord(rule="advice.x", why="because", priority=100, option={
        "option": "batch", "gpu": "rtx-4090", "count": 2, "fits": True, "tight": False, "need_gb": 17.0,
        "have_gb": 24.0, "headroom_pct": 29.2, "method": "qlora", "kv_precision": "fp8", "plan": "p",
        "strategy": "zero3", "batch_size": 4, "accumulation": 2, "hours": 12.5, "cost": 99.0, "currency": "USD"})
    [got] = rank([rec])
    assert got == Recommendation(rank=1, kind="batch", gpu="rtx-4090", count=2, method="qlora", precision="kv fp8",
                                 plan="p", strategy="zero3", batch_size=4, accumulation=2, fits=True, tight=False,
                                 need_gb=17.0, have_gb=24.0, headroom_pct=29.2, hours=12.5, cost=99.0,
                                 currency="USD", why="because", rule="advice.x")
    weights = rank([record("precision", 12, precision="int8", kv_precision="fp8")])
    assert weights[0].precision == "int8"


def test_compared_options_that_fit_rank_first_then_by_cost_hours_and_headroom():
    ranked = rank([
        record("compare", 30, gpu="short", fits=False, cost=1.0),
        record("compare", 10, gpu="tight", tight=True, cost=1.0),
        record("compare", 10, gpu="slow", cost=5.0, hours=10.0),
        record("compare", 10, gpu="fast", cost=5.0, hours=5.0),
        record("compare", 20, gpu="roomy-less", cost=9.0, hours=9.0),
        record("compare", 10, gpu="roomy", cost=9.0, hours=9.0),
    ])
    assert [r.gpu for r in ranked] == ["fast", "slow", "roomy", "roomy-less", "tight"]


def test_changes_rank_in_order_of_cost_to_the_user():
    kinds = ["more-gpus", "context", "concurrency", "kv-cache", "precision", "method", "batch"]
    ranked = rank([record(k, 10, gpu=k) for k in kinds])
    assert [r.kind for r in ranked] == ["batch", "method", "precision", "kv-cache", "concurrency"]


def test_plan_labels_in_both_languages():
    cases = {
        ("single", 1): ("single GPU", "单卡"),
        ("zero1", 4): ("ZeRO-1 over 4 GPUs", "ZeRO-1 分片，4 卡"),
        ("zero2", 8): ("ZeRO-2 over 8 GPUs", "ZeRO-2 分片，8 卡"),
        ("zero3", 16): ("ZeRO-3 / FSDP over 16 GPUs", "ZeRO-3 / FSDP 分片，16 卡"),
        ("tp", 4): ("tensor parallel x4", "张量并行 x4"),
        ("tp-pp", 24): ("tensor parallel x8 x pipeline parallel x3", "张量并行 x8 × 流水线并行 x3"),
    }
    for (strategy, count), (en, zh) in cases.items():
        assert plan_label(strategy, count, "en") == en
        assert plan_label(strategy, count, "zh") == zh
    assert plan_label(None, 2, "en", "as written") == "as written"
    assert plan_label(None, 2, "zh", "as written") is None
    assert plan_label("zero3", None, "en") == "ZeRO-3 / FSDP over 1 GPUs"


def test_option_names_in_both_languages():
    def named(kind, **fields):
        rec = Recommendation(rank=1, kind=kind, gpu="l4", count=2, why="w", rule="r", **fields)
        return option_name(rec, "en"), option_name(rec, "zh")

    assert named("method", method="lora") == ("LoRA", "LoRA")
    assert named("method", method="qlora") == ("QLoRA", "QLoRA")
    assert named("precision", precision="int8") == ("int8 weights", "int8 权重")
    assert named("kv-cache") == ("an fp8 KV cache", "fp8 KV 缓存")
    assert named("batch", batch_size=2, accumulation=4) == ("micro-batch 2 x 4 accumulation steps",
                                                           "micro-batch 2 × 梯度累积 4")
    assert named("more-gpus") == ("2 x l4", "2 张 l4")
    assert named("comfortable") == ("2 x l4", "2 x l4")


def test_a_second_blocker_reads_as_also():
    assert _second("No — the licence forbids it.", "en") == "Also, the licence forbids it."
    assert _second("Not with llama-3: use llama-3.1.", "en") == "Also not with llama-3: use llama-3.1."
    assert _second("不行——许可不允许。", "zh") == "另外，许可不允许。"
    assert _second("Plain text.", "en") == "Plain text."


def test_verdict_sentences_for_changes_tight_and_two_blockers():
    fits = [record("method", 19, method="lora"), record("method", 9, method="qlora", priority=101)]
    res = result(verdicts=[verdict("tight", "Only just.")], recommendations=fits)
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.verdict.text == "Only just. LoRA (≈19 GB) or QLoRA (≈9 GB) fit on it."
    res = result(verdicts=[verdict("info", "Here.")], recommendations=fits)
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.verdict.text == "Here."
    res = result(verdicts=[verdict("no", "不行——太大。", "verdict.a"), verdict("no", "不行——许可。", "verdict.b")],
                 recommendations=fits[:1])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="zh", rule_base_version="v"))
    assert answer.verdict.text == "不行——太大。改用 LoRA（约 19 GB） 即可放下。另外，许可。"
    res = result(verdicts=[verdict("no", "No — big.", "verdict.a"), verdict("no", "No — big.", "verdict.a")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert answer.verdict.text == "No — big."  # the same rule twice is one blocker


def test_repeats_collapse_from_three_and_say_how_many_in_the_answer_s_language():
    twice = [finding("r", "warn", message="GPU 0: throttled."), finding("r", "warn", message="GPU 1: throttled.")]
    res = result(findings=twice, verdicts=[verdict("no", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert [f.message for f in answer.findings] == ["GPU 0: throttled.", "GPU 1: throttled."]
    thrice = [*twice, finding("r", "warn", message="GPU 2: throttled."), finding("r", "warn", message="other")]
    res = result(findings=thrice, verdicts=[verdict("no", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="zh", rule_base_version="v"))
    assert [f.message for f in answer.findings] == ["GPU 0: throttled.（另有 2 条相同情况）", "other"]
    assert len(answer.derivations) == 2


def test_a_declared_tier_wins_over_severity_and_topic():
    findings = [finding("a", "warn"), finding("b", "info", "spot")]
    res = result(findings=findings, finding_tiers=["more", "key"], verdicts=[verdict("info", "t")])
    answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
    assert [f.tier for f in answer.findings] == ["more", "key"]


def test_with_parse_puts_the_parser_s_notices_first_and_keeps_three():
    class Stated:
        def notices(self, billed=True):
            return ["I have no specs for 'H800'."]

        def summary(self):
            return {"language": "en"}

    base = assemble(AnswerParts(requirement=Requirement(), rule_base_version="v", language="en",
                                result=result(questions=["a", "b", "c", "d"], verdicts=[verdict("ask", "t")])))
    answer = with_parse(base, Stated())
    assert answer.questions == ["I have no specs for 'H800'.", "a", "b"]
    assert answer.more_questions == ["c", "d"]
    assert answer.parse == {"language": "en"}


def test_options_that_differ_only_in_one_setting_are_all_kept():
    ranked = rank([record("concurrency", 10, concurrency=4), record("concurrency", 11, concurrency=2),
                   record("context", 10, context=8192), record("context", 10, context=4096),
                   record("batch", 10, batch_size=2), record("batch", 10, batch_size=1)])
    assert len(ranked) == 5  # five at most; none was dropped as a duplicate before the cut
    assert len(rank([record("kv-cache", 10, kv_precision="fp8"), record("kv-cache", 10, kv_precision="int8")])) == 2


def test_the_verdict_names_every_kind_of_change_that_fits_on_the_same_gpus():
    changes = [record("batch", 10, batch_size=2, accumulation=4), record("precision", 12, precision="int8"),
               record("kv-cache", 20, kv_precision="fp8"), record("more-gpus", 9, count=4)]
    for first, name in ((0, "micro-batch 2 x 4 accumulation steps"), (1, "int8 weights"), (2, "an fp8 KV cache")):
        res = result(verdicts=[verdict("no", "No.")], recommendations=[changes[first], changes[3]])
        answer = assemble(AnswerParts(requirement=Requirement(), result=res, language="en", rule_base_version="v"))
        assert answer.verdict.text.startswith(f"No. {name} (≈") and answer.verdict.text.endswith("fits on it.")


def test_the_answer_carries_what_the_calculators_gave():
    from bot.models import Candidate, Cost, Estimate

    estimate = Estimate(assumptions=["a"])
    candidates = [Candidate(gpu="l4", count=1, fits=True, need_gb=1, have_gb=24, headroom_gb=23)]
    costs = [Cost(label="A", hourly_rate=1, hours=2, total=2)]
    answer = assemble(AnswerParts(requirement=Requirement(gpu="h100"), result=result(verdicts=[verdict("info", "t")]),
                                  language="zh", rule_base_version="v9", estimate=estimate, candidates=candidates,
                                  costs=costs, gpu_family=["h100-sxm", "h100-pcie"]))
    assert (answer.estimate, answer.candidates, answer.costs) == (estimate, candidates, costs)
    assert (answer.language, answer.rule_base_version, answer.gpu_family) == ("zh", "v9", ["h100-sxm", "h100-pcie"])
    assert answer.verdict.because == [] and answer.recommendations == []



def test_version_questions_are_asked_of_a_version_ask_not_of_a_slow_training_run(advisor):
    from bot.nlu import parse

    def version_questions(text: str, language: str = "en") -> list[str]:
        answer = advisor.answer(parse(text, advisor.catalog).requirement, language)
        return [q for q in answer.questions + answer.more_questions if "CUDA" in q and ("driver" in q or "驱动" in q)]

    assert version_questions("which driver and CUDA release should our H100 fine-tuning hosts run?")
    assert not version_questions("我们的训练这两天明显变慢了，该从哪查起？", "zh")


def test_no_question_about_what_the_message_already_says(advisor):
    from bot.nlu import parse

    def asked(text: str, language: str = "en") -> list[str]:
        answer = advisor.answer(parse(text, advisor.catalog).requirement, language)
        return answer.questions + answer.more_questions

    def where(questions: list[str]) -> bool:
        return any("GeForce" in q for q in questions)

    # where GeForce cards run: asked of our own cards, not of rented ones or of a card the answer ruled out
    assert where(asked("Could one RTX 4090 take a QLoRA fine-tune of a 7B model?"))
    assert not where(asked("We hire RTX 4090s by the hour from a cloud marketplace; will a 7B QLoRA run fit on one?"))
    assert not where(asked("单卡跑 13B 的 LoRA，bf16，RTX 4090、L40S、A100 80G 选哪张？", "zh"))
    # serving words answer "training or inference?"
    assert not any("inference" in q for q in asked("Which card would you put behind a 13B support-chat endpoint, L40S or L4?"))
    # a sequence length given is not asked again, nor the batch: the sizing says the micro-batch it assumed
    length = asked("Full fine-tune of a 13B model on 2x A100 80GB at 8192 tokens per sequence: will it fit?")
    assert not any("sequence length" in q or "batch" in q for q in length)
    # no driver changes "this CUDA release dropped the GPU's generation"
    assert not any("driver" in q.lower() for q in asked("Can CUDA 13 builds run on our V100 nodes?"))


def test_load_questions_only_where_the_load_changes_the_answer(advisor):
    from bot.nlu import parse

    def asked(text: str) -> list[str]:
        answer = advisor.answer(parse(text, advisor.catalog).requirement, "en")
        return answer.questions + answer.more_questions

    # how requests arrive changes what to measure, not whether the weights fit or what an hour costs
    assert not any("arrive" in q for q in asked("Does a 13B model fit for inference on a single L40S?"))
    assert any("arrive" in q for q in asked("What latency can we get serving a 13B model from one L40S?"))
    # "one request" is the load
    assert not any("concurrent" in q for q in asked("How much GPU memory does one request at 64k context take on Llama-3.1-8B?"))


def test_the_billing_mode_is_asked_only_where_it_changes_a_price_or_a_cost(advisor):
    from bot.nlu import parse

    def questions(text):
        parsed = parse(text, advisor.catalog)
        answer = advisor.answer(parsed.requirement, parsed.language)
        return [*answer.questions, *answer.more_questions]

    mode = "计费方式"
    assert not any(mode in q for q in questions("阿里云 GPU 服务器的账单上除了显卡还有哪些收费项？"))
    assert not any(mode in q for q in questions("阿里云上 8 卡 A100 全参微调 13B 放得下吗"))
    assert any(mode in q for q in questions("阿里云 A10 一小时多少钱"))  # a price: the mode changes it


def test_full_fine_tuning_asked_ranks_a_full_setup_that_fits_before_lora():
    records = [record("method", 20, method="lora", priority=100), record("method", 10, method="qlora", priority=101),
               record("more-gpus", 19, count=4), record("more-gpus", 23, count=2, tight=True)]
    assert [(r.kind, r.method, r.count) for r in rank(records, full_ft=True)] == [
        ("more-gpus", None, 4), ("method", "lora", 1), ("method", "qlora", 1), ("more-gpus", None, 2)]
    # not asked: a change of method still comes first; only tight full setups: LoRA still leads
    assert rank(records)[0].method == "lora"
    assert rank([records[0], records[3]], full_ft=True)[0].method == "lora"


def test_a_full_fine_tune_that_does_not_fit_lists_the_full_setups_first(advisor):
    from bot.nlu import parse

    answer = advisor.answer(parse("full fine-tune of Qwen2.5-7B on a single A100 80GB: does it fit?",
                                  advisor.catalog).requirement)
    assert answer.recommendations[0].method not in ("lora", "qlora") and answer.recommendations[0].fits


def test_no_version_question_once_the_xids_explain_the_error(advisor):
    from bot.nlu import parse

    def questions(text: str) -> list[str]:
        answer = advisor.answer(parse(text, advisor.catalog).requirement)
        return answer.questions + answer.more_questions

    fault = ("the job died with 'CUDA error: an illegal memory access was encountered'\n"
             "NVRM: Xid (PCI:0000:41:00): 31, pid=2211, name=python, Ch 00000008, MMU Fault: ENGINE GRAPHICS faulted\n"
             "what broke?")
    assert not [q for q in questions(fault) if "CUDA version" in q]
    lost = "NVRM: Xid (PCI:0000:c1:00): 79, GPU has fallen off the bus.\nour 13B training on 8x A100 stopped, what now?"
    assert not [q for q in questions(lost) if "CUDA" in q and "driver" in q]
    # the same error without the Xids still asks the versions
    assert [q for q in questions("the job died with 'CUDA error: an illegal memory access was encountered', why?")
            if "CUDA version" in q]
