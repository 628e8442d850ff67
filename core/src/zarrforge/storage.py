"""Turning what the user passed as a store into a :class:`~zarrforge.abc.store.Store`.

Accepted: a ``Store`` instance (used as is), ``None`` (a new in-memory store),
a filesystem path (``str`` or ``os.PathLike``), a URL ``scheme://...``, or another
library's store object that a plugin adapts (the ``zarrforge_adapt_store`` hook).
For strings, the ``zarrforge_resolve_store`` hook is asked first (so plugins
can claim URLs a scheme does not identify), then the scheme is looked up in
the ``zarrforge.stores`` registry; a string without ``://`` is a local path
(scheme ``file``).
"""

from __future__ import annotations

import os
from typing import Any

from . import hooks, registry
from .abc.store import Store

StoreLike = Store | str | os.PathLike | None


def scheme_of(url: str) -> str:
    head, sep, _ = url.partition("://")
    return head.lower() if sep else "file"


def resolve_store(store: StoreLike, *, read_only: bool = False,
                  storage_options: dict[str, Any] | None = None) -> Store:
    if isinstance(store, Store):
        return store
    options = dict(storage_options or {})
    if store is None:
        store = "memory://"
    if isinstance(store, os.PathLike):
        store = os.fspath(store)
    if not isinstance(store, str):
        adapted = hooks.hook().zarrforge_adapt_store(obj=store, options=options,
                                                    read_only=read_only)
        if adapted is not None:
            return adapted
        kind = f"{type(store).__module__}.{type(store).__qualname__}"
        raise TypeError(f"expected a Store, a path or a URL, got {kind} {store!r} (no "
                        "installed plugin adapts it: zarr-python stores need "
                        "zarrforge-zarr-python)")
    claimed = hooks.hook().zarrforge_resolve_store(url=store, options=options, read_only=read_only)
    if claimed is not None:
        return claimed
    implementation = registry.stores.get(scheme_of(store), field="store")
    return implementation.from_url(store, read_only=read_only, **options)
