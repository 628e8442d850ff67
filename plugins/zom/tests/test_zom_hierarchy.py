"""Models from hierarchies, hierarchies from models, validation against hierarchies."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_zom as zom
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import ContainsNodeError, NodeTypeError, ReadOnlyError
from zarrforge.storing.storage import resolve_store
from zarrforge_zom import ArraySpecV3, Difference, GroupSpec, GroupSpecV2, GroupSpecV3, SpecError


class CountingStore(WrapperStore):
    """Counts every request that reaches the wrapped store."""

    def __init__(self, inner):
        super().__init__(inner)
        self.requests: list[tuple[str, object]] = []

    def get(self, key, byte_range=None):
        self.requests.append(("get", key))
        return self.inner.get(key, byte_range)

    def get_many(self, requests):
        self.requests.append(("get_many", [k for k, _ in requests]))
        return self.inner.get_many(requests)

    def exists(self, key):
        self.requests.append(("exists", key))
        return self.inner.exists(key)

    def list_prefix(self, prefix):
        self.requests.append(("list_prefix", prefix))
        return self.inner.list_prefix(prefix)

    def list_dir(self, prefix):
        self.requests.append(("list_dir", prefix))
        return self.inner.list_dir(prefix)


def build_v3(store=None):
    root = zf.create_group(store, attributes={"title": "test", "version": 2, "nested": {"a": [1, 2]}})
    t = root.create_array(
        "temperature",
        shape=(20, 30),
        dtype="float32",
        chunks=(10, 10),
        fill_value=float("nan"),
        dimension_names=["y", "x"],
        compressors=["gzip", "crc32c"],
        attributes={"units": "K"},
    )
    t[:] = np.arange(600, dtype="float32").reshape(20, 30)
    root.create_array("obs/counts", shape=(64,), dtype="int16", chunks=(4,), shards=(16,), fill_value=-1)
    root.create_group("obs/empty", attributes={"note": None})
    root.create_array("obs/flags", shape=(5, 5), dtype="bool", chunks=(5, 5), compressors=None)
    root.create_array("scalar", shape=(), dtype="complex64", fill_value=[1.0, -2.0])
    return root


def build_v2(store=None):
    root = zf.create_group(store, attributes={"title": "v2"}, zarr_format=2)
    root.create_array(
        "a",
        shape=(10, 10),
        dtype="<f8",
        chunks=(5, 5),
        fill_value=float("nan"),
        dimension_names=["y", "x"],
        attributes={"units": "m"},
    )
    root.create_array("g/b", shape=(7,), dtype="<i4", chunks=(3,), compressors=None)
    return root


def test_model_of_hierarchy_applied_to_an_empty_store_gives_the_same_model():
    spec = GroupSpec.from_zarr(build_v3().store)
    assert isinstance(spec, GroupSpecV3)
    assert set(spec.members) == {"temperature", "obs", "scalar"}
    assert set(spec.members["obs"].members) == {"counts", "empty", "flags"}
    assert spec.members["temperature"].data_type == "float32"
    assert spec.members["temperature"].fill_value == "NaN"
    assert spec.members["temperature"].dimension_names == ("y", "x")

    target = resolve_store(None)
    node = spec.to_zarr(target)
    assert isinstance(node, zf.Group)
    again = GroupSpec.from_zarr(target)
    assert again == spec
    assert again.to_json() == spec.to_json()
    assert zom.diff(spec, again) == []
    # No data was copied: the new arrays read their fill value.
    assert np.isnan(zf.open_array(target, "temperature")[0, 0])
    assert list(target.list_prefix("temperature/c/")) == []


def test_json_round_trip_and_schema():
    spec = GroupSpec.from_zarr(build_v3().store)
    document = json.loads(spec.to_json_string())
    assert zom.schema_issues(document) == []
    assert zom.from_json(document) == spec
    assert GroupSpec.from_json(document) == spec
    assert GroupSpecV3.from_json(document) == spec
    with pytest.raises(SpecError):
        GroupSpecV2.from_json(document)
    with pytest.raises(SpecError):
        ArraySpecV3.from_json(document)


def test_v2_round_trip():
    spec = GroupSpec.from_zarr(build_v2().store)
    assert isinstance(spec, GroupSpecV2)
    a = spec.members["a"]
    assert a.dtype == "<f8" and a.chunks == (5, 5) and a.fill_value == "NaN"
    assert a.attributes == {"units": "m", "_ARRAY_DIMENSIONS": ["y", "x"]}
    assert spec.members["g"].members["b"].compressor is None
    assert zom.schema_issues(spec.to_json()) == []
    target = resolve_store(None)
    spec.to_zarr(target)
    assert GroupSpec.from_zarr(target) == spec
    assert target.get(".zgroup") is not None and target.get("a/.zarray") is not None
    assert zom.from_json(json.loads(spec.to_json_string())) == spec


def test_validate_reports_changed_dtype_missing_member_and_extra_attribute_with_paths():
    store = build_v3().store
    spec = GroupSpec.from_zarr(store)
    assert spec.validate(store) == []

    root = zf.open_group(store, mode="r+")
    root.create_array(
        "temperature",
        shape=(20, 30),
        dtype="int32",
        chunks=(10, 10),
        dimension_names=["y", "x"],
        compressors=["gzip", "crc32c"],
        attributes={"units": "K"},
        fill_value=0,
        overwrite=True,
    )
    del root["obs/flags"]
    root["obs/empty"].attrs["added"] = [1, 2]
    root.create_group("surprise")

    differences = spec.validate(store)
    by_path = {(d.path, d.field): d for d in differences}
    dtype = by_path[("/temperature", "data_type")]
    assert (dtype.kind, dtype.expected, dtype.found) == ("changed", "float32", "int32")
    fill = by_path[("/temperature", "fill_value")]
    assert (fill.expected, fill.found) == ("NaN", 0)
    missing = by_path[("/obs/flags", None)]
    assert missing.kind == "missing" and missing.expected == spec.members["obs"].members["flags"]
    extra_attr = by_path[("/obs/empty", "attributes.added")]
    assert (extra_attr.kind, extra_attr.found) == ("extra", [1, 2])
    assert by_path[("/surprise", None)].kind == "extra"
    assert len(differences) == 5
    text = [str(d) for d in differences]
    assert "/temperature: data_type changed: expected 'float32', found 'int32'" in text
    assert "/obs/flags: array missing (expected by the model)" in text
    assert "/obs/empty: attributes.added not in the model (found [1,2])" in text
    assert all(json.dumps(d.to_json()) for d in differences)


def test_validate_v2_changed_dtype():
    store = build_v2().store
    spec = GroupSpec.from_zarr(store)
    root = zf.open_group(store, mode="r+")
    root.create_array("g/b", shape=(7,), dtype="<i8", chunks=(3,), compressors=None, overwrite=True)
    assert spec.validate(store) == [Difference("/g/b", "changed", "dtype", "<i4", "<i8")]


def test_validate_a_subtree_and_an_array():
    store = build_v3().store
    spec = GroupSpec.from_zarr(store, "obs")
    assert set(spec.members) == {"counts", "empty", "flags"}
    assert spec.validate(store, "obs") == []
    counts = zom.from_zarr(store, "obs/counts")
    assert isinstance(counts, ArraySpecV3)
    assert counts.validate(zf.open_group(store)["obs/counts"]) == []
    assert counts.validate(store, "obs/flags")[0].field == "shape"
    kind = counts.validate(store, "obs/empty")
    assert kind == [Difference("/", "changed", "node_type", "array", "group")]


def test_from_zarr_reads_consolidated_metadata_once():
    store = resolve_store(None)
    root = zf.create_group(store)
    for i in range(12):
        group = root.create_group(f"g{i}", attributes={"i": i})
        for j in range(3):
            group.create_array(f"a{j}", shape=(10,), dtype="int32", chunks=(5,))
    plain = CountingStore(store)
    walked = GroupSpec.from_zarr(plain)
    assert len(plain.requests) > 40  # every node read and every group listed

    zf.consolidate_metadata(store)
    counting = CountingStore(store)
    spec = GroupSpec.from_zarr(counting)
    # the root's document, holding the view, and the one batched probe every open makes
    # for a killed write's marker (storing/unfinished.py, warn_if_unfinished)
    assert counting.requests == [("get", "zarr.json"), ("get_many", ["__zarrforge_unfinished.json"])]
    assert spec == walked
    assert sum(1 for _ in spec.walk()) == 1 + 12 * 4


def test_to_zarr_refuses_to_clobber_unless_asked():
    store = build_v3().store
    other = GroupSpecV3(
        attributes={"other": True},
        members={
            "temperature": ArraySpecV3(
                shape=(3,),
                data_type="uint8",
                chunk_grid={"name": "regular", "configuration": {"chunk_shape": [3]}},
                chunk_key_encoding={"name": "default"},
                fill_value=0,
                codecs=[{"name": "bytes"}],
            )
        },
    )
    before = {k: store.get(k) for k in store.list()}
    with pytest.raises(ContainsNodeError, match="overwrite=True"):
        other.to_zarr(store)
    assert {k: store.get(k) for k in store.list()} == before

    other.to_zarr(store, overwrite=True)
    found = GroupSpec.from_zarr(store)
    assert set(found.members) == {"temperature"}
    assert found.attributes == {"other": True}
    assert list(store.list_prefix("temperature/c/")) == []  # old chunks are gone
    assert found.members["temperature"].data_type == "uint8"


def test_to_zarr_below_a_path_creates_parents_and_checks_them():
    spec = GroupSpec.from_zarr(build_v2().store)
    store = resolve_store(None)
    spec.to_zarr(store, "deep/er")
    assert GroupSpec.from_zarr(store, "deep/er") == spec
    assert GroupSpec.from_zarr(store).members["deep"].members["er"] == spec
    zf.create_array(store, "arr", shape=(2,), dtype="int8", zarr_format=2)
    with pytest.raises(NodeTypeError, match="is an array"):
        spec.to_zarr(store, "arr/child")


def test_to_zarr_checks_every_node_before_writing():
    spec = GroupSpec.from_zarr(build_v3().store)
    spec.members["obs"].members["counts"].codecs = [{"name": "no-such-codec"}]
    store = resolve_store(None)
    with pytest.raises(SpecError, match="/obs/counts") as info:
        spec.to_zarr(store)
    assert "no-such-codec" in str(info.value)
    assert list(store.list()) == []
    read_only = resolve_store(None, read_only=True)
    with pytest.raises(ReadOnlyError):
        GroupSpecV3().to_zarr(read_only)


def test_a_reserved_member_name_is_modelled_but_not_created():
    """A name with the spec's reserved "__" prefix (xarray's "__values__") is read into the
    model, but writing the model refuses it, as zarrforge's creation does by default."""
    source = zf.create_group(resolve_store(None))
    source.create_array("__values__", shape=(2,), dtype="int8", allow_reserved_name=True)
    spec = GroupSpec.from_zarr(source.store)
    assert list(spec.members) == ["__values__"]
    store = resolve_store(None)
    with pytest.raises(zf.errors.InvalidPathError, match="allow_reserved_name=True"):
        spec.to_zarr(store)
    assert list(store.list()) == []


