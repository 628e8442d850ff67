"""A shape has at most 64 dimensions (numpy's limit), refused on its length before
anything is built per dimension (issue #41: a document of ten million dimensions took
20 s and 1.34 GB to open): for documents of every format, and for ``create_array``."""

from __future__ import annotations

import json
import tracemalloc

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_std.stores.memory import MemoryStore

DIMENSIONS = 200_000  # a 1.2 MB document, well under max_document_bytes

# the document of each format holding the shape, and its key
FORMATS = {3: "zarr.json", 2: ".zarray", "draft-2022": "meta/root/a.array.json"}


def _with_shape(fmt, shape_length: int) -> tuple[MemoryStore, str]:
    store = MemoryStore()
    path = "" if fmt != "draft-2022" else "a"
    zf.create_array(store, path, shape=(1,), chunks=(1,), dtype="uint8", zarr_format=fmt)
    key = FORMATS[fmt]
    stored = store.get(key)
    assert stored is not None
    document = json.loads(stored)
    document["shape"] = [1] * shape_length
    if fmt == 2:
        document["chunks"] = [1] * shape_length
    elif fmt == 3:
        document["chunk_grid"]["configuration"]["chunk_shape"] = [1] * shape_length
    else:
        document["chunk_grid"]["chunk_shape"] = [1] * shape_length
    store.set(key, json.dumps(document).encode())
    return store, path


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_document_of_millions_of_dimensions_is_refused_at_once(fmt) -> None:
    store, path = _with_shape(fmt, DIMENSIONS)
    tracemalloc.start()
    try:
        with pytest.raises(MetadataError) as refused:
            zf.open_array(store, path, mode="r")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    error = refused.value
    assert error.field == "shape" and f"{DIMENSIONS} dimensions" in str(error)
    assert "64" in str(error) and error.key is not None and error.key.endswith(FORMATS[fmt].split("/")[-1])
    # parsing the document is what it costs (a list of 200,000 entries: 4 MiB measured),
    # nothing per dimension built after it (24 MiB before the check came first)
    assert peak < 10 << 20, peak


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_64_dimensions_open_and_65_do_not(fmt) -> None:
    store, path = _with_shape(fmt, 64)
    assert zf.open_array(store, path, mode="r").ndim == 64
    store, path = _with_shape(fmt, 65)
    with pytest.raises(MetadataError, match="has 65 dimensions, more than the 64"):
        zf.open_array(store, path, mode="r")


def test_create_array_refuses_more_than_64_dimensions_before_looking_at_them() -> None:
    store = MemoryStore()
    with pytest.raises(MetadataError, match="shape.*has 10000000 dimensions") as refused:
        zf.create_array(store, shape=(1,) * 10_000_000, dtype="uint8")
    assert refused.value.field == "shape"
    assert zf.create_array(store, "ok", shape=(1,) * 64, dtype="uint8").ndim == 64
    assert list(store.list_prefix("c/")) == []
