"""Reading what a shard's index locates, from one version of the shard.

A partial read of a shard takes two steps: the index, then the inner chunks it
points at. Another writer may replace the shard between them, so the second step
reads the index again with the chunks, from the version the first came from where
that is known (``Store.get_ranges``), and the chunks are used only if that index is
the one their ranges were computed from; otherwise the read starts again from the
new index. The sharding codec and the 2022 draft's sharding transformer both read
this way (:func:`read_located`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from zarrforge.errors import ConflictError
from zarrforge.plugin_api.codecs import config

#: ``read(ranges, if_generation=...) -> (parts or None, generation)``: Store.get_ranges
#: of one shard
Read = Callable[..., "tuple[list[bytes] | None, Any]"]


def read_located(
    read: Read,
    index_range: Any,
    raw_index: bytes,
    locate: Callable[[bytes], tuple[Any, Sequence[Any]]],
    *,
    generation: Any = None,
    guessed: bool = False,
    what: str = "the shard",
    key: str | None = None,
) -> tuple[Any, list[bytes]] | None:
    """``(located, parts)``, where ``located, ranges = locate(raw_index)`` for the index
    the parts were read with and ``parts`` are the bytes of ``ranges``; ``None`` when the
    shard is gone. ``generation``: the version ``raw_index`` came from, if known.
    ``guessed``: ``raw_index`` is a memory of an earlier read, so it is checked by a read
    even when it locates nothing. After ``config.conflict_retries`` changes of the index,
    :class:`~zarrforge.errors.ConflictError` naming ``what``."""
    for attempt in itertools.count():
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
        if attempt >= config.get().conflict_retries:
            raise ConflictError(
                f"{what} kept changing while it was read in part: its index "
                f"changed on each of {attempt + 1} tries (config "
                "conflict_retries)",
                key=key,
            )
    raise AssertionError("unreachable")
