"""The ``bytes`` data type: variable-length byte strings.

Metadata: ``"bytes"`` (the registered name; the object form with an empty or
absent configuration is read too). zarr-python 3.1 writes this type as
``"variable_length_bytes"``; that name is registered as well
(:class:`VariableLengthBytes`) so such arrays open, and an array read under
that name keeps it when its metadata is written back. New arrays are
written as ``"bytes"``, which zarr-python 3.1 reads.

In memory an array of this type is a numpy object array whose elements are
``bytes``. Elements have no fixed size (``item_size`` is ``None``); the
serializer is ``vlen-bytes`` (:mod:`.vlen_codecs`), which
:meth:`Bytes.default_serializer` proposes.

Fill value (zarr-extensions ``bytes`` spec): either a base64 string
(standard alphabet, with padding) or a list of integers in ``[0, 255]``.
Written as base64, the only form zarr-python 3.1 reads. The default is
``b""``. Through the Python API: ``bytes``, ``bytearray``, ``memoryview`` or
``np.bytes_`` (``str`` is refused: its encoding would be a guess).

Mapping from numpy (``from_numpy_dtype``): only the size-less bytes dtype
numpy makes of ``bytes`` (``|S0``), so ``dtype=bytes`` creates a ``bytes``
array the way ``dtype=str`` creates a ``string`` one (zarr-python 3.1 refuses
``dtype=bytes``). ``np.dtype(object)`` is not mapped, as zarr-python does
not: it cannot tell text from bytes.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np

from ._util import fill_error, is_int
from ._variable import VariableLengthType

_OBJECT = np.dtype(object)
_VALID = "a base64 string or a list of integers in [0, 255]"


class Bytes(VariableLengthType):
    name = "bytes"
    serializer = "vlen-bytes"

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> Bytes | None:
        if cls is Bytes and dtype.kind == "S" and dtype.itemsize == 0:  # np.dtype(bytes)
            return cls()
        return None

    @property
    def numpy_dtype(self) -> np.dtype:
        return _OBJECT

    def default_fill_value(self) -> bytes:
        return b""

    def fill_value_from_json(self, value: Any) -> bytes:
        if isinstance(value, str):
            try:
                return base64.b64decode(value.encode("ascii"), validate=True)
            except (UnicodeEncodeError, binascii.Error):
                raise fill_error(self.to_json(), value, _VALID) from None
        if isinstance(value, list) and all(is_int(v) and 0 <= v <= 255 for v in value):
            return bytes(value)
        raise fill_error(self.to_json(), value, _VALID)

    def fill_value_to_json(self, value: Any) -> str:
        return base64.b64encode(bytes(value)).decode("ascii")

    def from_user_value(self, value: Any) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)):  # np.bytes_ is a bytes
            return bytes(value)
        raise fill_error(self.to_json(), value, "bytes, bytearray or memoryview")


class VariableLengthBytes(Bytes):
    """``bytes`` under the name zarr-python 3.1 writes for it; read-compatible only."""

    name = "variable_length_bytes"
