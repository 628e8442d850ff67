"""The shard indexes a partial read remembers, for partial reads that need one request, not two.

A partial read of a shard needs the shard's index before it knows which bytes to fetch:
two requests one after the other (two round trips on an object store). With the index
of an earlier read remembered, the read asks for the index *and* the inner chunks the
remembered index points at in one batch of requests, and then compares the index it got
with the one it remembered. Equal: the inner chunks it got are the ones the index names,
exactly as if it had read the index first (either way the shard may change between the
two requests; the engine never promised more). Different, or absent: the remembered
index is dropped, and the read continues from the fresh one with the second request it
would have made anyway. So a remembered index is only ever a guess that saves a round
trip when right; it can never make a read return other bytes than the uncached read would.

The memory is the engine's (``zarrforge.plugin_api.codecs.remembered_indexes``: one pool
per process, least recently used out past ``config.index_cache`` bytes, default 32 MiB,
0 off), beside the decoded-chunk cache; ``cache`` here is that pool. Entries are keyed by
what the engine's fetcher names (``fetch.cache_key``: the store object and the shard's
key) and by the codec's own configuration, and hold the encoded index (to compare) and
its decoded entries. :func:`set_index_cache` is the setting's older spelling.
"""

from __future__ import annotations

from zarrforge.plugin_api.codecs import config, remembered_indexes

DEFAULT_BYTES = config.Settings.index_cache  # 32 MiB

cache = remembered_indexes()


def set_index_cache(max_bytes: int) -> int:
    """Set ``config.index_cache`` (process-wide; 0 turns the memory off); returns the previous
    value. Lowering it drops the least recently used indexes past the new cap at once; 0
    makes the codec neither read nor write the memory."""
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
        raise ValueError(f"the shard index cache size must be a non-negative int of bytes, got {max_bytes!r}")
    previous = int(config.get().index_cache)
    config.update(index_cache=max_bytes)
    if max_bytes < previous:
        cache.shrink()
    return previous
