"""Refusing a metadata document over ``config.max_document_bytes`` costs no more than
the limit (issue #41: a 300 MB attributes document was refused, but at 640 MB
resident): the size is checked on the bytes before anything is decoded or parsed, in
every format, and a v3 document over the limit is measured for a consolidated view
that could be set aside without decoding it whole. Peak memory is measured with
tracemalloc (the stored value exists before; what the refusal allocates is counted)."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest

import zarrforge as zf
from zarrforge.errors import DocumentTooLargeError
from zarrforge_std.stores.memory import MemoryStore

MiB = 1 << 20
LIMIT = 8 * MiB
SIZE = 48 * MiB  # the document: six times the limit

# where each format keeps a group's attributes
DOCUMENTS = {3: "zarr.json", 2: ".zattrs", "draft-2022": "meta/root.group.json"}


def _group_with_large_attributes(fmt) -> MemoryStore:
    store = MemoryStore()
    zf.create_group(store, zarr_format=fmt)
    key = DOCUMENTS[fmt]
    document: dict[str, Any] = {}
    if fmt != 2:
        stored = store.get(key)
        assert stored is not None
        document = json.loads(stored)
    target = document if fmt == 2 else document.setdefault("attributes", {})
    target["big"] = "x" * SIZE
    store.set(key, json.dumps(document).encode())
    return store


@pytest.mark.parametrize("fmt", list(DOCUMENTS))
def test_refusing_a_document_over_the_limit_costs_less_than_the_limit(fmt) -> None:
    store = _group_with_large_attributes(fmt)
    with zf.config.set(max_document_bytes=LIMIT):
        tracemalloc.start()
        try:
            with pytest.raises(DocumentTooLargeError) as refused:
                zf.open_group(store, zarr_format=fmt, mode="r")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert refused.value.size > SIZE and refused.value.limit == LIMIT
    assert refused.value.key == DOCUMENTS[fmt]
    assert peak < 1.5 * LIMIT, peak
