"""zarr-python's ``zarr.api.synchronous``: the same functions, zarrforge's.

Every name here is the function of ``import zarrforge`` of that name (:mod:`zarrforge.user_api.api`,
:mod:`zarrforge.user_api.zarr_api`, :func:`zarrforge.copy`). zarr-python's ``copy_all``,
``copy_store``, ``create_hierarchy`` and ``open_like`` are not here yet
(docs/coming-from-zarr-python.md).
"""

from __future__ import annotations

from ..user_api.api import (consolidate_metadata, create_array, create_group, open, open_array,
                            open_group)
from ..user_api.copying import copy
from ..user_api.zarr_api import (array, create, empty, empty_like, from_array, full, full_like,
                                 group, load, ones, ones_like, open_consolidated, save,
                                 save_array, save_group, tree, zeros, zeros_like)

__all__ = ["array", "consolidate_metadata", "copy", "create", "create_array", "create_group",
           "empty", "empty_like", "from_array", "full", "full_like", "group", "load", "ones",
           "ones_like", "open", "open_array", "open_consolidated", "open_group", "save",
           "save_array", "save_group", "tree", "zeros", "zeros_like"]
