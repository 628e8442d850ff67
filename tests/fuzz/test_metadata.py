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
    zarrforge.create_array(store, "a", shape=(10, 7), chunks=(4, 3), dtype="int16",
                           zarr_format=fmt)[...] = 1
    document = json.loads(store.get(key))
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


@pytest.mark.parametrize("fmt,key", [("3", "a/zarr.json"), ("2", "a/.zarray")])
def test_chunk_shape_beyond_int64(fmt: str, key: str) -> None:
    def change(document):
        if fmt == "3":
            document["chunk_grid"]["configuration"]["chunk_shape"] = [2**64, 3]
        else:
            document["chunks"] = [2**64, 3]

    store = _array_with(fmt, key, change)
    try:
        array = zarrforge.open(store, "a")
    except ZarrforgeError:
        return  # refusing the document (naming the field) is the fix proposed
    array[0:1, 0:1]


@pytest.mark.parametrize("fmt,key", [("3", "a/zarr.json"), ("2", "a/.zarray")])
def test_shape_beyond_int64(fmt: str, key: str) -> None:
    store = _array_with(fmt, key, lambda document: document.__setitem__("shape", [2**64, 7]))
    try:
        array = zarrforge.open(store, "a")
    except MetadataError as exc:
        assert exc.field == "shape"
        return
    array.size  # noqa: B018
    array[-1, -1]


@pytest.mark.parametrize("how,fmt", [
    pytest.param(how, fmt, id=f"{how}-{fmt}")
    for how in ("create", "resize") for fmt in ("3", "2", "draft-2022")])
def test_what_zarrforge_writes_it_can_open(fmt: str, how: str) -> None:
    store = MemoryStore()
    try:
        if how == "create":
            zarrforge.create_array(store, "a", shape=(2**64,), chunks=(5,), dtype="int8",
                                   zarr_format=fmt)
        else:
            zarrforge.create_array(store, "a", shape=(10,), chunks=(5,), dtype="int8",
                                   zarr_format=fmt).resize(2**65)
    except ZarrforgeError:
        return  # refused up front, naming the problem: the fix
    zarrforge.open_array(store, "a")  # accepted: then it must open again


@pytest.mark.parametrize("fmt,key", [("3", "a/zarr.json"), ("2", "a/.zattrs")])
def test_lone_surrogate_in_attributes_is_written_back(fmt: str, key: str) -> None:
    """Found by the 10-minute metadata_v3 run: JSON's "\\ud800" escape reads as a lone
    surrogate, which has no UTF-8 form, so rewriting the document after an attribute
    change failed (with a MetadataError that named no key). It is now escaped again."""
    def change(document):
        attributes = document if key.endswith(".zattrs") else document.setdefault("attributes", {})
        attributes["s"] = "x\ud800y"

    store = _array_with(fmt, key, change)
    array = zarrforge.open_array(store, "a", mode="r+")
    array.attrs["t"] = "\u00e9"
    assert dict(zarrforge.open_array(store, "a").attrs) == {"s": "x\ud800y", "t": "\u00e9"}
