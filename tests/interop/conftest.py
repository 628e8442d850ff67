"""Interop suite: make the shared helpers in ``_interop.py`` importable, and the fixture
of the zarr-python 3.4.2 environment the ``test_zarr34_*`` modules share.

The suite runs with ``--import-mode=importlib``, which does not put test
directories on ``sys.path``; the test modules here ``import _interop``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from _side_venv import ensure_zarr34_venv  # noqa: E402  # importable from here on


@pytest.fixture(scope="module")
def zarr34() -> Path:
    if os.environ.get("ZARRFORGE_SKIP_ZARR34") == "1":
        pytest.skip("ZARRFORGE_SKIP_ZARR34=1: interop with zarr-python 3.4.2 explicitly skipped")
    try:
        return ensure_zarr34_venv()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(
            f"zarr-python 3.4.2 is needed for these tests and could not be set up "
            f"(set ZARRFORGE_SKIP_ZARR34=1 to skip them explicitly): {exc}"
        )
