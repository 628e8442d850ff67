"""The URL-pipeline format segment ``zarr2:path``: the node at ``path`` below what the
segments before it name, in Zarr v2 (``file:/data/archive.zip|zip:|zarr2:group/array``;
contract: :mod:`zarrforge.abc.url_adapter`). It lives with the format it names, so a
pipeline naming ``zarr2:`` needs exactly this distribution."""

from __future__ import annotations

from zarrforge.abc.url_adapter import FormatSegment


class Zarr2Segment(FormatSegment):
    name = "zarr2"
    format_name = "2"
