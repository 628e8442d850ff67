"""zarrforge-std's hook implementations (the ``zarrforge.plugins`` entry-point group).

``zarrforge_adapt_store``: a ``dict`` or other ``Mapping`` passed as a store, as
zarr-python takes one (:mod:`zarrforge_std.stores.mapping`). It runs last
(``trylast``), so a plugin that knows a particular mapping better (an fsspec mapper, whose
filesystem serves ranges and listings itself) answers first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zarrforge.errors import StoreArgumentError
from zarrforge.plugin_api.hooks import hookimpl
from zarrforge.plugin_api.stores import Store


@hookimpl(trylast=True)
def zarrforge_adapt_store(obj: Any, options: dict[str, Any], read_only: bool) -> Store | None:
    if not isinstance(obj, Mapping):
        return None
    if options:
        raise StoreArgumentError(
            f"a {type(obj).__name__} used as a store takes no storage options, got {sorted(options)}"
        )
    if type(obj) is dict:
        from .stores.memory import MemoryStore

        return MemoryStore(data=obj, read_only=read_only)
    from .stores.mapping import MappingStore

    return MappingStore(obj, read_only=read_only)
