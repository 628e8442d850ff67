"""zarr-python's ``zarr.api.synchronous``: the same functions, zarrforge's.

Every name here is the function of ``import zarrforge`` of that name (:mod:`zarrforge.user_api.api`,
:mod:`zarrforge.user_api.zarr_api`, :func:`zarrforge.copy`,
:func:`zarrforge.create_hierarchy`); ``copy_all`` and ``copy_store`` raise
``NotImplementedError`` as zarr-python 3's do (docs/coming-from-zarr-python.md).
"""

from __future__ import annotations

from ..user_api.api import (
    consolidate_metadata,
    create_array,
    create_group,
    open,  # noqa: A004  # zarr-python's name
    open_array,
    open_group,
)
from ..user_api.copying import copy
from ..user_api.hierarchy_creation import create_hierarchy
from ..user_api.zarr_api import (
    array,
    copy_all,
    copy_store,
    create,
    empty,
    empty_like,
    from_array,
    full,
    full_like,
    group,
    load,
    ones,
    ones_like,
    open_consolidated,
    open_like,
    save,
    save_array,
    save_group,
    tree,
    zeros,
    zeros_like,
)

__all__ = [
    "array",
    "consolidate_metadata",
    "copy",
    "copy_all",
    "copy_store",
    "create",
    "create_array",
    "create_group",
    "create_hierarchy",
    "empty",
    "empty_like",
    "from_array",
    "full",
    "full_like",
    "group",
    "load",
    "ones",
    "ones_like",
    "open",
    "open_array",
    "open_consolidated",
    "open_group",
    "open_like",
    "save",
    "save_array",
    "save_group",
    "tree",
    "zeros",
    "zeros_like",
]
