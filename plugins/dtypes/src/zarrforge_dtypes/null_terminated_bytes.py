"""Fixed-length byte strings: the ``null_terminated_bytes`` data type (zarr-python's spelling).

Metadata: ``{"name": "null_terminated_bytes", "configuration": {"length_bytes": N}}``
with N a positive integer. This is how zarr-python 3 writes numpy's ``|S<N>``
arrays in Zarr v3 (it is not in zarr-extensions; zarr-python warns that its
spec is unstable). No other configuration key is allowed.

In memory: numpy ``S<N>``: N bytes per element, trailing NUL bytes dropped on
reading an element (numpy's rule, which gives the type its name). The
``bytes`` codec stores the N bytes as they are; there is no endianness.

Fill values: a base64 string of at most N bytes (shorter values are padded
with NULs), as zarr-python writes them. Through the Python API, ``bytes``
(or an ASCII ``str``) of at most N bytes.

Mapping from numpy: ``S<N>`` with N > 0 (``np.dtype(bytes)``, N = 0, is the
variable-length ``bytes`` type).
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from ._bases import FixedLengthBytes
from ._util import fill_error, is_int


class NullTerminatedBytes(FixedLengthBytes):
    name = "null_terminated_bytes"
    numpy_kind = "S"

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> NullTerminatedBytes | None:
        if np_dtype.kind == "S" and np_dtype.itemsize > 0:
            return cls(np_dtype.itemsize)
        return None

    def _valid(self) -> str:
        return f"a base64 string of at most {self.length} bytes"

    def _from_bytes(self, raw: bytes, original: Any) -> Any:
        if len(raw) > self.length:
            raise fill_error(self.name, original, f"{self._valid()}; got {len(raw)} bytes")
        return np.bytes_(raw)

    def fill_value_to_json(self, value: Any) -> str:
        return base64.b64encode(bytes(np.bytes_(value))).decode("ascii")

    def from_user_value(self, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = value.encode("ascii")
            except UnicodeEncodeError:
                raise fill_error(
                    self.name, value, f"bytes or an ASCII string of at most {self.length} bytes"
                ) from None
        if isinstance(value, (bytes, bytearray, np.bytes_)):
            return self._from_bytes(bytes(value), value)
        if is_int(value) and value == 0:
            return self.default_fill_value()
        raise fill_error(self.name, value, f"bytes of at most {self.length} bytes")
