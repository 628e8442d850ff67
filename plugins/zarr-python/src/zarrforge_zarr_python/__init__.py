"""zarr-python 3 stores used as zarrforge stores.

With this distribution installed, any ``zarr.abc.store.Store`` can be passed wherever
zarrforge takes a store: ``zf.open_group(session.store)`` for an Icechunk session,
zarr-python's ``LocalStore``, ``MemoryStore``, ``FsspecStore`` and ``ObjectStore``, and
third-party stores. :class:`ZarrPythonStore` is the adapter; the
``zarrforge_adapt_store`` hook (module :mod:`.hooks`) applies it.
"""

from .store import ZarrPythonStore

__all__ = ["ZarrPythonStore"]
