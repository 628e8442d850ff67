"""The data types on their own: metadata, numpy mapping, fill value encodings.

Every invalid configuration or fill value must raise ``MetadataError`` naming
the field (``configuration...`` or ``fill_value``) and the value.
"""

from __future__ import annotations

import datetime
import math

import ml_dtypes
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.registries.resolution import data_type_from_json, data_type_from_user
from zarrforge_dtypes.bytes_type import Bytes, VariableLengthBytes
from zarrforge_dtypes.ml_floats import ALL as ML_FLOATS
from zarrforge_dtypes.string_type import String
from zarrforge_dtypes.time_types import DateTime64, TimeDelta64
from zarrforge_dtypes.utf32_type import FixedLengthUTF32

T = np.dtypes.StringDType()


# --- names, configurations, to_json -------------------------------------------------------


@pytest.mark.parametrize(
    "document, cls, written",
    [
        ("string", String, "string"),
        ({"name": "string"}, String, "string"),
        ({"name": "string", "configuration": {}}, String, "string"),
        ("bytes", Bytes, "bytes"),
        ("variable_length_bytes", VariableLengthBytes, "variable_length_bytes"),
        ({"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1}}, DateTime64, None),
        ({"name": "numpy.datetime64", "configuration": {"unit": "μs", "scale_factor": 10}}, DateTime64, None),
        (
            {"name": "numpy.timedelta64", "configuration": {"unit": "generic", "scale_factor": 1}},
            TimeDelta64,
            None,
        ),
        ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 48}}, FixedLengthUTF32, None),
        *[(cls.name, cls, cls.name) for cls in ML_FLOATS],
        *[({"name": cls.name, "configuration": {}}, cls, cls.name) for cls in ML_FLOATS],
    ],
)
def test_metadata_round_trip(document, cls, written):
    data_type = data_type_from_json(document)
    assert type(data_type) is cls
    assert data_type.to_json() == (document if written is None else written)


@pytest.mark.parametrize(
    "document, field",
    [
        ({"name": "string", "configuration": {"x": 1}}, "configuration"),
        ({"name": "bytes", "configuration": {"x": 1}}, "configuration"),
        ({"name": "bfloat16", "configuration": {"x": 1}}, "configuration"),
        ("numpy.datetime64", "configuration"),
        ({"name": "numpy.datetime64", "configuration": {"unit": "ms"}}, "configuration"),
        (
            {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1, "e": 1}},
            "configuration",
        ),
        (
            {"name": "numpy.datetime64", "configuration": {"unit": "mins", "scale_factor": 1}},
            "configuration.unit",
        ),
        (
            {"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 0}},
            "configuration.scale_factor",
        ),
        (
            {"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 2**31}},
            "configuration.scale_factor",
        ),
        (
            {"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": True}},
            "configuration.scale_factor",
        ),
        (
            {"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 1.0}},
            "configuration.scale_factor",
        ),
        (
            {"name": "numpy.datetime64", "configuration": {"unit": "generic", "scale_factor": 2}},
            "configuration.scale_factor",
        ),
        ("fixed_length_utf32", "configuration"),
        ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}, "configuration.length_bytes"),
        ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 0}}, "configuration.length_bytes"),
        (
            {"name": "fixed_length_utf32", "configuration": {"length_bytes": "8"}},
            "configuration.length_bytes",
        ),
    ],
)
def test_bad_configuration(document, field):
    with pytest.raises(MetadataError) as info:
        data_type_from_json(document)
    assert info.value.field.endswith(field)


def test_time_numpy_dtypes():
    assert DateTime64("ms", 1).numpy_dtype == np.dtype("datetime64[ms]")
    assert DateTime64("μs", 10).numpy_dtype == np.dtype("datetime64[10us]")
    assert DateTime64("generic", 1).numpy_dtype == np.dtype("datetime64")
    assert TimeDelta64("s", 2**31 - 1).numpy_dtype == np.dtype(f"timedelta64[{2**31 - 1}s]")
    assert DateTime64("ms", 1).has_endianness and DateTime64("ms", 1).item_size == 8


