"""Mappings passed as stores, as zarr-python takes them (zarrforge_std.hooks,
zarrforge_std.stores.mapping, zarrforge_fsspec.resolve)."""

from __future__ import annotations

import collections
import types

import fsspec
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ReadOnlyError, StoreArgumentError, StoreError
from zarrforge.testing import StoreConformance
from zarrforge_fsspec.store import FsspecStore
from zarrforge_std.stores.mapping import MappingStore
from zarrforge_std.stores.memory import MemoryStore


class UserMapping(collections.UserDict):
    """A MutableMapping that is not a dict."""


class TestMappingStoreConformance(StoreConformance):
    def make_store(self, tmp_path):
        return MappingStore(UserMapping())

    def make_read_only_store(self, store):
        return MappingStore(store.mapping, read_only=True)


def test_a_dict_holds_the_array_in_memory_with_its_keys():
    data: dict = {}
    arr = zf.create_array(data, shape=(4,), chunks=(2,), dtype="i4")
    arr[:] = np.arange(4)
    assert isinstance(arr.store, MemoryStore)
    assert sorted(data) == ["c/0", "c/1", "zarr.json"]
    assert np.array_equal(zf.open_array(data)[:], np.arange(4))


def test_a_group_in_a_dict():
    data: dict = {}
    root = zf.open_group(data, mode="w")
    root.create_array("x", shape=(2,), dtype="f8")[:] = 1.5
    assert "x/zarr.json" in data
    assert zf.open_group(data)["x"][:].tolist() == [1.5, 1.5]


def test_another_mutable_mapping_is_a_mapping_store():
    data = UserMapping()
    arr = zf.create_array(data, shape=(3,), dtype="u1")
    arr[:] = 7
    assert isinstance(arr.store, MappingStore)
    assert zf.open_array(data)[:].tolist() == [7, 7, 7]


def test_a_read_only_mapping_gives_a_read_only_store():
    data: dict = {}
    zf.create_array(data, shape=(3,), dtype="u1")[:] = 1
    view = types.MappingProxyType(data)
    arr = zf.open_array(view)
    assert arr[:].tolist() == [1, 1, 1]
    with pytest.raises(ReadOnlyError):
        arr[:] = 2
    assert zf.open_array(data)[:].tolist() == [1, 1, 1]


def test_a_value_that_is_not_bytes_is_refused_naming_its_key():
    data = UserMapping()
    zf.create_array(data, shape=(2,), chunks=(2,), dtype="u1")[:] = 3
    data["c/0"] = "not bytes"
    with pytest.raises(StoreError, match="'c/0' is a str, not bytes"):
        zf.open_array(data)[:]


def test_storage_options_with_a_mapping_are_refused():
    with pytest.raises(StoreArgumentError, match="takes no storage options"):
        zf.create_array({}, shape=(2,), dtype="u1", storage_options={"anon": True})


def test_an_fsspec_mapper_becomes_an_fsspec_store():
    mapper = fsspec.get_mapper("memory://zarrforge-mapper-test")
    try:
        arr = zf.create_array(mapper, shape=(4,), chunks=(2,), dtype="i2")
        arr[:] = np.arange(4)
        assert isinstance(arr.store, FsspecStore)
        assert "c/1" in mapper
        assert zf.open_array(mapper)[:].tolist() == [0, 1, 2, 3]
    finally:
        mapper.fs.rm("/zarrforge-mapper-test", recursive=True)


def test_an_object_that_is_no_mapping_is_still_refused_naming_its_type():
    with pytest.raises(TypeError, match="builtins.list"):
        zf.create_array([], shape=(2,), dtype="u1")
