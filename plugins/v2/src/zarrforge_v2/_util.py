"""Small helpers shared by the v2 modules: the chunk layout, integers, byte orders."""

from __future__ import annotations

from typing import Any

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
