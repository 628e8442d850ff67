"""How each numcodecs codec id maps representations, and what array filters produce.

Contract:

* :func:`kind_of` classifies a numcodecs id as ``array -> array`` (filters
  whose output is an array of numbers the next codec serialises),
  ``array -> bytes`` (codecs that serialise a whole array themselves: object
  codecs and array compressors) or ``bytes -> bytes`` (compressors,
  checksums, byte shuffles). Ids this table does not know -- e.g. codecs
  third-party packages register with numcodecs -- are treated as
  ``bytes -> bytes``.
* for array filters, :func:`decoded_dtype`, :func:`encoded_dtype` and
  :func:`encoded_shape` give the representation before and after encoding,
  read from the codec's numcodecs configuration (``get_config()``).

Checked against numcodecs 0.15/0.16:

========================  ======================================================
delta, fixedscaleoffset,  same shape; decoded dtype ``dtype``, encoded
quantize                  dtype ``astype`` (defaults to ``dtype``)
astype                    same shape; ``decode_dtype`` -> ``encode_dtype``
categorize                same shape; strings (``dtype``) -> ``astype`` (u1)
bitround                  same shape and dtype (floats only)
packbits                  bool ``(n, ...)`` -> uint8 ``(1 + ceil(n / 8),)``; the
                          first byte counts the padding bits
========================  ======================================================
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.abc.codec import CodecKind

# id -> (config key of the decoded dtype, config key of the encoded dtype)
DTYPE_KEYS: dict[str, tuple[str, str]] = {
    "delta": ("dtype", "astype"),
    "fixedscaleoffset": ("dtype", "astype"),
    "quantize": ("dtype", "astype"),
    "astype": ("decode_dtype", "encode_dtype"),
    "categorize": ("dtype", "astype"),
}
ARRAY_ARRAY_IDS = frozenset(DTYPE_KEYS) | {"bitround", "packbits"}

ARRAY_BYTES_IDS = frozenset(
    {
        "pickle",
        "json2",
        "msgpack2",  # arrays of Python objects
        "vlen-utf8",
        "vlen-bytes",
        "vlen-array",  # variable-length elements
        "pcodec",
        "zfpy",  # compress typed arrays directly
    }
)

# bitround keeps this many mantissa bits at most, per float item size.
BITROUND_MAX_KEEPBITS = {2: 10, 4: 23, 8: 52}

# bytes -> bytes codecs that add a 4-byte checksum to the data.
CHECKSUM_IDS = frozenset({"crc32", "crc32c", "adler32", "fletcher32", "jenkins_lookup3"})


def kind_of(codec_id: str) -> CodecKind:
    if codec_id in ARRAY_ARRAY_IDS:
        return CodecKind.ARRAY_ARRAY
    if codec_id in ARRAY_BYTES_IDS:
        return CodecKind.ARRAY_BYTES
    return CodecKind.BYTES_BYTES


def decoded_dtype(codec_id: str, config: dict[str, Any]) -> np.dtype | None:
    """The dtype the filter is configured to decode to, as configured (any byte order)."""
    if codec_id == "packbits":
        return np.dtype(bool)
    keys = DTYPE_KEYS.get(codec_id)
    return None if keys is None else np.dtype(config[keys[0]])


def configured_encoded_dtype(codec_id: str, config: dict[str, Any]) -> np.dtype | None:
    """The dtype numcodecs expects encoded data in, as configured (any byte order)."""
    if codec_id == "packbits":
        return np.dtype("u1")
    keys = DTYPE_KEYS.get(codec_id)
    return None if keys is None else np.dtype(config[keys[1]])


def encoded_dtype(codec_id: str, config: dict[str, Any], decoded: np.dtype) -> np.dtype:
    """The (native byte order) dtype of the encoded array for input of dtype ``decoded``."""
    dtype = configured_encoded_dtype(codec_id, config)
    return (decoded if dtype is None else dtype).newbyteorder("=")


def encoded_shape(codec_id: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    if codec_id == "packbits":
        return (1 + math.ceil(math.prod(shape) / 8),)
    return shape


def encoded_size(codec_id: str, decoded_size: int | None) -> int | None:
    """Encoded byte count of a ``bytes -> bytes`` numcodecs codec, when fixed."""
    if decoded_size is None:
        return None
    if codec_id in CHECKSUM_IDS:
        return decoded_size + 4
    if codec_id == "shuffle":
        return decoded_size
    if codec_id == "base64":
        return 4 * math.ceil(decoded_size / 3)
    return None
