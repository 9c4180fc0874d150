"""The per-user start-up cache (issue #14): keyed by file content, safe with concurrent writers,
and what it gives back is what a fresh build gives."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import re
import shutil
from pathlib import Path

import pytest

from bot import cache

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache_folder(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(folder))
    monkeypatch.delenv(cache.CACHE_SWITCH_ENV, raising=False)
    return folder


def _counting(value):
    calls = []

    def build():
        calls.append(1)
        return value

    return build, calls


def test_a_second_load_of_unchanged_files_reads_the_cache(cache_folder, tmp_path):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    build, calls = _counting({"x": 1})
    assert cache.cached("demo", [source], build) == {"x": 1}
    assert cache.cached("demo", [source], build) == {"x": 1}
    assert len(calls) == 1
    assert oct(cache_folder.stat().st_mode & 0o777) == "0o700"


def test_any_change_to_a_file_or_the_extra_key_is_a_miss(cache_folder, tmp_path):
    source = tmp_path / "a.yaml"
    source.write_text("x: 1\n")
    build, calls = _counting("value")
    cache.cached("demo", [source], build)
    source.write_text("x: 2\n")  # same size, other content
    cache.cached("demo", [source], build)
    cache.cached("demo", [source], build, extra="other sources")
    cache.cached("demo", [source, tmp_path / "added.yaml"], build)
    assert len(calls) == 4


def test_the_cache_can_be_turned_off(cache_folder, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_SWITCH_ENV, "off")
    build, calls = _counting(1)
    cache.cached("demo", [], build)
    cache.cached("demo", [], build)
    assert len(calls) == 2 and not cache_folder.exists()


def test_a_folder_others_can_write_is_never_read(cache_folder, tmp_path):
    build, calls = _counting(1)
    cache.cached("demo", [], build)
    os.chmod(cache_folder, 0o777)
    cache.cached("demo", [], build)
    assert len(calls) == 2


def test_a_torn_entry_is_a_miss_and_is_replaced(cache_folder):
    build, calls = _counting([1, 2, 3])
    cache.cached("demo", [], build)
    (entry,) = cache_folder.glob("demo-*.pickle")
    entry.write_bytes(entry.read_bytes()[:10])
    assert cache.cached("demo", [], build) == [1, 2, 3]
    assert cache.cached("demo", [], build) == [1, 2, 3]
    assert len(calls) == 2


def _write_and_read(folder: str, rounds: int, seed: int) -> list[str]:
    os.environ[cache.CACHE_DIR_ENV] = folder
    problems = []
    value = {"rows": list(range(20_000)), "seed": "shared"}
    for i in range(rounds):
        if (i + seed) % 2:
            cache.write_entry("race", "k" * 40, value)
        else:  # read the file itself: read_entry would hide a torn file as a miss
            try:
                data = cache._entry(Path(folder), "race", "k" * 40).read_bytes()
            except FileNotFoundError:
                continue
            try:
                if pickle.loads(data) != value:
                    problems.append(f"wrong value in round {i}")
            except Exception:
                problems.append(f"torn entry in round {i}")
    return problems


def test_concurrent_writers_never_leave_a_torn_entry(cache_folder):
    cache_folder.mkdir(mode=0o700)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(_write_and_read, [(str(cache_folder), 60, seed) for seed in range(4)])
    assert [p for r in results for p in r] == []
    assert cache.read_entry("race", "k" * 40) is not None
    assert not list(cache_folder.glob(".*.tmp")), "temporary files are renamed or removed"


def test_old_entries_of_a_kind_are_pruned(cache_folder, tmp_path):
    for i in range(cache.KEEP_PER_KIND + 3):
        cache.cached("demo", [], lambda: i, extra=str(i))
    assert len(list(cache_folder.glob("demo-*.pickle"))) == cache.KEEP_PER_KIND


def test_the_cached_catalog_and_rule_base_equal_fresh_loads(cache_folder, tmp_path):
    from bot.engine.rulebase import load_rulebase, rule_files
    from bot.knowledge import load_catalog

    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    catalog = load_catalog(ROOT / "knowledge")
    sources = set(catalog.sources)
    fresh = load_rulebase([rules], known_sources=sources)
    cached = load_rulebase([rules], known_sources=sources)
    assert list(cache_folder.glob("rulebase-*.pickle"))
    assert cached is not fresh and cached.version == fresh.version
    assert [r.rule for r in cached.rules] == [r.rule for r in fresh.rules]
    assert [r.where("id") for r in cached.rules] == [r.where("id") for r in fresh.rules]
    # an edit is seen at once
    first = rule_files([rules])[0]
    first.write_text(first.read_text() + "\n# edited\n")
    assert load_rulebase([rules], known_sources=sources).version != fresh.version


def test_cached_regular_expressions_behave_like_compiled_ones(cache_folder):
    from bot.nlu import lexicon

    patterns = [value for value in vars(lexicon).values() if isinstance(value, re.Pattern)]
    patterns += [p for value in vars(lexicon).values() if isinstance(value, list)
                 for p, _ in value if isinstance(p, re.Pattern)]
    assert len(patterns) > 50
    texts = ["fine-tune Llama-3-8B with LoRA on two 4090s, bf16, 3 epochs", "我们要在数据中心部署 8 张 H100 推理",
             "NVRM: Xid (PCI:0000:3b:00): 79, pid=123", "spot g5.12xlarge vs reserved p4d.24xlarge"]
    for pattern in patterns:
        program = cache._program(pattern.pattern, pattern.flags)
        rebuilt = __import__("_sre").compile(pattern.pattern, *program)
        reference = re.compile(pattern.pattern, pattern.flags)
        assert (rebuilt.flags, rebuilt.groups, rebuilt.groupindex) == (reference.flags, reference.groups,
                                                                       reference.groupindex)
        for text in texts:
            assert [m.span() for m in rebuilt.finditer(text)] == [m.span() for m in reference.finditer(text)]


def test_no_home_directory_means_no_cache_not_a_crash(monkeypatch):
    monkeypatch.delenv(cache.CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    build, calls = _counting("built")
    assert cache.cache_dir() is None
    assert cache.cached("demo", [], build) == "built" and cache.cached("demo", [], build) == "built"
    assert len(calls) == 2


def _run_python(code: str, cache_folder: Path) -> str:
    import subprocess
    import sys

    env = {**os.environ, cache.CACHE_DIR_ENV: str(cache_folder), "PYTHONPATH": str(ROOT)}
    env.pop(cache.CACHE_SWITCH_ENV, None)
    done = subprocess.run([sys.executable, "-c", code], check=False, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_one_shot_command_reads_every_module_level_pattern_from_the_cache(cache_folder):
    """keep_all_regex_programs: a bot module's patterns are kept by the first process; the next one
    builds them from the kept programs without parsing one, and they match as compiled ones do."""
    probe = ("from bot import cache; cache.keep_all_regex_programs()\n"
             "import bot.nlu.quantities as q, re\n"
             "print(sorted(len(p.pattern) for p in vars(q).values() if isinstance(p, re.Pattern))[-1])\n")
    first = _run_python(probe, cache_folder)
    entries = list(cache_folder.glob("regex-*.pickle"))
    assert len(entries) == 1
    kept = pickle.loads(entries[0].read_bytes())["programs"]
    assert len(kept) > 20
    # The second process must not parse a pattern of that module: parsing is made to fail.
    second = _run_python("from bot import cache\n"
                         "def refuse(*a):\n    raise AssertionError('parsed')\n"
                         "cache.keep_all_regex_programs()\nimport bot.nlu.quantities\ncache._program = refuse\n"
                         "import importlib; importlib.reload(bot.nlu.quantities)\n"
                         "import bot.nlu.quantities as q, re\n"
                         "print(sorted(len(p.pattern) for p in vars(q).values() if isinstance(p, re.Pattern))[-1])\n",
                         cache_folder)
    assert first == second
    bad = _run_python("from bot import cache; cache.keep_all_regex_programs()\nimport re\n"
                      "try:\n    re.compile('(unclosed')\nexcept re.error as e:\n    print('re.error', e.pos)\n"
                      "print(re.compile('(?P<n>a+)b', re.I).match('AAb').group('n'))\n", cache_folder)
    assert bad.split() == ["re.error", "0", "AA"]


def test_a_pattern_compiled_outside_the_bot_does_not_rewrite_the_kept_programs(cache_folder):
    """A library may build a different pattern in every process (tokenize orders a set of string
    prefixes by the hash seed): it must not make every start rewrite the entry."""
    _run_python("from bot import cache; cache.keep_all_regex_programs()\nimport bot.nlu.quantities\n", cache_folder)
    entry = next(cache_folder.glob("regex-*.pickle"))
    before = entry.stat().st_mtime_ns, entry.read_bytes()
    _run_python("from bot import cache; cache.keep_all_regex_programs()\nimport bot.nlu.quantities, re, uuid\n"
                "re.compile('not from the bot ' + uuid.uuid4().hex)\n", cache_folder)
    assert (entry.stat().st_mtime_ns, entry.read_bytes()) == before


def test_a_pattern_built_anew_by_every_start_does_not_grow_the_kept_programs(cache_folder):
    """A bot pattern joined from a set (hash-seed order) is new in every process and rewrites the
    entry; what no start used again is dropped after MAX_UNUSED_REWRITES rewrites, so the entry every
    start reads stays the size of what starts use, while a pattern every start uses stays kept."""
    probe = ("from bot import cache\nimport uuid\ncache.keep_all_regex_programs()\n"
             "cache.compiled_regex('(?:stable|kept)[0-9]+')\n"
             "cache.compiled_regex('varying-' + uuid.uuid4().hex)\n")
    for _ in range(cache.MAX_UNUSED_REWRITES + 4):
        _run_python(probe, cache_folder)
    kept = pickle.loads(next(cache_folder.glob("regex-*.pickle")).read_bytes())["programs"]
    varying = [pattern for pattern, _ in kept if pattern.startswith("varying-")]
    assert ("(?:stable|kept)[0-9]+", 0) in kept
    assert len(varying) == cache.MAX_UNUSED_REWRITES + 1
