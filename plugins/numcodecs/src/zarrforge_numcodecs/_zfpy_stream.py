"""Decoding ``numcodecs.zfpy`` chunks (zfp streams *with* a header) without trusting them.

zfp's decoder reads its input word by word and never checks where the input ends, and
a ``numcodecs.zfpy`` chunk carries its own header (array shape, scalar type, mode), so
a damaged or forged chunk could make zfpy read far past the bytes it was given and
crash the process (the codec fuzz target found this). Before zfpy sees a chunk:

* the header is read from a zero-padded copy of the first bytes; its shape must hold
  exactly the chunk's number of values, and its mode must be one zfpy writes
  (``tolerance``, ``rate``, ``precision``, ``reversible``; ``expert`` is refused);
* the most bits any block can take is bounded: at most 64 bit planes of 4^d values plus
  their group tests and exponent, or, in fixed-rate mode, the rate's bits per block
  (a rate above 64 bits per value is refused as damage);
* the chunk is copied into a zero-filled buffer that long (longer input is corrupt),
  so decoding a damaged stream ends inside that buffer with wrong values or an error,
  reported as :class:`~zarrforge.errors.CorruptChunkError`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.errors import CorruptChunkError

_HEAD = 32  # bytes: zfp's longest header is 148 bits
_MODES = ("tolerance", "rate", "precision", "reversible")


def _corrupt(name: str, why: str) -> CorruptChunkError:
    return CorruptChunkError(f"codec {name!r}: the chunk is not a zfp stream of this chunk ({why})")


def decode(data: memoryview, expected: int, name: str) -> np.ndarray:
    """The values of the zfp stream ``data`` that must hold ``expected`` values."""
    import zfpy

    head = np.zeros(_HEAD, dtype=np.uint8)
    head[: min(len(data), _HEAD)] = np.frombuffer(data[:_HEAD], dtype=np.uint8)
    try:
        info: dict[str, Any] = zfpy.header(head.tobytes())
    except Exception as exc:  # noqa: BLE001  # zfpy raises bare exceptions for a bad header
        raise _corrupt(name, f"header: {exc}") from None
    dims = [int(info[k]) for k in ("nx", "ny", "nz", "nw") if info.get(k)]
    if not dims or math.prod(dims) != expected:
        raise _corrupt(name, f"its header declares shape {dims[::-1]}, not {expected} values")
    mode = info.get("mode")
    if mode not in _MODES:
        raise _corrupt(name, f"mode {mode!r}; zfpy writes {', '.join(_MODES)}")
    per_block = 4 ** len(dims)
    block_bits = per_block * 65 + 140
    if mode == "rate":
        rate = float(info["config"]["rate"])
        if not 0 < rate <= 64:
            raise _corrupt(name, f"rate {rate} bits per value")
        block_bits = max(block_bits, math.ceil(rate * per_block) + 64)
    blocks = math.prod(-(-d // 4) for d in dims)
    bound = _HEAD + -(-blocks * block_bits // 8) + 64
    if len(data) > bound:
        raise _corrupt(name, f"{len(data)} bytes, more than any such stream can take ({bound})")
    padded = np.zeros(bound, dtype=np.uint8)
    padded[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    try:
        return np.asarray(zfpy.decompress_numpy(padded.tobytes()))
    except Exception as exc:  # noqa: BLE001  # zfpy raises bare exceptions for a corrupt stream
        raise _corrupt(name, f"{type(exc).__name__}: {exc}") from None
