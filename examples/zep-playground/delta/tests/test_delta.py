"""example.delta: the conformance kit, and what the codec's docstring promises."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge.testing import CodecConformance


class TestDeltaInt16(CodecConformance):
    codec_documents = ["example.delta", {"name": "example.delta", "configuration": {"dtype": "int16"}}]
    data_type = "int16"


class TestDeltaUint8(CodecConformance):
    codec_documents = [{"name": "example.delta", "configuration": {"dtype": "uint8"}}]
    data_type = "uint8"
    chunk_shape = (3, 4, 5)


class TestDeltaInt64(CodecConformance):
    codec_documents = ["example.delta"]
    data_type = "int64"


def delta_array(**options):
    return zf.create_array(
        {},
        shape=(10, 10),
        chunks=(5, 5),
        dtype=options.pop("dtype", "int32"),
        filters=["example.delta"],
        **options,
    )


def test_the_dtype_is_recorded_at_creation():
    a = delta_array()
    assert a.metadata["codecs"][0] == {"name": "example.delta", "configuration": {"dtype": "int32"}}


def test_values_round_trip_and_are_stored_as_differences():
    a = delta_array(compressors=None)
    data = np.cumsum(np.arange(100, dtype="int32")).reshape(10, 10)
    a[...] = data
    assert np.array_equal(a[...], data)
    raw = np.frombuffer(a.store.get("c/0/0"), dtype="<i4")
    chunk = data[:5, :5].reshape(-1)
    assert raw[0] == chunk[0] and np.array_equal(raw[1:], np.diff(chunk))


def test_differences_wrap_around_as_integers_do():
    a = delta_array(dtype="uint8")
    data = np.array([[255, 0, 255, 1, 0] * 2] * 10, dtype="uint8")
    a[...] = data
    assert np.array_equal(a[...], data)


def test_a_non_zero_fill_value_is_refused_at_the_codec():
    with pytest.raises(MetadataError, match="fill value 0") as caught:
        delta_array(fill_value=5)
    assert "codecs[0]" in str(caught.value)


def test_float_data_is_refused():
    with pytest.raises(MetadataError, match="encodes integers"):
        delta_array(dtype="float32")


def test_a_document_whose_dtype_disagrees_with_the_array_is_refused_on_open():
    store: dict = {}
    a = zf.create_array(store, shape=(4,), chunks=(2,), dtype="int32", filters=["example.delta"])
    document = json.loads(a.store.get("zarr.json"))
    document["codecs"][0]["configuration"]["dtype"] = "int64"
    a.store.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(MetadataError) as caught:
        zf.open_array(a.store)[...]
    assert "codecs[0].configuration.dtype" in str(caught.value)
