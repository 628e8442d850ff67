"""zarrforge-dtypes against the conformance kit of zarrforge.testing."""

from __future__ import annotations

import numpy as np

from zarrforge.testing import CodecConformance, DataTypeConformance

WORDS = ["", "a", "zarr", "Grüße", "☃ snow", "a\x00b", "long " * 20]


def _strings(shape, dtype):
    n = int(np.prod(shape))
    return np.array([WORDS[i % len(WORDS)] for i in range(n)], dtype=dtype).reshape(shape)


class TestStringType(DataTypeConformance):
    data_type_documents = ["string"]
    valid_fill_values = ["", "x", "Grüße"]
    invalid_fill_values = [0, None, ["a"], 1.5]
    serializer = {"name": "vlen-utf8"}

    def sample(self, data_type, shape):
        return _strings(shape, data_type.numpy_dtype)


class TestBytesType(DataTypeConformance):
    data_type_documents = ["bytes", "variable_length_bytes"]
    valid_fill_values = ["", "AAE="]
    invalid_fill_values = [0, None, 1.5, "not base64!"]
    serializer = {"name": "vlen-bytes"}

    def sample(self, data_type, shape):
        n = int(np.prod(shape))
        return np.array([w.encode() for w in (WORDS * n)[:n]], dtype=object).reshape(shape)


class TestTimeTypes(DataTypeConformance):
    data_type_documents = [
        {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}},
        {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 10}},
        {"name": "numpy.timedelta64", "configuration": {"unit": "ns", "scale_factor": 1}},
    ]
    valid_fill_values = [0, -9223372036854775808, 1234567]
    invalid_fill_values = [1.5, "yesterday", None, [1]]


class TestFixedLengthUtf32(DataTypeConformance):
    data_type_documents = [{"name": "fixed_length_utf32", "configuration": {"length_bytes": 16}}]
    valid_fill_values = ["", "abcd", "Grüß"]
    invalid_fill_values = ["too long for four", 3, None]

    def sample(self, data_type, shape):
        return _strings(shape, data_type.numpy_dtype)


class TestFloat8Types(DataTypeConformance):
    data_type_documents = ["float8_e4m3fnuz", "float8_e5m2", "float8_e3m4"]
    valid_fill_values = [0, 1.5, "NaN", "0x00", "0x3c"]
    invalid_fill_values = ["nan", True, None, [0], "0x0000"]


class TestBfloat16(DataTypeConformance):
    data_type_documents = ["bfloat16"]
    valid_fill_values = [0, 1.5, "NaN", "-Infinity", "0x3fc0"]
    invalid_fill_values = ["nan", True, None, [0], "0x00"]


class TestVlenUtf8(CodecConformance):
    codec_documents = ["vlen-utf8", {"name": "vlen-utf8", "configuration": {}}]
    data_type = "string"

    def sample(self, spec):
        return _strings(spec.shape, spec.dtype)


class TestVlenBytes(CodecConformance):
    codec_documents = ["vlen-bytes"]
    data_type = "bytes"

    def sample(self, spec):
        n = int(np.prod(spec.shape))
        return np.array([w.encode() for w in (WORDS * n)[:n]], dtype=object).reshape(spec.shape)


class TestSmallInts(DataTypeConformance):
    data_type_documents = ["int2", "uint2", {"name": "int4", "configuration": {}}, "uint4"]
    valid_fill_values = [0, 1]
    invalid_fill_values = [16, -9, 1.5, None, "0"]


class TestComplexOverEveryFloat(DataTypeConformance):
    data_type_documents = [
        "complex_float16",
        "complex_float32",
        "complex_float64",
        "complex_bfloat16",
        "complex_float8_e4m3",
        "complex_float8_e5m2fnuz",
        "complex_float6_e2m3fn",
        "complex_float4_e2m1fn",
    ]
    valid_fill_values = [[0.0, 1.0], [-1.5, 0.5]]
    invalid_fill_values = [0.0, [1.0], "NaN", None]
    serializer = {"name": "bytes", "configuration": {"endian": "big"}}


class TestStruct(DataTypeConformance):
    data_type_documents = [
        {
            "name": "struct",
            "configuration": {
                "fields": [{"name": "a", "data_type": "int16"}, {"name": "b", "data_type": "uint8"}]
            },
        },
        {
            "name": "struct",
            "configuration": {
                "fields": [
                    {
                        "name": "a",
                        "data_type": {
                            "name": "struct",
                            "configuration": {"fields": [{"name": "b", "data_type": "int16"}]},
                        },
                    },
                    {"name": "c", "data_type": "uint8"},
                ]
            },
        },
    ]
    invalid_fill_values = [0, None, "AAAA", [1, 2]]
    serializer = {"name": "bytes", "configuration": {"endian": "big"}}


class TestLegacyStructured(DataTypeConformance):
    data_type_documents = [
        {"name": "structured", "configuration": {"fields": [["a", "int16"], ["b", "uint8"]]}}
    ]
    valid_fill_values = ["AQID", "AAAA", {"a": -1, "b": 255}]
    invalid_fill_values = [0, None, "AA==", {"a": 1}]
    fixed_byte_order = True  # the registry: always read as little-endian


class TestNullTerminatedBytes(DataTypeConformance):
    data_type_documents = [{"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}}]
    valid_fill_values = ["", "YQ==", "YWJj"]
    invalid_fill_values = ["YWJjZA==", 0, None, "!"]


class TestRawBytes(DataTypeConformance):
    data_type_documents = [{"name": "raw_bytes", "configuration": {"length_bytes": 3}}]
    valid_fill_values = ["AAAA", "eHl6"]
    invalid_fill_values = ["", "YQ==", "YWJjZA==", 0, None, "!", [1, 2, 3]]
