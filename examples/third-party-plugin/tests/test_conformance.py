"""zarrforge's conformance kit, run against the installed entry points of this package."""

from __future__ import annotations

import numpy as np

from zarrforge.testing import CodecConformance, DataTypeConformance


class TestBitRoundFloat64(CodecConformance):
    codec_documents = [
        {"name": "zf_example.bitround", "configuration": {"keepbits": 12}},
        {"name": "zf_example.bitround", "configuration": {"keepbits": 52}},
    ]
    data_type = "float64"
    lossless = False  # rounding loses information by design; the kit then checks shapes


class TestBitRoundFloat32(CodecConformance):
    codec_documents = [{"name": "zf_example.bitround", "configuration": {"keepbits": 0}}]
    data_type = "float32"
    chunk_shape = (3, 4, 5)
    lossless = False


class TestBitRoundFloat16(CodecConformance):
    codec_documents = [{"name": "zf_example.bitround", "configuration": {"keepbits": 10}}]
    data_type = "float16"
    lossless = True  # keeping every mantissa bit changes nothing, NaN payloads included


class TestRGB8(DataTypeConformance):
    data_type_documents = ["zf_example.rgb8", {"name": "zf_example.rgb8"}]
    valid_fill_values = [[0, 0, 0], [255, 128, 1], [1, 2, 3]]
    invalid_fill_values = [[0, 0], [0, 0, 256], [-1, 0, 0], [0.5, 0, 0], [True, 0, 0], "#ffffff", None, 0]

    def sample(self, data_type, shape):
        rng = np.random.default_rng(5)
        return (
            rng.integers(0, 256, size=(*shape, 3), dtype=np.uint8).view(data_type.numpy_dtype).reshape(shape)
        )