def test_variable_size_types_have_no_item_size():
    for data_type in (String(), Bytes()):
        assert data_type.item_size is None and not data_type.has_endianness
    assert String().numpy_dtype == T and not hasattr(String().numpy_dtype, "na_object")
    assert Bytes().numpy_dtype == np.dtype(object)
    assert String().default_serializer() == {"name": "vlen-utf8"}
    assert Bytes().default_serializer() == {"name": "vlen-bytes"}


def test_ml_float_properties_match_ml_dtypes():
    for cls in ML_FLOATS:
        data_type = cls()
        assert data_type.numpy_dtype == np.dtype(getattr(ml_dtypes, cls.name))
        assert data_type.has_endianness == (cls.name == "bfloat16")
        info = ml_dtypes.finfo(data_type.numpy_dtype)
        # the capability table agrees with ml_dtypes
        nan = np.array(np.nan).astype(data_type.numpy_dtype)
        if cls.nan_bits is not None:
            assert math.isnan(float(nan))
            assert data_type._bits_of(data_type.fill_value_from_json("NaN")) == cls.nan_bits
        inf = np.array(np.inf).astype(data_type.numpy_dtype)
        assert math.isinf(float(inf)) == cls.has_inf
        assert float(info.max) < math.inf


# --- numpy dtype -> data type -----------------------------------------------------------


@pytest.mark.parametrize(
    "user, expected",
    [
        (str, "string"),
        ("str", "string"),
        ("string", "string"),
        (T, "string"),
        (bytes, "bytes"),
        ("bytes", "bytes"),
        ("U8", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 32}}),
        (">U3", {"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}),
        (np.dtype("<U1"), {"name": "fixed_length_utf32", "configuration": {"length_bytes": 4}}),
        ("datetime64[ms]", {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1}}),
        (">M8[10s]", {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}}),
        ("datetime64", {"name": "numpy.datetime64", "configuration": {"unit": "generic", "scale_factor": 1}}),
        (
            "timedelta64[ns]",
            {"name": "numpy.timedelta64", "configuration": {"unit": "ns", "scale_factor": 1}},
        ),
        (
            np.timedelta64,
            {"name": "numpy.timedelta64", "configuration": {"unit": "generic", "scale_factor": 1}},
        ),
        *[(getattr(ml_dtypes, cls.name), cls.name) for cls in ML_FLOATS],
        *[(np.dtype(getattr(ml_dtypes, cls.name)), cls.name) for cls in ML_FLOATS],
        *[(cls.name, cls.name) for cls in ML_FLOATS],
    ],
)
def test_from_user_dtype(user, expected):
    assert data_type_from_user(user).to_json() == expected


def test_object_dtype_is_ambiguous():
    # zarr-python refuses np.dtype(object) too: it may hold text or bytes.
    with pytest.raises(UnknownExtensionError):
        data_type_from_user(object)


def test_string_dtype_with_na_object_is_refused():
    with pytest.raises(MetadataError, match="na_object") as info:
        data_type_from_user(np.dtypes.StringDType(na_object=None))
    assert info.value.field == "dtype"


def test_ml_float_dtypes_are_not_taken_for_raw_bits():
    for cls in ML_FLOATS:
        assert type(data_type_from_user(getattr(ml_dtypes, cls.name))) is cls


# --- fill values ----------------------------------------------------------------------------

DT_MS = DateTime64("ms", 1)
TD_S = TimeDelta64("s", 1)
U3 = FixedLengthUTF32(12)
NAT = -(2**63)


