"""Opaque fixed-length bytes in zarr-python 3's spelling: the ``raw_bytes`` data type.

Metadata: ``{"name": "raw_bytes", "configuration": {"length_bytes": N}}`` with N a
positive integer. zarr-python 3 writes numpy's ``|V<N>`` arrays (and ``V<N>`` fields
of structs) this way; it is zarr-python's own name, not a zarr-extensions entry. The
registry's type for the same values is ``r<8N>`` (zarrforge-std), which is what
zarrforge writes for a new ``|V<N>`` array: this type is reached only by name, from a
document that says ``raw_bytes``, and such a document is written back as read.

In memory: numpy ``V<N>``. The ``bytes`` codec stores the N bytes as they are; there
is no endianness.

Fill values: a base64 string of exactly N bytes, as zarr-python writes them. Through
the Python API: ``bytes`` of N bytes, a ``numpy.void`` of N bytes, or ``0``.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from ._bases import FixedLengthBytes
from ._util import fill_error, is_int


class RawBytes(FixedLengthBytes):
    name = "raw_bytes"
    numpy_kind = "V"

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> None:
        return None  # numpy V<N> is the registry's r<8N>; see the module docstring

    def _valid(self) -> str:
        return f"a base64 string of exactly {self.length} bytes"

    def _from_bytes(self, raw: bytes, original: Any) -> Any:
        if len(raw) != self.length:
            raise fill_error(self.name, original, f"{self._valid()}; got {len(raw)} bytes")
        return np.frombuffer(raw, dtype=self._dtype)[0]

    def fill_value_to_json(self, value: Any) -> str:
        return base64.b64encode(np.array(value, dtype=self._dtype).tobytes()).decode("ascii")

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, np.void):
            return self._from_bytes(value.tobytes(), value)
        if isinstance(value, (bytes, bytearray)):
            return self._from_bytes(bytes(value), value)
        if is_int(value) and value == 0:
            return self.default_fill_value()
        raise fill_error(self.name, value, f"bytes (or numpy.void) of exactly {self.length} bytes")
