"""Fill values, data type spellings, extensions, must_understand, and errors naming key and field."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _draft_helpers import doc, entry_point
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrforge as zf
from zarrforge import registry
from zarrforge.errors import MetadataError, MustUnderstandError, UnknownExtensionError
from zarrforge_draft2022 import Draft2022Format
from zarrforge_draft2022 import data_types as dts
from zarrforge_draft2022 import fill_values as fills
from zarrforge_std.stores.memory import MemoryStore

KEY = "meta/root/a.array.json"


def array(**changes):
    document = {
        "shape": [4],
        "data_type": "float64",
        "chunk_memory_layout": "C",
        "chunk_grid": {"type": "regular", "chunk_shape": [2], "separator": "/"},
        "fill_value": 0,
        "codecs": [],
        "extensions": [],
        "attributes": {},
    }
    document.update(changes)
    return {k: v for k, v in document.items() if v is not ...}


def open_a(hierarchy, dialect="editor", **changes):
    return zf.open_array(hierarchy({KEY: array(**changes)}, dialect=dialect), "a", mode="r+")


# --- fill values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,expected",
    [
        ("NaN", math.nan),
        ("+Infinity", math.inf),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        ("0x3ff8000000000000", 1.5),
        ("0b0011111111111000000000000000000000000000000000000000000000000000", 1.5),
        (2.25, 2.25),
        (-3, -3.0),
    ],
)
def test_float_fill_values(hierarchy, value, expected):
    a = open_a(hierarchy, fill_value=value)
    assert (math.isnan(a.fill_value) and math.isnan(expected)) or a.fill_value == expected


@pytest.mark.parametrize("dialect,expected", [("editor", "+Infinity"), ("zarr-python", "Infinity")])
def test_infinity_is_written_as_each_dialect_reads_it(dialect, expected):
    store = MemoryStore()
    zf.create_array(
        store, "a", shape=(1,), dtype="f4", fill_value=np.inf, fmt=Draft2022Format(dialect=dialect)
    )
    assert doc(store, KEY)["fill_value"] == expected


def test_a_nan_payload_survives_in_the_editor_dialect():
    payload = np.array([0x7FF0000000000001], "<u8").view("<f8")[0]
    for dialect, expected in (("editor", "0x7ff0000000000001"), ("zarr-python", "NaN")):
        store = MemoryStore()
        a = zf.create_array(
            store, "a", shape=(1,), dtype="f8", fill_value=payload, fmt=Draft2022Format(dialect=dialect)
        )
        assert doc(store, KEY)["fill_value"] == expected
        assert zf.open_array(store, "a").fill_value.tobytes() == (
            payload.tobytes() if dialect == "editor" else np.float64("nan").tobytes()
        )
        del a


@pytest.mark.parametrize(
    "data_type,value,expected",
    [
        ("int8", "0xff", -1),
        ("int16", "0x8000", -32768),
        ("uint16", "0xffff", 65535),
        ("int32", "0b" + "0" * 31 + "1", 1),
        ("<i8", 7, 7),
        ("bool", True, True),
        ("complex64", ["NaN", "+Infinity"], complex(math.nan, math.inf)),
        ("complex128", [1.5, "0x4000000000000000"], complex(1.5, 2.0)),
    ],
)
def test_other_fill_values(hierarchy, data_type, value, expected):
    a = open_a(hierarchy, data_type=data_type, fill_value=value)
    got = complex(a.fill_value) if isinstance(expected, complex) else a.fill_value
    assert np.array_equal(np.array(got), np.array(expected), equal_nan=True)


@pytest.mark.parametrize("dialect", ["editor", "zarr-python"])
def test_null_reads_as_the_default_and_is_written_back(hierarchy, dialect):
    a = open_a(hierarchy, dialect=dialect, data_type="<i2", fill_value=None)
    assert a.fill_value == 0 and a[...].tolist() == [0, 0, 0, 0]
    a.attrs["x"] = 1
    assert doc(a.store, KEY)["fill_value"] is None


@pytest.mark.parametrize(
    "data_type,value,match",
    [
        ("float32", "0x3ff8", "exactly 8 hexadecimal digits"),
        ("int8", 300, r"integer in \[-128, 127\]"),
        ("float64", "Inf", "NaN"),
        ("bool", 2, "true or false"),  # 0 and 1 are read leniently (docs/formats.md)
        ("int16", "0b101", "exactly 16 binary digits"),
    ],
)
def test_bad_fill_values_name_key_and_field(hierarchy, data_type, value, match):
    with pytest.raises(MetadataError, match=match) as info:
        open_a(hierarchy, data_type=data_type, fill_value=value)
    assert (info.value.key, info.value.field) == (KEY, "fill_value")


FLOAT_DTYPES = ["float16", "float32", "float64"]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fill_values_round_trip_bit_for_bit(data):
    name = data.draw(st.sampled_from([*FLOAT_DTYPES, "int8", "uint64", "int64", "complex64"]))
    data_type = registry.data_types.get(name).from_json(name, None)
    dtype = data_type.numpy_dtype
    raw = data.draw(st.binary(min_size=dtype.itemsize, max_size=dtype.itemsize))
    value = np.frombuffer(raw, dtype=dtype.newbyteorder("<"))[0].astype(dtype)
    for dialect in ("editor", "zarr-python"):
        encoded = fills.fill_value_to_json(data_type, value, dialect)
        decoded, _ = fills.fill_value_from_json(data_type, encoded)
        if dialect == "editor" or dtype.kind in "iu" or not np.isnan(value).any():
            assert np.array(decoded, dtype).tobytes() == np.array(value, dtype).tobytes()


# --- data type spellings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling,name,order",
    [
        ("bool", "bool", None),
        ("|b1", "bool", None),
        ("i1", "int8", None),
        ("|u1", "uint8", None),
        ("<i2", "int16", "<"),
        (">u4", "uint32", ">"),
        ("<f2", "float16", "<"),
        (">f8", "float64", ">"),
        ("<c16", "complex128", "<"),
        ("int64", "int64", None),
        ("r8", "r8", None),
    ],
)
def test_both_generations_of_type_names(spelling, name, order):
    data_type, got = dts.parse_name(spelling)
    assert (data_type.to_json(), got) == (name, order)


def test_multi_byte_numpy_names_need_a_byte_order(hierarchy):
    with pytest.raises(MetadataError, match="needs a byte order") as info:
        open_a(hierarchy, data_type="f8")
    assert (info.value.key, info.value.field) == (KEY, "data_type")


def test_unknown_type_names_list_the_installed_ones(hierarchy):
    with pytest.raises(UnknownExtensionError, match="unknown data type 'quaternion'") as info:
        open_a(hierarchy, data_type="quaternion")
    assert (info.value.key, info.value.field) == (KEY, "data_type")


def test_an_extension_type_whose_plugin_is_missing_uses_the_fallback(hierarchy, monkeypatch):
    real_get = registry.data_types.get

    def without_time_types(name, **kwargs):
        if name.startswith("numpy."):
            raise UnknownExtensionError("data type", name, [], field=kwargs.get("field"))
        return real_get(name, **kwargs)

    monkeypatch.setattr(registry.data_types, "get", without_time_types)
    with pytest.warns(dts.FallbackDataTypeWarning, match="fallback 'int64'"):
        a = open_a(
            hierarchy,
            data_type={"extension": dts.ZARR_PYTHON_DATETIME_URI, "type": "<M8[s]", "fallback": "int64"},
        )
    assert a.dtype == np.dtype("int64")


def test_a_third_party_type_registered_under_its_uri(hierarchy):
    registry.data_types.register("https://example.org/money", _Money)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            a = open_a(
                hierarchy,
                data_type={"extension": "https://example.org/money", "type": "cents", "fallback": "int64"},
                fill_value=5,
            )
        assert a.dtype == np.dtype("<i8") and a.fill_value == 5
        assert a.metadata["data_type"]["extension"] == "https://example.org/money"
    finally:
        registry.data_types.unregister("https://example.org/money")


from zarrforge_std.data_types import Int64  # noqa: E402


class _Money(Int64):
    name = "https://example.org/money"

    @classmethod
    def from_json(cls, name, configuration):
        assert configuration == {"type": "cents"}
        return cls()


# --- extensions and must_understand -------------------------------------------------------------


def test_unknown_array_extensions_may_be_ignored_and_are_kept(hierarchy):
    ignorable = {"extension": "https://example.org/ext", "must_understand": False, "configuration": {"a": 1}}
    a = open_a(hierarchy, extensions=[ignorable])
    a.attrs["x"] = 1
    assert doc(a.store, KEY)["extensions"] == [ignorable]


def test_unknown_array_extensions_that_must_be_understood_stop_the_array(hierarchy):
    with pytest.raises(MustUnderstandError) as info:
        open_a(hierarchy, extensions=[{"extension": "https://example.org/ext", "must_understand": True}])
    assert (info.value.key, info.value.field) == (KEY, "extensions[0].extension")


def test_unknown_fields_follow_must_understand(hierarchy):
    kept = {"must_understand": False, "anything": [1]}
    a = open_a(hierarchy, future=kept)
    a.attrs["x"] = 1
    assert doc(a.store, KEY)["future"] == kept
    with pytest.raises(MustUnderstandError) as info:
        open_a(hierarchy, future=3)
    assert (info.value.key, info.value.field) == (KEY, "future")


def test_a_later_minor_version_ignores_unknown_fields(hierarchy):
    later = "https://purl.org/zarr/spec/core/3.1"
    store = hierarchy(
        {"zarr.json": {**entry_point(), "zarr_format": later, "novelty": 1}, KEY: array(future=3)}
    )
    assert zf.open_array(store, "a").shape == (4,)


def test_an_unsupported_major_version_is_an_error(hierarchy):
    store = hierarchy({"zarr.json": {**entry_point(), "zarr_format": "https://purl.org/zarr/spec/core/4.0"}})
    with pytest.raises(MetadataError, match="unsupported Zarr format") as info:
        zf.open_group(store, mode="r")
    assert (info.value.key, info.value.field) == ("zarr.json", "zarr_format")


def test_an_unsupported_metadata_encoding_is_an_error(hierarchy):
    store = hierarchy({"zarr.json": {**entry_point(), "metadata_encoding": "https://example.org/yaml"}})
    with pytest.raises(MetadataError, match="unsupported metadata encoding") as info:
        zf.open_group(store, mode="r")
    assert (info.value.key, info.value.field) == ("zarr.json", "metadata_encoding")


# --- errors name the key and the field ------------------------------------------------------------


@pytest.mark.parametrize(
    "changes,field,match",
    [
        ({"shape": [-1]}, "shape", "must be a list of integers in"),
        ({"shape": ...}, "shape", "lacks the required field"),
        ({"chunk_grid": {"type": "regular", "chunk_shape": [0]}}, "chunk_grid.chunk_shape", "positive"),
        ({"chunk_grid": {"type": "hexagonal"}}, "chunk_grid.type", "unknown chunk grid type"),
        (
            {"chunk_grid": {"type": "regular", "chunk_shape": [2], "separator": "_"}},
            "chunk_grid.separator",
            "'/' or '.'",
        ),
        (
            {
                "codecs": [
                    {"type": "https://purl.org/zarr/spec/codec/gzip/1.0", "configuration": {"level": 12}}
                ]
            },
            "codecs[0].configuration.level",
            "0 to 9",
        ),
        (
            {"codecs": [{"type": "https://purl.org/zarr/spec/codec/zfp/1.0"}]},
            "codecs[0].type",
            "unknown codec",
        ),
        ({"codecs": [{"configuration": {}}]}, "codecs[0]", "'type'"),
        (
            {
                "codecs": [],
                "compressor": {
                    "codec": "https://purl.org/zarr/spec/codec/gzip/1.0",
                    "configuration": {"level": 1},
                },
            },
            "compressor",
            "not both",
        ),
        (
            {
                "codecs": ...,
                "compressor": {
                    "codec": "https://purl.org/zarr/spec/codec/blosc/1.0",
                    "configuration": {"shuffle": 7},
                },
            },
            "compressor.configuration.shuffle",
            "-1, 0, 1 or 2",
        ),
        (
            {
                "storage_transformers": [
                    {
                        "extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
                        "type": "hashed",
                        "configuration": {"chunks_per_shard": [2]},
                    }
                ]
            },
            "storage_transformers[0].type",
            "indexed",
        ),
        (
            {
                "storage_transformers": [
                    {
                        "extension": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
                        "type": "indexed",
                        "configuration": {"chunks_per_shard": [0]},
                    }
                ]
            },
            "storage_transformers[0].configuration.chunks_per_shard",
            "positive",
        ),
        (
            {"chunk_memory_layout": {"extension": "https://example.org/morton", "type": "z"}},
            "chunk_memory_layout.extension",
            "unknown memory layout",
        ),
        ({"dimension_names": ["x", "y"]}, "dimension_names", "one per dimension"),
        ({"attributes": []}, "attributes", "object"),
    ],
)
def test_errors_name_key_and_field(hierarchy, changes, field, match):
    with pytest.raises(MetadataError, match=match) as info:
        open_a(hierarchy, **changes)
    assert info.value.key == KEY
    assert info.value.field == field
    assert KEY in str(info.value) and field in str(info.value)


def test_malformed_json_names_the_key(hierarchy):
    store = hierarchy({KEY: b"{not json"})
    with pytest.raises(MetadataError, match="not valid JSON") as info:
        zf.open_array(store, "a")
    assert info.value.key == KEY


def test_a_zarr_python_hierarchy_cannot_take_what_zarr_python_cannot_read():
    store = MemoryStore()
    with pytest.raises(MetadataError, match="single compressor") as info:
        zf.create_array(
            store,
            shape=(4,),
            dtype="u1",
            zarr_format="draft-2022",
            compressors=[{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}],
        )
    assert info.value.field == "codecs[1]"  # gzip; codecs[0] is the bytes codec
    assert "zarr.json" not in store._data  # nothing was written
