"""The ``zarrforge_adapt_store`` hook: wrap a zarr-python ``Store`` (or ``StorePath``: its
store, with its path as the keys' prefix) passed as a store.

Registered under the ``zarrforge.plugins`` entry-point group. zarr is imported only
when it is already imported by the caller (an object cannot be a zarr-python store
otherwise), so other calls do not pay for importing it.
"""

from __future__ import annotations

import sys
from typing import Any

from zarrforge.plugin_api.hooks import hookimpl


@hookimpl
def zarrforge_adapt_store(obj: Any, options: dict[str, Any], read_only: bool) -> Any:
    abc_module = sys.modules.get("zarr.abc.store")
    if abc_module is None:
        return None
    from .store import ZarrPythonStore

    if isinstance(obj, abc_module.Store):
        return ZarrPythonStore(obj, read_only=read_only)
    common = sys.modules.get("zarr.storage._common")
    if common is not None and isinstance(obj, common.StorePath):
        return ZarrPythonStore(obj.store, read_only=read_only, prefix=obj.path)
    return None
