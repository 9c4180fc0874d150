"""Mutation score of a core module against its own test folder (a developer command, not run in CI).

    python bench/mutation.py bot/nlu/numbers.py [bot/sizing/memory.py ...]
                             [--tests tests/nlu] [--pytest-arg=--deselect=NODEID] [--max-children 1]
                             [--no-recheck] [--survivors]

For each module, mutmut (dev extra) mutates that one file and runs the tests of the folder that
mirrors it (see TEST_FOLDERS; `--tests` overrides). Every mutant that survives, or that mutmut found
no covering test for, is then re-run against the module's whole test folder (a test may reach the
module through a subprocess or a server thread that mutmut's per-test coverage does not see); only
a mutant that the whole folder also lets pass counts as surviving. Tests that already fail on the
unmutated code (someone's work in progress) are listed and left out (`--keep-failing` to refuse
instead). Prints, per module,
`killed / total (score %)` and, with --survivors, the diff of each surviving mutant.

The run happens in a scratch copy of the working tree (default: $TMPDIR/gpu-advisor-mutation/,
`--workdir` to change), so mutmut's `mutants/` folder and its configuration never touch the
project; `../shared` is linked into the copy for the tests that read the shared fixtures.
Goal (issue #18): >= 85% on bot/nlu/numbers.py, bot/sizing/{memory,cost,plans}.py,
bot/agent/security.py and bot/engine/compiler.py. It is CPU heavy: keep --max-children low on a
shared machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_PERCENT = 85.0

# The test folders that mirror each core module (the ones the goal is measured against).
TEST_FOLDERS: dict[str, list[str]] = {
    "bot/nlu/numbers.py": ["tests/nlu"],
    "bot/sizing/memory.py": ["tests/sizing"],
    "bot/sizing/cost.py": ["tests/sizing"],
    "bot/sizing/plans.py": ["tests/sizing"],
    "bot/agent/security.py": ["tests/agent"],
    "bot/engine/compiler.py": ["tests/engine", "tests/rules"],
}
# mutmut's verdicts that mean a test noticed the mutant.
DETECTED = {"killed", "timeout", "segfault", "caught by type check", "suspicious"}
_RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")


@dataclass
class ModuleScore:
    module: str
    tests: list[str]
    statuses: dict[str, str] = field(default_factory=dict)  # mutant name -> verdict
    rechecked_killed: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.statuses)

    @property
    def killed(self) -> int:
        return sum(1 for s in self.statuses.values() if s in DETECTED)

    @property
    def survivors(self) -> list[str]:
        return sorted(name for name, s in self.statuses.items() if s not in DETECTED)

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.total if self.total else 0.0


def module_path(arg: str) -> str:
    """`bot/nlu/numbers.py` or `bot.nlu.numbers` -> `bot/nlu/numbers.py` (checked to exist)."""
    path = arg if arg.endswith(".py") else arg.replace(".", "/") + ".py"
    if not (ROOT / path).is_file():
        raise SystemExit(f"mutation: no module {path} under {ROOT}")
    return path


def default_tests(module: str) -> list[str]:
    if module in TEST_FOLDERS:
        return TEST_FOLDERS[module]
    parts = Path(module).parts  # bot/<package>/x.py -> tests/<package>
    guess = f"tests/{parts[1]}" if len(parts) > 2 else "tests"
    return [guess]


def project_files() -> list[str]:
    """Tracked files plus untracked ones git does not ignore: the working tree as a developer has it."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                         cwd=ROOT, capture_output=True, check=True).stdout
    return sorted({p for p in out.decode().split("\0") if p and (ROOT / p).is_file()})


