"""numcodecs.json2 chunks are decoded without trusting their declared shape or dtype."""

from __future__ import annotations

import json

import numcodecs
import numpy as np
import pytest

from zarrforge.errors import CorruptChunkError
from zarrforge_numcodecs import _json2


def _object_array(items: list, shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    for i, item in enumerate(items):
        out.flat[i] = item
    return out


@pytest.mark.parametrize("shape", [(), (4,), (2, 2), (1, 2, 2)])
def test_decodes_what_numcodecs_encodes(shape):
    values = _object_array(["a", [1, [2]], {"k": None}, 2.5][: max(1, int(np.prod(shape)))], shape)
    data = numcodecs.JSON().encode(values)
    decoded = _json2.decode(data, shape)
    assert decoded.shape == shape and decoded.dtype == object
    assert decoded.tolist() == values.tolist()


@pytest.mark.parametrize(
    "document, reason",
    [
        (["a", "|O", [10**15]], "declares shape"),
        (["a", "(1000000000,)f8", [1]], "declares dtype"),
        ([["a"], ["b", "c"], "|O", [2, 1]], "length 1"),
        ([], "expected a JSON list"),
    ],
)
def test_refuses_chunks_that_do_not_match_the_chunk(document, reason):
    shape = tuple(document[-1]) if document and isinstance(document[-1], list) else (1,)
    if reason == "declares shape":
        shape = (1,)
    with pytest.raises(CorruptChunkError, match=reason):
        _json2.decode(json.dumps(document).encode(), shape)


@pytest.mark.parametrize("data", [b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000, b"{not json"])
def test_undecodable_text_is_corrupt(data):
    with pytest.raises(CorruptChunkError):
        _json2.decode(data, (1,))
