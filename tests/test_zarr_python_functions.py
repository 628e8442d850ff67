"""zarr-python 3's remaining top-level functions and members on zarrforge (issue #43):
create_hierarchy, copy_all/copy_store, open_like, Array.with_config, write_chunk_sizes/
read_chunk_sizes, config.pprint(stream=...), nested chunks=/shards= (rectilinear)."""

from __future__ import annotations

import io
from collections.abc import Iterator, MutableMapping
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ContainsArrayError, ContainsGroupError, MetadataError

GROUP = {"zarr_format": 3, "node_type": "group"}
ARRAY = {
    "zarr_format": 3,
    "node_type": "array",
    "shape": [4],
    "data_type": "int8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
    "chunk_key_encoding": {"name": "default"},
    "fill_value": 0,
    "codecs": [{"name": "bytes"}],
    "attributes": {"x": 1},
}


def test_new_names_are_top_level_and_exported():
    import zarrforge.api.synchronous as synchronous

    for name in ("create_hierarchy", "copy_all", "copy_store", "open_like"):
        assert name in zf.__all__ and callable(getattr(zf, name))
        assert name in synchronous.__all__ and getattr(synchronous, name) is getattr(zf, name)


def test_create_hierarchy_creates_the_implied_groups_and_yields_every_node():
    store: dict = {}
    made = zf.create_hierarchy(store=store, nodes={"a/b/c": GROUP, "/a/arr": ARRAY})
    assert not store  # a generator, as zarr-python's: nothing is written until iterated
    nodes = dict(made)
    assert list(nodes) == ["", "a", "a/arr", "a/b", "a/b/c"]  # parents first
    assert isinstance(nodes["a/arr"], zf.Array) and nodes["a/arr"].attrs["x"] == 1
    assert isinstance(nodes["a/b"], zf.Group)
    assert zf.open_array(store, "a/arr").shape == (4,)


def test_create_hierarchy_keeps_implied_groups_and_refuses_existing_nodes():
    store: dict = {}
    zf.create_group(store, "a", attributes={"keep": True})
    made = dict(zf.create_hierarchy(store=store, nodes={"a/x": ARRAY, "a/y": GROUP}))
    assert sorted(made) == ["a/x", "a/y"]  # the root and 'a' are there already
    assert zf.open_group(store, "a").attrs["keep"] is True
    with pytest.raises(ContainsArrayError):
        list(zf.create_hierarchy(store=store, nodes={"a/x": ARRAY}))
    with pytest.raises(ContainsGroupError):
        list(zf.create_hierarchy(store=store, nodes={"a": GROUP}))
    with pytest.raises(ContainsArrayError):  # an array where a group is implied
        list(zf.create_hierarchy(store=store, nodes={"a/x/z": GROUP}))
    made = dict(zf.create_hierarchy(store=store, nodes={"a": GROUP}, overwrite=True))
    assert list(made) == ["a"] and zf.open_group(store, "a").attrs.asdict() == {}
    assert "a/x/zarr.json" not in store  # replaced whole


def test_create_hierarchy_refuses_bad_input_naming_the_node_before_writing():
    store: dict = {}
    cases: list[tuple[dict[str, Any], type, str]] = [
        ({"q": ARRAY, "q/x": GROUP}, ValueError, r"nodes\['q'\] is an array"),
        ({"z": {"zarr_format": 2}, "y": GROUP}, ValueError, "mix formats"),
        ({"z": 5}, TypeError, r"nodes\['z'\] is int"),
        ({"z": {**ARRAY, "data_type": "nope"}}, MetadataError, r"nodes\['z'\].*nope"),
        ({"ok": GROUP, "z": {**ARRAY, "shape": [4, 4]}}, MetadataError, "chunk_shape"),
        ({"z": {**ARRAY, "zarr_format": 7}}, ValueError, "zarr_format=7"),
    ]
    for nodes, error, match in cases:
        with pytest.raises(error, match=match):
            list(zf.create_hierarchy(store=store, nodes=nodes))
    assert not store


def test_create_hierarchy_takes_v2_documents_with_their_attributes():
    store: dict = {}
    zarray = {
        "zarr_format": 2,
        "shape": [3],
        "chunks": [3],
        "dtype": "<i4",
        "fill_value": 0,
        "order": "C",
        "filters": None,
        "compressor": None,
        "attributes": {"k": "v"},
    }
    made = dict(
        zf.create_hierarchy(
            store=store,
            nodes={"g": {"zarr_format": 2, "node_type": "group", "attributes": {"n": 1}}, "g/arr": zarray},
        )
    )
    assert sorted(made) == ["", "g", "g/arr"]
    assert ".zgroup" in store and "g/arr/.zarray" in store
    assert made["g/arr"].attrs["k"] == "v" and made["g"].attrs["n"] == 1


def test_create_hierarchy_takes_objects_with_to_dict():
    class Metadata:
        def __init__(self, document: dict[str, Any]) -> None:
            self.document = document

        def to_dict(self) -> dict[str, Any]:  # zarr-python's metadata objects: tuples in it
            return {k: tuple(v) if isinstance(v, list) else v for k, v in self.document.items()}

    made = dict(zf.create_hierarchy(store={}, nodes={"a": Metadata(ARRAY)}))
    assert made["a"].shape == (4,)


