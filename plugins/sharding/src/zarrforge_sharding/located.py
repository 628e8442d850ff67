"""Reading what a shard's index locates, from one version of the shard.

A partial read of a shard takes two steps: the index, then the inner chunks it
points at. Another writer may replace the shard between them, so the second step
reads the index again with the chunks, from the version the first came from where
that is known (``Store.get_ranges``), and the chunks are used only if that index is
the one their ranges were computed from; otherwise the read starts again from the
new index. A shard whose index changes on every try (a writer rewriting it without
pause) is read whole after a few tries, in one request: one version of it, so the
read ends however busy the writer is, and still never mixes two versions. The
sharding codec and the 2022 draft's sharding transformer both read this way
(:func:`read_located`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from zarrforge.errors import ConflictError
from zarrforge.plugin_api.codecs import ByteRange, config

#: ``read(ranges, if_generation=...) -> (parts or None, generation)``: Store.get_ranges
#: of one shard
Read = Callable[..., "tuple[list[bytes] | None, Any]"]

#: partial tries (the index changing between each) before the shard is read whole; fewer
#: where ``config.conflict_retries`` allows fewer retries
PARTIAL_TRIES = 3


def read_located(
    read: Read,
    index_range: Any,
    raw_index: bytes,
    locate: Callable[[bytes], tuple[Any, Sequence[Any]]],
    *,
    generation: Any = None,
    guessed: bool = False,
) -> tuple[Any, list[bytes]] | None:
    """``(located, parts)``, where ``located, ranges = locate(raw_index)`` for the index
    the parts were read with and ``parts`` are the bytes of ``ranges``; ``None`` when the
    shard is gone. ``generation``: the version ``raw_index`` came from, if known.
    ``guessed``: ``raw_index`` is a memory of an earlier read, so it is checked by a read
    even when it locates nothing. After :data:`PARTIAL_TRIES` tries that each found
    another index (at most ``config.conflict_retries + 1``), the shard is read whole in
    one request and the index and parts are taken from that one version."""
    for _ in range(min(PARTIAL_TRIES, config.get().conflict_retries + 1)):
        located, ranges = locate(raw_index)
        if not ranges and not guessed:
            return located, []
        try:
            parts, generation = read([index_range, *ranges], if_generation=generation)
        except ConflictError:  # replaced since the index was read: start from its new one
            parts, generation = read([index_range])
        if parts is None:
            return None  # deleted meanwhile: it reads as missing now
        if len(parts) == len(ranges) + 1 and bytes(parts[0]) == bytes(raw_index):
            return located, parts[1:]
        raw_index, guessed = parts[0], False
    return _from_whole(read, index_range, locate)


def _from_whole(
    read: Read, index_range: Any, locate: Callable[[bytes], tuple[Any, Sequence[Any]]]
) -> tuple[Any, list[bytes]] | None:
    """:func:`read_located`'s answer from one request for the whole shard (``None`` when
    it is gone): the index and every part come from the same version."""
    parts, _ = read([ByteRange(offset=0)])
    if parts is None or parts[0] is None:
        return None
    whole = parts[0]
    located, ranges = locate(bytes(whole[index_range.slice_of(len(whole))]))
    return located, [whole[r.slice_of(len(whole))] for r in ranges]
