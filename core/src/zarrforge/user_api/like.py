"""zarr-python's ``*_like`` arguments: what a new array takes from an existing one.

``zeros_like(a)``, ``Group.full_like(name=, data=a)`` and the like create an array with
``a``'s shape and data type and, when ``a`` is a zarrforge ``Array``, its chunk shape (and,
for ``full_like``, its fill value); any of these given as keywords wins. Shared by the
module functions (:mod:`.zarr_api`) and the group methods (:mod:`.groups`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import Array


def like_arguments(a: Any, keywords: dict[str, Any], *, fill: bool = False) -> dict[str, Any]:
    """The creation arguments ``a`` gives, updated with ``keywords``."""
    if isinstance(a, Array):
        like: dict[str, Any] = {"shape": a.shape, "dtype": a.dtype, "chunks": a.chunks}
        if fill:
            like["fill_value"] = a.fill_value
    else:
        values = a if isinstance(a, np.ndarray) else np.asarray(a)
        like = {"shape": values.shape, "dtype": values.dtype}
    like.update(keywords)
    return like
