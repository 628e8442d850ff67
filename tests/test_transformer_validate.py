"""StorageTransformer.validate(metadata) (issue #50): a transformer checks its entry against
the array at creation, on open and before a resize is written; the refusal is positioned at
``storage_transformers[i]`` and nothing is written."""

from __future__ import annotations

import json

import pytest

import zarrforge as zf
from zarrforge.abc.storage_transformer import StorageTransformer
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import MetadataError


class Bounded(StorageTransformer):
    """{"max_chunks": n}: the array's grid may hold at most n chunks."""

    name = "test.bounded"

    def __init__(self, max_chunks: int) -> None:
        self.max_chunks = max_chunks

    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("max_chunks", 1))

    def to_json(self):
        return {"name": self.name, "configuration": {"max_chunks": self.max_chunks}}

    def validate(self, metadata):
        count = 1
        for n, c in zip(metadata.shape, metadata.chunk_grid.regular_chunk_shape):
            count *= -(-n // c)
        if count > self.max_chunks:
            raise MetadataError(
                f"the grid has {count} chunks, more than {self.max_chunks}",
                field="configuration.max_chunks",
                value=self.max_chunks,
            )

    def wrap(self, store, keys, metadata, *, path=None):
        return WrapperStore(store)


@pytest.fixture(autouse=True)
def registered():
    zf.register("storage_transformers", Bounded.name, Bounded)
    yield
    zf.registry.storage_transformers.unregister(Bounded.name)


def _entry(n):
    return [{"name": Bounded.name, "configuration": {"max_chunks": n}}]


def test_creation_is_refused_before_anything_is_written():
    store = zf.create_group(None).store
    with pytest.raises(MetadataError) as info:
        zf.create_array(store, "a", shape=(10,), chunks=(2,), dtype="u1", storage_transformers=_entry(4))
    assert info.value.field == "storage_transformers[0].configuration.max_chunks"
    assert "5 chunks, more than 4" in str(info.value)
    assert list(store.list()) == ["zarr.json"]  # the root group only


def test_open_and_resize_are_refused_naming_the_entry():
    a = zf.create_array(None, shape=(8,), chunks=(2,), dtype="u1", storage_transformers=_entry(4))
    a[:] = 1
    with pytest.raises(MetadataError, match=r"storage_transformers\[0\]\.configuration\.max_chunks"):
        a.resize(10)
    assert zf.open_array(a.store).shape == (8,)  # nothing was written
    document = json.loads(a.store.get("zarr.json"))
    document["storage_transformers"] = _entry(3)
    a.store.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_array(a.store)
    assert (
        info.value.field == "storage_transformers[0].configuration.max_chunks"
        and info.value.key == "zarr.json"
    )
