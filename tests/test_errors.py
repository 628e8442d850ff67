"""Bad input gives a named error and leaves the store unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import (
    ContainsNodeError,
    CorruptChunkError,
    InvalidPathError,
    MetadataError,
    ReadOnlyError,
    UnknownExtensionError,
    ZarrforgeError,
)
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore


def snapshot(store):
    return {k: store.get(k) for k in store.list()}


def make_array(store=None, **kwargs):
    options = {"shape": (4, 4), "dtype": "int32", "chunks": (2, 2), "compressors": None}
    options.update(kwargs)
    a = zf.create_array(store if store is not None else MemoryStore(), **options)
    a[:] = np.arange(16, dtype="int32").reshape(4, 4)
    return a


@pytest.mark.parametrize(
    "document",
    [
        b"{not json",
        b"[1, 2]",
        b"\xff\xfe",
        b'{"zarr_format": 3, "node_type": "array", "shape": [NaN]}',
        b'{"zarr_format": 3, "zarr_format": 3, "node_type": "group"}',
    ],
)
def test_corrupt_json_names_the_key(document):
    a = make_array()
    a.store.set("zarr.json", document)
    before = snapshot(a.store)
    with pytest.raises(MetadataError) as info:
        zf.open_array(a.store)
    assert "'zarr.json'" in str(info.value)
    assert snapshot(a.store) == before


@pytest.mark.parametrize(
    "field,value,expected",
    [
        ("shape", [4, -1], "shape"),
        ("shape", "big", "shape"),
        ("node_type", "table", "node_type"),
        ("data_type", "float128", "unknown data type 'float128'"),
        (
            "chunk_grid",
            {"name": "regular", "configuration": {"chunk_shape": [0, 2]}},
            "chunk_grid.configuration.chunk_shape",
        ),
        (
            "chunk_key_encoding",
            {"name": "default", "configuration": {"separator": "-"}},
            "chunk_key_encoding.configuration.separator",
        ),
        ("codecs", [], "codecs"),
        (
            "codecs",
            [{"name": "transpose", "configuration": {"order": [1, 0]}}],
            "exactly one array -> bytes codec",
        ),
        (
            "codecs",
            [{"name": "bytes", "configuration": {"endian": "middle"}}],
            "codecs[0].configuration.endian",
        ),
        ("dimension_names", ["x"], "dimension_names"),
        ("attributes", [1], "attributes"),
    ],
)
def test_invalid_array_field_is_named(field, value, expected):
    a = make_array()
    document = json.loads(a.store.get("zarr.json"))
    document[field] = value
    a.store.set("zarr.json", json.dumps(document).encode())
    before = snapshot(a.store)
    with pytest.raises(MetadataError) as info:
        zf.open_array(a.store)
    assert expected in str(info.value)
    assert snapshot(a.store) == before


def test_unknown_codec_error_names_field_and_provider():
    a = make_array()
    document = json.loads(a.store.get("zarr.json"))
    document["codecs"].append({"name": "lzma"})
    a.store.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(a.store)
    assert "codecs[1].name" in str(info.value) and "unknown codec 'lzma'" in str(info.value)


def test_truncated_chunk_is_a_corrupt_chunk_error_naming_the_key():
    a = make_array()
    a.store.set("c/1/0", a.store.get("c/1/0")[:-3])
    before = snapshot(a.store)
    with pytest.raises(CorruptChunkError) as info:
        a[...]
    assert "'c/1/0'" in str(info.value) and "expected 16 bytes" in str(info.value)
    assert a[:2, :2].tolist() == [[0, 1], [4, 5]]  # other chunks still read
    with pytest.raises(CorruptChunkError):
        a[2, 0] = 7  # a partial write must read the corrupt chunk, and refuses
    assert snapshot(a.store) == before


def test_checksum_mismatch_names_the_key():
    a = make_array(compressors=[{"name": "crc32c"}])
    data = bytearray(a.store.get("c/0/1"))
    data[0] ^= 0xFF
    a.store.set("c/0/1", bytes(data))
    before = snapshot(a.store)
    with pytest.raises(zf.errors.ChecksumError) as info:
        a[...]
    assert "'c/0/1'" in str(info.value)
    assert snapshot(a.store) == before


@pytest.mark.parametrize("key", ["../escape", "a/../../escape", "/etc/passwd", "a//b", "a\\..\\b", "./a"])
def test_path_traversal_keys_are_refused_by_the_local_store(tmp_path, key):
    store = LocalStore(tmp_path / "root")
    store.set("inside", b"1")
    with pytest.raises(InvalidPathError):
        store.set(key, b"x")
    with pytest.raises(InvalidPathError):
        store.get(key)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]
    assert list(store.list()) == ["inside"]


@pytest.mark.parametrize("path", ["../up", "a/../b", "a/./b", "__zarr", "a/zarr.json", "a\\b"])
def test_invalid_node_paths_are_refused_before_writing(tmp_path, path):
    store = LocalStore(tmp_path)
    with pytest.raises(InvalidPathError):
        zf.create_array(store, path, shape=(1,), dtype="int8")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_reserved_names_are_created_only_on_purpose_and_read_always(tmp_path, zarr_format):
    """The spec reserves names starting with "__": creation refuses them unless asked
    (allow_reserved_name=True), naming why; what another tool wrote with such a name
    (xarray's "__values__") is listed, opened, consolidated and copied."""
    group = zf.create_group(LocalStore(tmp_path / "g"), zarr_format=zarr_format)
    with pytest.raises(InvalidPathError, match="reserves.*allow_reserved_name=True"):
        group.create_array("__values__", shape=(2,), dtype="int8")
    with pytest.raises(InvalidPathError, match="reserves.*allow_reserved_name=True"):
        zf.create_group(LocalStore(tmp_path / "g"), "__values__", zarr_format=zarr_format)
    with pytest.raises(InvalidPathError, match="'__new'.*reserves"):  # a missing parent
        zf.create_array(
            LocalStore(tmp_path / "g"), "__new/x", shape=(2,), dtype="int8", zarr_format=zarr_format
        )
    assert not any(p.name.startswith("__") for p in (tmp_path / "g").iterdir())
    group.create_array("__values__", shape=(2,), dtype="int8", allow_reserved_name=True)[:] = [1, 2]
    sub = group.create_group("__sub", allow_reserved_name=True)
    sub.create_array("x", shape=(1,), dtype="int8")  # an existing "__" parent is no new name
    with pytest.raises(InvalidPathError, match="reserved for Zarr's own data"):
        group.create_array("__zarr_x", shape=(2,), dtype="int8", allow_reserved_name=True)
    zf.consolidate_metadata(group.store, "")
    for consolidated in (True, False):
        opened = zf.open_group(LocalStore(tmp_path / "g"), mode="r", use_consolidated=consolidated)
        assert opened.keys() == ["__sub", "__values__"]
        assert opened["__values__"][...].tolist() == [1, 2]
        assert [name for name, _ in opened.members(max_depth=None)] == ["__sub", "__sub/x", "__values__"]
    copied = zf.copy(LocalStore(tmp_path / "g"), LocalStore(tmp_path / "copy"))
    assert copied["__values__"][...].tolist() == [1, 2]
    with pytest.raises(InvalidPathError, match="'__there'"):  # the copy's own name is the user's
        zf.copy(LocalStore(tmp_path / "g"), LocalStore(tmp_path / "c2"), dest_path="__there")


def test_zarrforge_bookkeeping_keys_are_never_nodes():
    """The unfinished-write marker and commit records start with "__zarr": no path, listing
    or creation takes them for a node, even where a directory of that name holds a node
    document."""
    store = MemoryStore()
    zf.create_group(store)
    store.set(
        "__zarrforge_commits/zarr.json",
        json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}).encode(),
    )
    assert zf.open_group(store, mode="r").keys() == []
    with pytest.raises(InvalidPathError, match="__zarr"):
        zf.open_group(store, "__zarrforge_commits", mode="r")