def same(a, b) -> bool:
    if isinstance(a, (np.datetime64, np.timedelta64)):
        return a.dtype == b.dtype and np.array(a).view("i8") == np.array(b).view("i8")
    if isinstance(a, np.generic) and isinstance(b, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    "data_type, document, expected, written",
    [
        (String(), "", "", ""),
        (String(), "héllo\u0000", "héllo\u0000", "héllo\u0000"),
        (Bytes(), "", b"", ""),
        (Bytes(), "AQID", b"\x01\x02\x03", "AQID"),
        (Bytes(), [1, 2, 3], b"\x01\x02\x03", "AQID"),
        (Bytes(), [], b"", ""),
        (DT_MS, 0, np.datetime64(0, "ms"), 0),
        (DT_MS, 1577836800000, np.datetime64("2020-01-01", "ms"), 1577836800000),
        (DT_MS, "NaT", np.datetime64("NaT", "ms"), NAT),
        (DT_MS, NAT, np.datetime64("NaT", "ms"), NAT),
        (DT_MS, 2**63 - 1, np.array(2**63 - 1).view("M8[ms]")[()], 2**63 - 1),
        (TD_S, -5, np.timedelta64(-5, "s"), -5),
        (TD_S, "NaT", np.timedelta64("NaT", "s"), NAT),
        (DateTime64("generic", 1), "NaT", np.datetime64("NaT"), NAT),
        (TimeDelta64("generic", 1), 7, np.timedelta64(7), 7),
        (U3, "", np.str_(""), ""),
        (U3, "abc", np.str_("abc"), "abc"),
        (U3, "a\u0000", np.str_("a"), "a"),
        (U3, "😀é", np.str_("😀é"), "😀é"),
    ],
)
def test_valid_fill_values(data_type, document, expected, written):
    value = data_type.fill_value_from_json(document)
    assert same(value, expected)
    assert data_type.fill_value_to_json(value) == written


@pytest.mark.parametrize(
    "data_type, document",
    [
        (String(), None),
        (String(), 1),
        (String(), ["a"]),
        (String(), b"a"),
        (Bytes(), "AQI"),
        (Bytes(), "not base64!"),
        (Bytes(), "é"),
        (Bytes(), [256]),
        (Bytes(), [-1]),
        (Bytes(), [True]),
        (Bytes(), [1.0]),
        (Bytes(), 3),
        (Bytes(), None),
        (DT_MS, 1.5),
        (DT_MS, "2020-01-01"),
        (DT_MS, True),
        (DT_MS, 2**63),
        (DT_MS, -(2**63) - 1),
        (DT_MS, None),
        (DT_MS, "nat"),
        (TD_S, [1]),
        (DateTime64("generic", 1), 5),
        (U3, "abcd"),
        (U3, "abc\u0000"),
        (U3, 1),
        (U3, None),
    ],
)
def test_invalid_fill_values(data_type, document):
    with pytest.raises(MetadataError) as info:
        data_type.fill_value_from_json(document)
    assert info.value.field == "fill_value"
    assert info.value.value == document
    assert "fill value" in str(info.value)


# (name, JSON, written back, bit pattern)
ML_VALID = [
    ("bfloat16", 0, 0.0, 0x0000),
    ("bfloat16", 1.5, 1.5, 0x3FC0),
    ("bfloat16", -2, -2.0, 0xC000),
    ("bfloat16", "NaN", "NaN", 0x7FC0),
    ("bfloat16", "0x7fc0", "NaN", 0x7FC0),
    ("bfloat16", "0xffc1", "0xffc1", 0xFFC1),
    ("bfloat16", "0x3F80", 1.0, 0x3F80),
    ("bfloat16", "Infinity", "Infinity", 0x7F80),
    ("bfloat16", "-Infinity", "-Infinity", 0xFF80),
    ("bfloat16", 1e300, "Infinity", 0x7F80),
    ("float8_e3m4", "NaN", "NaN", 0x78),
    ("float8_e3m4", "Infinity", "Infinity", 0x70),
    ("float8_e4m3", "NaN", "NaN", 0x7C),
    ("float8_e4m3", "0x7d", "0x7d", 0x7D),
    ("float8_e4m3", 2, 2.0, 0x40),
    ("float8_e5m2", "NaN", "NaN", 0x7E),
    ("float8_e5m2", "-Infinity", "-Infinity", 0xFC),
    ("float8_e5m2", 1.5, 1.5, 0x3E),
    ("float8_e4m3fnuz", "NaN", "NaN", 0x80),
    ("float8_e4m3fnuz", 240, 240.0, 0x7F),
    ("float8_e4m3fnuz", -0.0, 0.0, 0x00),
    ("float8_e4m3b11fnuz", "NaN", "NaN", 0x80),
    ("float8_e5m2fnuz", "NaN", "NaN", 0x80),
    ("float8_e5m2fnuz", "0x01", 7.62939453125e-06, 0x01),
    ("float8_e8m0fnu", "NaN", "NaN", 0xFF),
    ("float8_e8m0fnu", 1, "0x7f", 0x7F),  # written as hex: see ml_floats._UnsignedExponentOnly
    ("float8_e8m0fnu", 0.3, "0x7d", 0x7D),
    ("float8_e8m0fnu", 2.0**-127, "0x00", 0x00),
    ("float8_e8m0fnu", "0x00", "0x00", 0x00),
    ("float8_e8m0fnu", 0, "0x00", 0x00),  # tensorstore's default fill value, "0.0"
    ("float8_e8m0fnu", 0.0, "0x00", 0x00),
    ("float6_e2m3fn", 7.5, 7.5, 0x1F),
    ("float6_e2m3fn", "0x3f", -7.5, 0x3F),
    ("float6_e3m2fn", -28, -28.0, 0x3F),
    ("float4_e2m1fn", 6, 6.0, 0x07),
    ("float4_e2m1fn", -0.5, -0.5, 0x09),
    ("float4_e2m1fn", "0x0f", -6.0, 0x0F),
]


