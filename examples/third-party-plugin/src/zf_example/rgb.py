"""The ``zf_example.rgb8`` data type: one pixel of three ``uint8`` channels.

In memory an element is a numpy structured value with the fields ``r``, ``g``
and ``b`` (:data:`RGB8_DTYPE`, 3 bytes, no byte order). The ``bytes`` codec
stores the three channels of each pixel in that order.

Metadata: the short-hand name ``"zf_example.rgb8"`` (the type has no
configuration). Fill values are JSON lists of three integers from 0 to 255,
``[r, g, b]``; the default is ``[0, 0, 0]``. Through the Python API a fill
value may also be a ``(r, g, b)`` tuple or a ``"#rrggbb"`` string.
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

RGB8_DTYPE = np.dtype([("r", "u1"), ("g", "u1"), ("b", "u1")])
_HEX = re.compile(r"^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$")


def _pixel(channels: Any) -> np.void:
    # indexing a structured array with () gives its one element, an np.void (numpy's
    # annotations say ndarray)
    return cast(np.void, np.array(tuple(int(c) for c in channels), dtype=RGB8_DTYPE)[()])


def to_rgb8(values: Any) -> np.ndarray:
    """An ``(..., 3)`` array of channel values as an array of :data:`RGB8_DTYPE`."""
    array = np.asarray(values)
    if array.dtype == RGB8_DTYPE:
        return array
    if array.shape[-1:] != (3,) or array.dtype.kind not in "iu":
        raise ValueError(f"expected integers of shape (..., 3), got {array.dtype} of shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 255):
        raise ValueError("channel values must lie between 0 and 255")
    channels = np.ascontiguousarray(array, dtype=np.uint8)
    return channels.view(RGB8_DTYPE).reshape(array.shape[:-1])


class RGB8(DataType):
    name = "zf_example.rgb8"

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> RGB8:
        if configuration:
            raise MetadataError(
                f"{name} takes no configuration, got {configuration!r}",
                field="configuration",
                value=configuration,
            )
        return cls()

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> RGB8 | None:
        """Lets users pass ``dtype=RGB8_DTYPE`` to ``create_array``."""
        return cls() if dtype == RGB8_DTYPE else None

    def to_json(self) -> str:
        return self.name

    @property
    def numpy_dtype(self) -> np.dtype:
        return RGB8_DTYPE

    def default_fill_value(self) -> np.void:
        return _pixel((0, 0, 0))

    def fill_value_from_json(self, value: Any) -> np.void:
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)
        ):
            raise MetadataError(
                f"{self.name} fill values are lists of three integers from 0 to 255, got {value!r}",
                field="fill_value",
                value=value,
            )
        return _pixel(value)

    def fill_value_to_json(self, value: Any) -> list[int]:
        pixel = np.asarray(value, dtype=RGB8_DTYPE)[()]
        return [int(pixel["r"]), int(pixel["g"]), int(pixel["b"])]

    def from_user_value(self, value: Any) -> np.void:
        if isinstance(value, str):
            match = _HEX.match(value)
            if match is None:
                raise MetadataError(
                    f"expected a colour '#rrggbb', got {value!r}", field="fill_value", value=value
                )
            return _pixel(int(part, 16) for part in match.groups())
        if isinstance(value, np.void) and value.dtype == RGB8_DTYPE:
            return value
        try:
            channels = [int(c) for c in value]
        except (TypeError, ValueError):
            channels = []
        if len(channels) != 3 or not all(0 <= c <= 255 for c in channels):
            raise MetadataError(
                f"expected (r, g, b) with channels from 0 to 255, got {value!r}",
                field="fill_value",
                value=value,
            )
        return _pixel(channels)
