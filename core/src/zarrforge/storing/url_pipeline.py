"""Parsing URL pipelines: ``|``-chained URLs (the url-pipeline standard, ZEP 8).

Grammar (after the standard's ABNF; schemes are case-insensitive)::

    pipeline = root *( "|" adapter )
    root     = scheme ":" body           ; an ordinary URL: s3://b/k, file:///x, file:x, memory:
             / path                      ; zarrforge extension: a bare local path (/abs/x.zip,
                                         ;   data.zarr, C:\\x), or an fsspec chain (zip::s3://...)
    adapter  = scheme [ ":" body ]       ; "zip" means "zip:"
    scheme   = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )

Rules:

* ``|`` only separates segments. A ``|`` belonging to a path is written ``%7C``;
  every ``%`` in a segment with a scheme must start a two-hex-digit escape. Bodies
  are kept as written; the adapter decodes its own (:meth:`Segment.path`).
* No segment is empty (``a||b``, a leading or trailing ``|``) or has leading or
  trailing white space; ``#`` (a fragment) is not part of a pipeline (write
  ``%23``).
* A root whose scheme is one letter (``C:\\data``) is a Windows drive path, and a
  root ``name::...`` is an fsspec chain, both bare paths (scheme ``""``).
* A string without ``|`` is not a pipeline: it goes on to
  :func:`zarrforge.storing.storage.resolve_store` exactly as before (so a local path with
  a ``|`` in its name must be passed as an ``os.PathLike``, never a ``str``).

This module only parses; :mod:`zarrforge.storing.storage` resolves, through the
``url_adapters`` registry.
"""

from __future__ import annotations

import re
from typing import TypeGuard

from ..abc.url_adapter import Segment
from ..errors import URLPipelineError

SEPARATOR = "|"
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_ROOT_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(?!:)")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_VALID_SEGMENT = (
    "each segment is 'scheme:body' (e.g. 'zip:' or 'zarr3:group/array'); a '|' inside a path is written %7C"
)


def is_pipeline(url: object) -> TypeGuard[str]:
    """Whether ``url`` is a string to resolve as a URL pipeline (it holds a ``|``)."""
    return isinstance(url, str) and SEPARATOR in url


def _error(url: str, position: int, raw: str, message: str) -> URLPipelineError:
    return URLPipelineError(
        f"segment {position + 1} {raw!r} of the URL pipeline {url!r}: {message}", url=url, segment=raw
    )


def parse(url: str) -> tuple[Segment, ...]:
    """The segments of ``url``, outer to inner (see the module docstring for the rules)."""
    if not isinstance(url, str):
        raise TypeError(f"a URL pipeline is a str, got {type(url).__name__} {url!r}")
    segments = []
    for position, raw in enumerate(url.split(SEPARATOR)):
        if raw == "":
            where = (
                "at the start"
                if position == 0
                else "at the end"
                if position == url.count(SEPARATOR)
                else "between '||'"
            )
            raise URLPipelineError(
                f"segment {position + 1} of the URL pipeline {url!r} is empty ({where}); {_VALID_SEGMENT}",
                url=url,
                segment="",
            )
        if raw != raw.strip():
            raise _error(
                url,
                position,
                raw,
                "leading or trailing white space; write a space that belongs to a path as %20",
            )
        if "#" in raw:
            raise _error(
                url,
                position,
                raw,
                "a '#' (URL fragment) has no meaning in a "
                "pipeline; write a '#' that belongs to a path as %23",
            )
        if position == 0:
            match = _ROOT_SCHEME.match(raw)
            if match is None or len(match.group(1)) == 1:  # a bare path, or C:\...
                segments.append(Segment("", raw, raw, 0, url))
                continue
            scheme, body = match.group(1), raw[match.end() :]
        else:
            scheme, _, body = raw.partition(":")
            if not SCHEME.fullmatch(scheme):
                raise _error(
                    url,
                    position,
                    raw,
                    f"{scheme!r} is not a URL scheme (a letter, "
                    "then letters, digits, '+', '-' or '.'); " + _VALID_SEGMENT,
                )
        if _BAD_ESCAPE.search(raw):
            raise _error(
                url,
                position,
                raw,
                "a '%' must start a percent-escape of two hex digits (%7C for '|', %25 for '%' itself)",
            )
        segments.append(Segment(scheme.lower(), body, raw, position, url))
    return tuple(segments)


def unparse(segments: tuple[Segment, ...] | list[Segment]) -> str:
    """The pipeline text of ``segments`` (``parse`` keeps each segment as written)."""
    return SEPARATOR.join(s.raw for s in segments)
