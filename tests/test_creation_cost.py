"""What creating and opening a node costs: documents read and parsed, codec chains built.

Creating ``x/y/arr`` used to parse ``x/y/zarr.json`` three times, ``x/zarr.json`` and
the root twice, and build the codec chain twice plus a whole chunk engine only to
validate. The hierarchy layer now reads the documents on the path once
(:func:`zarrforge.nodes.hierarchy.survey`) and an array builds its codec chain once, its
engine at the first chunk I/O.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_std.format_v3 as format_v3
from zarrforge.engine import codec_chain, pipeline
from zarrforge.user_api import array_engine
from zarrforge_std.stores.memory import MemoryStore


class CountingStore(MemoryStore):
    """A memory store counting whole-value reads per key, plain or versioned (a store
    with conditional writes is read versioned, so a view update can commit against the
    version read)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.reads: collections.Counter[str] = collections.Counter()

    def get(self, key, byte_range=None):
        self.reads[key] += 1
        return super().get(key, byte_range)

    def get_many(self, requests):
        for key, _ in requests:
            self.reads[key] += 1
        return [MemoryStore.get(self, k, r) for k, r in requests]

    def _get_versioned(self, key):
        self.reads[key] += 1
        return super()._get_versioned(key)


@pytest.fixture
def counted(monkeypatch):
    """Counters of v3 documents parsed (per key), codec chains and chunk engines built."""
    parsed: collections.Counter[str] = collections.Counter()
    built: collections.Counter[str] = collections.Counter()
    load = format_v3.load_document_keeping_raw

    def counting_load(data, *, key, **options):
        parsed[key] += 1
        return load(data, key=key, **options)

    def counting(cls, name):
        init = cls.__init__

        def wrapped(self, *args, **kwargs):
            built[name] += 1
            init(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", wrapped)

    monkeypatch.setattr(format_v3, "load_document_keeping_raw", counting_load)
    # no chain checked for an earlier test's alike array: each test counts its own
    monkeypatch.setattr(array_engine, "_CHECKED_CHAINS", {})
    counting(codec_chain.CodecChain, "chain")
    counting(pipeline.ChunkEngine, "engine")
    return parsed, built


def test_creating_an_array_at_depth_3_reads_and_parses_each_document_once(counted):
    parsed, built = counted
    store = CountingStore()
    zf.create_group(store, "x/y", attributes={"made": "first"})
    store.reads.clear()
    parsed.clear()
    built.clear()

    array = zf.create_array(store, "x/y/arr", shape=(10, 10), dtype="float32", chunks=(5, 5))

    documents = ["zarr.json", "x/zarr.json", "x/y/zarr.json"]
    assert {key: parsed[key] for key in documents} == dict.fromkeys(documents, 1)
    assert max(parsed.values()) == 1
    assert all(store.reads[key] == 1 for key in documents), store.reads
    assert built == {"chain": 1}  # checked against the array; no engine until chunk I/O
    array[:] = 1.0
    assert built == {"chain": 1, "engine": 1}
    assert np.all(zf.open_array(store, "x/y/arr")[...] == 1.0)


def test_creating_missing_parents_reads_each_ancestor_once(counted):
    parsed, _built = counted
    store = CountingStore()
    zf.create_group(store)
    store.reads.clear()
    parsed.clear()

    zf.create_array(store, "x/y/arr", shape=(4,), dtype="int8")

    assert parsed["zarr.json"] == 1 and max(parsed.values()) == 1
    assert store.reads["zarr.json"] == 1 and store.reads["x/zarr.json"] == 1
    group = zf.open_group(store, "x/y", mode="r")
    assert list(group) == ["arr"]


def test_opening_an_array_builds_its_chain_but_not_its_engine(counted):
    _, built = counted
    store = MemoryStore()
    zf.create_array(store, "a", shape=(4,), dtype="int8", chunks=(2,))
    built.clear()
    array = zf.open_array(store, "a")
    assert built == {"chain": 1}
    assert array.chunks == (2,) and array.shards is None  # answered from the chain
    assert built == {"chain": 1}
    array[...]
    assert built == {"chain": 1, "engine": 1}


def test_creation_with_consolidated_root_updates_the_view_once_per_ancestor():
    store = CountingStore()
    zf.create_group(store, "x")
    zf.consolidate_metadata(store)
    writes = collections.Counter()
    plain, conditional = store._set, store._set_if

    def counting_set(key, value):
        writes[key] += 1
        plain(key, value)

    def counting_set_if(key, value, if_generation):
        writes[key] += 1
        return conditional(key, value, if_generation)

    store._set, store._set_if = counting_set, counting_set_if
    zf.create_array(store, "x/y/z/arr", shape=(2,), dtype="int8")
    assert writes["zarr.json"] == 1  # one rewrite of the root's view for three new nodes
    root = zf.open_group(store, mode="r")
    assert sorted(root.metadata_model.consolidated) == ["x", "x/y", "x/y/z", "x/y/z/arr"]
    assert root["x/y/z/arr"].shape == (2,)


def test_a_node_whose_document_is_broken_is_in_the_way_and_can_be_overwritten():
    store = MemoryStore()
    store.set("a/zarr.json", b"{not json")
    with pytest.raises(zf.errors.ContainsNodeError):
        zf.create_array(store, "a", shape=(2,), dtype="int8")
    array = zf.create_array(store, "a", shape=(2,), dtype="int8", overwrite=True)
    assert zf.open_array(store, "a").shape == array.shape == (2,)


def test_the_creation_spec_is_copied_with_changes_as_dataclasses_replace_would():
    # codec_arguments copies the spec without running its __init__ again
    # (metadata.replacing): the copy it takes while the spec has no __post_init__
    from zarrforge.abc.format import ArrayCreationSpec
    from zarrforge.metadata.replacing import replaced

    assert not hasattr(ArrayCreationSpec, "__post_init__")
    spec = ArrayCreationSpec(shape=(10,), dtype="int32", chunks=(5,), attributes={"a": 1})
    changed = replaced(spec, filters=(), compressors=({"name": "zstd"},))
    assert changed == dataclasses.replace(spec, filters=(), compressors=({"name": "zstd"},))
    assert spec.compressors == "auto" and spec.filters is None  # the original as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.filters = None


def test_a_groups_members_resolve_its_document_once_while_it_is_unchanged(monkeypatch):
    # each creation reads the group's document again (another writer may have changed
    # it) and looks for a consolidated view to keep in step; a document with the same
    # content, registries and settings resolves the same way, so a group without a
    # view is resolved once. A change to it is seen at the next creation.
    from zarrforge.nodes import hierarchy

    monkeypatch.setattr(hierarchy, "_VIEWLESS", {})
    resolutions = collections.Counter()
    real = hierarchy.resolved

    def counting(fmt, document):
        resolutions[document.key] += 1
        return real(fmt, document)

    monkeypatch.setattr(hierarchy, "resolved", counting)
    store = MemoryStore()
    group = zf.create_group(store, "g", attributes={"n": 1})
    for i in range(5):
        group.create_array(f"a{i}", shape=(2,), dtype="int8")
    assert resolutions["g/zarr.json"] == 1
    with zf.config.set(max_document_bytes=2**30):  # new settings: resolved again
        group.create_array("b", shape=(2,), dtype="int8")
    assert resolutions["g/zarr.json"] == 2
    zf.consolidate_metadata(store, "g")  # another content, with a view: resolved, and kept in step
    resolutions.clear()
    group.create_array("c", shape=(2,), dtype="int8")
    assert resolutions["g/zarr.json"] >= 1
    view = zf.open_group(store, "g", mode="r").metadata_model.consolidated
    assert sorted(view) == ["a0", "a1", "a2", "a3", "a4", "b", "c"]


def test_a_broken_group_document_refuses_every_member_however_often_it_is_asked():
    # what fails to resolve is never remembered: each creation below it is refused
    store = MemoryStore()
    zf.create_group(store, "g")
    store.set("g/zarr.json", b'{"zarr_format": 3, "node_type": "group", "attributes": 5}')
    for name in ("a", "b"):
        with pytest.raises(zf.errors.MetadataError, match="attributes"):
            zf.create_array(store, f"g/{name}", shape=(2,), dtype="int8")
        assert store.get(f"g/{name}/zarr.json") is None


def test_a_copy_without_init_is_taken_only_where_init_sets_the_fields_alone():
    # metadata.replacing: a class whose __init__ does more (a __post_init__) is copied
    # through it, and a change naming no field is refused, as dataclasses.replace does
    from zarrforge.abc.format import ArrayCreationSpec
    from zarrforge.metadata.replacing import replaced

    @dataclasses.dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self) -> None:
            if self.n < 0:
                raise ValueError("n must not be negative")

    assert replaced(Checked(1), n=2) == Checked(2)
    with pytest.raises(ValueError, match="negative"):
        replaced(Checked(1), n=-1)
    with pytest.raises(TypeError):
        replaced(Checked(1), m=2)
    spec = ArrayCreationSpec(shape=(10,), dtype="int32", chunks=(5,))
    with pytest.raises(TypeError):
        replaced(spec, not_a_field=1)