def prepare_scratch(workdir: Path, module: str, tests: list[str], pytest_args: list[str]) -> Path:
    scratch = workdir / module.replace("/", "_").removesuffix(".py")
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for rel in project_files():
        target = scratch / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        # tests find ../shared from the checkout; mutmut runs them one level down, in mutants/
        (scratch / "shared").symlink_to(shared)
    top_level = sorted({Path(rel).parts[0] for rel in project_files() if len(Path(rel).parts) > 1} - {"bot", "tests"})
    config = "\n".join([
        "",
        "[tool.mutmut]",
        'source_paths = ["bot"]',
        f'only_mutate = ["{module}"]',
        f"also_copy = {top_level!r}".replace("'", '"'),
        f"pytest_add_cli_args_test_selection = {tests!r}".replace("'", '"'),
        f"pytest_add_cli_args = {['-p', 'no:cacheprovider', '-x', '-q', *pytest_args]!r}".replace("'", '"'),
        "use_git_change_detection = false",
        "",
    ])
    with open(scratch / "pyproject.toml", "a", encoding="utf-8") as f:
        f.write(config)
    return scratch


def mutmut(scratch: Path, *args: str, env: dict[str, str], capture: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "mutmut", *args]
    return subprocess.run(command, cwd=scratch, env=env, text=True,
                          capture_output=capture, check=False)


def read_statuses(scratch: Path, env: dict[str, str]) -> dict[str, str]:
    out = mutmut(scratch, "results", "--all", "true", env=env, capture=True)
    if out.returncode != 0:
        raise SystemExit(f"mutation: `mutmut results` failed:\n{out.stdout}\n{out.stderr}")
    statuses = {}
    for line in out.stdout.splitlines():
        m = _RESULT_LINE.match(line)
        if m:
            statuses[m.group(1)] = m.group(2).strip()
    return statuses


