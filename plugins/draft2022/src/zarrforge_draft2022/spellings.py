"""The draft's spellings of a node, kept by the format so a rewrite says what was read.

The draft says one thing several ways: a codec is named by either URI family
(``.../spec/codec/gzip/1.0``, ``.../spec/codecs/gzip/1.0``), a data type by a
spec name, a numpy-style string or an extension object (one whose type fell
back included), a chunk memory layout by a name or an extension object. The model keeps what they mean, not how they were written, so
the format records the spellings in the model's ``format_data`` under its own
name (the contract is :mod:`zarrforge.abc.metadata`'s) as a :class:`Spellings`,
and :mod:`.documents` reuses them when writing the node back.

Each entry holds the very codec or data type object it describes and is found
by identity: codecs of other plugins compare by configuration (two equal gzip
codecs may have been read under different URIs), and holding the object keeps
its ``id`` from being reused. A codec or data type a model's ``replace`` put in
has no entry, and is spelled in the dialect's style.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from zarrforge.plugin_api.formats import Codec, DataType, NodeMetadata

FORMAT_NAME = "draft-2022"  # the registered name; also the key of the side data


@dataclasses.dataclass(frozen=True)
class Spellings:
    """``data_type``: ``(data type, its spelling, the byte order the spelling states or
    None)``; ``codec_uris``: ``(codec, the URI or name its entry gave)`` pairs;
    ``layout``: ``(the leading MemoryLayoutCodec, the chunk_memory_layout value read)``."""

    data_type: tuple[DataType, Any, str | None] | None = None
    codec_uris: tuple[tuple[Codec, str], ...] = ()
    layout: tuple[Codec, Any] | None = None

    def spelling_of(self, data_type: DataType) -> tuple[Any, str | None] | None:
        """``(spelling, byte order)`` ``data_type`` was read with, or None."""
        if self.data_type is not None and self.data_type[0] is data_type:
            return self.data_type[1], self.data_type[2]
        return None

    def uri_of(self, codec: Codec) -> str | None:
        """The URI (or registered name) ``codec`` was listed under, or None."""
        return next((uri for known, uri in self.codec_uris if known is codec), None)

    def layout_of(self, codec: Codec) -> Any:
        """The ``chunk_memory_layout`` value the layout codec ``codec`` was read from, or
        None."""
        if self.layout is not None and self.layout[0] is codec:
            return self.layout[1]
        return None

    def as_format_data(self) -> dict[str, Any]:
        """The model's ``format_data`` holding these spellings (empty when there are none)."""
        kept = self.data_type is not None or self.codec_uris or self.layout is not None
        return {FORMAT_NAME: self} if kept else {}


def spellings_of(metadata: NodeMetadata) -> Spellings:
    """The spellings ``metadata`` was built with (none for a model built elsewhere)."""
    found = metadata.format_data.get(FORMAT_NAME)
    return found if isinstance(found, Spellings) else Spellings()
