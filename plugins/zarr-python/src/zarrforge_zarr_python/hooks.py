"""The ``zarrforge_adapt_store`` hook: wrap a zarr-python ``Store`` passed as a store.

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
    if abc_module is None or not isinstance(obj, abc_module.Store):
        return None
    from .store import ZarrPythonStore

    return ZarrPythonStore(obj, read_only=read_only)