class _FailingStore(MutableMapping):
    """A mapping whose write of one key fails."""

    def __init__(self, failing: str) -> None:
        self.data: dict[str, bytes] = {}
        self.failing = failing

    def __getitem__(self, key: str) -> bytes:
        return self.data[key]

    def __setitem__(self, key: str, value: bytes) -> None:
        if key == self.failing:
            raise OSError("disk full")
        self.data[key] = value

    def __delitem__(self, key: str) -> None:
        del self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def test_create_hierarchy_is_all_or_nothing_across_subtrees():
    store = _FailingStore("b/zarr.json")
    zf.create_group(store)
    before = dict(store.data)
    with pytest.raises(Exception, match="disk full"):
        list(zf.create_hierarchy(store=store, nodes={"a": ARRAY, "b": GROUP}))
    assert store.data == before  # 'a', written first, is removed again


def test_copy_all_and_copy_store_raise_as_in_zarr_python_naming_copy():
    for function in (zf.copy_all, zf.copy_store):
        with pytest.raises(NotImplementedError, match="zarrforge.copy"):
            function({}, {})


def test_open_like_creates_like_the_array_or_opens_the_existing_one():
    a = zf.create_array({}, shape=(10,), chunks=(5,), dtype="i4", fill_value=3, compressors=None)
    b = zf.open_like(a, "x/y")  # in memory, as zarr-python's without store=
    assert (b.shape, b.dtype, b.chunks, b.fill_value, b.compressors) == ((10,), a.dtype, (5,), 3, ())
    store: dict = {}
    c = zf.open_like(np.zeros((3, 4)), "p", store=store)
    c[...] = 1
    assert zf.open_like(np.zeros((3, 4)), "p", store=store)[0, 0] == 1  # mode 'a' opens it
    v2 = zf.open_like(a, "q", store={}, zarr_format=2)
    assert v2.format.name == "2" and v2.compressors  # a's codecs stay with a's format
    assert zf.open_like(a, "r", store={}, chunks=(2,)).chunks == (2,)


def test_with_config_merges_over_the_handles_settings():
    arr = zf.create_array({}, shape=(10,), dtype="int8", config={"write_empty_chunks": True})
    arr_f = arr.with_config({"order": "F"})
    assert (arr_f.config.order, arr_f.config.write_empty_chunks) == ("F", True)
    assert arr.config.order == "C" and arr_f.store is arr.store and arr_f.path == arr.path
    with pytest.raises(TypeError, match="Unknown array config keys"):
        arr.with_config({"bad": 1})


def test_chunk_sizes_as_zarr_python_gives_them():
    a = zf.create_array({}, dtype="i1", shape=(100, 80), chunks=(30, 40))
    assert a.write_chunk_sizes == a.read_chunk_sizes == ((30, 30, 30, 10), (40, 40))
    sharded = zf.create_array({}, dtype="i1", shape=(40,), chunks=(10,), shards=(20,))
    assert sharded.read_chunk_sizes == ((10, 10, 10, 10),)
    assert sharded.write_chunk_sizes == ((20, 20),)


def test_nested_chunks_and_shards_are_the_rectilinear_grid():
    z = zf.create_array({}, shape=(30,), chunks=[[10, 20]], dtype="float64")
    z[:] = np.arange(30.0)
    z.resize((50,))
    assert z.write_chunk_sizes == ((10, 20, 20),)
    z.append(np.arange(10.0))
    assert z.shape == (60,) and z.write_chunk_sizes == ((10, 20, 20, 10),)
    assert z[55] == 5.0
    s = zf.create_array({}, shape=(120, 100), chunks=(10, 10), shards=[[60, 40, 20], [50, 50]], dtype="int32")
    s[:] = np.arange(12000, dtype="int32").reshape(120, 100)
    assert s.chunks == (10, 10) and s.write_chunk_sizes == ((60, 40, 20), (50, 50))
    assert s[69, 59] == 6959
    like = zf.open_like(s, "x")  # a rectilinear shard grid is taken as it is
    assert like.chunks == (10, 10) and like.write_chunk_sizes == ((60, 40, 20), (50, 50))
    assert zf.zeros_like(z).write_chunk_sizes == ((10, 20, 20, 10),)


def test_config_pprint_takes_pprints_keywords():
    out = io.StringIO()
    zf.config.pprint(stream=out, width=60)
    assert "'threads'" in out.getvalue() and "array" in out.getvalue()


def test_iter_chunk_regions_covers_each_chunk_once_in_c_order() -> None:
    import numpy as np

    import zarrforge as zf

    array = zf.create((5, 4), chunks=(2, 3), dtype="i4")
    regions = list(array._iter_chunk_regions())
    assert regions == [
        (slice(0, 2), slice(0, 3)),
        (slice(0, 2), slice(3, 4)),
        (slice(2, 4), slice(0, 3)),
        (slice(2, 4), slice(3, 4)),
        (slice(4, 5), slice(0, 3)),
        (slice(4, 5), slice(3, 4)),
    ]
    covered = np.zeros((5, 4), dtype=int)
    for region in regions:
        covered[region] += 1
    assert (covered == 1).all()
    assert list(array._iter_chunk_regions(origin=(1, 1), selection_shape=(2, 1))) == [
        (slice(2, 4), slice(3, 4)),
        (slice(4, 5), slice(3, 4)),
    ]
    sharded = zf.create_array({}, shape=(8,), chunks=(2,), shards=(4,), dtype="u1")
    assert [r[0] for r in sharded._iter_chunk_regions()] == [
        slice(0, 2),
        slice(2, 4),
        slice(4, 6),
        slice(6, 8),
    ]
    with pytest.raises(IndexError, match="chunks 2..3 of dimension 0 are outside its 3 chunks"):
        list(array._iter_chunk_regions(origin=(2, 0), selection_shape=(2, 1)))
