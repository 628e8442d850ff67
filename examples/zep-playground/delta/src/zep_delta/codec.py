"""The ``example.delta`` codec (array -> array, lossless, integer data types).

Stores the first element of a chunk (C order) and then each element's difference from
the one before it, in the chunk's own data type: differences wrap around as the
integers do, and decoding (a running sum that wraps the same way) gives back every
value bit for bit. Slowly varying integers become small numbers a compressor after it
packs well.

Metadata: ``{"name": "example.delta", "configuration": {"dtype": "int16"}}``.
``dtype`` is the data type of the chunks the codec encodes; it may be left out, and is
then recorded when an array is created (:meth:`Delta.evolve`), so a document always
says which integers it holds. An array whose data type is not that one is refused.

The fill value: a chunk whose every element is ``F`` encodes to ``[F, 0, 0, ...]``,
which is all one value only when ``F`` is 0, so only a fill value of 0 has an encoded
fill (what the codecs after this one store and skip chunks by); any other fill value
is refused when the array is created or opened (:meth:`Delta.resolve`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError

INTEGER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


class Delta(ArrayArrayCodec):
    name = "example.delta"

    def __init__(self, dtype: str | None = None) -> None:
        self.dtype = dtype

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Delta:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"dtype"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['dtype']",
                field="configuration",
                value=configuration,
            )
        dtype = configuration.get("dtype")
        if dtype is not None and dtype not in INTEGER_TYPES:
            raise MetadataError(
                f"dtype must be one of {list(INTEGER_TYPES)}, got {dtype!r}",
                field="configuration.dtype",
                value=dtype,
            )
        return cls(dtype)

    def to_json(self) -> dict[str, Any]:
        if self.dtype is None:
            return {"name": self.name}
        return {"name": self.name, "configuration": {"dtype": self.dtype}}

    def evolve(self, spec: ChunkSpec) -> Delta:
        # recorded at creation: the document names the integers it holds
        return self if self.dtype is not None else Delta(spec.dtype.name)

    def validate(self, spec: ChunkSpec) -> None:
        found = spec.dtype.name
        if found not in INTEGER_TYPES:
            raise MetadataError(f"{self.name} encodes integers ({', '.join(INTEGER_TYPES)}), not {found}")
        if self.dtype is not None and self.dtype != found:
            raise MetadataError(
                f"the codec records dtype {self.dtype!r}, but the chunks it receives are {found}",
                field="configuration.dtype",
                value=self.dtype,
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        fill = spec.fill_value
        if fill is not None and np.asarray(fill).item() != 0:
            raise MetadataError(
                f"{self.name} needs the fill value 0: a chunk all equal to {np.asarray(fill).item()!r} encodes "
                f"to [{np.asarray(fill).item()!r}, 0, 0, ...], which no single encoded value describes"
            )
        return spec

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        flat = np.ascontiguousarray(chunk, dtype=spec.dtype).reshape(-1)
        out = np.empty_like(flat)
        if flat.size:
            out[0] = flat[0]
            np.subtract(flat[1:], flat[:-1], out=out[1:])  # wraps around, as integers do
        return out.reshape(chunk.shape)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        if chunk.shape != spec.shape or chunk.dtype != spec.dtype:
            raise CorruptChunkError(
                f"{self.name} expected {spec.dtype} data of shape {spec.shape}, "
                f"got {chunk.dtype} data of shape {chunk.shape}"
            )
        return np.cumsum(chunk.reshape(-1), dtype=spec.dtype).reshape(spec.shape)
