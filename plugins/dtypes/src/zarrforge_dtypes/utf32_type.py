"""The ``fixed_length_utf32`` data type: numpy's fixed-width unicode strings.

Metadata (zarr-extensions spec)::

    {"name": "fixed_length_utf32", "configuration": {"length_bytes": 48}}

``length_bytes`` is required, a positive multiple of 4; no other key.

In memory: the native-order numpy ``<U{length_bytes / 4}``. Each element is
``length_bytes`` bytes of UTF-32 code units, zero-padded, so the type has
endianness and the ``bytes`` codec stores it with its ``endian``
(zarr-python 3.1 writes ``"little"``).

Fill value: a JSON string of at most ``length_bytes / 4`` code points;
trailing U+0000 are padding (numpy drops them, and so does the written
form), but a string longer than the capacity is refused even when its excess
is U+0000, as the spec requires. The default is ``""``. Through the Python API: a ``str`` of at most
that many code points.

Mapping from numpy: every sized unicode dtype (``"U8"``, ``">U3"``); the
size-less ``np.dtype(str)`` is the variable-length ``string`` type's.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

from ._util import config_keys, fill_error, is_int


class FixedLengthUTF32(DataType):
    name = "fixed_length_utf32"

    def __init__(self, length_bytes: int) -> None:
        self.length_bytes = length_bytes
        self._dtype = np.dtype(f"U{length_bytes // 4}")

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> FixedLengthUTF32:
        config = config_keys(name, configuration, {"length_bytes"}, {"length_bytes"})
        length = config["length_bytes"]
        if not is_int(length) or length < 4 or length % 4:
            raise MetadataError(
                f"{name}: length_bytes must be a positive multiple of 4, got {length!r}",
                field="configuration.length_bytes",
                value=length,
            )
        return cls(length)

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> FixedLengthUTF32 | None:
        if dtype.kind == "U" and dtype.itemsize > 0:
            return cls(dtype.itemsize)
        return None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"length_bytes": self.length_bytes}}

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    @property
    def code_points(self) -> int:
        return self.length_bytes // 4

    def default_fill_value(self) -> np.str_:
        return np.str_("")

    def _scalar(self, value: Any) -> np.str_:
        if not isinstance(value, str):
            raise fill_error(self.to_json(), value, f"a string of at most {self.code_points} code points")
        if len(value) > self.code_points:
            raise fill_error(
                self.to_json(), value, f"a string of at most {self.code_points} code points, got {len(value)}"
            )
        return cast(np.str_, np.array(value, dtype=self._dtype)[()])  # a 0-d array's scalar

    def fill_value_from_json(self, value: Any) -> np.str_:
        return self._scalar(value)

    def fill_value_to_json(self, value: Any) -> str:
        return str(value).rstrip("\0")

    def from_user_value(self, value: Any) -> np.str_:
        return self._scalar(value)
