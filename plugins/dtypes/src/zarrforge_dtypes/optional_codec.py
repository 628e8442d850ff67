"""The ``optional`` codec (a zarrs extension, ``array -> bytes``) for the ``optional`` type.

Configuration: ``mask_codecs`` and ``data_codecs``, two codec lists (each with one
``array -> bytes`` codec). A chunk is stored as::

    mask length (u64, little endian) | data length (u64, little endian) | mask | data

* the mask is a ``bool`` array of the chunk's shape, true where the element is
  present, encoded with ``mask_codecs`` (zarrs writes ``packbits``);
* the data is a one-dimensional array of the present elements only, in C order, of
  the inner data type, encoded with ``data_codecs``; when no element is present the
  data is empty (no codec runs).

Nested optional types work through ``data_codecs`` holding another ``optional`` codec.
Decoding checks that the two lengths add up to the stored size and that the data
holds exactly as many elements as the mask marks present; anything else is a
:class:`~zarrforge.errors.CorruptChunkError`.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayBytesCodec, ChunkSpec, Codec
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.plugin_api.data_types import CodecChain, codecs_from_json, data_type_from_json, evolve_codecs

from ._util import config_keys
from .optional_type import Optional, Some

_HEADER = struct.Struct("<QQ")
_KEYS = frozenset({"mask_codecs", "data_codecs"})


class OptionalCodec(ArrayBytesCodec):
    name = "optional"

    def __init__(self, mask_codecs: Sequence[Codec], data_codecs: Sequence[Codec]) -> None:
        self.mask_codecs = tuple(mask_codecs)
        self.data_codecs = tuple(data_codecs)
        self._mask_chain = CodecChain(self.mask_codecs)
        self._data_chain = CodecChain(self.data_codecs)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> OptionalCodec:
        config = config_keys("codec 'optional'", configuration, _KEYS, _KEYS)
        return cls(
            codecs_from_json(config["mask_codecs"], field="configuration.mask_codecs"),
            codecs_from_json(config["data_codecs"], field="configuration.data_codecs"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "configuration": {
                "mask_codecs": [codec.to_json() for codec in self.mask_codecs],
                "data_codecs": [codec.to_json() for codec in self.data_codecs],
            },
        }

    # --- the two inner representations -------------------------------------------------

    @staticmethod
    def _optional(spec: ChunkSpec) -> Optional:
        if not isinstance(spec.data_type, Optional):
            raise MetadataError(
                f"codec 'optional' stores the 'optional' data type only, not {spec.data_type.to_json()!r}",
                field="data_type",
                value=spec.data_type.to_json(),
            )
        return spec.data_type

    @staticmethod
    def _mask_spec(spec: ChunkSpec) -> ChunkSpec:
        return ChunkSpec(tuple(spec.shape), data_type_from_json("bool"), False, spec.layout)

    def _data_spec(self, spec: ChunkSpec, count: int) -> ChunkSpec:
        inner = self._optional(spec).inner
        return ChunkSpec((count,), inner, inner.default_fill_value(), spec.layout)

    def evolve(self, spec: ChunkSpec) -> OptionalCodec:
        return OptionalCodec(
            evolve_codecs(self.mask_codecs, self._mask_spec(spec)),
            evolve_codecs(self.data_codecs, self._data_spec(spec, 1)),
        )

    def validate(self, spec: ChunkSpec) -> None:
        self._optional(spec)
        try:
            self._mask_chain.validate(self._mask_spec(spec))
        except MetadataError as error:
            raise error.within("configuration.mask_codecs") from error
        try:
            self._data_chain.validate(self._data_spec(spec, 1))
        except MetadataError as error:
            raise error.within("configuration.data_codecs") from error

    def encoded_size(self, spec: ChunkSpec) -> None:
        return None

    # --- data ---------------------------------------------------------------------------

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        data_type = self._optional(spec)
        flat = np.asarray(chunk, dtype=object).reshape(-1)
        present = np.fromiter((value is not None for value in flat), dtype=bool, count=flat.size)
        if data_type.nested and not all(isinstance(v, Some) for v in flat[present]):
            raise TypeError("an element of a nested optional array is None or Some(...)")
        values = [value.value if data_type.nested else value for value in flat[present]]
        mask = self._mask_chain.encode(present.reshape(spec.shape), self._mask_spec(spec))
        if values:
            inner = np.empty(len(values), dtype=data_type.inner.numpy_dtype)
            inner[:] = values if inner.dtype != object else _objects(values)
            data = self._data_chain.encode(inner, self._data_spec(spec, len(values)))
        else:
            data = b""
        return _HEADER.pack(len(mask), len(data)) + bytes(mask) + bytes(data)

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        data_type = self._optional(spec)
        data = bytes(data)
        if len(data) < _HEADER.size:
            raise CorruptChunkError(
                f"codec 'optional': the chunk holds {len(data)} bytes, "
                f"fewer than its {_HEADER.size}-byte header"
            )
        mask_length, data_length = _HEADER.unpack_from(data)
        if _HEADER.size + mask_length + data_length != len(data):
            raise CorruptChunkError(
                f"codec 'optional': the header declares a {mask_length}-byte mask and "
                f"{data_length} bytes of data, but the chunk holds {len(data) - _HEADER.size} "
                "bytes after it"
            )
        mask_bytes = data[_HEADER.size : _HEADER.size + mask_length]
        present = _decoded_part(self._mask_chain, mask_bytes, self._mask_spec(spec), "mask").astype(bool)
        count = int(present.sum())
        out = np.full(spec.shape, None, dtype=object)
        if count == 0:
            if data_length:
                raise CorruptChunkError(
                    f"codec 'optional': no element is present but the chunk holds {data_length} bytes of data"
                )
            return out
        values = _decoded_part(
            self._data_chain, data[_HEADER.size + mask_length :], self._data_spec(spec, count), "data"
        )
        if values.shape != (count,):
            raise CorruptChunkError(
                f"codec 'optional': the data holds {values.shape} "
                f"elements where the mask marks {count} present"
            )
        items = values.tolist() if values.dtype != object else list(values)
        if data_type.nested:
            items = [Some(item) for item in items]
        out[present] = _objects(items)
        return out


def _decoded_part(chain: CodecChain, data: bytes, spec: ChunkSpec, part: str) -> np.ndarray:
    """One part of the chunk decoded by its own chain; damage is a CorruptChunkError
    without a key, so the chain around this codec names the chunk's own key."""
    try:
        return chain.decode(data, spec, key=f"<optional {part}>")
    except CorruptChunkError as exc:
        text, prefix = str(exc), f"chunk {exc.key!r}: "
        raise type(exc)(
            f"codec 'optional', its {part}: {text[len(prefix) :] if text.startswith(prefix) else text}"
        ) from exc


def _objects(items: list[Any]) -> np.ndarray:
    """``items`` as a 1-d object array, element by element (numpy would otherwise look
    inside tuples or lists)."""
    array = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):
        array[index] = item
    return array
