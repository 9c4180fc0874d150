"""Build hook only; the project metadata is in pyproject.toml.

The top-level `rules/` and `knowledge/` folders are the one source of truth. A wheel carries a
copy of them as package data under `bot/_data/`, made here at build time, so an installed
`gpu-advisor` answers without a source checkout (`bot.knowledge.shipped_data_dir` reads them
through importlib.resources). An editable install reads the top-level folders directly.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA_FOLDERS = ("rules", "knowledge")


class build_py_with_data(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "bot" / "_data"
        for name in DATA_FOLDERS:
            source = ROOT / name
            if not source.is_dir():
                raise SystemExit(f"setup.py: {source} is missing; build from a checkout or an sdist")
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": build_py_with_data})
