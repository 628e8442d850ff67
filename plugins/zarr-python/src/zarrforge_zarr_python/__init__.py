"""zarr-python 3 and zarrforge, each using the other's stores and codecs.

* Stores: with this distribution installed, any ``zarr.abc.store.Store`` can be passed
  wherever zarrforge takes a store: ``zf.open_group(session.store)`` for an Icechunk
  session, zarr-python's ``LocalStore``, ``MemoryStore``, ``FsspecStore`` and
  ``ObjectStore``, and third-party stores. :class:`ZarrPythonStore` is the adapter;
  the ``zarrforge_adapt_store`` hook (module :mod:`.hooks`) applies it.
* Codecs, zarr-python's in zarrforge: a codec registered with zarr-python 3 is read
  and written by zarrforge under its name when no zarrforge codec has that name
  (:mod:`.codec_adapter`, the catch-all family ``*`` of ``zarrforge.codecs``).
* Codecs, zarrforge's in zarr-python: :func:`register_with_zarr` registers every
  zarrforge codec zarr-python lacks with zarr-python; :func:`zarr_codec_class` is one
  such class, for a ``zarr.codecs`` entry point of a codec's own distribution
  (:mod:`.codec_bridge`).
"""

from typing import Any

from .store import ZarrPythonStore

__all__ = ["ZarrPythonStore", "register_with_zarr", "zarr_codec_class"]


def register_with_zarr() -> list[str]:
    """Register every zarrforge codec zarr-python lacks with zarr-python (see
    :func:`.codec_bridge.register_with_zarr`); the names registered."""
    from . import codec_bridge  # imports zarr: only here, not for the store hook

    return codec_bridge.register_with_zarr()


def zarr_codec_class(name: str) -> Any:
    """The zarr-python codec class running zarrforge's codec ``name``
    (:func:`.codec_bridge.zarr_codec_class`)."""
    from . import codec_bridge

    return codec_bridge.zarr_codec_class(name)
