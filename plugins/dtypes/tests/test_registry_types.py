"""The zarr-extensions types added for issue #15: int2/int4/uint2/uint4, complex_*, struct,
the legacy ``structured`` and zarr-python's ``null_terminated_bytes``.

Checked: every written ``data_type`` validates against the registry's schema.json;
fill values follow the registry; the ``bytes`` codec's stored layout (packed
fields, real then imaginary, one byte per sub-byte integer, both byte orders);
numpy dtype mapping; bad metadata is refused naming the field; and zarr-python
3.1 reads and writes the types it has, both ways.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import ml_dtypes
import numpy as np
import pytest
import zarr

import zarrforge as zf
from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError
from zarrforge_dtypes.complex_types import ALL as COMPLEX_TYPES
from zarrforge_dtypes.null_terminated_bytes import NullTerminatedBytes
from zarrforge_dtypes.small_ints import ALL as SMALL_INTS
from zarrforge_dtypes.struct_type import Struct
from zarrforge_std.stores.memory import MemoryStore

SPECS = Path("/work/shared/specs/zarr-extensions/data-types")

POINT = {
    "name": "struct",
    "configuration": {
        "fields": [
            {"name": "id", "data_type": "int32"},
            {"name": "flags", "data_type": "uint8"},
            {"name": "value", "data_type": "float64"},
        ]
    },
}
NESTED = {
    "name": "struct",
    "configuration": {
        "fields": [
            {
                "name": "point",
                "data_type": {
                    "name": "struct",
                    "configuration": {
                        "fields": [
                            {"name": "x", "data_type": "float32"},
                            {"name": "y", "data_type": "float32"},
                        ]
                    },
                },
            },
            {
                "name": "when",
                "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}},
            },
            {"name": "value", "data_type": "bfloat16"},
        ]
    },
}


def _document(store, path="a"):
    return json.loads(store.get(f"{path}/zarr.json"))


def _schema(name):
    text = (SPECS / name / "schema.json").read_text()
    if name.startswith("complex_float") and f'"const": "{name}"' not in text:
        # The registry's schema.json of several complex_<small float> types names a real
        # float type (copied from another schema) while its README names complex_<...>:
        # check the shape the schema describes, under the README's name.
        schema = json.loads(text)
        for branch in schema["oneOf"]:
            if "const" in branch:
                branch["const"] = name
            else:
                branch["properties"]["name"]["const"] = name
        return schema
    return json.loads(text)


@pytest.mark.parametrize(
    "dtype", [*[c.name for c in SMALL_INTS], *[c.name for c in COMPLEX_TYPES], POINT, NESTED]
)
def test_written_data_type_validates_against_the_registry_schema(dtype):
    store = MemoryStore()
    zf.create_array(store, "a", shape=(4,), dtype=dtype, chunks=(2,))
    written = _document(store)["data_type"]
    name = written if isinstance(written, str) else written["name"]
    jsonschema.validate(written, _schema(name))
    if name == "struct":  # nested struct fields validate too
        nested = written["configuration"]["fields"][0]["data_type"]
        if isinstance(nested, dict) and nested["name"] == "struct":
            jsonschema.validate(nested, _schema("struct"))


def test_every_registered_data_type_answers_from_numpy_dtype():
    for name in zf.registry.data_types.names():
        implementation = zf.registry.data_types.get(name)
        assert issubclass(implementation, DataType)
        # a classmethod that answers (None for a dtype nobody owns) without raising
        assert implementation.from_numpy_dtype(np.dtype("O")) is None, name


# -- sub-byte integers ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, low, high", [("int2", -2, 1), ("int4", -8, 7), ("uint2", 0, 3), ("uint4", 0, 15)]
)
def test_small_int_fill_values_are_range_checked(name, low, high):
    data_type = zf.registry.data_types.get(name).from_json(name, None)
    for value in (low, high, 0):
        assert data_type.fill_value_to_json(data_type.fill_value_from_json(value)) == value
    for bad in (low - 1, high + 1, 1.5, True, "1", None):
        with pytest.raises(MetadataError) as info:
            data_type.fill_value_from_json(bad)
        assert info.value.field == "fill_value"
    assert data_type.from_user_value(float(high)) == high


@pytest.mark.parametrize("name", ["int2", "int4", "uint2", "uint4"])
def test_small_ints_store_one_byte_each_and_read_by_the_low_bits(name):
    store = MemoryStore()
    np_dtype = np.dtype(getattr(ml_dtypes, name))
    a = zf.create_array(store, "a", shape=(4,), dtype=name, chunks=(4,), compressors=None, fill_value=1)
    assert a.dtype == np_dtype
    assert _document(store)["codecs"] == [{"name": "bytes"}]  # no endian
    values = np.array([0, 1, 1, 0], dtype=np_dtype)
    a[:] = values
    assert store.get("a/c/0") == bytes([0, 1, 1, 0])
    # another writer may leave the upper bits set: they are ignored
    bits = 2 if name.endswith("2") else 4
    garbage = bytes([0xF0 | 1, 0xF0, (0xF0 | ((1 << bits) - 1)) & 0xFF, 0xA0])
    store.set("a/c/0", garbage)
    expected = [1, 0, -1 if name.startswith("int") else (1 << bits) - 1, 0]
    assert [int(v) for v in zf.open_array(store, "a")[:]] == expected


def test_small_int_from_numpy_dtype():
    a = zf.create_array(None, shape=(2,), dtype=ml_dtypes.int4, chunks=(2,))
    assert a.data_type.to_json() == "int4"


# -- complex over any float -------------------------------------------------------------


@pytest.mark.parametrize("cls", COMPLEX_TYPES, ids=lambda c: c.name)
def test_complex_fill_values_are_pairs_of_component_encodings(cls):
    data_type = cls()
    zero = data_type.fill_value_to_json(data_type.default_fill_value())
    assert isinstance(zero, list) and len(zero) == 2
    pair = [1.0, "0x00" if cls.name.endswith("e8m0fnu") else 0.5]
    if cls.name.endswith(("float16", "float32", "float64", "bfloat16")):
        pair = [1.5, "0x" + "0" * (2 * data_type._part().numpy_dtype.itemsize)]
    again = data_type.fill_value_to_json(data_type.fill_value_from_json(pair))
    assert (
        np.asarray(data_type.fill_value_from_json(again)).tobytes()
        == np.asarray(data_type.fill_value_from_json(pair)).tobytes()
    )
    for bad in (1.0, [1.0], [1.0, 2.0, 3.0], "NaN", None):
        with pytest.raises(MetadataError) as info:
            data_type.fill_value_from_json(bad)
        assert info.value.field == "fill_value"


@pytest.mark.parametrize("endian", ["little", "big"])
def test_complex_bfloat16_is_real_then_imaginary_in_the_codec_byte_order(endian):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "a",
        shape=(1,),
        dtype="complex_bfloat16",
        chunks=(1,),
        compressors=None,
        serializer={"name": "bytes", "configuration": {"endian": endian}},
        fill_value=[1.5, "Infinity"],
    )
    value = np.zeros(1, a.dtype)
    value["real"], value["imag"] = 1.5, 2.0  # 0x3fc0, 0x4000
    a[:] = value
    raw = store.get("a/c/0")
    assert raw == (b"\xc0\x3f\x00\x40" if endian == "little" else b"\x3f\xc0\x40\x00")
    b = zf.open_array(store, "a")
    assert b[:].tobytes() == value.tobytes()
    assert _document(store)["fill_value"] == [1.5, "Infinity"]


def test_complex_float32_is_numpy_complex64():
    a = zf.create_array(None, shape=(3,), dtype="complex_float32", chunks=(2,), fill_value=[1.0, "NaN"])
    assert a.dtype == np.complex64
    a[:2] = [1 + 2j, 3 - 4j]
    assert list(a[:2]) == [1 + 2j, 3 - 4j]
    assert np.isnan(a[2].imag) and a[2].real == 1.0


# -- struct -----------------------------------------------------------------------------


def test_struct_is_packed_in_declaration_order_with_the_codec_byte_order():
    for endian, fmt in (("little", "<"), ("big", ">")):
        store = MemoryStore()
        a = zf.create_array(
            store,
            "a",
            shape=(2,),
            dtype=POINT,
            chunks=(2,),
            compressors=None,
            serializer={"name": "bytes", "configuration": {"endian": endian}},
            fill_value={"id": -1, "flags": 3, "value": "NaN"},
        )
        assert a.dtype.itemsize == 13  # 4 + 1 + 8: no padding
        values = np.array([(1, 2, 0.5), (-7, 255, 1e300)], dtype=a.dtype)
        a[:] = values
        packed = np.array(
            values, dtype=[("id", fmt + "i4"), ("flags", "u1"), ("value", fmt + "f8")]
        ).tobytes()
        assert store.get("a/c/0") == packed
        assert zf.open_array(store, "a")[:].tobytes() == values.tobytes()
        assert _document(store)["fill_value"] == {"id": -1, "flags": 3, "value": "NaN"}


def test_nested_struct_round_trips_with_extension_fields():
    store = MemoryStore()
    fill = {"point": {"x": 1.0, "y": -2.0}, "when": 0, "value": "Infinity"}
    a = zf.create_array(store, "a", shape=(3,), dtype=NESTED, chunks=(2,), fill_value=fill)
    value = np.zeros(1, a.dtype)
    value["point"]["x"], value["when"], value["value"] = 3.5, np.datetime64(5, "s"), 0.25
    a[:1] = value
    b = zf.open_array(store, "a")
    assert b[:1].tobytes() == value.tobytes()
    assert b.data_type == a.data_type
    assert _document(store)["fill_value"] == fill
    assert b[2]["point"]["y"] == -2.0


@pytest.mark.parametrize(
    "config, field",
    [
        ({"fields": []}, "configuration.fields"),
        (
            {"fields": [{"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int8"}]},
            "configuration.fields[1].name",
        ),
        ({"fields": [{"name": "", "data_type": "int8"}]}, "configuration.fields[0].name"),
        ({"fields": [{"name": "s", "data_type": "string"}]}, "configuration.fields[0].data_type"),
        ({"fields": [["a", "int8"]]}, "configuration.fields[0]"),  # pairs are legacy only
        ({"fields": [{"name": "a", "data_type": "int8", "extra": 1}]}, "configuration.fields[0]"),
        ({"fields": [{"name": "a", "data_type": 3}]}, "configuration.fields[0].data_type"),
        ({"fields": [{"name": "a", "data_type": "no-such-type"}]}, "configuration.fields[0].data_type"),
        ({}, "configuration"),
    ],
)
def test_bad_struct_configurations_name_the_field(config, field):
    with pytest.raises(MetadataError) as info:
        Struct.from_json("struct", config)
    assert info.value.field == field


def test_deeply_nested_struct_is_refused_not_recursed() -> None:
    data_type: object = "int8"
    configuration: dict[str, Any] = {}
    for _ in range(200):  # the configuration of a struct 200 deep
        configuration = {"fields": [{"name": "f", "data_type": data_type}]}
        data_type = {"name": "struct", "configuration": configuration}
    with pytest.raises(MetadataError):
        Struct.from_json("struct", configuration)


def test_struct_fill_value_needs_every_field():
    data_type = Struct.from_json("struct", POINT["configuration"])
    for bad in (
        {"id": 1, "flags": 2},
        {"id": 1, "flags": 2, "value": 1, "x": 0},
        [1, 2, 3],
        "AAAA",
        {"id": 1.5, "flags": 2, "value": 0},
    ):
        with pytest.raises(MetadataError) as info:
            data_type.fill_value_from_json(bad)
        assert info.value.field == "fill_value"


def test_numpy_structured_dtype_maps_to_struct_and_aligned_to_packed():
    a = zf.create_array(
        None, shape=(2,), dtype=np.dtype([("x", "<i2"), ("y", "f4")], align=True), chunks=(2,)
    )
    assert a.data_type.to_json() == {
        "name": "struct",
        "configuration": {
            "fields": [{"name": "x", "data_type": "int16"}, {"name": "y", "data_type": "float32"}]
        },
    }
    assert a.dtype.itemsize == 6


def test_legacy_structured_reads_pairs_base64_and_no_endian():
    store = MemoryStore()
    a = zf.create_array(
        store,
        "a",
        shape=(2,),
        dtype=POINT,
        chunks=(2,),
        compressors=None,
        serializer={"name": "bytes", "configuration": {"endian": "little"}},
    )
    a[:] = np.array([(1, 2, 0.5), (3, 4, 1.5)], dtype=a.dtype)
    document = _document(store)
    document["data_type"] = {
        "name": "structured",
        "configuration": {"fields": [["id", "int32"], ["flags", "uint8"], ["value", "float64"]]},
    }
    document["codecs"] = [{"name": "bytes"}]
    document["fill_value"] = "BwAAAAMAAAAAAAD4Pw=="  # (7, 3, 1.5) packed little-endian
    store.set("a/zarr.json", json.dumps(document).encode())
    b = zf.open_array(store, "a", mode="r+")
    assert b[:].tolist() == [(1, 2, 0.5), (3, 4, 1.5)]
    assert b.fill_value.tolist() == (7, 3, 1.5)
    b.attrs["k"] = 1  # a rewrite keeps the legacy document zarr-python 3.1 reads
    rewritten = _document(store)
    assert rewritten["data_type"] == document["data_type"]
    assert rewritten["fill_value"] == document["fill_value"]


# -- null_terminated_bytes --------------------------------------------------------------


def test_null_terminated_bytes_maps_numpy_s_and_encodes_fill_values_in_base64():
    store = MemoryStore()
    a = zf.create_array(store, "a", shape=(3,), dtype="S4", chunks=(2,), compressors=None, fill_value=b"ab")
    document = _document(store)
    assert document["data_type"] == {"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}}
    assert document["fill_value"] == "YWI="
    a[:2] = np.array([b"wxyz", b"q"], dtype="S4")
    assert store.get("a/c/0") == b"wxyzq\x00\x00\x00"
    assert zf.open_array(store, "a")[:].tolist() == [b"wxyz", b"q", b"ab"]
    data_type = NullTerminatedBytes(2)
    for bad in ("YWJj", "not base64!", 0, None):
        with pytest.raises(MetadataError) as info:
            data_type.fill_value_from_json(bad)
        assert info.value.field == "fill_value"
    for bad in (0, -1, 1.5, "4"):
        with pytest.raises(MetadataError) as info:
            NullTerminatedBytes.from_json("null_terminated_bytes", {"length_bytes": bad})
        assert info.value.field == "configuration.length_bytes"


# -- zarr-python 3.1 --------------------------------------------------------------------


def test_zarr_python_reads_what_zarrforge_writes(tmp_path):
    a = zf.create_array(str(tmp_path / "s.zarr"), shape=(3,), dtype="S3", chunks=(2,), fill_value=b"z")
    a[:2] = np.array([b"abc", b"d"], dtype="S3")
    assert zarr.open_array(str(tmp_path / "s.zarr"), mode="r")[:].tolist() == [b"abc", b"d", b"z"]
    # complex_float32/64 are what zarr-python calls complex64/complex128; the others and
    # struct (zarr-python 3.1 knows only "structured") it cannot read.


def test_zarrforge_reads_what_zarr_python_writes(tmp_path):
    import warnings

    dt = np.dtype([("x", "<i4"), ("y", "<f8")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(
            str(tmp_path / "st.zarr"),
            shape=(3,),
            dtype=dt,
            chunks=(2,),
            zarr_format=3,
            fill_value=np.array((7, 1.5), dt)[()],
        )
        z[:2] = np.array([(1, 2.0), (3, 4.5)], dt)
        s = zarr.create_array(
            str(tmp_path / "s.zarr"), shape=(3,), dtype="S3", chunks=(2,), zarr_format=3, fill_value=b"ab"
        )
        s[:1] = np.array([b"xyz"], "S3")
    st = zf.open_array(str(tmp_path / "st.zarr"))
    assert st[:].tolist() == [(1, 2.0), (3, 4.5), (7, 1.5)]
    assert zf.open_array(str(tmp_path / "s.zarr"))[:].tolist() == [b"xyz", b"ab", b"ab"]


def test_a_plugin_record_type_wins_over_struct_whatever_its_name():
    from zf_example.rgb import RGB8, RGB8_DTYPE  # the example third-party plugin

    a = zf.create_array(None, shape=(2,), dtype=RGB8_DTYPE, chunks=(2,))
    assert isinstance(a.data_type, RGB8)  # "zf_example.rgb8" sorts after "struct"
    b = zf.create_array(None, shape=(2,), dtype=[("r", "u1"), ("g", "u1")], chunks=(2,))
    assert isinstance(b.data_type, Struct)


# tensorstore (0.1.x here) has int2 and int4 but no uint2/uint4
@pytest.mark.parametrize("name, values", [("int2", [-2, 1]), ("int4", [-8, 7])])
def test_sub_byte_integers_with_tensorstore_both_ways(name, values, tmp_path):
    import tensorstore as ts

    np_dtype = np.dtype(getattr(ml_dtypes, name))
    ours = str(tmp_path / "zf.zarr")
    a = zf.create_array(ours, shape=(4,), dtype=name, chunks=(4,), fill_value=1)
    a[:2] = np.array(values, dtype=np_dtype)
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": ours}}).result()
    assert t.read().result().astype(int).tolist() == [*values, 1, 1]

    theirs = str(tmp_path / "ts.zarr")
    t = ts.open(
        {
            "driver": "zarr3",
            "kvstore": {"driver": "file", "path": theirs},
            "metadata": {
                "data_type": name,
                "shape": [4],
                "fill_value": 0,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            },
            "create": True,
        }
    ).result()
    t[:2].write(np.array(values, dtype=np_dtype)).result()
    assert zf.open_array(theirs)[:].astype(int).tolist() == [*values, 0, 0]
