"""zarrforge stores on obstore, the Python binding of Rust's ``object_store``.

``obstore+s3://bucket/path``, ``obstore+gs://``, ``obstore+az://``, ``obstore+https://``,
``obstore+file:///path`` and ``obstore+memory:///`` open an :class:`ObstoreStore`; plain
``s3://`` and the other schemes stay with zarrforge-fsspec. ``storage_options`` are
obstore's configuration for the URL's store (``endpoint``, ``region``,
``access_key_id``, ``client_options={"allow_http": True}``, ...), plus the store
settings ``concurrency`` (requests in flight per batch, default 64).
"""

from .store import ObstoreStore

__all__ = ["ObstoreStore"]
