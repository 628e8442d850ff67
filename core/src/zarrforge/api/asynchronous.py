"""zarr-python's ``zarr.api.asynchronous``: zarrforge's coroutines of the same names.

They are :mod:`zarrforge.asyncio`'s (each runs the blocking function off the event loop and
returns an ``AsyncArray`` or ``AsyncGroup``). zarr-python's other coroutines (``zeros``,
``save``, ``load``...) are not here yet (docs/coming-from-zarr-python.md).
"""

from __future__ import annotations

from ..asyncio.api import create_array, create_group, open, open_array, open_group

__all__ = ["create_array", "create_group", "open", "open_array", "open_group"]
