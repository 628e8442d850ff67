"""The ``bytes`` (array -> bytes) and ``transpose`` (array -> array) codecs.

``bytes`` serialises a chunk's elements in C order with the configured
``endian`` (``"little"`` or ``"big"``); ``endian`` is required for types whose
byte order matters and is dropped for single-byte types, as zarr-python does.
A stored chunk of the wrong length is a :class:`CorruptChunkError`.

``transpose`` permutes the chunk's dimensions by ``order`` (a permutation of
``0..ndim-1``) before the next codec sees it.

The constructors take zarr-python's arguments: ``BytesCodec(endian=...)`` with
``"little"``, ``"big"`` or ``None`` (default: this machine's byte order, as zarr-python's
``sys.byteorder``; an endian given as an enum member stands for its value), and
``TransposeCodec(order=...)`` with any sequence of integers (list, tuple). A bad value is
a :class:`~zarrforge.errors.MetadataError` naming the field and what is valid.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Iterable
from enum import Enum
from typing import Any, Literal

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError

from ._config import check_keys

_ENDIAN: dict[str, Literal["<", ">"]] = {"little": "<", "big": ">"}


class BytesCodec(ArrayBytesCodec):
    name = "bytes"

    def __init__(self, endian: str | None = sys.byteorder) -> None:
        if isinstance(endian, Enum):
            endian = endian.value
        if endian is not None and (not isinstance(endian, str) or endian not in _ENDIAN):
            raise MetadataError(
                f"codec 'bytes': endian must be 'little', 'big' or None, got {endian!r}",
                field="configuration.endian",
                value=endian,
            )
        self.endian = None if endian is None else str(endian)
        self._last_stored: tuple[ChunkSpec, np.dtype] | None = None

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> BytesCodec:
        config = check_keys(name, configuration, {"endian"})
        return cls(config.get("endian"))

    def to_json(self) -> dict[str, Any]:
        if self.endian is None:
            return {"name": self.name}
        return {"name": self.name, "configuration": {"endian": self.endian}}

    def evolve(self, spec: ChunkSpec) -> BytesCodec:
        if not spec.data_type.has_endianness:
            return BytesCodec(None)
        return self if self.endian is not None else BytesCodec("little")

    def validate(self, spec: ChunkSpec) -> None:
        if spec.data_type.item_size is None:
            raise MetadataError(
                f"the bytes codec cannot encode the variable-size data type {spec.data_type.to_json()!r}",
                field="name",
                value=self.name,
            )
        if spec.data_type.has_endianness and self.endian is None:
            raise MetadataError(
                f"'endian' is required for data type {spec.data_type.to_json()!r}",
                field="configuration.endian",
                value=None,
            )

    def _stored_dtype(self, spec: ChunkSpec) -> np.dtype:
        last = self._last_stored  # (spec, its stored dtype): the engine reuses one spec
        if last is not None and last[0] is spec:
            return last[1]
        dtype = spec.dtype
        if spec.data_type.has_endianness:
            dtype = dtype.newbyteorder(_ENDIAN[self.endian or "little"])
        self._last_stored = (spec, dtype)
        return dtype

    def encoded_size(self, spec: ChunkSpec) -> int | None:
        return spec.nbytes

    def plain_dtype(self, spec: ChunkSpec) -> np.dtype | None:
        if spec.data_type.item_size is None or spec.dtype.hasobject:
            return None
        return self._stored_dtype(spec)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> memoryview:
        # A byte view of the C-ordered chunk: the next codec (or the chain, which hands
        # the store bytes) copies it at most once, and not at all when already C-ordered.
        stored = np.ascontiguousarray(chunk, dtype=self._stored_dtype(spec))
        return stored.reshape(-1).view(np.uint8).data  # memoryview(...) of it, as typed

    def _stored(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        """A read-only view of ``data`` as the chunk, in its stored byte order."""
        expected = spec.nbytes
        if len(data) != expected:
            raise CorruptChunkError(
                f"the bytes codec expected {expected} bytes for a chunk of "
                f"shape {spec.shape} and data type {spec.data_type.to_json()!r}, "
                f"got {len(data)}"
            )
        return np.frombuffer(data, dtype=self._stored_dtype(spec)).reshape(spec.shape)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        array = self._stored(data, spec)
        if array.dtype != spec.dtype:
            array = array.astype(spec.dtype)
        return array

    def decode_into(self, data: bytes | memoryview, spec: ChunkSpec, out: np.ndarray) -> None:
        # one copy, swapping bytes on the way if the stored order differs
        np.copyto(out, self._stored(data, spec), casting="equiv")


class TransposeCodec(ArrayArrayCodec):
    name = "transpose"

    def __init__(self, order: Iterable[int]) -> None:
        listed = (
            list(order) if isinstance(order, Iterable) and not isinstance(order, (str, bytes, dict)) else None
        )
        if (
            listed is None
            or not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in listed)
            or sorted(listed) != list(range(len(listed)))
        ):
            raise MetadataError(
                f"codec 'transpose': order must be a permutation of 0..n-1 "
                f"(a list or tuple of integers), got {order!r}",
                field="configuration.order",
                value=order,
            )
        self.order = tuple(int(i) for i in listed)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> TransposeCodec:
        config = check_keys(name, configuration, {"order"}, {"order"})
        order = config["order"]
        if not isinstance(order, (list, tuple)):  # a document's order is a JSON array
            raise MetadataError(
                f"codec 'transpose': order must be a permutation of 0..n-1 "
                f"(a JSON array of integers), got {order!r}",
                field="configuration.order",
                value=order,
            )
        return cls(order)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"order": list(self.order)}}

    def validate(self, spec: ChunkSpec) -> None:
        if len(self.order) != len(spec.shape):
            raise MetadataError(
                f"order {list(self.order)} has {len(self.order)} entries but the "
                f"array has {len(spec.shape)} dimensions",
                field="configuration.order",
                value=list(self.order),
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return ChunkSpec(
            tuple(spec.shape[i] for i in self.order), spec.data_type, spec.fill_value, spec.layout
        )

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return np.transpose(chunk, self.order)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return np.transpose(chunk, np.argsort(self.order))
