"""Small helpers shared by the v2 modules: the chunk layout, integers, byte orders."""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np

from zarrforge.plugin_api.formats import memory_layout


def layout() -> Any:
    """The C memory layout, in which v2 chunks are described to the codecs."""
    return memory_layout("C")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _byteorder(dtype_str: Any) -> str | None:
    """The byte order character ('<', '>', '|') of a numpy dtype string, if valid."""
    if not isinstance(dtype_str, str):
        return None
    try:
        return np.dtype(dtype_str).str[0]
    except Exception:  # noqa: BLE001  # numpy raises several types for a string that is no dtype
        return None


# numpy's spellings of a byte order, the argument its stubs give dtype.newbyteorder
_ByteOrder = Literal["S", "<", "L", "little", ">", "B", "big", "=", "N", "native", "|", "I"]


def _in_order(dtype: np.dtype, byteorder: str) -> np.dtype:
    """``dtype.newbyteorder(byteorder)`` for a byte order read from a document (a ``str``):
    numpy checks it at run time, raising for one it does not know."""
    return dtype.newbyteorder(cast(_ByteOrder, byteorder))
