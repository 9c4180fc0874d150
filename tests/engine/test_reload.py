"""Live reload: only a green rule base is swapped in; old versions retire without leaking."""

from __future__ import annotations

import gc
import os
import re
import shutil
import threading
import time
import sys
from pathlib import Path

import pytest

from bot.advisor import Advisor
from bot.ruletools.reload import RuleBaseManager
from bot.models import Requirement

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "reload_rules"
BROKEN = Path(__file__).resolve().parents[1] / "fixtures" / "broken_rules"
QUESTION = Requirement(gpu="rtx-4090", deployment="datacenter")
MARKER = re.compile(r"generation (\d+) answered")


@pytest.fixture
def rules_dir(tmp_path):
    target = tmp_path / "rules"
    shutil.copytree(FIXTURE, target)
    return target


def write_generation(rules_dir: Path, generation: int) -> None:
    """Rewrite both rule files so every rule of the base names `generation`."""
    marker = rules_dir / "marker.yaml"
    text = re.sub(r"generation \d+", f"generation {generation}", marker.read_text())
    marker.write_text(re.sub(r"第 \d+ 代", f"第 {generation} 代", text))
    geforce = rules_dir / "geforce.yaml"
    text = re.sub(r" \[gen \d+\]", "", geforce.read_text())
    geforce.write_text(text.replace("for a data-centre host.", f"for a data-centre host. [gen {generation}]"))


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_reload_200_times_does_not_leak_threads_or_memory(rules_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        def cycle(generation: int) -> None:
            write_generation(rules_dir, generation)
            result = manager.reload()
            assert result.ok and result.changed, result.summary()
            answer = manager.answer(QUESTION)
            assert answer.rule_base_version.startswith(result.version)
            assert {f"generation {generation}"} == {m.group(0).replace(" answered", "")
                                                  for f in answer.findings for m in [MARKER.search(f.message)] if m}

        for generation in range(1, 21):  # warm-up: caches, the reload thread, pydantic adapters
            cycle(generation)
        gc.collect()
        threads, native, rss, blocks = threading.active_count(), native_threads(), rss_bytes(), sys.getallocatedblocks()
        for generation in range(21, 221):
            cycle(generation)
        gc.collect()
        grown = sys.getallocatedblocks() - blocks
        print(f"200 reloads: threads {threads}->{threading.active_count()}, native {native}->{native_threads()}, "
              f"python heap {grown:+d} blocks, RSS {(rss_bytes() - rss) / 1e6:+.1f} MB, "
              f"retired {manager.retired_count}")
        # No reload may leave a thread behind (threads of earlier tests may end meanwhile).
        assert threading.active_count() <= threads
        assert native_threads() <= native
        assert manager.retired_count == 220  # every replaced engine was closed
        assert grown < 20_000, f"python heap grew by {grown} allocated blocks over 200 reloads"
        assert rss_bytes() - rss < 20_000_000, "RSS grew more than 20 MB over 200 reloads"
    finally:
        manager.close()


def test_broken_edit_is_rejected_and_the_old_base_keeps_serving(rules_dir):
    reports = []
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, on_reload=reports.append)
    try:
        old = manager.version
        shutil.copy(BROKEN / "unknown_field.yaml", rules_dir / "broken.yaml")
        result = manager.reload()
        assert not result.ok and not result.changed
        assert result.version == old == manager.version
        assert any("broken.yaml:8:33" in p and "vram_gb" in p for p in result.problems), result.problems
        assert reports == [result] and "rejected" in result.summary()
        answer = manager.answer(QUESTION)
        assert answer.rule_base_version.startswith(old)
        assert any(f.rule == "license.geforce-datacenter" for f in answer.findings)
    finally:
        manager.close()


