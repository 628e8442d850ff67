"""Chunk keys: the canonical-form property the ``chunk_keys`` target leaves out.

``decode_key`` used to accept digit strings with leading zeros (``c/01``), so a key
that zarrforge never writes decoded to the coordinates of one it does write:
``stored_chunks`` / ``nchunks_initialized`` counted aliases (more stored chunks than
the grid has), a ``resize`` left them behind as chunks, and the 2022 draft's sharding
transformer read an alias as a shard (B6, fixed). Decoding now accepts only the key
``encode_key`` writes, so an alias is a stray key that nothing counts or reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _targets_keys import encodings, key_strings
from hypothesis import example, given, settings
from hypothesis import strategies as st

import zarrforge
from zarrforge_std.stores.memory import MemoryStore


@settings(max_examples=300, deadline=None, database=None)
@given(st.sampled_from(encodings()), key_strings, st.integers(0, 4))
@example(encodings()[0], "c/01", 1)  # default, '/': the fuzzer's first shrunk find
@example(encodings()[-1], "c01", 1)  # the 2022 draft's encoding
def test_decoded_keys_are_canonical(encoding, key, ndim) -> None:
    label, implementation = encoding
    coords = implementation.decode_key(key, ndim)
    if coords is not None:
        assert implementation.encode_key(coords) == key, (label, key, coords)


def test_alias_keys_are_not_counted_as_chunks() -> None:
    store = MemoryStore()
    array = zarrforge.create_array(store, "a", shape=(10,), chunks=(5,), dtype="int8")
    array[...] = 1
    chunk = store.get("a/c/1")
    assert chunk is not None
    store.set("a/c/01", chunk)  # another tool's copy, a stray file
    assert sorted(array.stored_chunks()) == [(0,), (1,)]
    assert array.nchunks_initialized <= array.nchunks


def test_an_alias_left_behind_by_a_resize_is_never_counted_or_read() -> None:
    """The alias is a stray key, not a chunk: a shrink deletes the chunk it aliases and
    leaves it, and neither the shrunk array nor the array grown again counts or reads it."""
    store = MemoryStore()
    array = zarrforge.create_array(store, "a", shape=(10,), chunks=(5,), dtype="int8", fill_value=0)
    array[...] = 1
    chunk = store.get("a/c/1")
    assert chunk is not None
    store.set("a/c/01", chunk)
    array.resize((5,))
    assert sorted(array.stored_chunks()) == [(0,)] and array.nchunks_initialized == 1
    array.resize((10,))
    assert array[...].tolist() == [1] * 5 + [0] * 5
    assert sorted(array.stored_chunks()) == [(0,)] and array.nchunks_initialized == 1
    assert store.get("a/c/01") is not None  # left where it was, as another tool's file


def _std_encodings() -> list[tuple[str, Any]]:
    """The std plugin's encodings, default and v2, with each separator."""
    return [(label, e) for label, e in encodings() if getattr(e, "name", None) in ("default", "v2")]


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.sampled_from(_std_encodings()),
    st.lists(st.integers(0, 10**20), max_size=5),
    st.sampled_from([tuple, list, lambda c: tuple(np.int64(x) if x < 2**63 else x for x in c)]),
)
def test_encoded_keys_spell_each_coordinate_as_its_integer(encoding, coords, form) -> None:
    """The keys are the coordinates' decimal integers whatever form they come in (a
    tuple, a list, NumPy integers): the encodings format a key through one template per
    number of coordinates, and that template must spell what ``str(int(c))`` spells."""
    label, implementation = encoding
    separator = implementation.separator
    key = implementation.encode_key(form(coords))
    head = "c" + separator if implementation.name == "default" else ""
    empty = "c" if implementation.name == "default" else "0"
    assert key == (head + separator.join(str(c) for c in coords) if coords else empty), label
    assert implementation.decode_key(key, len(coords)) == tuple(coords)


def test_a_coordinate_given_as_a_numeric_string_is_spelled_as_its_integer() -> None:
    for label, implementation in _std_encodings():
        fresh = type(implementation)(implementation.separator)  # no template made yet
        assert fresh.encode_key(("3", 4)) == fresh.encode_key((3, 4)) == fresh.encode_key(("3", 4)), label
