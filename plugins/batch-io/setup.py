"""The optional C helper of zarrforge-batch-io (see README.md).

Built on POSIX systems only (it needs ``openat`` and ``renameat``), and as an optional
extension: where it cannot be compiled (no compiler, no Python headers) the package
installs without it, and zarrforge's local store goes on without it. The version is
zarrforge's, read from core/src/zarrforge/_version.py (PKG-INFO when built from an sdist).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent


def version() -> str:
    source = HERE.parent.parent / "core" / "src" / "zarrforge" / "_version.py"
    text = source.read_text() if source.exists() else (HERE / "PKG-INFO").read_text()
    found = re.search(r'^(?:__version__ = "|Version: )([^"\n]+)', text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no version found in {source}")
    return found.group(1)


native = Extension(
    "zarrforge_batch_io._native",
    ["src/zarrforge_batch_io/_native.c"],
    optional=True,
)
setup(version=version(), ext_modules=[native] if os.name == "posix" else [])
