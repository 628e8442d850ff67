"""zarrforge: a Zarr engine whose every extension point is a plugin.

The public API mirrors zarr-python's where it can::

    import zarrforge as zf
    a = zf.create_array("data.zarr", "temperature", shape=(100, 100), dtype="float32",
                        chunks=(10, 10), compressors=[{"name": "zstd", "configuration": {"level": 3}}])
    a[:10, :10] = 1.5
    g = zf.open_group("data.zarr")

Importing this package imports no plugin: implementations are loaded from
entry points the first time a document or a call names them. Nor does it import the
engine: the user API (``create_array``, ``Array``, ...) is loaded the first time one of
its names is used, so a plugin importing ``zarrforge.abc.codec`` or
``zarrforge.plugin_api`` gets the contracts and tools alone.
"""

import importlib
import importlib.util
from typing import Any

# The bottom layer, imported at once: a plugin that imports zarrforge.abc.*,
# zarrforge.errors or zarrforge.plugin_api runs this file first, and must get no more
# than the contracts and tools (tests/test_layers.py checks the modules loaded).
from . import config, errors
from .abc.format import NO_FILL_VALUE
from .registries import hooks, registry
from .registries.hooks import hookimpl
from .registries.registry import refresh, register, registered

refresh_plugins = refresh

# The user API, imported the first time one of its names is asked for: name -> module.
_LAZY = {
    **dict.fromkeys(
        (
            "consolidate_metadata",
            "create_array",
            "create_group",
            "open",
            "open_array",
            "open_group",
            "remove_consolidated_metadata",
            "unfinished_write",
        ),
        "user_api.api",
    ),
    "Array": "user_api.arrays",
    "ChunkCache": "engine.chunk_cache",
    "copy": "user_api.copying",
    "from_dask": "user_api.dask_bridge",
    "to_dask": "user_api.dask_bridge",
    "plugins": "user_api.discovery",
    "Group": "user_api.groups",
    "print_debug_info": "user_api.debug_info",
    # zarr-python's names for the asyncio API's classes (zarrforge.asyncio)
    "AsyncArray": "asyncio.arrays",
    "AsyncGroup": "asyncio.groups",
    **dict.fromkeys(
        ("Transaction", "clear_commit_record", "transaction", "unfinished_commits"), "storing.transaction"
    ),
    **dict.fromkeys(
        (
            "array",
            "copy_all",
            "copy_store",
            "create",
            "empty",
            "empty_like",
            "from_array",
            "full",
            "full_like",
            "group",
            "load",
            "ones",
            "ones_like",
            "open_consolidated",
            "open_like",
            "save",
            "save_array",
            "save_group",
            "tree",
            "zeros",
            "zeros_like",
        ),
        "user_api.zarr_api",
    ),
    "create_hierarchy": "user_api.hierarchy_creation",
    "leftover_chunks": "user_api.leftover_chunks",
}


def __getattr__(name: str) -> Any:
    """A user-API name, or a submodule (``zarrforge.storing.storage``), loaded when first asked for
    and kept as an attribute from then on."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Array",
    "AsyncArray",
    "AsyncGroup",
    "ChunkCache",
    "Group",
    "NO_FILL_VALUE",
    "Transaction",
    "clear_commit_record",
    "config",
    "consolidate_metadata",
    "copy",
    "create_array",
    "create_group",
    "errors",
    "from_dask",
    "hookimpl",
    "hooks",
    "leftover_chunks",
    "open",
    "open_array",
    "open_group",
    "plugins",
    "print_debug_info",
    "refresh_plugins",
    "register",
    "registered",
    "registry",
    "remove_consolidated_metadata",
    "to_dask",
    "transaction",
    "unfinished_commits",
    "unfinished_write",
    # zarr-python's convenience functions (zarrforge.user_api.zarr_api)
    "array",
    "copy_all",
    "copy_store",
    "create",
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
    "open_consolidated",
    "open_like",
    "save",
    "save_array",
    "save_group",
    "tree",
    "zeros",
    "zeros_like",
]

from ._version import __version__ as __version__  # noqa: E402  # the single source
