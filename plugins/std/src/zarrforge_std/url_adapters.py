"""URL-pipeline adapters of zarrforge-std: the ``file:`` and ``memory:`` roots and the
format segments ``zarr3:`` and ``zarr:`` (entry-point group ``zarrforge.url_adapters``;
contract: :mod:`zarrforge.abc.url_adapter`). ``zarr2:`` is zarrforge-v2's, and
``zarr-draft-2022:`` zarrforge-draft2022's: each format's segment lives with it.

* ``file:`` (RFC 8089, as the url-pipeline standard reads it): ``file:/abs/path``,
  ``file:///abs/path``, ``file://localhost/abs/path``, and ``file:relative/path``
  (relative to the working directory). The path is percent-decoded. A host other
  than ``localhost`` is refused (no network shares), as is a query. Storage options
  are the local store's (``links``: :mod:`zarrforge_std.stores.local`).
* ``memory:`` roots: ``memory:``, ``memory:/`` and ``memory://`` are a new, empty
  store; ``memory:NAME`` (or ``memory:/NAME``, ``memory://NAME``) is the in-process
  store named ``NAME``, shared by every URL naming it (as ``memory://NAME`` is).
* ``zarr3:path``: the node at ``path`` below what the segments before name, in
  Zarr v3. ``zarr:path``: the same, the format detected when opening
  (``config.default_format`` when creating).
"""

from __future__ import annotations

import os
from typing import Any

from zarrforge.abc.url_adapter import FormatSegment, PipelineState, Segment, URLAdapter

from .stores.local import LocalStore, check_options
from .stores.memory import MemoryStore


class FileRoot(URLAdapter):
    name = "file"

    @classmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        segment.only_first("file:/data/archive.zip|zip:")
        options = check_options(storage_options)
        body = segment.body
        if body.startswith("//"):
            host, slash, rest = body[2:].partition("/")
            if host.lower() not in ("", "localhost"):
                raise segment.error(
                    f"names the host {host!r}; only local files are supported "
                    "(file:/path, file:///path or file://localhost/path)"
                )
            body = slash + rest
        local = Segment(segment.scheme, body, segment.raw, segment.position, segment.url).location()
        if not local:
            raise segment.error("names no path; valid: file:/abs/path, file:///abs/path, file:relative/path")
        # a relative root (file:../data.zarr) means what the same bare path means
        return PipelineState(LocalStore(os.path.abspath(local), read_only=read_only, **options))


class MemoryRoot(URLAdapter):
    name = "memory"

    @classmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        segment.only_first("memory:|zarr3:group/array")
        name = segment.path()  # "memory://x" reads as the path "//x": the name "x"
        return PipelineState(MemoryStore.from_url(f"memory://{name}", read_only=read_only, **storage_options))


class Zarr3Segment(FormatSegment):
    name = "zarr3"
    format_name = "3"


class ZarrSegment(FormatSegment):
    name = "zarr"
    format_name = None
