"""A build of a CUDA release older than the named GPU's arch floor has no kernels for it: the answer
says no before any driver talk; a build at or above the floor carries the arch, and the driver is left:
with a driver stated, its verdict leads, the GPU's line and the ways round an old driver follow."""

from __future__ import annotations

from bot.compose import ComposeContext, compose_all
from bot.nlu.parser import parse


def _first(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)[0]


def test_a_build_older_than_the_arch_floor_is_a_no_with_the_build_to_take(advisor):
    reply = _first(advisor, "just got GB200-class B200 boxes; will our existing cu121 torch image work on them?")
    assert reply.rule == "compat.arch-floor"
    assert reply.lead.startswith("No — B200 is sm_100"), reply.lead
    assert "CUDA 12.8" in reply.lead and "whl/cu128" in reply.lead and "570.26" in reply.lead


def test_the_stated_driver_is_judged_for_the_build_the_arch_needs(advisor):
    ok = _first(advisor, "5090 上 torch 2.4 + cu121 能跑吗？驱动 575.64")
    assert ok.lead.startswith("不行——RTX 5090 的计算能力是 sm_120"), ok.lead
    assert ok.details[0] == "你的驱动 575.64 已满足 cu128 构建要求的 570.26：只需换构建。"
    assert ok.details[1] == "PyTorch 2.4 的 cu121 构建带的是 sm_50-sm_90 的内核（PyTorch 编译这个构建时的架构列表）。"
    old = _first(advisor, "RTX 5090 with driver 560.35 and torch cu124 wheels, does it work?")
    assert old.lead.startswith("No — RTX 5090 is sm_120") and old.details[0].startswith("Your driver 560.35 is older")


def test_a_build_at_or_above_the_floor_carries_the_arch_and_leaves_the_driver(advisor):
    reply = _first(advisor, "will the cu118 build of pytorch run on our H100s?")
    assert reply.lead.startswith("Yes for the GPU: H100 SXM is sm_90"), reply.lead
    assert reply.details[0].startswith("CUDA 11.8 needs Linux driver 520.61.05")


def test_a_gpu_without_a_floor_in_the_table_is_left_to_the_driver_check(advisor):
    reply = _first(advisor, "A100 on driver 535.104 with cu121 wheels: will it work?")
    assert reply.rule != "compat.arch-floor" and "535.104" in reply.lead


def test_a_driver_older_than_the_arch_is_a_no_whatever_the_build(advisor):
    reply = _first(advisor, "RTX 5090 box on driver 560.35, will the torch cu128 wheels work?")
    assert reply.lead.startswith("No — not on driver 560.35: RTX 5090 is sm_120"), reply.lead
    assert "570.26" in reply.lead


def _parts(advisor, text):
    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose_all(ctx)


def test_a_part_naming_its_own_gpu_is_judged_for_that_gpu_on_the_message_driver(advisor):
    # the message names a data-centre GPU first and the driver once; the later part asks about a GeForce Blackwell
    replies = _parts(advisor, "1. what's the minimum driver for CUDA 12.8? 2. our L40S boxes are on driver 535, "
                              "can they run torch cu128? 3. what about our RTX 5090 desktop?")
    last = replies[-1]
    assert last.rule == "compat.arch-floor", [r.lead for r in replies]
    assert last.lead.startswith("No — not on driver 535: RTX 5090 is sm_120"), last.lead
    assert "570.26" in last.lead
    assert any("cuda-compat" in d for d in last.details), last.details  # GeForce: no forward-compatibility way round
    assert not replies[1].lead.startswith("No"), replies[1].lead  # the L40S part stays a driver answer


def test_a_follow_on_part_with_its_own_driver_is_judged_on_it(advisor):
    replies = _parts(advisor, "(1) will torch cu128 run on our H100 nodes with driver 550? (2) and the RTX 5090 box on 575?")
    last = replies[-1]
    assert last.rule == "compat.arch-floor" and last.lead.startswith("CUDA 12.8 on driver 575: yes"), last.lead
    assert last.details[0].startswith("The GPU is not the problem: RTX 5090 is sm_120"), last.details


def test_a_build_whose_arch_list_lacks_the_gpu_is_a_no_from_the_list_not_a_floor(advisor):
    # sm_70 has no floor rule; the release's own cu128 list decides, and the same release's build that carries it is named
    reply = _first(advisor, "we're on torch 2.11 with cu128 wheels — will that run on the old V100 boxes?")
    assert reply.rule == "compat.arch-build", reply.lead
    assert reply.lead.startswith("No — V100"), reply.lead
    assert "2.11's cu128 build carries sm_75-sm_120 kernels, not sm_70" in reply.lead
    assert 'torch==2.11.*" --index-url https://download.pytorch.org/whl/cu126' in reply.lead
    assert any("2.8, 2.9, 2.10" in d for d in reply.details), reply.details  # the cu128 builds that did carry it


def test_the_release_named_picks_the_list(advisor):
    # 2.9's cu128 build put sm_70 back: the answer is no longer the arch's
    reply = _first(advisor, "torch 2.9 + cu128 on V100, does it work? driver 570.86")
    assert reply.rule != "compat.arch-build" and not reply.lead.startswith("No"), reply.lead