def run_folder(mutants: Path, tests: list[str], pytest_args: list[str], env: dict[str, str], mutant: str,
               timeout_s: float) -> str:
    """'killed' or 'survived' for one mutant against the whole test folder(s)."""
    run_env = dict(env, MUTANT_UNDER_TEST=mutant)
    try:
        result = subprocess.run([sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:cacheprovider",
                                 *pytest_args],
                                cwd=mutants, env=run_env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if result.returncode == 0 else "killed"


def failing_tests(scratch: Path, tests: list[str], pytest_args: list[str]) -> list[str]:
    """Node ids of the tests that fail on the unmutated copy (mutmut needs a green run)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MUTANT_UNDER_TEST")}
    env["COLUMNS"] = "1000"  # the summary lines carry whole node ids
    result = subprocess.run([sys.executable, "-m", "pytest", *tests, "-q", "-rfE", "-p", "no:cacheprovider",
                             "--continue-on-collection-errors", *pytest_args],
                            cwd=scratch, env=env, capture_output=True, text=True)
    failed = []
    for line in result.stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            node = line.split(" ", 1)[1].split(" - ", 1)[0].strip()
            failed.append(node)
    if result.returncode not in (0, 1) or (result.returncode == 1 and not failed):
        raise SystemExit(f"mutation: the tests do not run cleanly:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return failed


def score_module(module: str, tests: list[str], pytest_args: list[str], workdir: Path, max_children: int,
                 recheck: bool, keep_failing: bool) -> ModuleScore:
    scratch = prepare_scratch(workdir, module, tests, pytest_args)
    if not keep_failing:
        failed = failing_tests(scratch, tests, pytest_args)
        if failed:
            print(f"   WARNING: {len(failed)} test(s) fail without any mutant; left out of this run:", flush=True)
            for node in failed:
                print(f"      {node}")
            # a module that does not even import is left out whole
            pytest_args = pytest_args + [f"--deselect={node}" if "::" in node else f"--ignore={node}"
                                         for node in failed]
            scratch = prepare_scratch(workdir, module, tests, pytest_args)
    mutants = scratch / "mutants"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MUTANT_UNDER_TEST")}
    # The folder must exist before mutmut starts: Python caches "no such path entry" for a missing
    # one, and `bot` would then come from the editable install instead of the mutated copy.
    mutants.mkdir()
    # A test may start the CLI or the agent itself with PYTHONPATH pointing at the tree it runs in
    # (mutants/). mutmut's "stats" mode cannot run outside its own process (it needs its
    # configuration in the working directory), so such a subprocess runs unmutated while mutmut
    # collects stats; with a mutant active it runs that mutant.
    (mutants / "sitecustomize.py").write_text(
        "import os\n"
        "if os.environ.get('MUTANT_UNDER_TEST') == 'stats':\n"
        "    os.environ['MUTANT_UNDER_TEST'] = ''\n")
    # During mutmut's own run, subprocesses the tests start (CLI, agent server) import the scratch
    # copy unmutated: its "stats" mode cannot run outside mutmut's process. The re-check below gives
    # them the mutated copy (PYTHONPATH=mutants), so a mutant only a subprocess exercises is caught.
    env["PYTHONPATH"] = str(scratch)
    print(f"== {module}: mutmut against {' '.join(tests)} (in {scratch})", flush=True)
    run = mutmut(scratch, "run", "--max-children", str(max_children), env=env, capture=True)
    score = ModuleScore(module=module, tests=tests)
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-4000:], sep="\n")
        raise SystemExit(f"mutation: `mutmut run` failed for {module} (exit {run.returncode})")
    score.statuses = read_statuses(scratch, env)
    if recheck and score.survivors:
        env = dict(env, PYTHONPATH=str(mutants))
        started = time.monotonic()
        clean = run_folder(mutants, tests, pytest_args, env, "", timeout_s=1800)
        if clean != "survived":
            raise SystemExit(f"mutation: {' '.join(tests)} fail without any mutant; fix them first")
        budget = max(60.0, 5 * (time.monotonic() - started))
        pending = score.survivors
        print(f"   re-running {len(pending)} surviving mutant(s) against the whole folder", flush=True)
        for name in pending:
            verdict = run_folder(mutants, tests, pytest_args, env, name, budget)
            if verdict != "survived":
                score.statuses[name] = verdict if verdict == "timeout" else "killed"
                score.rechecked_killed.append(name)
    return score


def show_survivors(score: ModuleScore, workdir: Path) -> None:
    scratch = workdir / score.module.replace("/", "_").removesuffix(".py")
    env = dict(os.environ)
    for name in score.survivors:
        shown = mutmut(scratch, "show", name, env=env, capture=True)
        print(shown.stdout.rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="+", help="module paths (bot/nlu/numbers.py) or dotted names")
    parser.add_argument("--tests", nargs="+", help="test folders to run instead of the mirrored ones")
    parser.add_argument("--pytest-arg", action="append", default=[], metavar="ARG",
                        help="extra pytest argument, repeatable (e.g. --pytest-arg=--deselect=tests/x.py::test_y)")
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutmut workers (default 1)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "gpu-advisor-mutation")
    parser.add_argument("--no-recheck", action="store_true",
                        help="trust mutmut's per-test selection; do not re-run survivors against the whole folder")
    parser.add_argument("--survivors", action="store_true", help="print the diff of every surviving mutant")
    parser.add_argument("--keep-failing", action="store_true",
                        help="do not leave out tests that already fail without a mutant (mutmut then refuses to run)")
    args = parser.parse_args()
    try:
        import mutmut as _  # noqa: F401
    except ImportError:
        raise SystemExit("mutation: mutmut is not installed (pip install -e '.[dev]')") from None

    modules = [module_path(m) for m in args.modules]
    scores = []
    for module in modules:
        tests = args.tests or default_tests(module)
        started = time.monotonic()
        score = score_module(module, tests, args.pytest_arg, args.workdir, args.max_children,
                             recheck=not args.no_recheck, keep_failing=args.keep_failing)
        scores.append(score)
        print(f"   {score.module}: {score.killed} / {score.total} killed ({score.percent:.1f}%), "
              f"{len(score.rechecked_killed)} only by the whole folder, {time.monotonic() - started:.0f} s",
              flush=True)
        if args.survivors:
            show_survivors(score, args.workdir)
    print()
    print(f"{'module':32} {'killed':>7} {'total':>6} {'score':>7}  goal {GOAL_PERCENT:.0f}%")
    for s in scores:
        mark = "ok" if s.percent >= GOAL_PERCENT else "BELOW"
        print(f"{s.module:32} {s.killed:>7} {s.total:>6} {s.percent:>6.1f}%  {mark}")
        for name in s.survivors:
            print(f"    survived: {name}")
    return 0 if all(s.percent >= GOAL_PERCENT for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
