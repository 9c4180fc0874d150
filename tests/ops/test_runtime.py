"""bot/ops/runtime.py: which Pythons answer, and one clear line on one that cannot (issue #29)."""

from __future__ import annotations

import glob
import os
import re
import subprocess
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.ops.runtime import SUPPORTED, engine_import_problem, require_engine, version_problem

ROOT = Path(__file__).resolve().parents[2]
# The ImportError durable-rules 2.0.28 raises on Python 3.13 (seen on a real 3.13.0 install).
IMPORT_ERROR_313 = ("/venv/lib/python3.13/site-packages/durable_rules_engine.cpython-313-x86_64-linux-gnu.so: "
                    "undefined symbol: PyEval_CallObject")


def _python313() -> str | None:
    found = os.environ.get("GPU_ADVISOR_PYTHON313") or next(
        iter(sorted(glob.glob("/root/.pyenv/versions/3.13*/bin/python3.13") + glob.glob("/usr/bin/python3.13"))), None)
    return found if found and os.access(found, os.X_OK) else None


def test_this_python_runs_the_engine():
    require_engine()  # the test suite itself runs on a supported Python


def test_python_313_is_refused_with_the_versions_that_work():
    problem = version_problem((3, 13))
    assert "Python 3.13 cannot run the rule engine" in problem and "3.11 and 3.12" in problem
    with pytest.raises(ConfigError, match="3.13"):
        require_engine((3, 13))
    assert version_problem((3, 12)) is None and version_problem((3, 11)) is None


def test_requires_python_admits_exactly_the_supported_versions():
    spec = re.search(r'^requires-python\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert spec == f">={SUPPORTED[0][0]}.{SUPPORTED[0][1]},<{SUPPORTED[-1][0]}.{SUPPORTED[-1][1] + 1}"
    readme = (ROOT / "README.md").read_text()
    assert "3.11 or 3.12" in readme and "3.13" in readme


def test_the_engine_import_error_becomes_one_line_naming_the_fix():
    problem = engine_import_problem(ImportError(IMPORT_ERROR_313, name="durable_rules_engine"))
    assert problem is not None and "\n" not in problem and "PyEval_CallObject" in problem
    assert "reinstall" in problem
    # Any other ImportError is not ours to explain.
    assert engine_import_problem(ImportError("No module named 'torch'", name="torch")) is None


@pytest.mark.skipif(_python313() is None, reason="no Python 3.13 interpreter on this machine")
def test_a_real_python_313_gets_the_clear_error():
    out = subprocess.run([_python313(), "-c", "from bot.ops.runtime import require_engine; require_engine()"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode != 0
    assert "UnsupportedRuntime: Python 3.13 cannot run the rule engine" in out.stderr
