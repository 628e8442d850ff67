"""The URL-pipeline adapter of zarrforge-fsspec (entry-point group ``zarrforge.url_adapters``;
contract: :mod:`zarrforge.abc.url_adapter`).

The roots ``s3://``, ``gs://``, ``https://``... need no adapter: every scheme this
distribution declares in ``zarrforge.stores`` is a pipeline root through the core's
store resolution, with the caller's ``storage_options`` (endpoint, credentials, store
settings). This module adds one segment:

* ``zip:path``: the zip archive named by the segments before it, and ``path``
  inside it. The archive is the base's file: with an empty base path, the file
  the base store stands on (``file:/d/data.zip|zip:``, ``s3://b/data.zip|zip:``);
  otherwise the key at the base path (``file:/d|zip:...`` is not that: name the
  file, ``file:/d/data.zip|zip:``; ``...|zip:outer/inner.zip|zip:`` is).
  A remote archive that cannot be reached (network, credentials, a refused connection)
  is a StoreError naming its URL.
  A local archive (on a ``file:`` root, or a bare path) can be written, once,
  like :class:`~zarrforge_fsspec.zip.ZipStore` (created when missing); an archive
  on a remote filesystem or held as a key of another store (an archive in an
  archive) is read-only: open those with ``mode="r"``.
"""

from __future__ import annotations

import io
import os
import zipfile
from typing import Any

from zarrforge.abc.url_adapter import PipelineState, Segment, URLAdapter
from zarrforge.errors import StoreError

from .faults import ENVIRONMENTAL_ERRORS
from .store import FsspecStore
from .zip import ZipStore, _Archive


def _local_file(store: Any, key: str) -> str | None:
    """The local path of ``key`` in ``store`` (``""``: the store's own root), if local."""
    directory = store.local_directory()
    if directory is None:
        return None
    return os.path.join(directory, *key.split("/")) if key else directory


class ZipAdapter(URLAdapter):
    name = "zip"
    environmental_errors = ENVIRONMENTAL_ERRORS

    @classmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        segment.not_first("file:/data/archive.zip|zip:|zarr3:group/array")
        assert base is not None
        if base.zarr_format is not None:
            raise segment.error(
                f"follows a format segment ({base.url!r}); a format segment "
                "names a node, not a file: put it after 'zip:'"
            )
        inside = segment.path()
        local = _local_file(base.store, base.path)
        if local is not None:
            store = ZipStore(local, read_only=read_only)
        else:
            store = ZipStore(_archive=cls._read_only_archive(base, segment, read_only), read_only=True)
        return PipelineState(store, path=inside)

    @staticmethod
    def _read_only_archive(base: PipelineState, segment: Segment, read_only: bool) -> _Archive:
        where = f"{base.url!r}" + (f" (key {base.path!r} of {base.store!r})" if base.path else "")
        if not read_only:
            raise segment.error(
                f"the archive at {where} can only be read (remote, or held in "
                "another store); open it with mode='r', or write a local "
                "archive (file:/path/data.zip|zip:) and upload it"
            )
        store = base.store
        try:
            if isinstance(store, FsspecStore):
                handle = store.open_for_reading(base.path)  # failures: StoreError naming it
            elif base.path:
                value = store.get(base.path)
                if value is None:
                    raise FileNotFoundError(base.path)
                handle = io.BytesIO(value)
            else:
                raise segment.error(
                    f"needs a file before it, but {base.url!r} names the root "
                    f"of {store!r}; name the archive's key, e.g. "
                    "'...|zip:outer/inner.zip|zip:'"
                )
            if not zipfile.is_zipfile(handle):
                handle.close()
                raise segment.error(f"{where} is not a zip archive")
            handle.seek(0)
        except (FileNotFoundError, IsADirectoryError):
            raise segment.error(f"no zip archive at {where}") from None
        except StoreError:
            raise
        except OSError as exc:
            raise StoreError(f"cannot read the zip archive at {where}: {exc}", url=base.url) from exc
        return _Archive(base.url, mode="r", compression=zipfile.ZIP_STORED, remote_file=handle)