def test_to_zarr_keeps_an_ancestors_consolidated_metadata_current():
    store = resolve_store(None)
    zf.create_group(store)
    zf.consolidate_metadata(store)
    spec = GroupSpec.from_zarr(build_v3().store)
    spec.to_zarr(store, "inner")
    via_view = GroupSpec.from_zarr(store)  # read from the root's consolidated metadata
    assert via_view.members["inner"] == spec
    consolidated = spec.to_zarr(resolve_store(None), consolidate=True)
    assert consolidated.metadata_model.consolidated is not None


def test_extra_properties_and_the_members_renaming_rule_round_trip():
    marker = {"must_understand": False, "note": "a future group field"}
    spec = GroupSpecV3(attributes={"a": 1}, extra={"members": marker}, members={"child": GroupSpecV3()})
    document = spec.to_json()
    assert document["_members"] == marker
    assert document["members"] == {"child": GroupSpecV3().to_json()}
    assert zom.schema_issues(document) == []
    assert zom.from_json(document) == spec
    store = resolve_store(None)
    spec.to_zarr(store)
    stored = json.loads(store.get("zarr.json"))
    assert stored["members"] == marker  # the Zarr document has its own name back
    assert GroupSpec.from_zarr(store) == spec


def test_formats_without_an_object_model_are_refused():
    group = zf.create_group(None, zarr_format="draft-2022")
    with pytest.raises(zom.UnsupportedFormatError, match="v2 and v3 only"):
        zom.from_zarr(group)
