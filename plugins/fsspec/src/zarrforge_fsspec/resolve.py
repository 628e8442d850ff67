"""The ``zarrforge_resolve_store`` hook: URLs a scheme alone does not identify.

Registered under the ``zarrforge.plugins`` entry-point group. It claims:

* ``fsspec+<protocol>://...``: any fsspec protocol through
  :class:`~zarrforge_fsspec.store.FsspecStore`, including ``fsspec+file://``
  and ``fsspec+memory://`` for the schemes zarrforge-std answers itself
  (the plain ``file://``/``memory://`` URLs and bare paths stay with std);
* ``zip::<url>``: a zip archive at any fsspec URL, through
  :class:`~zarrforge_fsspec.zip.ZipStore` (read-only unless local);
* other chained URLs ``<protocol>::<url>`` (``simplecache::s3://...``,
  ``blockcache::https://...``) whose first protocol fsspec knows, through
  :class:`~zarrforge_fsspec.store.FsspecStore`;
* ``<protocol>://...`` for every other protocol fsspec knows (``reference://`` for
  kerchunk references, ``abfs://``/``az://``, ``hf://``, ``sftp://``, ``gcs://``...),
  when no zarrforge store registers that scheme: a registered store always wins, so
  installing a dedicated store plugin for a scheme takes it over from fsspec.

It also implements ``zarrforge_adapt_store`` for an fsspec mapper (``fsspec.get_mapper``,
``FSMap``) passed as a store, as zarr-python takes one: the mapper's filesystem and root
become an :class:`~zarrforge_fsspec.store.FsspecStore`, so ranges and listings go to the
filesystem rather than through the mapping.

Anything else answers ``None`` so that the scheme registry decides (plain
``s3://``, ``https://``, ``zip://`` arrive at this distribution through it, and
an unknown scheme gets the registry's error with its suggestions).
Nothing is imported from fsspec until a URL is claimed, except its registry
of protocol names for chained URLs.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from zarrforge.errors import StoreArgumentError
from zarrforge.plugin_api.hooks import hookimpl
from zarrforge.plugin_api.stores import registry

_PROTOCOL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


def _known_protocol(name: str) -> bool:
    from fsspec.registry import known_implementations, registry

    return name in known_implementations or name in registry


def claims(url: str) -> str | None:
    """Which store class answers ``url``: ``"fsspec"``, ``"zip"`` or ``None``."""
    if url.startswith("fsspec+") and "://" in url:
        return "fsspec"
    scheme, sep, _ = url.partition("://")
    if sep and "::" not in scheme and _PROTOCOL.match(scheme):
        scheme = scheme.lower()
        if scheme in registry.stores or not _known_protocol(scheme):
            return None
        return "fsspec"
    head, sep, _ = url.partition("::")
    if not sep or not _PROTOCOL.match(head):
        return None
    if head == "zip":
        return "zip"
    return "fsspec" if _known_protocol(head.lower()) else None


@hookimpl
def zarrforge_resolve_store(url: str, options: dict[str, Any], read_only: bool) -> Any:
    kind = claims(url)
    if kind == "zip":
        from .zip import ZipStore

        return ZipStore.from_url(url, read_only=read_only, **options)
    if kind == "fsspec":
        from .store import FsspecStore

        return FsspecStore.from_url(url, read_only=read_only, **options)
    return None


@hookimpl
def zarrforge_adapt_store(obj: Any, options: dict[str, Any], read_only: bool) -> Any:
    mapping_module = sys.modules.get("fsspec.mapping")
    if mapping_module is None or not isinstance(obj, mapping_module.FSMap):
        return None
    if options:
        raise StoreArgumentError(
            f"an fsspec mapper used as a store takes no storage options "
            f"(its filesystem has them already), got {sorted(options)}"
        )
    from .store import FsspecStore

    return FsspecStore(obj.fs, obj.root, read_only=read_only)
