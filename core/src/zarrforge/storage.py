"""zarr-python's ``zarr.storage`` names, for code that writes ``zarrforge.storage.LocalStore``.

Each store name is the class a plugin registers in the ``zarrforge.stores`` registry,
looked up there when first asked for (so importing this module imports no plugin, and a
missing plugin is an :class:`~zarrforge.errors.UnknownExtensionError` naming the package
to install, raised by the lookup itself, not an ``AttributeError``):

=================  ===================  =========================================
zarr-python name   registered store     the class (plugin)
=================  ===================  =========================================
``LocalStore``     ``"file"``           ``LocalStore`` (zarrforge-std)
``MemoryStore``    ``"memory"``         ``MemoryStore`` (zarrforge-std)
``ZipStore``       ``"zip"``            ``ZipStore`` (zarrforge-fsspec)
``FsspecStore``    ``"s3"``             ``FsspecStore`` (zarrforge-fsspec)
``ObjectStore``    ``"obstore+memory"`` ``ObstoreStore`` (zarrforge-obstore)
=================  ===================  =========================================

``zarrforge.storage.LocalStore is registry.stores.get("file")``; the classes take
zarr-python's constructor arguments beside their own (docs/coming-from-zarr-python.md,
"zarr-python's store classes"). ``StorePath`` is the core's
(:mod:`zarrforge.storing.store_path`), ``StoreLike`` what every function taking a store
takes, ``Store`` the store contract. The other names of zarr-python's module are
refused with an ``AttributeError`` saying why and what to use instead (:data:`NOT_SUPPLIED`).
"""

from __future__ import annotations

from typing import Any

from .abc.store import Store
from .registries import registry
from .storing.storage import StoreLike
from .storing.store_path import StorePath

# zarr-python's name -> the store name whose registered class answers for it
STORE_NAMES: dict[str, str] = {
    "LocalStore": "file",
    "MemoryStore": "memory",
    "ZipStore": "zip",
    "FsspecStore": "s3",
    "ObjectStore": "obstore+memory",
}

# zarr-python's names this module deliberately does not supply, and why
NOT_SUPPLIED: dict[str, str] = {
    "WrapperStore": (
        "zarr-python's WrapperStore forwards zarr-python's asynchronous store methods, which "
        "zarrforge stores do not have; subclass zarrforge.abc.store.WrapperStore(inner) "
        "instead (synchronous get/_set/_delete/list_prefix, docs/plugin-guide/stores.md)"
    ),
    "LoggingStore": (
        "zarrforge has no store that logs every call; count a node's requests with "
        "open_array(..., transformers=[zarrforge_std.runtime_transformers.RequestCounter]), "
        "or log them in a subclass of zarrforge.abc.store.WrapperStore "
        "(docs/plugin-guide/storage-transformers.md, runtime transformers)"
    ),
    "GpuMemoryStore": ("zarrforge stores hold bytes in host memory, not GPU buffers; use MemoryStore"),
    "ManagedMemoryStore": (
        "use the URL 'memory://NAME' instead: every opening of it in this process shares "
        "one in-memory store (zarrforge.storage.MemoryStore.from_url('memory://NAME'))"
    ),
    "make_store_path": (
        "it is a coroutine of zarr-python's internals (zarr.storage._common); use "
        "StorePath(store, path) or pass the store and path= to open_group/open_array"
    ),
}

__all__ = [  # noqa: F822  # the store classes come from __getattr__, from the registry
    "FsspecStore",
    "LocalStore",
    "MemoryStore",
    "ObjectStore",
    "Store",
    "StoreLike",
    "StorePath",
    "ZipStore",
]


def __getattr__(name: str) -> Any:
    """The registered store class for a zarr-python store name (looked up each time, so a
    plugin registered in-process later is seen), or an ``AttributeError`` saying why a
    name of zarr-python's module is not here."""
    registered = STORE_NAMES.get(name)
    if registered is not None:
        return registry.stores.get(registered, field=f"zarrforge.storage.{name}")
    reason = NOT_SUPPLIED.get(name)
    if reason is not None:
        raise AttributeError(f"zarrforge.storage has no {name!r}: {reason}")
    raise AttributeError(
        f"module 'zarrforge.storage' has no attribute {name!r}; it has {', '.join(sorted(__all__))}"
    )


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(STORE_NAMES))
