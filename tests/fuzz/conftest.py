"""Fuzz suite: make the harness (``_fuzzkit.py``) and the targets (``_targets_*.py``)
importable; the suite runs with ``--import-mode=importlib``, which does not put
test directories on ``sys.path``."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