def test_create_over_existing_node_is_refused_and_keeps_data():
    a = make_array()
    before = snapshot(a.store)
    with pytest.raises(ContainsNodeError, match="overwrite=True"):
        zf.create_array(a.store, shape=(1,), dtype="int8")
    assert snapshot(a.store) == before


def test_failed_overwrite_keeps_the_old_node():
    a = make_array()
    before = snapshot(a.store)
    with pytest.raises(UnknownExtensionError):
        zf.create_array(a.store, shape=(1,), dtype="int8", compressors=[{"name": "nope"}], overwrite=True)
    assert snapshot(a.store) == before


def test_read_only_array_refuses_writes():
    a = make_array()
    ro = zf.open_array(a.store, mode="r")
    before = snapshot(a.store)
    with pytest.raises(ReadOnlyError, match="read-only"):
        ro[0, 0] = 1
    with pytest.raises(ReadOnlyError):
        ro.attrs["x"] = 1
    assert snapshot(a.store) == before


def test_missing_node_is_node_not_found():
    with pytest.raises(zf.errors.ArrayNotFoundError, match="no array at path '/missing'"):
        zf.open_array(MemoryStore(), "missing")


def test_attributes_that_are_not_json_are_refused_without_writing():
    a = make_array()
    before = snapshot(a.store)
    with pytest.raises(MetadataError, match="JSON"):
        a.attrs["bad"] = object()
    with zf.config.set(non_finite_attributes="refuse"), pytest.raises(MetadataError):
        a.attrs["nan"] = float("nan")
    assert snapshot(a.store) == before
    assert "bad" not in a.attrs


