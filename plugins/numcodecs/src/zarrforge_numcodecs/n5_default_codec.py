"""The ``n5_default`` codec of the zarr-extensions registry (``array -> bytes``).

Contract:

* configuration: ``{"codecs": [transpose, bytes, (one bytes -> bytes codec)]}``
  -- the first a ``transpose`` with the full reversal ``[N-1, ..., 0]``, the
  second ``bytes`` with ``endian`` ``"big"`` (may be omitted for 1-byte
  types), optionally a third, bytes -> bytes (a compressor). Anything else is
  a ``MetadataError`` on ``configuration.codecs[i]`` (the transpose order and
  the endianness are checked against the array in ``validate``).
* a stored block is N5's "default" block: a big-endian header -- ``uint16``
  mode (0), ``uint16`` number of dimensions, one ``uint32`` per dimension
  with the block's shape (in the array's dimension order, which for N5 data
  is N5's own) -- then the nested codecs' output for an array of that shape.
* encoding writes the full chunk shape in the header. Decoding reads the
  header, refuses another mode, another number of dimensions or a block
  larger than the chunk (which would let a header claim any amount of memory)
  with :class:`~zarrforge.errors.CorruptChunkError`, decodes the block at its
  own shape (the compressor held to the exact byte count) and pads it with
  the fill value to the chunk's shape (N5 writers may truncate edge blocks).
* data types: ``(u)int8..64``, ``float32``, ``float64`` (what N5 has).
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.plugin_api.codecs import codec_from_json

from . import _bounds, _validate

N5_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
FIELD = "configuration.codecs"


class N5DefaultCodec(ArrayBytesCodec):
    name = "n5_default"

    def __init__(self, codecs: list[Any]) -> None:
        if not 2 <= len(codecs) <= 3:
            raise MetadataError(
                "codec 'n5_default': codecs must be [transpose, bytes] plus at "
                f"most one bytes -> bytes codec, got {len(codecs)} codecs",
                field=FIELD,
                value=[c.to_json() for c in codecs],
            )
        transpose, serializer, *rest = codecs
        for index, (codec, wanted, kind) in enumerate(
            [(transpose, "transpose", ArrayArrayCodec), (serializer, "bytes", ArrayBytesCodec)]
            + [(c, None, BytesBytesCodec) for c in rest]
        ):
            name = codec.to_json().get("name")
            if (wanted is not None and name != wanted) or not isinstance(codec, kind):
                valid = f"the {wanted!r} codec" if wanted else "a bytes -> bytes codec"
                raise MetadataError(
                    f"codec 'n5_default': codecs[{index}] must be {valid}, got {name!r}",
                    field=f"{FIELD}[{index}]",
                    value=codec.to_json(),
                )
        self.transpose = transpose
        self.serializer = serializer
        self.compressor: BytesBytesCodec | None = rest[0] if rest else None

    @property
    def codecs(self) -> list[Any]:
        return [self.transpose, self.serializer] + ([self.compressor] if self.compressor else [])

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> N5DefaultCodec:
        if configuration is None:
            raise MetadataError(
                "codec 'n5_default' needs a configuration with 'codecs'", field="configuration", value=None
            )
        config = _validate.configuration_object(
            cls.name, configuration, allowed=("codecs",), required=("codecs",)
        )
        documents = config["codecs"]
        if not isinstance(documents, list):
            raise MetadataError(
                f"codec 'n5_default': codecs must be a list, got {documents!r}", field=FIELD, value=documents
            )
        return cls([codec_from_json(doc, field=f"{FIELD}[{i}]") for i, doc in enumerate(documents)])

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"codecs": [c.to_json() for c in self.codecs]}}

    def evolve(self, spec: ChunkSpec) -> N5DefaultCodec:
        transposed = self.transpose.resolve(spec)
        compressor = [self.compressor.evolve(spec)] if self.compressor else []
        return N5DefaultCodec([self.transpose.evolve(spec), self.serializer.evolve(transposed), *compressor])

    def validate(self, spec: ChunkSpec) -> None:
        name = spec.data_type.to_json()
        if name not in N5_TYPES:
            raise MetadataError(
                f"codec 'n5_default' does not support data type {name!r}; N5 has {', '.join(N5_TYPES)}",
                field="data_type",
                value=name,
            )
        reversal = list(range(len(spec.shape)))[::-1]
        order = self.transpose.to_json().get("configuration", {}).get("order")
        if order != reversal:
            raise MetadataError(
                f"codec 'n5_default': codecs[0] must reverse all dimensions "
                f"(order {reversal}), got order {order}",
                field=f"{FIELD}[0].configuration.order",
                value=order,
            )
        endian = self.serializer.to_json().get("configuration", {}).get("endian")
        if endian != "big" and not (endian is None and spec.dtype.itemsize == 1):
            raise MetadataError(
                f"codec 'n5_default': codecs[1] must have endian 'big' (N5 is big-endian), got {endian!r}",
                field=f"{FIELD}[1].configuration.endian",
                value=endian,
            )
        if len(spec.shape) > 0xFFFF or any(n > 0xFFFFFFFF for n in spec.shape):
            raise MetadataError(
                "codec 'n5_default': N5 headers hold at most 65535 dimensions of at most 2**32 - 1",
                field="chunk_shape",
                value=spec.shape,
            )
        self.transpose.validate(spec)
        self.serializer.validate(self.transpose.resolve(spec))

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        header = struct.pack(f">HH{len(spec.shape)}I", 0, len(spec.shape), *spec.shape)
        transposed = self.transpose.resolve(spec)
        data = bytes(self.serializer.encode(self.transpose.encode(chunk, spec), transposed))
        if self.compressor is not None:
            data = self.compressor.encode(data)
        return header + data

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        view = _bounds.byte_view(data)
        ndim = len(spec.shape)
        size = 4 + 4 * ndim
        if len(view) < size:
            raise CorruptChunkError(
                f"codec 'n5_default': the block has {len(view)} bytes, "
                f"fewer than the {size}-byte header of a {ndim}-d block"
            )
        mode, count = struct.unpack_from(">HH", view, 0)
        if mode != 0:
            raise CorruptChunkError(
                f"codec 'n5_default': block mode {mode} is not N5's default "
                "mode (0); varlength and object blocks are not supported"
            )
        if count != ndim:
            raise CorruptChunkError(
                f"codec 'n5_default': the block header has {count} dimensions, the array {ndim}"
            )
        shape = struct.unpack_from(f">{ndim}I", view, 4)
        if any(b > c for b, c in zip(shape, spec.shape)):
            raise CorruptChunkError(
                f"codec 'n5_default': the block header declares shape "
                f"{list(shape)}, larger than the chunk {list(spec.shape)}"
            )
        block = ChunkSpec(tuple(shape), spec.data_type, spec.fill_value, spec.layout)
        body: bytes | memoryview = view[size:]
        if self.compressor is not None:
            body = self.compressor.decode_sized(body, math.prod(shape) * spec.dtype.itemsize)
        encoded = self.transpose.resolve(block)
        values = self.transpose.decode(self.serializer.decode(body, encoded), block)
        if tuple(shape) == tuple(spec.shape):
            result: np.ndarray = values
            return result
        out = np.full(spec.shape, spec.fill_value, dtype=spec.dtype)
        out[tuple(slice(0, n) for n in shape)] = values
        return out
