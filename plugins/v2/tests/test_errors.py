"""Malformed v2 documents, arguments v2 cannot hold, and keeping v2 and v3 apart."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import registry
from zarrforge.errors import MetadataError, NodeNotFoundError, UnknownExtensionError
from zarrforge_std.format_v3 import V3Format
from zarrforge_std.stores.memory import MemoryStore
from zarrforge_v2 import V2Format

BASE = {
    "shape": [4, 4],
    "chunks": [2, 2],
    "dtype": "<i4",
    "fill_value": 0,
    "order": "C",
    "filters": None,
    "dimension_separator": ".",
    "compressor": None,
    "zarr_format": 2,
}


def store_with(document: dict | bytes, path: str = "a") -> MemoryStore:
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    store.set(f"{path}/.zarray", data)
    return store


@pytest.mark.parametrize(
    "change, field",
    [
        ({"dtype": "<q9"}, "dtype"),
        ({"dtype": 5}, "dtype"),
        ({"dtype": [["r", "|u1", [2]]]}, "dtype[0]"),  # shaped fields: struct has none
        ({"dtype": [["r", "<u2"], ["g", ">u2"]]}, "dtype"),  # one byte order for all fields
        ({"dtype": [["r", "|u1"], ["g", "|u1"]], "fill_value": 0}, "fill_value"),
        ({"dtype": "|O"}, "dtype"),
        ({"dtype": "|O", "filters": [{"id": "pickle"}]}, "filters[0].id"),
        ({"shape": "x"}, "shape"),
        ({"shape": [4, -1]}, "shape"),
        ({"chunks": [2]}, "chunks"),
        ({"chunks": [2, 2, 2]}, "chunks"),
        ({"chunks": [0, 2]}, "chunks"),
        ({"chunks": None}, "chunks"),
        ({"compressor": {"id": "no-such-codec"}}, "compressor.id"),
        ({"compressor": {"level": 1}}, "compressor.id"),
        ({"compressor": "zlib"}, "compressor"),
        ({"compressor": {"id": "zstd", "level": 1, "bogus": 2}}, "compressor"),
        ({"filters": {"id": "delta"}}, "filters"),
        ({"filters": [{"id": "no-such-filter"}]}, "filters[0].id"),
        ({"filters": [{"id": "zlib"}, {"id": "delta", "dtype": "<i4"}]}, "filters[1]"),
        ({"order": "X"}, "order"),
        ({"dimension_separator": "-"}, "dimension_separator"),
        ({"fill_value": "abc"}, "fill_value"),
        ({"fill_value": 2**40}, "fill_value"),
        ({"dtype": "<f8", "fill_value": "nan"}, "fill_value"),
        ({"dtype": "|V3", "fill_value": "AAA="}, "fill_value"),
        ({"dtype": "|V3", "fill_value": "%%%"}, "fill_value"),
        ({"zarr_format": 3}, "zarr_format"),
        ({"zarr_format": None}, "zarr_format"),
    ],
)
def test_malformed_zarray_names_key_and_field(change, field):
    document = {**BASE, **change}
    if change.get("chunks", 0) is None:
        document.pop("chunks")
    store = store_with(document)
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")
    assert info.value.key == "a/.zarray"
    assert info.value.field == field
    assert "a/.zarray" in str(info.value) and field in str(info.value)


def test_missing_required_field():
    document = dict(BASE)
    del document["dtype"]
    with pytest.raises(MetadataError) as info:
        zf.open_array(store_with(document), "a")
    assert (info.value.key, info.value.field) == ("a/.zarray", "dtype")


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]", b'{"zarr_format": 2, "x": NaN}'])
def test_unreadable_zarray(data):
    with pytest.raises(MetadataError) as info:
        zf.open_array(store_with(data), "a")
    assert info.value.key == "a/.zarray"


def test_bad_group_documents():
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 3}')
    with pytest.raises(MetadataError) as info:
        V2Format().read_node(store, "")
    assert (info.value.key, info.value.field) == (".zgroup", "zarr_format")
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set(".zattrs", b"[1]")
    with pytest.raises(MetadataError) as info:
        zf.open_group(store, mode="r")
    assert info.value.key == ".zattrs"
    store.set(".zattrs", b"{}")
    store.set(".zarray", json.dumps(BASE).encode())
    with pytest.raises(MetadataError, match="either an array or a group"):
        zf.open(store)


@pytest.mark.parametrize(
    "zmetadata, field",
    [
        ({"metadata": {}, "zarr_consolidated_format": 2}, "zarr_consolidated_format"),
        ({"zarr_consolidated_format": 1}, "metadata"),
        ({"metadata": {"a/.zarray": 3}, "zarr_consolidated_format": 1}, "metadata['a/.zarray']"),
    ],
)
def test_malformed_zmetadata(zmetadata, field):
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set(".zmetadata", json.dumps(zmetadata).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_group(store, mode="r")
    assert (info.value.key, info.value.field) == (".zmetadata", field)


@pytest.mark.parametrize("zmetadata", [b"{not json", json.dumps({"zarr_consolidated_format": 9}).encode()])
def test_use_consolidated_false_neither_reads_nor_needs_zmetadata(zmetadata):
    """Before: .zmetadata was read (and had to be valid) even with use_consolidated=False."""
    from zarrforge_std.runtime_transformers import RequestCounter

    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set("ok/.zarray", json.dumps(BASE).encode())
    store.set(".zmetadata", zmetadata)
    counted = RequestCounter(store)

    def keys_read():
        return {
            key
            for kind, detail in counted.calls
            for key in (
                [detail[0]] if kind == "get" else [k for k, _ in detail] if kind == "get_many" else [detail]
            )
        }

    group = zf.open_group(counted, mode="r", use_consolidated=False)
    assert sorted(group) == ["ok"] and group["ok"].shape == tuple(BASE["shape"])
    assert ".zgroup" in keys_read() and ".zmetadata" not in keys_read()
    assert zf.open(counted, mode="r", use_consolidated=False).path == ""
    assert ".zmetadata" not in keys_read()
    with pytest.raises(MetadataError) as info:  # wanted, it must be readable
        zf.open_group(store, mode="r")
    assert info.value.key == ".zmetadata"


@pytest.mark.parametrize(
    "member, document, field",
    [
        ("a", {"a/.zarray": {**BASE, "dtype": "<q9"}}, "metadata['a/.zarray'].dtype"),
        ("g", {"g/.zgroup": {"zarr_format": 3}}, "metadata['g/.zgroup'].zarr_format"),
    ],
)
def test_an_unreadable_zmetadata_entry_fails_only_its_member(member, document, field):
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set("ok/.zarray", json.dumps(BASE).encode())
    store.set(
        ".zmetadata",
        json.dumps({"metadata": {**document, "ok/.zarray": BASE}, "zarr_consolidated_format": 1}).encode(),
    )
    group = zf.open_group(store, mode="r")
    assert sorted(group) == sorted([member, "ok"])
    assert group["ok"].shape == tuple(BASE["shape"])
    with pytest.raises(MetadataError) as info:
        group[member]
    assert (info.value.key, info.value.field) == (".zmetadata", field)


def test_object_arrays_without_the_dtypes_plugin(monkeypatch):
    installed = registry.data_types._installed_entry_points()
    monkeypatch.setattr(
        registry.data_types, "_installed", {k: v for k, v in installed.items() if k != "string"}
    )
    monkeypatch.setattr(registry.data_types, "_loaded", {})
    monkeypatch.setattr(registry.data_types, "_answers", {})
    store = store_with({**BASE, "dtype": "|O", "fill_value": "", "filters": [{"id": "vlen-utf8"}]})
    with pytest.raises(UnknownExtensionError) as info:
        zf.open_array(store, "a")
    assert (info.value.key, info.value.field) == ("a/.zarray", "dtype")
    assert "zarrforge-dtypes" in str(info.value)


# --- creation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"compressors": [{"id": "zlib"}, {"id": "gzip"}]}, "compressors"),
        ({"compressors": ["zstd", "crc32c"]}, "compressors"),
        ({"shards": (4, 4)}, "shards"),
        ({"serializer": {"name": "numcodecs.json2"}}, "serializer"),
        ({"dimension_names": ["y", None]}, "dimension_names"),
        ({"dimension_names": ["y"]}, "dimension_names"),
        ({"dimension_names": ["a", "b"], "attributes": {"_ARRAY_DIMENSIONS": ["c", "d"]}}, "dimension_names"),
        ({"filters": [{"name": "transpose", "configuration": {"order": [0, 1]}}]}, "filters[0]"),
        (
            {"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}}},
            "chunk_key_encoding",
        ),
        ({"chunks": (2, 2, 2)}, "chunks"),
        ({"fill_value": "x"}, "fill_value"),
        ({"compressors": {"id": "no-such-codec"}}, "compressors[0].id"),
        (
            {"serializer": {"name": "bytes", "configuration": {"endian": "little"}}, "dtype": ">i4"},
            "serializer",
        ),
        ({"extensions": [{"name": "x", "must_understand": False}]}, "extensions"),
    ],
)
def test_creation_refuses_what_v2_cannot_hold(kwargs, field):
    store = MemoryStore()
    arguments = {"shape": (4, 4), "chunks": (2, 2), "dtype": "int32", **kwargs}
    with pytest.raises(MetadataError) as info:
        zf.create_array(store, "a", zarr_format=2, **arguments)
    assert info.value.field == field
    assert list(store.list()) == []  # nothing written


def test_data_types_without_a_v2_type_string_are_refused():
    import ml_dtypes  # noqa: F401

    if "bfloat16" not in registry.data_types:
        pytest.skip("zarrforge-dtypes is not installed")
    with pytest.raises(MetadataError, match="no Zarr v2 type string") as info:
        zf.create_array(MemoryStore(), "a", shape=(2,), dtype="bfloat16", zarr_format=2)
    assert info.value.field == "dtype"


def test_v2_groups_have_no_extensions():
    with pytest.raises(MetadataError) as info:
        V2Format().new_group({}, [{"name": "x", "must_understand": False}])
    assert info.value.field == "extensions"


# --- v2 and v3 never mix ------------------------------------------------------------------


def test_a_v3_hierarchy_is_not_read_as_v2():
    store = MemoryStore()
    root = zf.create_group(store, attributes={"v": 3})
    root.create_array("a", shape=(2,), dtype="int8")
    assert V2Format().read_node(store, "") is None
    assert V2Format().read_node(store, "a") is None
    assert not V2Format().detect(store, "a")
    assert V2Format().list_children(store, "") == []
    with pytest.raises(NodeNotFoundError):
        zf.open_group(store, mode="r", zarr_format=2)


def test_a_v2_hierarchy_is_not_read_as_v3():
    store = MemoryStore()
    root = zf.create_group(store, zarr_format=2, attributes={"v": 2})
    root.create_array("a", shape=(2,), dtype="int8")
    assert V3Format().read_node(store, "") is None
    assert V3Format().list_children(store, "") == []
    g = zf.open_group(store, mode="r")
    assert g.metadata_model.format_name == "2" and g["a"].metadata_model.format_name == "2"


def test_groups_list_only_children_of_their_own_format():
    store = MemoryStore()
    zf.create_group(store, zarr_format=2)
    zf.create_group(store, "v2child", zarr_format=2)
    # a v3 node below a v2 group, written by someone else
    store.set(
        "v3child/zarr.json", json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}).encode()
    )
    g = zf.open_group(store, mode="r")
    assert g.keys() == ["v2child"]
    assert "v3child" not in g
    with pytest.raises(NodeNotFoundError):
        g["v3child"]


def test_documents_of_the_other_format_are_ignored():
    store = MemoryStore()
    zf.create_array(store, "a", shape=(2,), dtype="int8", attributes={"mine": 1})
    store.set("a/.zattrs", b'{"foreign": 1}')  # a stray v2 attributes file beside zarr.json
    a = zf.open_array(store, "a")
    assert a.metadata_model.format_name == "3" and a.attrs.asdict() == {"mine": 1}


def test_consolidated_v2_view_ignores_v3_entries():
    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set(
        ".zmetadata",
        json.dumps(
            {
                "zarr_consolidated_format": 1,
                "metadata": {
                    ".zgroup": {"zarr_format": 2},
                    "x/zarr.json": {"zarr_format": 3, "node_type": "group"},
                    "y/.zgroup": {"zarr_format": 2},
                    "z/.zattrs": {"orphan": True},
                },
            }
        ).encode(),
    )
    g = zf.open_group(store, mode="r")
    assert sorted(g.metadata_model.consolidated) == ["y"]
    assert g.keys() == ["y"]


def test_string_arrays_from_zarr_python_2_with_numeric_fill():
    if "string" not in registry.data_types:
        pytest.skip("zarrforge-dtypes is not installed")
    store = store_with({**BASE, "dtype": "|O", "fill_value": 0, "filters": [{"id": "vlen-utf8"}]})
    a = zf.open_array(store, "a")
    assert a.data_type.to_json() == "string" and a.fill_value == "0"
    assert a[0, :2].tolist() == ["0", "0"]
    assert a.dtype == np.dtypes.StringDType()


def test_a_zmetadata_without_its_format_member_reads_as_format_1():
    # kerchunk's parquet reference sets write .zmetadata so, with a record_size beside it
    from zarrforge_v2.consolidated import parse_consolidated

    entries = parse_consolidated(
        {"metadata": {".zgroup": {"zarr_format": 2}, "a/.zgroup": {"zarr_format": 2}}, "record_size": 5},
        key=".zmetadata",
    )
    assert list(entries) == ["a"]
    with pytest.raises(MetadataError, match="zarr_consolidated_format"):
        parse_consolidated({"metadata": {}, "zarr_consolidated_format": None}, key=".zmetadata")