def ml(name):
    return next(cls for cls in ML_FLOATS if cls.name == name)()


@pytest.mark.parametrize("name, document, written, bits", ML_VALID)
def test_ml_float_valid_fill_values(name, document, written, bits):
    data_type = ml(name)
    value = data_type.fill_value_from_json(document)
    assert value.dtype == data_type.numpy_dtype
    assert data_type._bits_of(value) == bits
    assert data_type.fill_value_to_json(value) == written
    # what is written reads back to the same bits
    assert data_type._bits_of(data_type.fill_value_from_json(written)) == bits


ML_INVALID = [
    ("bfloat16", "0x7fc"),
    ("bfloat16", "0x7fc000"),
    ("bfloat16", "0xzzzz"),
    ("bfloat16", "nan"),
    ("bfloat16", True),
    ("bfloat16", None),
    ("bfloat16", [1]),
    ("bfloat16", "1.5"),
    ("bfloat16", 10**400),
    ("float8_e4m3", "0x7fc0"),
    ("float8_e4m3fnuz", "Infinity"),
    ("float8_e4m3fnuz", "-Infinity"),
    ("float8_e4m3fnuz", 1e6),
    ("float8_e5m2fnuz", "Infinity"),
    ("float8_e4m3b11fnuz", 1e3),
    ("float8_e8m0fnu", -1),
    ("float8_e8m0fnu", 1e-60),
    ("float8_e8m0fnu", "Infinity"),
    ("float6_e2m3fn", "NaN"),
    ("float6_e2m3fn", "Infinity"),
    ("float6_e2m3fn", 8),
    ("float6_e2m3fn", "0x40"),
    ("float6_e3m2fn", "0xff"),
    ("float4_e2m1fn", "NaN"),
    ("float4_e2m1fn", "-Infinity"),
    ("float4_e2m1fn", 7),
    ("float4_e2m1fn", "0x10"),
]


@pytest.mark.parametrize("name, document", ML_INVALID)
def test_ml_float_invalid_fill_values(name, document):
    with pytest.raises(MetadataError) as info:
        ml(name).fill_value_from_json(document)
    assert info.value.field == "fill_value"
    assert info.value.value == document


def test_ml_float_default_fill_values_are_zero_bits():
    for cls in ML_FLOATS:
        data_type = cls()
        value = data_type.default_fill_value()
        assert data_type._bits_of(value) == 0
        assert data_type._bits_of(data_type.fill_value_from_json(data_type.fill_value_to_json(value))) == 0


# --- fill values given through the Python API ------------------------------------------------


