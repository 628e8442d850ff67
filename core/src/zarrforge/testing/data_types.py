"""The data type conformance suite.

Subclass :class:`DataTypeConformance` and set:

* ``data_type_documents``: metadata entries to test (``"float32"``, or
  ``{"name": ..., "configuration": {...}}``);
* ``valid_fill_values`` / ``invalid_fill_values``: JSON fill values that every
  listed data type must accept, respectively refuse;
* ``serializer``: the array -> bytes codec for the array round trip (``None``
  for the format's default);
* override ``sample(data_type, shape)`` for types whose values cannot be made
  from random bytes (variable-size types).

What it checks: the name resolves through the registry; ``to_json``
rebuilds an equal type; ``item_size`` agrees with the numpy dtype; the default
and every valid fill value survive a JSON round trip bit for bit; invalid
fill values raise ``MetadataError`` naming ``fill_value``; and an array of the
type round trips through a store, with unwritten regions reading as the fill
value.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import zarrforge as zf

from .. import registry
from ..abc.codec import ChunkSpec
from ..abc.data_type import DataType
from ..errors import MetadataError
from ..resolution import data_type_from_json, memory_layout
from .codecs import _same, random_chunk


def _fill_bytes(data_type: DataType, value: Any) -> Any:
    dtype = data_type.numpy_dtype
    if dtype.hasobject or dtype.kind == "T":
        return value
    return np.array(value, dtype=dtype).tobytes()


class DataTypeConformance:
    data_type_documents: list[Any] = []
    valid_fill_values: list[Any] = []
    invalid_fill_values: list[Any] = []
    serializer: Any = None

    def sample(self, data_type: DataType, shape: tuple[int, ...]) -> np.ndarray:
        spec = ChunkSpec(shape, data_type, data_type.default_fill_value(), memory_layout("C"))
        return random_chunk(spec, seed=2)

    def _types(self) -> list[DataType]:
        assert self.data_type_documents, "set data_type_documents to the entries to test"
        return [data_type_from_json(doc) for doc in self.data_type_documents]

    def test_names_resolve_and_to_json_rebuilds(self):
        for document, data_type in zip(self.data_type_documents, self._types()):
            name = document if isinstance(document, str) else document["name"]
            assert isinstance(data_type, registry.data_types.get(name))
            written = data_type.to_json()
            assert json.loads(json.dumps(written)) == written
            assert data_type_from_json(written) == data_type

    def test_item_size_agrees_with_numpy(self):
        for data_type in self._types():
            dtype = data_type.numpy_dtype
            if data_type.item_size is None:
                assert dtype.hasobject or dtype.kind == "T"
            else:
                assert data_type.item_size == dtype.itemsize

    def test_default_fill_value_round_trips(self):
        for data_type in self._types():
            default = data_type.default_fill_value()
            encoded = data_type.fill_value_to_json(default)
            assert json.loads(json.dumps(encoded)) == encoded
            again = data_type.fill_value_from_json(encoded)
            assert _fill_bytes(data_type, again) == _fill_bytes(data_type, default)

    def test_valid_fill_values_round_trip(self):
        for data_type in self._types():
            for value in self.valid_fill_values:
                parsed = data_type.fill_value_from_json(value)
                rewritten = data_type.fill_value_to_json(parsed)
                assert _fill_bytes(data_type, data_type.fill_value_from_json(rewritten)) == \
                    _fill_bytes(data_type, parsed), (data_type, value)

    def test_invalid_fill_values_are_refused(self):
        for data_type in self._types():
            for value in self.invalid_fill_values:
                with pytest.raises(MetadataError) as info:
                    data_type.fill_value_from_json(value)
                assert info.value.field == "fill_value", (data_type, value)

    def test_arrays_round_trip_through_a_store(self):
        for data_type in self._types():
            options: dict[str, Any] = {"compressors": None}
            if self.serializer is not None:
                options["serializer"] = self.serializer
            a = zf.create_array(None, shape=(5, 4), dtype=data_type, chunks=(2, 3), **options)
            values = self.sample(data_type, (3, 4))
            a[:3] = values
            for array in (a, zf.open_array(a.store)):
                assert _same(np.asarray(array[:3]), values)
                rest = np.asarray(array[3:])
                expected = np.full((2, 4), a.fill_value, dtype=rest.dtype)
                assert _same(rest, expected)
