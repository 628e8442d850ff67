"""zarrforge: a Zarr engine whose every extension point is a plugin.

The public API mirrors zarr-python's where it can::

    import zarrforge as zf
    a = zf.create_array("data.zarr", "temperature", shape=(100, 100), dtype="float32",
                        chunks=(10, 10), compressors=[{"name": "zstd", "configuration": {"level": 3}}])
    a[:10, :10] = 1.5
    g = zf.open_group("data.zarr")

Importing this package imports no plugin: implementations are loaded from
entry points the first time a document or a call names them.
"""

from . import config, errors, hooks, registry
from .api import (consolidate_metadata, create_array, create_group, open, open_array, open_group,
                  remove_consolidated_metadata, unfinished_write)
from .abc.format import NO_FILL_VALUE
from .arrays import Array
from .copying import copy
from .dask_bridge import from_dask, to_dask
from .discovery import plugins
from .groups import Group
from .hooks import hookimpl
from .registry import register, registered, refresh
from .transaction import Transaction, clear_commit_record, transaction, unfinished_commits
from .zarr_api import (array, create, empty, empty_like, from_array, full, full_like, group,
                       load, ones, ones_like, open_consolidated, save, save_array, save_group,
                       tree, zeros, zeros_like)

refresh_plugins = refresh

__all__ = [
    "Array", "Group", "NO_FILL_VALUE", "Transaction", "clear_commit_record", "config", "consolidate_metadata",
    "copy", "create_array", "create_group", "errors", "from_dask", "hookimpl", "hooks", "open",
    "open_array", "open_group", "plugins", "refresh_plugins", "register", "registered",
    "registry", "remove_consolidated_metadata", "to_dask", "transaction", "unfinished_commits",
    "unfinished_write",
    # zarr-python's convenience functions (zarrforge.zarr_api)
    "array", "create", "empty", "empty_like", "from_array", "full", "full_like", "group",
    "load", "ones", "ones_like", "open_consolidated", "save", "save_array", "save_group",
    "tree", "zeros", "zeros_like",
]

from ._version import __version__  # noqa: E402  (the single source)
