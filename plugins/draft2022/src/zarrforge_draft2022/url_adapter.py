"""The URL-pipeline format segment ``zarr-draft-2022:path``: the node at ``path`` below
what the segments before it name, in the 2022 editor's draft format
(``file:/data/spec.zr|zarr-draft-2022:group/array``; contract:
:mod:`zarrforge.abc.url_adapter`)."""

from __future__ import annotations

from zarrforge.abc.url_adapter import FormatSegment


class Draft2022Segment(FormatSegment):
    name = "zarr-draft-2022"
    format_name = "draft-2022"
