"""Errors say where they happened (issue #50).

* A ``MetadataError`` of any class (an ``UnknownExtensionError`` from a ``plugin_api``
  helper, say) raised while a codec, a data type or an extension is built or validated
  keeps the entry's position in its field, and keeps its class.
* A ``CodecError`` names the array's path and the chunk's key, encoding and decoding, and
  under sharding the inner chunk too.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
import zarrforge.asyncio as zfa
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.abc.extension import Extension
from zarrforge.errors import CodecError, UnknownExtensionError
from zarrforge.plugin_api.formats import data_type_from_json

# --- positions of helpers' errors ------------------------------------------------------------


class TypedCodec(BytesBytesCodec):
    """{"dtype": <a data type>}, resolved by the plugin_api helper when built; "check" is
    resolved only when the codec is validated against the array."""

    name = "test.typed"

    def __init__(self, dtype, check=None):
        self.dtype, self.check = dtype, check

    @classmethod
    def from_json(cls, name, configuration):
        configuration = configuration or {}
        dtype = data_type_from_json(configuration.get("dtype"), field="configuration.dtype")
        return cls(dtype, configuration.get("check"))

    def to_json(self):
        configuration = {"dtype": self.dtype.to_json()}
        if self.check is not None:
            configuration["check"] = self.check
        return {"name": self.name, "configuration": configuration}

    def validate(self, spec):
        if self.check is not None:
            data_type_from_json(self.check, field="configuration.check")

    def encode(self, data):
        return bytes(data)

    def decode(self, data):
        return bytes(data)


class TypedExtension(Extension):
    """{"dtype": <a data type>}, resolved when validated against the node."""

    name = "test.typed-extension"

    def __init__(self, dtype):
        self.dtype = dtype

    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("dtype"))

    def to_json(self):
        return {"name": self.name, "configuration": {"dtype": self.dtype}}

    def validate(self, metadata):
        data_type_from_json(self.dtype, field="configuration.dtype")


@pytest.fixture(autouse=True)
def registered():
    zf.register("codecs", TypedCodec.name, TypedCodec)
    zf.register("codecs", PickyCodec.name, PickyCodec)
    zf.register("extensions", TypedExtension.name, TypedExtension)
    yield
    zf.registry.codecs.unregister(TypedCodec.name)
    zf.registry.codecs.unregister(PickyCodec.name)
    zf.registry.extensions.unregister(TypedExtension.name)


def _stored_with(field, value):
    a = zf.create_array(None, shape=(4,), dtype="int8", compressors=None)
    document = json.loads(a.store.get("zarr.json"))
    document[field] = value
    a.store.set("zarr.json", json.dumps(document).encode())
    return a.store


def test_an_unknown_name_a_codec_resolves_is_named_at_the_codec():
    store = _stored_with(
        "codecs", [{"name": "bytes"}, {"name": "test.typed", "configuration": {"dtype": "nope"}}]
    )
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(store)
    assert info.value.field == "codecs[1].configuration.dtype" and info.value.key == "zarr.json"
    assert "unknown data type 'nope'" in str(info.value)


def test_an_unknown_name_a_codec_resolves_when_validated_is_named_at_the_codec():
    codecs = [{"name": "bytes"}, {"name": "test.typed", "configuration": {"dtype": "int8", "check": "nope"}}]
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(_stored_with("codecs", codecs))
    assert info.value.field == "codecs[1].configuration.check"


def test_an_unknown_inner_data_type_is_named_at_the_data_type():
    store = _stored_with("data_type", {"name": "optional", "configuration": {"name": "nope"}})
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(store)
    assert info.value.field == "data_type.configuration.name"


def test_an_unknown_name_an_extension_resolves_when_validated_is_named_at_the_entry():
    store = _stored_with("extensions", [{"name": TypedExtension.name, "configuration": {"dtype": "nope"}}])
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(store)
    assert info.value.field == "extensions[0].configuration.dtype"


# --- where a codec failed ---------------------------------------------------------------------


class PickyCodec(BytesBytesCodec):
    """Refuses to encode a chunk whose first byte is 0xFF, and to decode one whose last
    byte is 0xEE: a codec's own CodecError, raised without any place."""

    name = "test.picky"

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode(self, data):
        data = bytes(data)
        if data[:1] == b"\xff":
            raise CodecError("refuses to encode a chunk starting with 0xFF")
        return data

    def decode(self, data):
        data = bytes(data)
        if data[-1:] == b"\xee":
            raise CodecError("refuses to decode a chunk ending with 0xEE")
        return data


def _picky(*, shards=None):
    root = zf.create_group(None)
    return root.create_array(
        "grp/arr", shape=(8,), chunks=(2,), shards=shards, dtype="uint8", compressors=[{"name": "test.picky"}]
    )


def test_an_encoding_failure_names_the_array_and_the_chunk():
    a = _picky()
    with pytest.raises(CodecError) as info:
        a[2:4] = [255, 1]
    error = info.value
    assert (error.array, error.key, error.inner) == ("grp/arr", "grp/arr/c/1", None)
    assert str(error) == "array 'grp/arr', chunk 'grp/arr/c/1': refuses to encode a chunk starting with 0xFF"


def test_a_decoding_failure_names_the_array_and_the_chunk_on_every_read_path():
    a = _picky()
    a[2:4] = [1, 0xEE]
    expected = "array 'grp/arr', chunk 'grp/arr/c/1': refuses to decode a chunk ending with 0xEE"
    for read in (lambda: a[:], lambda: a.get_chunk((1,)), lambda: a.oindex[[3]], lambda: a[2]):
        with pytest.raises(CodecError) as info:
            read()
        assert str(info.value) == expected
    with pytest.raises(CodecError) as info:
        a[3] = 5  # a partial write decodes the stored chunk first
    assert str(info.value) == expected


async def _async_read(store):
    array = await zfa.open_array(store, path="grp/arr")
    return await array.getitem(slice(None))


def test_the_asyncio_api_names_them_too():
    import asyncio

    a = _picky()
    a[2:4] = [1, 0xEE]
    with pytest.raises(CodecError, match=r"^array 'grp/arr', chunk 'grp/arr/c/1': refuses to decode"):
        asyncio.run(_async_read(a.store))


def test_under_sharding_the_inner_chunk_is_named_encoding_and_decoding():
    a = _picky(shards=(4,))
    with pytest.raises(CodecError) as info:
        a[:4] = [1, 2, 255, 3]
    assert str(info.value) == (
        "array 'grp/arr', chunk 'grp/arr/c/0', inner chunk (1,): refuses to encode a chunk starting with 0xFF"
    )
    a[4:8] = [0, 1, 2, 0xEE]
    for read in (lambda: a[:], lambda: a[7], lambda: a[4:8]):
        with pytest.raises(CodecError) as info:
            read()
        assert str(info.value) == (
            "array 'grp/arr', chunk 'grp/arr/c/1', inner chunk (1,): refuses to decode a chunk ending with 0xEE"
        )
    assert np.array_equal(a[4:6], [0, 1])  # the inner chunk that decodes still reads


def test_located_keeps_the_class_and_fills_only_what_is_missing():
    error = CodecError("bad", key="k")
    located = error.located(key="other", array="a", inner=(0, 1))
    assert type(located) is CodecError and (located.key, located.array, located.inner) == ("k", "a", (0, 1))
    assert located.located(array="b") is located
    assert str(located) == "array 'a', chunk 'k', inner chunk (0, 1): bad"
