"""Corpus tests: make ``_corpus`` and ``_summary`` importable.

The suite runs with ``--import-mode=importlib``, which does not put test
directories on ``sys.path``; ``test_corpus.py`` and ``record_expected.py``
import the helpers by their module names.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