@pytest.mark.parametrize(
    "data_type, user, expected",
    [
        (String(), "x", "x"),
        (String(), np.str_("y"), "y"),
        (Bytes(), b"\x00a", b"\x00a"),
        (Bytes(), bytearray(b"ab"), b"ab"),
        (Bytes(), memoryview(b"ab"), b"ab"),
        (Bytes(), np.bytes_(b"ab"), b"ab"),
        (DT_MS, 5, np.datetime64(5, "ms")),
        (DT_MS, np.int32(5), np.datetime64(5, "ms")),
        (DT_MS, "NaT", np.datetime64("NaT", "ms")),
        (DT_MS, "2020-01-01T00:00:00.001", np.datetime64("2020-01-01T00:00:00.001", "ms")),
        (DT_MS, np.datetime64("2020-01-01"), np.datetime64("2020-01-01", "ms")),
        (DT_MS, np.datetime64("NaT"), np.datetime64("NaT", "ms")),
        (DT_MS, datetime.datetime(2020, 1, 1, 0, 0, 1), np.datetime64("2020-01-01T00:00:01", "ms")),
        (DT_MS, datetime.date(2020, 1, 2), np.datetime64("2020-01-02", "ms")),
        (TD_S, datetime.timedelta(minutes=1), np.timedelta64(60, "s")),
        (TD_S, np.timedelta64(2, "m"), np.timedelta64(120, "s")),
        (TD_S, np.timedelta64("NaT"), np.timedelta64("NaT", "s")),
        (TD_S, -3, np.timedelta64(-3, "s")),
        (U3, "ab", np.str_("ab")),
    ],
)
def test_user_fill_values(data_type, user, expected):
    assert same(data_type.from_user_value(user), expected)


@pytest.mark.parametrize(
    "data_type, user",
    [
        (String(), b"x"),
        (String(), 1),
        (String(), None),
        (Bytes(), "x"),
        (Bytes(), 1),
        (Bytes(), [1, 2]),
        (DT_MS, 1.5),
        (DT_MS, True),
        (DT_MS, np.timedelta64(1, "s")),
        (DT_MS, "yesterday"),
        (DT_MS, np.datetime64("2020-01-01T00:00:00.0001")),  # not a whole millisecond
        (TD_S, np.datetime64("2020-01-01")),
        (TD_S, datetime.timedelta(milliseconds=1)),
        (TD_S, "5"),
        (DateTime64("generic", 1), np.datetime64("2020-01-01")),
        (U3, "abcd"),
        (U3, b"ab"),
    ],
)
def test_invalid_user_fill_values(data_type, user):
    with pytest.raises(MetadataError) as info:
        data_type.from_user_value(user)
    assert info.value.field == "fill_value"


def test_ml_float_user_fill_values():
    bf16 = ml("bfloat16")
    assert bf16._bits_of(bf16.from_user_value(1.5)) == 0x3FC0
    assert bf16._bits_of(bf16.from_user_value(np.float32(1.5))) == 0x3FC0
    assert bf16._bits_of(bf16.from_user_value(ml_dtypes.float8_e5m2(1.5))) == 0x3FC0
    assert bf16._bits_of(bf16.from_user_value(float("nan"))) == 0x7FC0
    assert bf16._bits_of(bf16.from_user_value("0xffc1")) == 0xFFC1
    payload = np.array(0xFFC1, "u2").view(ml_dtypes.bfloat16)[()]
    assert bf16._bits_of(bf16.from_user_value(payload)) == 0xFFC1  # exact bits kept
    fnuz = ml("float8_e4m3fnuz")
    assert fnuz._bits_of(fnuz.from_user_value(float("nan"))) == 0x80
    for data_type, user in [
        (bf16, True),
        (bf16, "x"),
        (bf16, b"1"),
        (bf16, None),
        (ml("float8_e8m0fnu"), 0.0),
        (fnuz, float("inf")),
        (ml("float4_e2m1fn"), float("nan")),
    ]:
        with pytest.raises(MetadataError) as info:
            data_type.from_user_value(user)
        assert info.value.field == "fill_value"


def test_creation_reports_bad_fill_values():
    with pytest.raises(MetadataError) as info:
        zf.create_array(None, shape=(2,), dtype="U2", fill_value="abc")
    assert info.value.field == "fill_value"
    with pytest.raises(MetadataError) as info:
        zf.create_array(None, shape=(2,), dtype="float4_e2m1fn", fill_value=float("nan"))
    assert info.value.field == "fill_value"
