"""The Dockerfile's install steps, checked without a Docker engine (issue #29: the image did not
build, because durable-rules 2.0.28 is source only and the slim base has no C compiler).

The file is read into its stages and RUN steps. What must hold for `docker build` to succeed on
a slim base: the stage that makes the wheels has a C compiler before its first `pip wheel`; the
runtime stages install only wheels from the build stage (`--no-index --only-binary=:all:`: a
source-only package cannot slip through and fail for want of a compiler) and carry no
compiler; every RUN step is valid shell. With a Docker engine (GPU_ADVISOR_DOCKER_BUILD=1) the
image is built for real.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPILERS = ("gcc", "g++", "build-essential", "clang")


@dataclass
class Stage:
    base: str
    name: str
    steps: list[tuple[str, str]] = field(default_factory=list)  # (instruction, argument)

    def runs(self) -> list[str]:
        return [arg for instruction, arg in self.steps if instruction == "RUN"]


def parse(text: str) -> list[Stage]:
    """The stages of a Dockerfile: continuation lines joined, comments dropped."""
    stages: list[Stage] = []
    logical, pending = [], ""
    for line in text.splitlines():
        if not pending and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    for line in logical:
        if not line.strip():
            continue
        instruction, _, argument = line.strip().partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            words = argument.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else str(len(stages))
            stages.append(Stage(base=words[0], name=name))
        else:
            assert stages, f"{instruction} before the first FROM"
            stages[-1].steps.append((instruction, argument.strip()))
    return stages


STAGES = parse(DOCKERFILE.read_text())
BY_NAME = {stage.name: stage for stage in STAGES}


def _pip_commands(stage: Stage, verb: str) -> list[list[str]]:
    found = []
    for run in stage.runs():
        for part in run.split("&&"):
            words = shlex.split(part)
            if words[:2] == ["pip", verb]:
                found.append(words)
    return found


def _installs_a_compiler(run: str) -> bool:
    return "apt-get install" in run and any(re.search(rf"(?<![\w.+-]){re.escape(c)}(?![\w.+-])", run)
                                             for c in COMPILERS)


def _runtime_stages() -> list[Stage]:
    """Every stage that is (or derives from) an image we ship: all but the build stage."""
    return [stage for stage in STAGES if stage.name != "build"]


def test_the_wheels_are_built_in_a_stage_with_a_c_compiler():
    build = BY_NAME["build"]
    runs = build.runs()
    compiler_at = next(i for i, run in enumerate(runs) if _installs_a_compiler(run))
    first_wheel = next(i for i, run in enumerate(runs) if "pip wheel" in run)
    assert compiler_at < first_wheel, "the compiler must be installed before the first `pip wheel`"
    # The dependencies are wheeled with their own dependencies (durable-rules among them) ...
    deps = [words for words in _pip_commands(build, "wheel") if "--no-deps" not in words]
    assert deps, "no `pip wheel` of the dependencies"


def test_the_shipped_images_install_wheels_only_and_have_no_compiler():
    for stage in _runtime_stages():
        for run in stage.runs():
            assert not _installs_a_compiler(run), f"stage {stage.name} installs a compiler: {run}"
    runtime = BY_NAME["runtime"]
    installs = _pip_commands(runtime, "install")
    assert len(installs) >= 2  # the dependencies, then the application
    for words in installs:
        assert "--no-index" in words and "--only-binary=:all:" in words, " ".join(words)
        assert all(w.startswith("/wheels/") for w in words[2:] if not w.startswith("-")), " ".join(words)
    copied = [arg for instruction, arg in runtime.steps if instruction == "COPY"]
    assert any(arg.startswith("--from=build /wheels/deps") for arg in copied)
    assert any(arg.startswith("--from=build /wheels/app") for arg in copied)


def test_the_runtime_is_slim_and_the_default_target_is_the_runtime():
    assert BY_NAME["build"].base == BY_NAME["runtime"].base
    assert BY_NAME["runtime"].base.endswith("-slim")
    assert STAGES[-1].base == "runtime", "`docker build .` (the last stage) must be the slim runtime"
    python = re.search(r'^requires-python\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    minor = re.search(r"python:(3\.\d+)", BY_NAME["runtime"].base).group(1)
    assert f">={minor}" in python or minor in python  # the image's Python is one the project admits


def test_the_benchmark_agent_image_installs_the_bench_extra_with_torch():
    bench = BY_NAME["agent-bench"]
    assert bench.base == "runtime"
    installs = _pip_commands(bench, "install")
    # The project's own wheel with the extra: a bare `gpu-advisor[bench]` could resolve to a
    # same-named package on the index.
    assert any(w.startswith("$(ls /wheels/app/") and w.endswith("[bench]") for words in installs for w in words)
    extras = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^bench\s*=\s*\[\s*"torch', extras, re.M), "pyproject.toml has no `bench` extra with torch"
    assert ("USER", "advisor") in bench.steps  # back to the unprivileged user after installing


def test_every_run_step_is_valid_shell():
    bash = shutil.which("bash")
    for stage in STAGES:
        for run in stage.runs():
            checked = subprocess.run([bash, "-n", "-c", run], capture_output=True, text=True)
            assert checked.returncode == 0, f"{stage.name}: {run}\n{checked.stderr}"


def test_every_copied_path_exists_in_the_build_context():
    for stage in STAGES:
        for instruction, arg in stage.steps:
            if instruction != "COPY" or arg.startswith("--from="):
                continue
            *sources, _target = arg.split()
            for source in sources:
                assert (ROOT / source).exists(), f"COPY {source}: not in the build context"


def test_the_parser_reads_stages_and_joined_lines():
    stages = parse("FROM a AS one\nRUN x \\\n    && y\n# note\nFROM one AS two\nUSER u\n")
    assert [(s.base, s.name) for s in stages] == [("a", "one"), ("one", "two")]
    assert stages[0].runs() == ["x      && y"]
    assert _installs_a_compiler("apt-get install -y --no-install-recommends gcc libc6-dev")
    assert not _installs_a_compiler("apt-get install -y libgcc-s1")


@pytest.mark.skipif(os.environ.get("GPU_ADVISOR_DOCKER_BUILD") != "1",
                    reason="set GPU_ADVISOR_DOCKER_BUILD=1 on a host with a Docker engine to build the image")
def test_the_image_builds_and_answers():  # pragma: no cover - needs a Docker engine
    tag = "gpu-advisor:test"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=1800)
    out = subprocess.run(["docker", "run", "--rm", tag, "ask", "8x H100 for a 70B model?"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    assert subprocess.run(["docker", "run", "--rm", "--entrypoint", "sh", tag, "-c", "command -v gcc"],
                          capture_output=True, timeout=120).returncode != 0


def test_the_bench_compose_override_builds_the_agent_bench_target():
    import jsonschema
    import yaml

    override = yaml.safe_load((ROOT / "docker-compose.agent-bench.yml").read_text())
    schema = __import__("json").loads((Path(__file__).parent / "compose-subset.schema.json").read_text())
    assert list(jsonschema.Draft7Validator(schema).iter_errors(override)) == []
    agent = override["services"]["agent"]
    assert agent["build"]["target"] in BY_NAME and agent["build"]["target"] == "agent-bench"
    version = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert agent["image"] == f"gpu-advisor-bench:{version}"
