"""Small helpers shared by the v2 modules: locating errors, integers, byte orders."""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.errors import MetadataError, UnknownExtensionError
from zarrforge.plugin_api import memory_layout


def layout() -> Any:
    """The C memory layout, in which v2 chunks are described to the codecs."""
    return memory_layout("C")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def refield(exc: MetadataError, field: str | None, *, key: str | None = None) -> MetadataError:
    """``exc`` again, located at ``field`` of the document ``key`` (same error class)."""
    key = key if key is not None else exc.key
    if isinstance(exc, UnknownExtensionError):
        new: MetadataError = UnknownExtensionError(exc.point, exc.name, exc.installed,
                                                   exc.provider, field=field, key=key)
    elif type(exc) is MetadataError:
        new = MetadataError(exc.message, field=field, value=exc.value, key=key)
    else:  # a subclass with its own constructor: keep it, adjust the location
        exc.field, exc.key = field, key
        return exc
    new.__cause__ = exc
    return new


def _byteorder(dtype_str: Any) -> str | None:
    """The byte order character ('<', '>', '|') of a numpy dtype string, if valid."""
    if not isinstance(dtype_str, str):
        return None
    try:
        return np.dtype(dtype_str).str[0]
    except Exception:
        return None
