"""The codec fuzz target covers every registered codec, and refuses what it must not fuzz."""

from __future__ import annotations

import numpy as np
import pytest
from _targets_codecs import CASES, NOT_FUZZED

from zarrforge import config, registry
from zarrforge.errors import UnsafeCodecError
from zarrforge.registries import resolution as c


def test_every_registered_codec_has_a_case() -> None:
    covered = set().union(*(case.names() for case in CASES))
    missing = [name for name in registry.codecs.names() if not name.endswith("*") and name not in covered]
    assert not missing, f"registered codecs without a fuzz case in _targets_codecs.CASES: {missing}"


def test_every_numcodecs_id_has_a_case_or_a_reason() -> None:
    pytest.importorskip("zarrforge_numcodecs")
    from zarrforge_numcodecs.adapter import available_ids

    covered = {
        name.removeprefix("numcodecs.")
        for case in CASES
        for name in case.names()
        if name.startswith("numcodecs.")
    }
    missing = sorted(set(available_ids()) - covered - set(NOT_FUZZED))
    assert not missing, f"numcodecs ids neither fuzzed nor listed in NOT_FUZZED: {missing}"


def test_pickle_is_refused() -> None:
    """The one codec not fuzzed: metadata naming it is refused unless allowed, and
    leaving the ``config.set`` block withdraws the permission before decoding."""
    with pytest.raises(UnsafeCodecError):
        c.codecs_from_json([{"name": "numcodecs.pickle"}])
    with config.set(allow_unsafe_codecs={"numcodecs.pickle"}):
        codec = c.codec_from_json({"name": "numcodecs.pickle"}, field="codecs[0]")
        from zarrforge.abc.codec import ArrayBytesCodec, ChunkSpec

        assert isinstance(codec, ArrayBytesCodec)
        spec = ChunkSpec((2,), c.data_type_from_json("string"), "", c.memory_layout("C"))
        data = codec.encode(np.array(["a", "b"], dtype=np.dtypes.StringDType()), spec)
    with pytest.raises(UnsafeCodecError):
        codec.decode(data, spec)
