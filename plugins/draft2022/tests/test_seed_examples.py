"""The JSON examples of the seed document (the 2022 editor's draft) parse, and write back equal."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest
from _draft_helpers import doc

import zarrforge as zf
from zarrforge import registry
from zarrforge.errors import MustUnderstandError
from zarrforge_draft2022 import Draft2022Format, FallbackDataTypeWarning
from zarrforge_draft2022 import data_types as dts

ENTRY_POINT = {
    "zarr_format": "https://purl.org/zarr/spec/core/3.0",
    "metadata_encoding": "https://purl.org/zarr/spec/core/3.0",
    "metadata_key_suffix": ".json",
    "extensions": [],
}

ENTRY_POINT_WITH_EXTENSION = {
    "zarr_format": "https://purl.org/zarr/spec/core/3.0",
    "metadata_encoding": "https://purl.org/zarr/spec/core/3.0",
    "metadata_key_suffix": ".json",
    "extensions": [
        {
            "extension": "http://example.org/zarr/extension/foo",
            "must_understand": False,
            "configuration": {"foo": "bar"},
        }
    ],
}

GZIP_ARRAY = {
    "shape": [10000, 1000],
    "data_type": "<f8",
    "chunk_grid": {"type": "regular", "chunk_shape": [1000, 100], "separator": "/"},
    "chunk_memory_layout": "C",
    "codecs": [{"type": "https://purl.org/zarr/spec/codec/gzip/1.0", "configuration": {"level": 1}}],
    "fill_value": "NaN",
    "extensions": [],
    "attributes": {"foo": 42, "bar": "apples", "baz": [1, 2, 3, 4]},
}

EXTENSION_TYPE_ARRAY = {
    "shape": [10000, 1000],
    "data_type": {
        "extension": "https://purl.org/zarr/spec/extensions/datetime-dtypes/1.0",
        "type": "<M8[ns]",
        "fallback": "<i8",
    },
    "chunk_grid": {"type": "regular", "chunk_shape": [1000, 100], "separator": "/"},
    "chunk_memory_layout": "C",
    "codecs": [{"type": "https://purl.org/zarr/spec/codec/gzip/1.0", "configuration": {"level": 1}}],
    "fill_value": None,
    "extensions": [],
    "attributes": {},
}

GROUP = {"attributes": {"spam": "ham", "eggs": 42}}


@pytest.mark.parametrize("entry", [ENTRY_POINT, ENTRY_POINT_WITH_EXTENSION])
def test_entry_points_parse(hierarchy, entry):
    store = hierarchy({"zarr.json": entry, "meta/root.group.json": GROUP})
    group = zf.open_group(store, mode="r")
    assert group.format.name == "draft-2022"
    assert dict(group.attrs) == GROUP["attributes"]
    entry_point = group.format.entry_point(store)
    assert entry_point.dialect == "editor" and entry_point.suffix == ".json"
    assert list(entry_point.extensions) == entry["extensions"]


def test_an_unknown_extension_that_must_be_understood_stops_the_hierarchy(hierarchy):
    entry = copy.deepcopy(ENTRY_POINT_WITH_EXTENSION)
    entry["extensions"][0]["must_understand"] = True
    store = hierarchy({"zarr.json": entry, "meta/root.group.json": GROUP})
    with pytest.raises(MustUnderstandError) as info:
        zf.open_group(store, mode="r")
    assert info.value.key == "zarr.json" and info.value.field == "extensions[0].extension"
    assert "http://example.org/zarr/extension/foo" in str(info.value)


def test_gzip_array_example(hierarchy):
    example = copy.deepcopy(GZIP_ARRAY)
    example["shape"], example["chunk_grid"]["chunk_shape"] = [10, 8], [4, 3]  # small, same form
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/arr.array.json": example})
    a = zf.open_array(store, "arr", mode="r+")
    assert a.dtype == np.dtype("float64") and np.isnan(a.fill_value)
    assert [k.to_json() for k in a.codecs] == [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "gzip", "configuration": {"level": 1}},
    ]
    assert a.chunks == (4, 3) and dict(a.attrs) == example["attributes"]
    assert np.isnan(a[...]).all()
    # written back: the same document
    assert a.metadata == example
    a.attrs["foo"] = 43
    assert doc(store, "meta/root/arr.array.json") == {
        **example,
        "attributes": {**example["attributes"], "foo": 43},
    }
    # the data path: gzip members at data/root/arr/c<i>/<j>
    a[...] = np.arange(80.0).reshape(10, 8)
    import gzip

    raw = gzip.decompress(store.get("data/root/arr/c1/2"))
    assert np.array_equal(
        np.frombuffer(raw, "<f8").reshape(4, 3)[:, :2], np.arange(80.0).reshape(10, 8)[4:8, 6:8]
    )


def test_the_full_size_gzip_example_opens_without_touching_chunks(hierarchy):
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/arr.array.json": GZIP_ARRAY})
    a = zf.open_array(store, "arr")
    assert a.shape == (10000, 1000) and a.chunks == (1000, 100) and a.nchunks == 100
    assert a.metadata == GZIP_ARRAY


def test_extension_data_type_example_resolves_when_the_extension_is_installed(hierarchy):
    if "numpy.datetime64" not in registry.data_types:
        pytest.skip("zarrforge-dtypes (numpy.datetime64) is not installed")  # pragma: no cover
    example = copy.deepcopy(EXTENSION_TYPE_ARRAY)
    example["shape"], example["chunk_grid"]["chunk_shape"] = [4, 5], [2, 5]
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/t.array.json": example})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = zf.open_array(store, "t", mode="r+")
    assert a.dtype == np.dtype("datetime64[ns]")
    assert a.metadata == example  # the extension object and the null fill value come back
    a[0, :] = np.datetime64("2022-05-25T00:00", "ns")
    assert a[0, 3] == np.datetime64("2022-05-25", "ns")


def test_extension_data_type_example_falls_back_with_a_warning(hierarchy, monkeypatch):
    monkeypatch.setattr(dts, "DATETIME_URIS", frozenset())  # nobody understands the extension
    example = copy.deepcopy(EXTENSION_TYPE_ARRAY)
    example["shape"], example["chunk_grid"]["chunk_shape"] = [4, 5], [2, 5]
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/t.array.json": example})
    with pytest.warns(FallbackDataTypeWarning, match=r"datetime-dtypes/1\.0.*fallback '<i8'"):
        a = zf.open_array(store, "t", mode="r+")
    assert a.dtype == np.dtype("int64") and a.fill_value == 0
    assert a.metadata == example  # written back with the extension, not the fallback
    with pytest.warns(FallbackDataTypeWarning):  # the update reads the latest document again
        a.attrs["seen"] = True
    assert doc(store, "meta/root/t.array.json")["data_type"] == example["data_type"]
    assert doc(store, "meta/root/t.array.json")["fill_value"] is None


def test_an_extension_data_type_without_fallback_is_an_error(hierarchy):
    example = copy.deepcopy(EXTENSION_TYPE_ARRAY)
    example["data_type"] = {"extension": "https://example.org/no-such-type", "type": "x"}
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/t.array.json": example})
    with pytest.raises(zf.errors.UnknownExtensionError) as info:
        zf.open_array(store, "t")
    assert info.value.key == "meta/root/t.array.json"
    assert info.value.field == "data_type.extension"


def test_group_example(hierarchy):
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/foo.group.json": GROUP})
    g = zf.open_group(store, "foo", mode="r+")
    assert dict(g.attrs) == GROUP["attributes"] and g.metadata == GROUP
    g.attrs["eggs"] = 43
    assert doc(store, "meta/root/foo.group.json") == {"attributes": {"spam": "ham", "eggs": 43}}


def test_storage_key_table(hierarchy):
    """The draft's "Metadata Storage Key example" and "Data Storage Key example" tables."""
    fmt = Draft2022Format(dialect="editor")
    store = hierarchy({})
    zf.create_group(store, "", fmt=fmt)
    zf.create_group(store, "foo", fmt=fmt)
    zf.create_group(store, "foo/bar", fmt=fmt)
    baz = zf.create_array(store, "foo/baz", shape=(4, 2), chunks=(2, 2), dtype="int8", fmt=fmt)
    baz[2:4, 0:2] = 1
    assert sorted(store._data) == [
        "data/root/foo/baz/c1/0",
        "meta/root.group.json",
        "meta/root/foo.group.json",
        "meta/root/foo/bar.group.json",
        "meta/root/foo/baz.array.json",
        "zarr.json",
    ]
    root = hierarchy({})
    r = zf.create_array(root, "", shape=(2,), chunks=(1,), dtype="int8", fmt=fmt)
    r[...] = 1
    assert sorted(root._data) == ["data/root/c0", "data/root/c1", "meta/root.array.json", "zarr.json"]


def test_written_documents_are_json(hierarchy):
    store = hierarchy({"zarr.json": ENTRY_POINT, "meta/root/arr.array.json": GZIP_ARRAY})
    a = zf.open_array(store, "arr", mode="r+")
    a.attrs["x"] = "é"
    text = store.get("meta/root/arr.array.json").decode("utf-8")
    assert json.loads(text)["attributes"]["x"] == "é"
