"""The ``bitround`` codec of the zarr-extensions registry (``array -> array``).

Contract:

* configuration: ``{"keepbits": <integer >= 1>}`` (required; the registry's
  README says at least 1, its schema allows 0 -- the README, the normative
  text, wins).
* encoding rounds, half to even, each value's bit pattern:

  - floating-point types (float16/32/64, bfloat16 and complex types, each
    component): the mantissa to ``keepbits`` bits; sign and exponent stay.
    With ``keepbits`` >= the mantissa width nothing changes. This is the
    same arithmetic as ``numcodecs.BitRound``;
  - integer types (and datetime64 / timedelta64, as int64): the two's
    complement pattern to ``keepbits`` bits counted from its most significant
    set bit; a carry out of the top bit saturates to all ones before masking
    (as zarrs does: 255 as uint8 with ``keepbits`` 2 becomes 192).

* decoding returns its input (rounding is lossy and needs no inverse);
  ``resolve`` returns the spec unchanged.
* other data types are refused by ``validate`` with a ``MetadataError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.errors import MetadataError

from . import _validate
from ._configured import KeywordConfigured

# Mantissa bits of floating-point types numpy's finfo may not know (ml_dtypes ones).
_MANTISSA_BITS = {"bfloat16": 7, "complex_bfloat16": 7}


def _mantissa_bits(spec: ChunkSpec) -> int | None:
    """Mantissa width for a floating-point type, ``None`` for an integer type."""
    document = spec.data_type.to_json()
    name = document if isinstance(document, str) else document.get("name")
    if name in _MANTISSA_BITS:
        return _MANTISSA_BITS[name]
    dtype = spec.dtype
    if dtype.kind in "fc":
        return int(np.finfo(dtype).nmant)
    if dtype.kind in "iumM" and dtype.itemsize in (1, 2, 4, 8):
        return None
    raise MetadataError(
        f"codec 'bitround' does not support data type {document!r}; it rounds integer and "
        "floating-point types (and complex ones per component)",
        field="data_type",
        value=document,
    )


def _bit_length(words: np.ndarray, width: int) -> np.ndarray:
    """Number of significant bits of each unsigned value (0 for 0)."""
    length = np.zeros(words.shape, dtype=np.uint64)
    rest = words.astype(np.uint64)
    step = width // 2
    while step:
        high = rest >> np.uint64(step)
        moved = high != 0
        length[moved] += np.uint64(step)
        rest = np.where(moved, high, rest)
        step //= 2
    result: np.ndarray = length + (rest != 0)
    return result


def _round(words: np.ndarray, keepbits: int, maxbits: np.ndarray | int, width: int) -> np.ndarray:
    """Round unsigned ``words`` (``width`` bits) to ``keepbits`` of their ``maxbits``."""
    words = words.astype(np.uint64)
    maxbits = np.broadcast_to(np.asarray(maxbits, dtype=np.uint64), words.shape)
    active = maxbits > np.uint64(keepbits)
    maskbits = np.where(active, maxbits - np.uint64(keepbits), np.uint64(1))
    full = np.uint64((1 << width) - 1)
    mask = (full >> maskbits) << maskbits
    half_minus_one = (np.uint64(1) << (maskbits - np.uint64(1))) - np.uint64(1)
    increment = ((words >> maskbits) & np.uint64(1)) + half_minus_one
    total = words + increment
    # saturate: a carry past ``width`` bits (or past 64) leaves all ones
    overflow = (total < words) | (total > full)
    total = np.where(overflow, full, total)
    return np.where(active, total & mask, words)


class BitroundCodec(KeywordConfigured, ArrayArrayCodec):
    name = "bitround"
    _config_keys = _required_keys = ("keepbits",)
    _needs_configuration = "'keepbits' (an integer >= 1)"

    def __init__(self, *, keepbits: int) -> None:
        self._keepbits = _validate.integer(self.name, "keepbits", keepbits, minimum=1)

    @property
    def keepbits(self) -> int:
        return self._keepbits

    def _configuration(self) -> dict[str, Any]:
        return {"keepbits": self._keepbits}

    def validate(self, spec: ChunkSpec) -> None:
        _mantissa_bits(spec)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return spec

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        mantissa = _mantissa_bits(spec)
        values = np.ascontiguousarray(chunk, dtype=spec.dtype)
        if values.dtype.kind == "c":
            width = 8 * values.dtype.itemsize // 2
        else:
            width = 8 * values.dtype.itemsize
        words = values.reshape(-1).view(f"u{width // 8}")
        if mantissa is None:
            maxbits: np.ndarray | int = _bit_length(words, width)
        else:
            maxbits = mantissa
        rounded = _round(words, self._keepbits, maxbits, width).astype(words.dtype)
        return rounded.view(values.dtype).reshape(values.shape)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return chunk