def test_a_card_runs_the_sass_of_a_lower_minor_of_its_major():
    from bot.compose.cuda_check import carries
    from bot.knowledge.models import TorchRelease

    release = TorchRelease(version="2.7", cuda=["12.8"], default="12.8", sources=["pytorch-cuda-arch-matrix"],
                           arch={"12.8": ["7.5", "8.0", "8.6", "9.0", "10.0", "12.0+PTX"]})
    assert carries(release, "12.8", "8.9") is True  # Ada on sm_86 code
    assert carries(release, "12.8", "7.0") is False  # Volta below the list
    assert carries(release, "12.8", "12.1") is True
    assert carries(release, "12.6", "9.0") is None  # not recorded


def test_a_driver_too_old_for_the_build_names_the_data_centre_way_round_it(advisor):
    replies = _parts(advisor, "two things: our CUDA 11.8 image on the new driver 550 hosts, ok? and the CUDA 12.6 image "
                              "on the old A100 hosts with driver 470?")
    reply = next(r for r in replies if r.figures.get("how") == "old")
    assert any("cuda-compat" in d and "GeForce" in d for d in reply.details), reply.details
    geforce = _parts(advisor, "two things: a CUDA 11.8 image on driver 550, ok? and a CUDA 12.4 image on our RTX 4090 "
                              "workstation with driver 470?")
    assert not any("cuda-compat-<major>" in d for r in geforce for d in r.details)  # not offered for GeForce


def test_a_chinese_is_it_fine_to_run_question_is_judged_for_the_arch(advisor):
    reply = _first(advisor, "L40S 上跑 torch 2.4 cu118 没问题吧？")
    assert reply.rule == "compat.arch-floor" and reply.lead.startswith("GPU 这边没问题：L40S"), reply.lead


def _compat(advisor, text):
    from bot.compose.compat import compose
    from bot.models import Ask

    parsed = parse(text, advisor.catalog)
    req = parsed.requirement
    ctx = ComposeContext(requirement=req, answer=advisor.answer(req, parsed.language), catalog=advisor.catalog,
                         language=parsed.language, question=text)
    return compose(Ask(kind="compat", text=text, subjects=[req.gpu] if req.gpu else []), ctx)


def test_a_release_named_without_a_build_is_judged_on_its_builds_default_first(advisor):
    none = _compat(advisor, "我们 RTX 5090 上的镜像是 torch 2.5，能跑吗")
    assert none.lead.startswith("不行——RTX 5090 的计算能力是 sm_120"), none.lead
    assert "PyTorch 2.5 的所有构建（cu118, cu121, cu124）都不带 sm_120" in none.lead and "whl/cu128" in none.lead
    only = _compat(advisor, "does torch 2.7 run on a B200 node?")
    assert only.lead.startswith("Only with its cu128 build: B200 is sm_100"), only.lead
    assert "takes its cu126 build, which carries sm_50-sm_90 kernels" in only.lead
    carried = _compat(advisor, "does torch 2.9 run on H100?")
    # its default build carries sm_90: a yes, not the fit verdict's "it depends on the model"
    assert carried is not None and carried.lead.startswith("Yes — PyTorch 2.9's default build (cu128"), carried
    assert "sm_90" in carried.lead and carried.figures["works"] == "yes"


def test_a_chinese_follow_on_part_names_its_gpu_and_inherits_the_install_question(advisor):
    replies = _parts(advisor, "两个问题：1）L20 机器驱动 535，能装 cu128 的 torch 吗？2）那台 RTX 5090 呢？")
    assert replies[-1].lead.startswith("不行——驱动 535 不行：RTX 5090 的计算能力是 sm_120"), replies[-1].lead


def test_with_a_driver_stated_the_driver_verdict_leads_and_the_ways_round_follow(advisor):
    # the arch is carried, so the question left is the driver's: it leads, the GPU's line follows
    en = _first(advisor, "rented L40S node, driver 535.129, our container has torch on CUDA 12.6 — will it run?")
    assert en.lead.startswith("CUDA 12.6 on driver 535.129: yes, under minor-version compatibility"), en.lead
    assert en.details[0].startswith("The GPU is not the problem: L40S is sm_89"), en.details
    ways = next(d for d in en.details if d.startswith("Ways to the full CUDA 12.6"))
    assert "≥ 560.28.03" in ways and "cuda-compat-12-6" in ways and "cu121" in ways, ways
    assert any("no PTX JIT" in d for d in en.details), en.details
    zh = _first(advisor, "4090 服务器驱动 550.120，镜像是 CUDA 12.8 的 PyTorch，能不能跑起来")
    assert zh.lead.startswith("CUDA 12.8 跑在驱动 550.120 上：可以，靠次版本兼容"), zh.lead
    ways = next(d for d in zh.details if d.startswith("要用上 CUDA 12.8 的全部功能"))
    assert "≥ 570.26" in ways and "cu124" in ways and "cuda-compat" not in ways, ways  # GeForce: no forward-compat


def test_a_driver_too_old_for_the_major_names_the_build_it_runs_natively(advisor):
    reply = _first(advisor, "H200 节点驱动 550.127，用 CUDA 13.0 编译的镜像能跑吗")
    assert reply.lead.startswith("CUDA 13.0 跑在驱动 550.127 上：不行"), reply.lead
    assert any("cu124" in d and "原生" in d for d in reply.details), reply.details
    assert any("cuda-compat" in d for d in reply.details), reply.details
