"""The served hierarchy: request paths answered with bytes, off any event loop.

:class:`ServedHierarchy` opens SOURCE read-only once and answers the two kinds of
request of :mod:`zarrforge_serve.request_paths`:

* :meth:`ServedHierarchy.document`: a node's v3 ``zarr.json``, translated
  (:mod:`zarrforge_serve.translation`) the first time the node is asked for and kept;
  a group's carries its members inline when consolidated documents are on. Only nodes
  of the hierarchy are served: a path names a member of SOURCE's root or nothing.
* :meth:`ServedHierarchy.chunk`: a chunk by grid coordinates, passed through from the
  source's store (a byte range read as a byte range) or re-encoded.

Every answer is a :class:`~zarrforge_serve.answers.Body` (bytes, the whole value's size,
where the bytes start in it, and an entity tag) or ``None`` for nothing there (404). Entity tags come from the
store's versions where it has them (``Store.get_versioned``, ``get_ranges``): a
pass-through chunk on a store without versions has none rather than a hash of every
chunk sent; documents and re-encoded chunks are tagged by a digest of their bytes.

Every method blocks (store reads, codecs): the HTTP layer calls them on worker threads,
except :meth:`ServedHierarchy.chunk_now`, which answers only what costs one fast read (a
passed-through chunk of a low-latency store) and says :data:`LATER` for the rest.
Translated nodes, documents and re-encoded chunks are kept (the last within
``cache_bytes``); :meth:`ServedHierarchy.warm` builds the root's document ahead of requests,
and concurrent requests for one document wait for one build.
Nothing here reads a key that is not a node's document or a chunk key the source's
format computes for a node of the hierarchy, so no request reaches outside SOURCE.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import zarrforge
from zarrforge.abc.store_values import ByteRange
from zarrforge.errors import NodeNotFoundError, ZarrforgeError
from zarrforge_cli.storage_options import is_local

from .answers import AnswerCache, Body, digest_tag, generation_tag, part_of
from .byte_ranges import RangeRequest
from .request_paths import ChunkRequest
from .translation import ServedArray, TranslationOptions, group_document, member_entry

logger = logging.getLogger("zarrforge_serve")

#: :meth:`ServedHierarchy.chunk_now`'s answer when the request needs a worker thread
LATER = object()

#: the translated nodes kept (a node beyond it is translated again when asked for)
MAX_NODES = 100_000
#: re-encoded chunks kept by default, in bytes
DEFAULT_CACHE_BYTES = 64 * 2**20


def refusing_links(source: Any, storage_options: dict[str, Any] | None) -> dict[str, Any] | None:
    """``storage_options`` for a served source: a local directory's symbolic links refused
    (``links="refuse"``) unless the options choose otherwise.

    Parameters
    ----------
    source : Any
        What is served.
    storage_options : dict or None
        The caller's options.

    Returns
    -------
    dict or None
        The options to open ``source`` with.

    Examples
    --------
    >>> refusing_links("/data/tree.zarr", None)
    {'links': 'refuse'}
    >>> refusing_links("s3://bucket/tree.zarr", {"anon": True})
    {'anon': True}
    """
    if (
        not isinstance(source, str)
        or not is_local(source)
        or (storage_options and "links" in storage_options)
    ):
        return storage_options
    return {**(storage_options or {}), "links": "refuse"}


class ServedHierarchy:
    """SOURCE opened read-only, answering documents and chunks of its v3 translation.

    Parameters
    ----------
    source : str or Store
        What :func:`zarrforge.open` takes: a path, URL, URL pipeline or store.
    path : str
        The node inside ``source`` served as the root.
    storage_options : dict or None
        Options for the source's store. A local path is opened with ``links="refuse"``
        unless they name ``links`` (:func:`refusing_links`); a store object is used as
        it was opened.
    options : TranslationOptions or None
        How nodes are translated.
    cache_bytes : int
        Re-encoded chunks kept for repeated and ranged reads.

    Raises
    ------
    zarrforge.errors.NodeNotFoundError
        There is no node at ``path`` of ``source``.
    """

    def __init__(
        self,
        source: Any,
        path: str = "",
        *,
        storage_options: dict[str, Any] | None = None,
        options: TranslationOptions | None = None,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self.options = options or TranslationOptions()
        self.root = zarrforge.open(
            source, path, mode="r", storage_options=refusing_links(source, storage_options)
        )
        self._nodes: OrderedDict[str, Any] = OrderedDict()
        self._documents: dict[str, bytes] = {}
        self._building: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._cache = AnswerCache(cache_bytes)

    @property
    def is_group(self) -> bool:
        return isinstance(self.root, zarrforge.Group)

    # --- nodes ----------------------------------------------------------------------

    def _source_node(self, path: str) -> Any | None:
        if not path:
            return self.root
        if not self.is_group:
            return None
        try:
            return self.root[path]
        except NodeNotFoundError:
            return None

    def node(self, path: str) -> ServedArray | Any | None:
        """The served node at ``path``: a :class:`ServedArray`, a source group, or ``None``.

        Parameters
        ----------
        path : str
            The node's path relative to the served root (``""``: the root).

        Returns
        -------
        ServedArray, zarrforge.Group or None
            The node, or ``None`` when the hierarchy has none there.
        """
        with self._lock:
            if path in self._nodes:
                self._nodes.move_to_end(path)
                return self._nodes[path]
        found = self._source_node(path)
        return None if found is None else self._remember(path, found)

    def _remember(self, path: str, found: Any) -> ServedArray | Any:
        """``found`` (a source node at ``path``) as served, kept (least recently used out)."""
        served = found if isinstance(found, zarrforge.Group) else ServedArray(found, self.options)
        with self._lock:
            self._nodes[path] = served
            while len(self._nodes) > MAX_NODES:
                self._nodes.popitem(last=False)
        return served

    def _member_documents(self, group: Any, path: str) -> dict[str, dict[str, Any]]:
        """Every member's served document; a member that cannot be served (its document
        is broken, names an extension that is not installed, or has no v3 form) is left
        out and logged, and its own ``zarr.json`` answers with the reason."""
        members = {}
        for relative, member in group.members(max_depth=None):
            full = f"{path}/{relative}" if path else relative
            try:
                if isinstance(member, zarrforge.Group):
                    members[relative] = member_entry(group_document(member, None))
                    continue
                with self._lock:
                    served = self._nodes.get(full)
                if served is None:
                    served = self._remember(full, member)
                members[relative] = served.document
            except ZarrforgeError as exc:
                logger.warning("%r is left out of %r's members: %s", full, path or "/", exc)
        return members

    def document_json(self, path: str) -> dict[str, Any] | None:
        """The v3 ``zarr.json`` of the node at ``path``, as JSON, or ``None`` for no node.

        Parameters
        ----------
        path : str
            The node's path relative to the served root.

        Returns
        -------
        dict or None
            The document.
        """
        served = self.node(path)
        if served is None:
            return None
        if isinstance(served, ServedArray):
            return served.document
        members = self._member_documents(served, path) if self.options.consolidated else None
        return group_document(served, members)

    def document(self, path: str) -> Body | None:
        """:meth:`document_json` encoded, kept after the first request.

        Parameters
        ----------
        path : str
            The node's path relative to the served root.

        Returns
        -------
        Body or None
            The document's bytes, or ``None`` for no node at ``path``.
        """
        with self._lock:
            data = self._documents.get(path)
            building = self._building.setdefault(path, threading.Lock()) if data is None else None
        if building is not None:
            with building:  # one build per document: a second request waits for the first's
                data = self._built(path)
        if data is None:
            return None
        return Body(data, len(data), digest_tag(data), 0, "application/json")

    def _built(self, path: str) -> bytes | None:
        try:
            with self._lock:
                data = self._documents.get(path)
            if data is None:
                document = self.document_json(path)
                if document is None:
                    return None
                # compact: json's C encoder (indent= takes the pure-Python one, ten times
                # slower on a root holding thousands of members inline)
                data = json.dumps(document, separators=(",", ":"), allow_nan=True).encode()
                with self._lock:
                    if len(self._documents) < MAX_NODES:
                        self._documents[path] = data
            return data
        finally:
            with self._lock:  # waiters hold the lock object; a later request finds the document
                self._building.pop(path, None)

    def warm(self) -> None:
        """Build the root's document now (with consolidated members, every member's
        translation), so that the first reader does not wait for it; the server calls it
        on a worker thread as it starts. A failure is left for the request that meets it."""
        try:
            self.document("")
        except Exception:  # the root's request reports it, with its reason
            logger.warning("building the root's zarr.json ahead of requests failed", exc_info=True)

    # --- chunks ---------------------------------------------------------------------

    def array_for(self, request: ChunkRequest) -> tuple[ServedArray, tuple[int, ...]] | None:
        """The array and grid coordinates a chunk path names, or ``None``.

        Parameters
        ----------
        request : ChunkRequest
            The parsed path.

        Returns
        -------
        tuple[ServedArray, tuple[int, ...]] or None
            The array and the chunk's coordinates, or ``None`` when no reading of the path
            is a chunk inside an array's grid.
        """
        found = self._located(request, self.node)
        return None if found is LATER else found

    def _known(self, path: str) -> ServedArray | Any | None:
        """The node at ``path`` if it is kept already, else :data:`LATER` (no I/O)."""
        with self._lock:
            return self._nodes.get(path, LATER)

    def _located(self, request: ChunkRequest, lookup: Callable[[str], Any]) -> Any:
        """Walk the readings of a chunk path, shortest array path first, with ``lookup``:
        ``(array, coords)``, ``None`` for no chunk there, or :data:`LATER` where ``lookup``
        says it cannot tell without I/O."""
        for candidate in request.candidates:
            served = lookup(candidate.array_path)
            if served is LATER:
                return LATER
            if isinstance(served, ServedArray):
                return (served, candidate.coords) if served.in_grid(candidate.coords) else None
        return None

    def chunk_now(self, request: ChunkRequest, wanted: RangeRequest | None = None) -> Body | object | None:
        """The chunk, when answering costs only a fast read: a passed-through chunk of an
        array already translated, on a store whose reads are fast
        (``capabilities.low_latency``: a local directory, memory). :data:`LATER` otherwise,
        and the caller hands the request to :meth:`chunk` on a worker thread.

        Parameters
        ----------
        request : ChunkRequest
            The parsed path.
        wanted : RangeRequest or None
            The byte range asked for.

        Returns
        -------
        Body, None or LATER
            As :meth:`chunk`, or :data:`LATER`.
        """
        found = self._located(request, self._known)
        if found is None or found is LATER:
            return found
        served, coords = found
        return self._passed_through(served, coords, wanted) if served.fast else LATER

    def chunk(self, request: ChunkRequest, wanted: RangeRequest | None = None) -> Body | None:
        """The served bytes of a chunk (``wanted``: one byte range of them).

        Parameters
        ----------
        request : ChunkRequest
            The parsed path.
        wanted : RangeRequest or None
            The byte range asked for; ``None`` for the whole chunk.

        Returns
        -------
        Body or None
            The bytes, or ``None`` for no chunk there (the reader uses the fill value).

        Raises
        ------
        zarrforge_serve.byte_ranges.Unsatisfiable
            ``wanted`` selects no byte of the chunk.
        zarrforge_serve.translation.ChunkTooLarge
            A chunk to re-encode is larger than the server reads for one request.
        """
        found = self.array_for(request)
        if found is None:
            return None
        served, coords = found
        if served.passthrough:
            return self._passed_through(served, coords, wanted)
        cache_key = (served.source.path, coords)
        hit, whole = self._cache.get(cache_key)
        if not hit:
            data = served.reencoded(coords)
            whole = None if data is None else Body(data, len(data), digest_tag(data))
            self._cache.put(cache_key, whole)
        return None if whole is None else part_of(whole, wanted)

    def _passed_through(
        self, served: ServedArray, coords: tuple[int, ...], wanted: RangeRequest | None
    ) -> Body | None:
        store = served.source.chunk_store  # where source_key names chunks
        key = served.source_key(coords)
        capabilities = store.capabilities
        if wanted is None:
            if capabilities.conditional_writes:
                data, generation = store.get_versioned(key)
                return None if data is None else Body(data, len(data), generation_tag(generation))
            data = store.get(key)
            return None if data is None else Body(data, len(data), None)
        for _ in range(3):  # a value replaced between its size and its read is read again
            size = store.getsize(key)
            if size is None:
                return None
            start, stop = wanted.resolve(size)
            part = ByteRange(start, stop - start)
            etag = None
            if capabilities.versioned_ranges:
                parts, generation = store.get_ranges(key, [part])
                data = None if parts is None else parts[0]
                etag = generation_tag(generation)
            else:
                data = store.get(key, part)
            if data is None:
                return None
            if len(data) == stop - start:
                return Body(data, size, etag, start)
        raise RuntimeError(f"the source's value at {key!r} kept changing while it was read")
