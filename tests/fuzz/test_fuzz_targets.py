"""Every fuzz target at a small budget (the long budget: ``scripts/fuzz-long``).

``ZARRFORGE_FUZZ_EXAMPLES=N`` gives every target N examples instead of its own
budget. A failure prints the falsifying example and a ``@reproduce_failure``
blob; see ``_fuzzkit.py`` for the oracle.
"""

from __future__ import annotations

import pytest
from _fuzzkit import Target, load_targets, pytest_budget
from _targets_codecs import CASES, codec_cases, fuzz_codecs, installed

TARGETS = load_targets()
PER_CODEC_EXAMPLES = 12


@pytest.mark.parametrize("name", [n for n in TARGETS if n != "codec_decode"])
def test_target(name: str) -> None:
    target = TARGETS[name]
    target.hypothesis_test(pytest_budget(target))()


@pytest.mark.parametrize("label", [case.label for case in CASES])
def test_codec_decoder(label: str) -> None:
    """``codec_decode`` split per chain, so every codec is fuzzed on every run."""
    case = next(c for c in CASES if c.label == label)
    if not installed(case):
        pytest.skip(f"a codec of {sorted(case.names())} is not installed")
    target = Target(
        f"codec_decode[{label}]", lambda: codec_cases((case,)), fuzz_codecs, examples=PER_CODEC_EXAMPLES
    )
    target.hypothesis_test(pytest_budget(target))()
