"""zarrforge-fsspec: zarrforge stores over fsspec (S3, GCS, HTTP(S), zip, any fsspec URL).

* :class:`~zarrforge_fsspec.store.FsspecStore`: any fsspec filesystem; the
  ``s3``, ``gs``, ``gcs``, ``http`` and ``https`` URL schemes, the explicit
  ``fsspec+<protocol>://`` form and chained ``a::b://`` URLs resolve to it.
* :class:`~zarrforge_fsspec.zip.ZipStore`: an append-only store in one zip
  archive (``zip://path.zip``, or ``zip::<url>`` read-only).
* :mod:`~zarrforge_fsspec.options`: concurrency and retry settings;
  :mod:`~zarrforge_fsspec.faults`: which failures are retried.

Importing this package imports fsspec but no filesystem implementation.
"""

from .options import StoreSettings
from .store import FsspecStore
from .zip import AppendOnlyError, ZipStore

__all__ = ["AppendOnlyError", "FsspecStore", "StoreSettings", "ZipStore"]
