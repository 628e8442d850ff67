"""Regression tests for what the metadata fuzz targets found (``_targets_metadata.py``).

Each reproduces one failure with the smallest document the fuzzer shrank it
to (the bugs are listed in docs/reliability.md#bugs; all of them are fixed).
"""

from __future__ import annotations

import json

import pytest

import zarrforge
from zarrforge.errors import MetadataError, ZarrforgeError
from zarrforge_std.stores.memory import MemoryStore


def _array_with(fmt: str, key: str, change) -> MemoryStore:
    store = MemoryStore()
    zarrforge.create_array(store, "a", shape=(10, 7), chunks=(4, 3), dtype="int16", zarr_format=fmt)[...] = 1
    stored = store.get(key)
    assert stored is not None
    document = json.loads(stored)
    change(document)
    store.set(key, json.dumps(document).encode())
    return store


@pytest.mark.parametrize("shuffle", [[1], {"x": 1}])
def test_draft_blosc_shuffle_of_the_wrong_type(shuffle) -> None:
    def change(document):
        document["compressor"]["configuration"]["shuffle"] = shuffle

    store = _array_with("draft-2022", "meta/root/a.array.json", change)
    with pytest.raises(MetadataError) as info:
        zarrforge.open(store, "a")
    assert info.value.field == "compressor.configuration.shuffle"


READERS = [("3", "a/zarr.json"), ("2", "a/.zarray"), ("draft-2022", "meta/root/a.array.json")]
CHUNK_FIELD = {"3": "chunk_grid.configuration.chunk_shape", "draft-2022": "chunk_grid.chunk_shape"}


@pytest.mark.parametrize("extent", [2**63, 2**64])
@pytest.mark.parametrize("fmt,key", READERS)
def test_chunk_shape_beyond_int64(fmt: str, key: str, extent: int) -> None:
    def change(document):
        if fmt == "3":
            document["chunk_grid"]["configuration"]["chunk_shape"] = [extent, 3]
        elif fmt == "2":
            document["chunks"] = [extent, 3]
        else:
            document["chunk_grid"]["chunk_shape"] = [extent, 3]

    store = _array_with(fmt, key, change)
    with pytest.raises(MetadataError, match=r"below 2\*\*63") as info:
        zarrforge.open(store, "a")
    assert info.value.key == key
    if fmt in CHUNK_FIELD:  # v2 names no field of its own here (see the bug list)
        assert info.value.field == CHUNK_FIELD[fmt]


@pytest.mark.parametrize("extent", [2**63, 2**64])
@pytest.mark.parametrize("fmt,key", READERS)
def test_shape_beyond_int64(fmt: str, key: str, extent: int) -> None:
    store = _array_with(fmt, key, lambda document: document.__setitem__("shape", [extent, 7]))
    with pytest.raises(MetadataError, match=r"\[0, 2\*\*63 - 1\]") as info:
        zarrforge.open(store, "a")
    assert (info.value.key, info.value.field) == (key, "shape")


@pytest.mark.parametrize("fmt,key", READERS)
def test_the_largest_int64_extent_opens_and_reads(fmt: str, key: str) -> None:
    store = _array_with(fmt, key, lambda document: document.__setitem__("shape", [2**63 - 1, 7]))
    array = zarrforge.open(store, "a")
    assert array.size == (2**63 - 1) * 7
    assert array[0, 0] == 1 and array[-1, -1] == 0


@pytest.mark.parametrize("extent", [2**63, 2**65])
@pytest.mark.parametrize(
    "how,fmt",
    [
        pytest.param(how, fmt, id=f"{how}-{fmt}")
        for how in ("create", "resize")
        for fmt in ("3", "2", "draft-2022")
    ],
)
def test_what_zarrforge_writes_it_can_open(fmt: str, how: str, extent: int) -> None:
    """Extents zarrforge would refuse to read are refused on write, before anything is
    written (they used to be written, then refused on open); 2**63 - 1 is written."""
    store = MemoryStore()
    if how == "create":
        with pytest.raises(MetadataError, match=r"shape.*\[0, 2\*\*63 - 1\]"):
            zarrforge.create_array(store, "a", shape=(extent,), chunks=(5,), dtype="int8", zarr_format=fmt)
        assert list(store.list_prefix("")) == []
        zarrforge.create_array(store, "a", shape=(2**63 - 1,), chunks=(5,), dtype="int8", zarr_format=fmt)
    else:
        array = zarrforge.create_array(store, "a", shape=(10,), chunks=(5,), dtype="int8", zarr_format=fmt)
        with pytest.raises(ZarrforgeError, match=r"resize needs lengths in \[0, 2\*\*63 - 1\]: dimension 0"):
            array.resize(extent)
        assert zarrforge.open_array(store, "a").shape == (10,)
        array.resize(2**63 - 1)
    assert zarrforge.open_array(store, "a").shape == (2**63 - 1,)


@pytest.mark.parametrize(
    "fmt,key", [("3", "a/zarr.json"), ("2", "a/.zattrs"), ("draft-2022", "meta/root/a.array.json")]
)
def test_lone_surrogate_in_attributes_is_written_back(fmt: str, key: str) -> None:
    """Found by the 10-minute metadata_v3 run: JSON's "\\ud800" escape reads as a lone
    surrogate, which has no UTF-8 form, so rewriting the document after an attribute
    change failed (with a MetadataError that named no key). It is now escaped again,
    and a value that cannot be written at all is refused naming the document's key."""

    def change(document):
        attributes = document if key.endswith(".zattrs") else document.setdefault("attributes", {})
        attributes["s"] = "x\ud800y"

    store = _array_with(fmt, key, change)
    array = zarrforge.open_array(store, "a", mode="r+")
    array.attrs["t"] = "\u00e9"
    assert dict(zarrforge.open_array(store, "a").attrs) == {"s": "x\ud800y", "t": "\u00e9"}
    stored = store.get(key)
    assert stored is not None and stored.isascii()
    with pytest.raises(MetadataError, match="cannot be written as JSON") as info:
        array.attrs["u"] = b"bytes"
    if fmt != "2":  # the v3 and draft writers name the key (v2's does not)
        assert info.value.key == key and repr(key) in str(info.value)
