"""The data type conformance suite.

Subclass :class:`DataTypeConformance` and set:

* ``data_type_documents``: metadata entries to test (``"float32"``, or
  ``{"name": ..., "configuration": {...}}``);
* ``valid_fill_values`` / ``invalid_fill_values``: JSON fill values that every
  listed data type must accept, respectively refuse;
* ``serializer``: the array -> bytes codec for the array round trip (``None``
  for the format's default);
* override ``sample(data_type, shape)`` for types whose values cannot be made
  from random bytes (variable-size types);
* ``fixed_byte_order = True`` for types stored in one byte order whatever the
  codec says (they declare no endianness on purpose).

Each entry of ``data_type_documents`` is its own test (the test id names it).
What it checks: the name resolves through the registry; ``to_json``
rebuilds an equal type; ``item_size`` agrees with the numpy dtype;
``has_endianness`` is true exactly when the numpy dtype has multi-byte parts
whose byte order matters (record fields and subarrays included), so the
``bytes`` codec byte-swaps what it must; the default and every valid fill value
survive a JSON round trip bit for bit; invalid fill values raise
``MetadataError`` naming ``fill_value``; and an array of the type round trips
through a store (edge chunks, unwritten regions reading as the fill value,
after reopening).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
import pytest

import zarrforge as zf

from ..abc.codec import ChunkSpec
from ..abc.data_type import DataType
from ..errors import MetadataError
from ..plugin_api import data_type_from_json, memory_layout, registry
from .codecs import _difference, _same, random_chunk
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding


def _fill_bytes(data_type: DataType, value: Any) -> Any:
    dtype = data_type.numpy_dtype
    if dtype.hasobject or dtype.kind == "T":
        if isinstance(value, (float, np.floating)):  # NaN and -0.0 compare bit for bit
            return np.array(value).tobytes()
        return value
    return np.array(value, dtype=dtype).tobytes()


def byte_order_matters(dtype: np.dtype) -> bool:
    """Whether some multi-byte part of ``dtype`` has a byte order (numpy reports ``|``
    for a record even when its fields have one)."""
    if dtype.fields:
        return any(byte_order_matters(field[0]) for field in dtype.fields.values())
    if dtype.subdtype is not None:
        return byte_order_matters(dtype.subdtype[0])
    return dtype.itemsize > 1 and dtype.byteorder != "|" and not dtype.hasobject and dtype.kind != "T"


def _document_id(document: Any) -> str:
    return document if isinstance(document, str) else json.dumps(document, sort_keys=True)


class DataTypeConformance(KitScaffolding):
    data_type_documents: ClassVar[list[Any]] = []
    valid_fill_values: ClassVar[list[Any]] = []
    invalid_fill_values: ClassVar[list[Any]] = []
    serializer: Any = None
    fixed_byte_order = False

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "document" in metafunc.fixturenames:
            assert self.data_type_documents, "set data_type_documents to the entries to test"
            metafunc.parametrize(
                "document", self.data_type_documents, ids=[_document_id(d) for d in self.data_type_documents]
            )

    def sample(self, data_type: DataType, shape: tuple[int, ...]) -> np.ndarray:
        spec = ChunkSpec(shape, data_type, data_type.default_fill_value(), memory_layout("C"))
        return random_chunk(spec, seed=2)

    def test_names_resolve_and_to_json_rebuilds(self, document):
        data_type = data_type_from_json(document)
        name = document if isinstance(document, str) else document["name"]
        assert isinstance(data_type, registry.data_types.get(name)), (
            f"{name!r} built {type(data_type)}, not the registered one"
        )
        written = data_type.to_json()
        assert json.loads(json.dumps(written)) == written, f"{name!r}: to_json() is not JSON"
        assert data_type_from_json(written) == data_type, (
            f"{name!r}: the type rebuilt from to_json() {written!r} is not equal"
        )

    def test_item_size_agrees_with_numpy(self, document):
        data_type = data_type_from_json(document)
        dtype = data_type.numpy_dtype
        if data_type.item_size is None:
            assert dtype.hasobject or dtype.kind == "T", (
                f"{_document_id(document)}: item_size is None for the fixed-size {dtype}"
            )
        else:
            assert data_type.item_size == dtype.itemsize, (
                f"{_document_id(document)}: item_size {data_type.item_size}, numpy {dtype.itemsize}"
            )

    def test_has_endianness_agrees_with_numpy(self, document):
        data_type = data_type_from_json(document)
        expected = byte_order_matters(data_type.numpy_dtype) and not self.fixed_byte_order
        assert data_type.has_endianness == expected, (
            f"{_document_id(document)}: has_endianness is {data_type.has_endianness}, but "
            f"{data_type.numpy_dtype} {'has' if expected else 'has no'} multi-byte parts whose "
            "byte order matters; the bytes codec byte-swaps only types that say they have "
            "endianness (set fixed_byte_order = True if the type is stored in one byte order "
            "on purpose)"
        )

    def test_default_fill_value_round_trips(self, document):
        data_type = data_type_from_json(document)
        default = data_type.default_fill_value()
        encoded = data_type.fill_value_to_json(default)
        assert json.loads(json.dumps(encoded)) == encoded, (
            f"{_document_id(document)}: fill_value_to_json gave {encoded!r}, which is not JSON"
        )
        again = data_type.fill_value_from_json(encoded)
        assert _fill_bytes(data_type, again) == _fill_bytes(data_type, default), (
            f"{_document_id(document)}: the default fill value changes through JSON ({encoded!r})"
        )

    def test_valid_fill_values_round_trip(self, document):
        data_type = data_type_from_json(document)
        for value in self.valid_fill_values:
            parsed = data_type.fill_value_from_json(value)
            rewritten = data_type.fill_value_to_json(parsed)
            assert _fill_bytes(data_type, data_type.fill_value_from_json(rewritten)) == _fill_bytes(
                data_type, parsed
            ), f"{_document_id(document)}: fill value {value!r} changes through JSON ({rewritten!r})"

    def test_invalid_fill_values_are_refused(self, document):
        data_type = data_type_from_json(document)
        for value in self.invalid_fill_values:
            with pytest.raises(MetadataError) as info:
                data_type.fill_value_from_json(value)
            assert info.value.field == "fill_value", (
                f"{_document_id(document)}: the error for {value!r} names field "
                f"{info.value.field!r}, not 'fill_value'"
            )

    def test_arrays_round_trip_through_a_store(self, document):
        data_type = data_type_from_json(document)
        options: dict[str, Any] = {"compressors": None}
        if self.serializer is not None:
            options["serializer"] = self.serializer
        a = zf.create_array(
            KitMemoryStore(), shape=(5, 4), dtype=data_type, chunks=(2, 3), zarr_format=FORMAT_NAME, **options
        )
        values = self.sample(data_type, (3, 4))
        a[:3] = values  # edge chunks along both axes; rows 4-5 left at the fill value
        for label, array in (("written", a), ("reopened", zf.open_array(a.store, zarr_format=FORMAT_NAME))):
            got = np.asarray(array[:3])
            assert _same(got, values), f"{_document_id(document)} ({label}): {_difference(values, got)}"
            rest = np.asarray(array[3:])
            expected = np.full((2, 4), a.fill_value, dtype=rest.dtype)
            assert _same(rest, expected), (
                f"{_document_id(document)} ({label}): unwritten rows do not read as the fill "
                f"value: {_difference(expected, rest)}"
            )