def test_lint_error_and_failing_rule_test_are_rejected_too(rules_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        old = manager.version
        # loads fine, but lint says it can never fire
        shutil.copy(BROKEN / "never_fires_derived.yaml", rules_dir / "dead.yaml")
        result = manager.reload()
        assert not result.ok and any("[never-fires]" in p for p in result.problems)
        (rules_dir / "dead.yaml").unlink()
        # loads and lints clean, but a rule test now fails
        tests = rules_dir / "marker.tests.yaml"
        tests.write_text(tests.read_text().replace('contains: "generation"', 'contains: "no such text"'))
        result = manager.reload()
        assert not result.ok and result.candidate == old  # only a test file changed
        assert any("no such text" in p for p in result.problems), result.problems
        assert manager.version == old
    finally:
        manager.close()


def test_unchanged_files_do_not_swap(rules_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        result = manager.reload()
        assert result.ok and not result.changed and result.version == manager.version
    finally:
        manager.close()


def test_a_question_in_flight_keeps_its_engine_until_it_ends(rules_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        with manager.advisor() as advisor:
            old_engine = advisor.engine
            write_generation(rules_dir, 1)
            assert manager.reload().changed
            # the retired engine still answers the question that holds it
            answer = advisor.answer(QUESTION)
            assert answer.rule_base_version.startswith(old_engine.version)
            assert not old_engine._closed
        assert old_engine._closed
        assert manager.answer(QUESTION).rule_base_version.startswith(manager.version)
    finally:
        manager.close()


def test_concurrent_questions_during_reloads_see_complete_bases(rules_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    generation_of = {manager.version: 0}
    answers, errors = [], []
    stop = threading.Event()

    def ask() -> None:
        while not stop.is_set():
            try:
                answers.append(manager.answer(QUESTION))
            except Exception as exc:  # any failure is a defect this test reports
                errors.append(exc)

    workers = [threading.Thread(target=ask) for _ in range(4)]
    for worker in workers:
        worker.start()
    try:
        for generation in range(1, 31):
            write_generation(rules_dir, generation)
            result = manager.reload()
            assert result.ok, result.summary()
            generation_of[result.version] = generation
    finally:
        stop.set()
        for worker in workers:
            worker.join()
        manager.close()
    assert not errors, errors[:3]
    assert len(answers) > 30
    seen = set()
    for answer in answers:
        generation = generation_of[answer.rule_base_version.split("+")[0]]
        seen.add(generation)
        texts = {f.rule: f.message for f in answer.findings}
        # both files' rules answered, from the same generation as the version stamped on the answer
        assert f"generation {generation} answered" in texts["reload.generation-marker"]
        if generation:
            assert texts["license.geforce-datacenter"].endswith(f"[gen {generation}]")
    assert len(seen) > 1, "answers came from more than one version"


def test_watcher_reloads_on_change(rules_dir):
    results = []
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, on_reload=results.append)
    try:
        old = manager.version
        manager.watch(interval=0.05)
        write_generation(rules_dir, 7)
        deadline = time.monotonic() + 10
        # the swap comes first, then the subscribers hear of it: wait for both
        while (manager.version == old or not results) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert manager.version != old
        assert results and results[-1].ok and results[-1].changed
        assert "generation 7 answered" in " ".join(f.message for f in manager.answer(QUESTION).findings)
    finally:
        manager.close()
    assert not any(t.name == "rules-watch" for t in threading.enumerate())


# -- knowledge reloads with the rules; the watcher survives errors ---------------------------------

NEW_GPU = """
  - id: l40s-lab
    name: NVIDIA L40S (lab build)
    family: l40s
    gpu_class: datacenter
    architecture: Ada Lovelace
    compute_capability: "8.9"
    memory_gb: 48
    memory_type: GDDR6 with ECC
    bandwidth_gbs: 864
    board_power_w: 350
    form_factor: PCIe card, dual-slot, passive cooling
    slots: 2
    ecc: true
    nvlink: false
    mig_max_instances: 0
    pcie_gen: 4
    tensor_precisions: [tf32, bf16, fp16, fp8, int8, int4]
    dense_tflops: {fp32: 91.6, tf32: 183, bf16: 362.05, fp16: 362.05, fp8: 733, int8: 733, int4: 733}
    sources: [lab-notes]
"""
NEW_SOURCE = """
  - id: lab-notes
    title: Our lab's notes on the L40S lab build
    publisher: the team
    url: https://example.org/lab-notes
    cited_by: [public]
"""
RULE_ON_THE_NEW_GPU = """# yaml-language-server: $schema=../../../rules/rule.schema.json
rules:
  - id: reload.lab-gpu
    title: The lab build of the L40S is known
    topic: license
    severity: info
    when:
      - fact: gpu
        where: {selected: true, gpu: l40s-lab}
    then:
      finding:
        en: "the lab build {gpu.name} is in the catalogue"
        zh: "实验室版本 {gpu.name} 已收录"
    sources: [lab-notes]
"""
RULE_TEST = """tests:
  - name: the lab GPU is known
    requirement: {gpu: l40s-lab}
    expect:
      fires: [reload.lab-gpu]
"""


@pytest.fixture
def knowledge_dir(tmp_path):
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR

    target = tmp_path / "knowledge"
    shutil.copytree(DEFAULT_KNOWLEDGE_DIR, target)
    return target


def add_the_lab_gpu(knowledge_dir: Path, rules_dir: Path) -> None:
    with open(knowledge_dir / "gpus.yaml", "a") as fh:
        fh.write(NEW_GPU)
    with open(knowledge_dir / "sources.yaml", "a") as fh:
        fh.write(NEW_SOURCE)
    (rules_dir / "lab.yaml").write_text(RULE_ON_THE_NEW_GPU)
    (rules_dir / "lab.tests.yaml").write_text(RULE_TEST)


def test_a_new_gpu_and_a_rule_on_it_are_reloaded_together(rules_dir, knowledge_dir):
    """knowledge/gpus.yaml gains a GPU and sources.yaml its source; a rule cites both: one reload."""
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, knowledge_dir=knowledge_dir)
    try:
        before_rules, before_knowledge = manager.version, manager.knowledge_version
        add_the_lab_gpu(knowledge_dir, rules_dir)
        result = manager.reload()
        assert result.ok and result.changed, result.summary()
        assert manager.version != before_rules and manager.knowledge_version != before_knowledge
        assert result.serving == manager.serving_version
        assert "l40s-lab" in manager.catalog.gpus
        answer = manager.answer(Requirement(gpu="l40s-lab"))
        assert any(f.rule == "reload.lab-gpu" for f in answer.findings)
    finally:
        manager.close()


def test_knowledge_alone_changing_swaps_the_pair_and_a_broken_knowledge_file_is_rejected(rules_dir, knowledge_dir):
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, knowledge_dir=knowledge_dir)
    try:
        with open(knowledge_dir / "gpus.yaml", "a") as fh:
            fh.write(NEW_GPU.replace("[lab-notes]", "[nvidia-l40s-specs]"))
        result = manager.reload()
        assert result.ok and result.changed and "l40s-lab" in manager.catalog.gpus
        serving = manager.serving_version
        (knowledge_dir / "gpus.yaml").write_text("gpus: [this is not a gpu\n")
        rejected = manager.reload()
        assert not rejected.ok and "gpus.yaml" in " ".join(rejected.problems)
        assert manager.serving_version == serving and "l40s-lab" in manager.catalog.gpus
    finally:
        manager.close()


def test_a_knowledge_change_without_its_source_is_rejected(rules_dir, knowledge_dir):
    """The rule cites a source the (old) knowledge lacks: rejected until the knowledge arrives too."""
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, knowledge_dir=knowledge_dir)
    try:
        (rules_dir / "lab.yaml").write_text(RULE_ON_THE_NEW_GPU)
        (rules_dir / "lab.tests.yaml").write_text(RULE_TEST)
        assert not manager.reload().ok
        add_the_lab_gpu(knowledge_dir, rules_dir)
        assert manager.reload().ok
    finally:
        manager.close()


