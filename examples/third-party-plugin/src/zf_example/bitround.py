"""The ``zf_example.bitround`` codec (array -> array, lossy).

Keeps ``keepbits`` bits of each float's mantissa and zeroes the rest, rounding
to nearest with ties to even. The zeroed low bits make the data far more
compressible, at a relative error of at most ``2 ** -(keepbits + 1)``. Values
that are not finite (NaN with its payload, infinities) are stored unchanged; a
finite value may round up to infinity only when it lies within that error of
the largest finite value. Decoding is the identity: the rounding is the
information loss.

Metadata: ``{"name": "zf_example.bitround", "configuration": {"keepbits": 10}}``;
``keepbits`` is required, from 0 up to the mantissa width of the data type
(10 for float16, 23 for float32, 52 for float64).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError

MANTISSA_BITS = {2: 10, 4: 23, 8: 52}
_UINT: dict[int, type[np.unsignedinteger[Any]]] = {2: np.uint16, 4: np.uint32, 8: np.uint64}


class BitRound(ArrayArrayCodec):
    name = "zf_example.bitround"

    def __init__(self, keepbits: int) -> None:
        self.keepbits = keepbits

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> BitRound:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"keepbits"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['keepbits']",
                field="configuration",
                value=configuration,
            )
        keepbits = configuration.get("keepbits")
        if not isinstance(keepbits, int) or isinstance(keepbits, bool) or keepbits < 0:
            raise MetadataError(
                f"keepbits must be a non-negative integer, got {keepbits!r}",
                field="configuration.keepbits",
                value=keepbits,
            )
        return cls(keepbits)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"keepbits": self.keepbits}}

    def validate(self, spec: ChunkSpec) -> None:
        dtype = spec.dtype
        if dtype.kind != "f" or dtype.itemsize not in MANTISSA_BITS:
            raise MetadataError(
                f"{self.name} works on float16, float32 and float64 data, not {spec.data_type.to_json()!r}"
            )
        width = MANTISSA_BITS[dtype.itemsize]
        if self.keepbits > width:
            raise MetadataError(
                f"keepbits {self.keepbits} exceeds the {width} mantissa bits of {dtype}",
                field="configuration.keepbits",
                value=self.keepbits,
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return spec

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        out = np.array(chunk, dtype=spec.dtype, copy=True)  # never change the caller's array
        drop = MANTISSA_BITS[spec.dtype.itemsize] - self.keepbits
        if drop == 0:
            return out
        uint = _UINT[spec.dtype.itemsize]
        bits = out.view(uint)
        one = uint(1)
        half_minus_one = uint((1 << (drop - 1)) - 1)
        mask = ~uint((1 << drop) - 1)
        # Add just under half an ulp of the kept precision, plus one when the last kept
        # bit is odd (ties to even), then cut: carries run into the exponent as they should.
        rounded = (bits + half_minus_one + ((bits >> uint(drop)) & one)) & mask
        finite = np.isfinite(out)
        bits[finite] = rounded[finite]
        return out

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        if chunk.shape != spec.shape or chunk.dtype != spec.dtype:
            raise CorruptChunkError(
                f"{self.name} expected {spec.dtype} data of shape {spec.shape}, "
                f"got {chunk.dtype} data of shape {chunk.shape}"
            )
        return chunk
