"""What a request path asks for: a node's ``zarr.json`` or a chunk, or nothing servable.

The served tree is Zarr v3 with the default chunk key encoding (separator ``/``): a
node at ``a/b`` answers ``/a/b/zarr.json``, and the chunk at grid coordinates
``(i, j)`` of an array at ``a/b`` answers ``/a/b/c/i/j`` (``/a/b/c`` for a 0-d array).

:func:`parse` reads the path alone. It refuses, as :class:`BadPath`, every path that
could name something outside the served hierarchy or that no Zarr reader sends: empty,
``.`` and ``..`` segments, backslashes, NUL and other control characters, and paths
longer than :data:`MAX_PATH_CHARS`. A well-formed path that is neither a ``zarr.json`` nor a chunk key
parses to ``None`` (the server answers 404: readers probe for other formats' documents).
A chunk path is a :class:`ChunkRequest` holding every way to read it as a chunk key: the array's path is
a prefix ending just before a segment ``c``, followed by as many decimal coordinates
as the array has dimensions. Which reading is right depends on which prefix is an
array, which only the hierarchy knows (``zarrforge_serve.hierarchy``); a node can be
named ``c``, so there may be several candidates, and since arrays have no children at
most one of them is an array.
"""

from __future__ import annotations

import dataclasses

DOCUMENT = "zarr.json"
CHUNK_PREFIX = "c"
#: longer paths are refused before any lookup (no Zarr key comes near it)
MAX_PATH_CHARS = 4096
#: a coordinate with more digits is refused (no grid has 10**30 chunks along an axis)
MAX_COORD_DIGITS = 30


class BadPath(ValueError):
    """A request path that names nothing this server could serve (the reason says why)."""


@dataclasses.dataclass(frozen=True)
class DocumentRequest:
    node_path: str  # "" for the root


@dataclasses.dataclass(frozen=True)
class ChunkCandidate:
    array_path: str
    coords: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class ChunkRequest:
    candidates: tuple[ChunkCandidate, ...]  # shortest array path first


def _segments(path: str) -> list[str]:
    if len(path) > MAX_PATH_CHARS:
        raise BadPath(f"the path is {len(path)} characters long; at most {MAX_PATH_CHARS} are served")
    if not path.startswith("/"):
        raise BadPath(f"{path!r} is not an absolute path")
    body = path[1:]
    if not body:
        return []
    if "\\" in body or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in body):
        raise BadPath(f"{path!r} holds a backslash or a control character")
    segments = body.split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            raise BadPath(f"{path!r} has an empty, '.' or '..' segment")
    return segments


def _coordinate(text: str) -> int | None:
    if not text.isdigit() or not text.isascii() or len(text) > MAX_COORD_DIGITS:
        return None
    return int(text)


def parse(path: str) -> DocumentRequest | ChunkRequest | None:
    """What the (percent-decoded) request ``path`` asks for.

    Parameters
    ----------
    path : str
        The request's path, percent-decoded, starting with ``/``.

    Returns
    -------
    DocumentRequest, ChunkRequest or None
        The node whose ``zarr.json`` is asked for, the chunk keys the path may be, or
        ``None`` for a well-formed path that is neither (another format's document, such
        as the ``.zgroup`` a reader probes for: not found).

    Raises
    ------
    BadPath
        The path cannot name anything in a served hierarchy.

    Examples
    --------
    >>> parse("/a/b/zarr.json")
    DocumentRequest(node_path='a/b')
    >>> parse("/t/c/0/3").candidates
    (ChunkCandidate(array_path='t', coords=(0, 3)),)
    """
    segments = _segments(path)
    if segments and segments[-1] == DOCUMENT:
        return DocumentRequest("/".join(segments[:-1]))
    candidates = []
    for at, segment in enumerate(segments):
        if segment != CHUNK_PREFIX:
            continue
        coords = [_coordinate(s) for s in segments[at + 1 :]]
        if all(c is not None for c in coords):
            candidates.append(
                ChunkCandidate("/".join(segments[:at]), tuple(c for c in coords if c is not None))
            )
    return ChunkRequest(tuple(candidates)) if candidates else None
