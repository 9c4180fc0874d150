"""The wheel is a working install: built from the sources, installed into a fresh virtual
environment, it answers from another working directory with the rules and knowledge it carries.

No network: the wheel is built without build isolation (setuptools and wheel come with the dev
extra) and installed with --no-deps; the fresh environment borrows this one's dependencies
through a .pth line, which puts the directory on sys.path without running the editable
install's hooks, so only the wheel's `bot` can be imported there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "bot", "rules", "knowledge")
QUESTION = "Can we fine-tune Llama 3 8B on one H100 80GB?"


def _run(argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_data"))
        else:
            shutil.copy2(path, src / name)
    dist = tmp / "dist"
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
                  str(src)])
    assert build.returncode == 0, build.stderr
    [wheel] = dist.glob("gpu_advisor-*.whl")

    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    install = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)])
    assert install.returncode == 0, install.stderr
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_borrowed_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    workdir = tmp / "elsewhere"
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_") and k != "PYTHONPATH"}
    env["HOME"] = str(tmp)  # no user config or database from the developer's home
    return {"venv": venv, "python": python, "site": site, "workdir": workdir, "env": env, "wheel": wheel, "src": src}


def _cli(installed, *args, **env) -> subprocess.CompletedProcess:
    return _run([str(installed["venv"] / "bin" / "gpu-advisor"), *args], cwd=installed["workdir"],
                env={**installed["env"], **env})


def test_the_wheel_carries_the_rules_and_knowledge_as_package_data(installed):
    import zipfile

    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    assert "bot/_data/knowledge/sources.yaml" in names and "bot/_data/rules/rule.schema.json" in names
    src = installed["src"]  # the tree the wheel was built from
    shipped = {p.relative_to(src).as_posix() for d in ("rules", "knowledge") for p in (src / d).rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert len(shipped) > 20
    assert {f"bot/_data/{name}" for name in shipped} <= names


def test_the_wheel_marks_the_package_typed(installed):
    """PEP 561: with bot/py.typed, a checker reads the installed package's annotations."""
    import zipfile

    assert "bot/py.typed" in zipfile.ZipFile(installed["wheel"]).namelist()


def test_the_installed_bot_answers_from_another_directory(installed):
    where = _run([str(installed["python"]), "-c", "import bot; print(bot.__file__)"], cwd=installed["workdir"],
                 env=installed["env"])
    assert Path(where.stdout.strip()).is_relative_to(installed["site"]), where.stdout + where.stderr
    proc = _cli(installed, "ask", "--json", QUESTION)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["requirement"]["model"] == "llama-3-8b"
    assert answer["findings"] and all(f["sources"] for f in answer["findings"])  # the shipped rules fired
    assert "h100" in proc.stdout


def test_version(installed):
    proc = _cli(installed, "--version")
    assert proc.returncode == 0 and proc.stdout.strip().startswith("gpu-advisor 0.")


def test_a_team_points_at_its_own_knowledge_and_rules(installed, tmp_path):
    knowledge = tmp_path / "knowledge"
    shutil.copytree(ROOT / "knowledge", knowledge)
    (knowledge / "gpus.yaml").write_text("gpus: [oops\n")
    proc = _cli(installed, "ask", QUESTION, GPU_ADVISOR_KNOWLEDGE_DIR=str(knowledge))
    assert proc.returncode != 0 and str(knowledge / "gpus.yaml") in proc.stderr

    rules = tmp_path / "rules"
    rules.mkdir()
    proc = _cli(installed, "ask", QUESTION, GPU_ADVISOR_RULES_DIR=str(rules))
    assert proc.returncode != 0 and str(rules) in proc.stderr and "no rule files" in proc.stderr


def test_the_installed_store_migrates_from_the_shipped_migrations(installed, tmp_path):
    database = tmp_path / "store.sqlite3"
    upgrade = _cli(installed, "db", "upgrade", "--database", str(database))
    assert upgrade.returncode == 0, upgrade.stderr
    status = _cli(installed, "db", "status", "--database", str(database))
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout + status.stderr
