"""Every kind of extension can be registered in-process (no packaging) and used at once."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.chunk_grid import ChunkGrid, DimensionChunking
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.abc.extension import Extension
from zarrforge_std.data_types import Int16


class Halves(DimensionChunking):
    """Two chunks per dimension: the first half (rounded up) and the rest."""

    def __init__(self, length):
        self.length = length
        self.cut = -(-length // 2)

    @property
    def nchunks(self):
        return 0 if self.length == 0 else (1 if self.length == 1 else 2)

    def start(self, index):
        return 0 if index == 0 else self.cut

    def size(self, index):
        return self.cut if index == 0 else self.length - self.cut

    def index_of(self, positions):
        return (np.asarray(positions, dtype=np.int64) >= self.cut).astype(np.int64)


class HalvesGrid(ChunkGrid):
    name = "test.halves"

    def __init__(self, shape):
        self.shape = tuple(shape)

    @classmethod
    def from_json(cls, name, configuration, shape):
        return cls(shape)

    def to_json(self):
        return {"name": self.name}

    @property
    def dimensions(self):
        return tuple(Halves(n) for n in self.shape)

    def with_shape(self, shape):
        return HalvesGrid(shape)


class Reverse(BytesBytesCodec):
    name = "test.reverse"

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode(self, data):
        return bytes(data)[::-1]

    decode = encode


class Decimal16(Int16):
    """int16 under another name, as a third-party data type would be."""

    name = "test.decimal16"

    def to_json(self):
        return self.name

    @classmethod
    def from_numpy_dtype(cls, dtype):
        return None


class Note(Extension):
    name = "test.note"

    def __init__(self, text):
        self.text = text

    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("text", ""))

    def to_json(self):
        return {"name": self.name, "configuration": {"text": self.text}}


@pytest.fixture
def registered():
    entries = [
        ("chunk_grids", "test.halves", HalvesGrid),
        ("codecs", "test.reverse", Reverse),
        ("data_types", "test.decimal16", Decimal16),
        ("extensions", "test.note", Note),
    ]
    for point, name, cls in entries:
        zf.register(point, name, cls)
    yield
    for point, name, _ in entries:
        zf.registry.REGISTRIES[point].unregister(name)


def test_a_grid_codec_data_type_and_extension_registered_in_process_write_and_read(registered):
    a = zf.create_array(
        None,
        shape=(7, 5),
        dtype="test.decimal16",
        chunks={"name": "test.halves"},
        compressors=["test.reverse"],
        fill_value=-1,
        extensions=[{"name": "test.note", "configuration": {"text": "hi"}}],
    )
    values = np.arange(35, dtype="int16").reshape(7, 5)
    a[...] = values
    assert sorted(k for k in a.store.list() if k != "zarr.json") == ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]
    # the codec really ran: the stored chunk is the reversed little-endian bytes
    assert a.store.get("c/0/0") == values[:4, :3].astype("<i2").tobytes()[::-1]
    document = json.loads(a.store.get("zarr.json"))
    assert document["data_type"] == "test.decimal16"
    assert document["chunk_grid"] == {"name": "test.halves"}
    assert document["codecs"][1] == {"name": "test.reverse"}
    assert document["extensions"] == [{"name": "test.note", "configuration": {"text": "hi"}}]
    again = zf.open_array(a.store)
    assert np.array_equal(again[...], values) and again.get_extension("test.note").text == "hi"
    assert np.array_equal(again.oindex[[6, 0], [4, 1]], values[np.ix_([6, 0], [4, 1])])