def test_subscribers_get_every_result_and_a_failing_one_breaks_nothing(rules_dir):
    seen = []

    def broken(_result):
        raise RuntimeError("a subscriber bug")

    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor)
    try:
        manager.subscribe(broken)
        unsubscribe = manager.subscribe(seen.append)
        write_generation(rules_dir, 5)
        assert manager.reload().changed
        unsubscribe()
        write_generation(rules_dir, 6)
        assert manager.reload().changed
        assert len(seen) == 1 and seen[0].ok
    finally:
        manager.close()


def test_the_watcher_reloads_knowledge_and_survives_its_folder_vanishing(rules_dir, knowledge_dir):
    results = []
    manager = RuleBaseManager(rules_dir, advisor_factory=Advisor, knowledge_dir=knowledge_dir,
                              on_reload=results.append)
    try:
        manager.watch(interval=0.05)
        add_the_lab_gpu(knowledge_dir, rules_dir)
        deadline = time.monotonic() + 20
        while "l40s-lab" not in manager.catalog.gpus and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "l40s-lab" in manager.catalog.gpus

        shutil.rmtree(rules_dir)  # every failure on the way is reported; the watcher keeps going
        deadline = time.monotonic() + 20
        while not any(not r.ok for r in results) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(not r.ok for r in results)
        shutil.copytree(FIXTURE, rules_dir)
        write_generation(rules_dir, 9)
        deadline = time.monotonic() + 30
        while "generation 9 answered" not in " ".join(f.message for f in manager.answer(QUESTION).findings):
            assert time.monotonic() < deadline, [r.summary() for r in results][-3:]
            time.sleep(0.1)
        assert any(t.name == "rules-watch" for t in threading.enumerate())
    finally:
        manager.close()
    assert not any(t.name == "rules-watch" for t in threading.enumerate())
