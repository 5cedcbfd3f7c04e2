"""Copy the top-level data folders into the package when building a wheel.

The repository keeps grammars/, config/ and audio/ at the top level (the design card asks
for that layout); an installed banker reads them from banker/_data/.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("grammars", "config", "audio")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).parent
        target = Path(self.build_lib) / "banker" / "_data"
        for name in DATA_DIRS:
            src = root / name
            if src.is_dir():
                shutil.copytree(src, target / name, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