def test_every_error_is_a_zarrforge_error():
    for name in dir(zf.errors):
        obj = getattr(zf.errors, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, Exception)
            and not issubclass(obj, Warning)
            and obj.__module__ == "zarrforge.errors"
        ):
            assert issubclass(obj, ZarrforgeError)


def test_a_codec_raising_key_error_on_bad_bytes_is_a_corrupt_chunk_not_a_missing_node():
    from zarrforge.abc.codec import BytesBytesCodec

    class Lookup(BytesBytesCodec):
        name = "test.lookup"

        @classmethod
        def from_json(cls, name, configuration):
            return cls()

        def to_json(self):
            return {"name": self.name}

        def encode(self, data):
            return bytes(data)

        def decode(self, data):
            return {b"ok": bytes(data)}[bytes(data)[:2]]  # a KeyError on anything else

    zf.register("codecs", "test.lookup", Lookup)
    try:
        a = zf.create_array(None, shape=(4,), dtype="uint8", compressors=["test.lookup"])
        a[:] = [1, 2, 3, 4]
        with pytest.raises(zf.errors.CorruptChunkError, match="KeyError") as info:
            a[:]
        assert not isinstance(info.value, KeyError) and info.value.key == "c/0"
    finally:
        zf.registry.codecs.unregister("test.lookup")


def test_a_data_type_typo_is_an_unknown_extension_suggesting_the_name():
    with pytest.raises(zf.errors.UnknownExtensionError, match="did you mean 'float32'") as info:
        zf.create_array(None, shape=(4,), dtype="flaot32")
    assert info.value.field == "dtype"


@pytest.mark.parametrize(
    "argument, codec, field, hint",
    [
        ("filters", "gzip", "filters[0]", "compressors="),
        ("compressors", {"name": "transpose", "configuration": {"order": [0]}}, "compressors[0]", "filters="),
        ("serializer", "zstd", "serializer", "compressors="),
    ],
)
def test_a_codec_given_to_the_wrong_argument_is_named_there(argument, codec, field, hint):
    value = codec if argument == "serializer" else [codec]
    with pytest.raises(zf.errors.MetadataError, match=f"pass it as {hint}") as info:
        zf.create_array(None, shape=(4,), dtype="float32", **{argument: value})
    assert info.value.field == field


def test_read_only_errors_say_what_is_read_only_and_what_helps(tmp_path):
    """A handle opened read-only is told which modes write; a store that is read-only by
    nature (an HTTP server, a read-only zarr-python store) is named, and no mode is
    suggested, since none would help."""
    from zarrforge.errors import ReadOnlyError
    from zarrforge_std.stores.local import LocalStore

    zf.create_array(str(tmp_path), "a", shape=(2,), dtype="i1")
    with pytest.raises(ReadOnlyError, match="is open read-only; open it with mode='r\\+' or 'a'"):
        zf.open_array(str(tmp_path), "a", mode="r")[0] = 1
    frozen = LocalStore(tmp_path, read_only=True)
    with pytest.raises(ReadOnlyError, match="is in a read-only store") as info:
        zf.open_array(frozen, "a", mode="r+")[0] = 1
    assert "mode=" not in str(info.value)
    with pytest.raises(ReadOnlyError, match="the store LocalStore.*is read-only") as info:
        zf.create_array(frozen, "b", shape=(2,), dtype="i1")
    assert "ReadMemo" not in str(info.value) and "mode=" not in str(info.value)
