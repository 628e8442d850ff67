"""The chunk engine: moves data between a selection and the stored chunks.

(Split by job: the chunk helpers codecs share are :mod:`zarrforge.engine.chunk_helpers`, getting
chunks to and from the store is :mod:`zarrforge.engine.chunk_io`, how a write changes one chunk
is :mod:`zarrforge.engine.chunk_update`; this module schedules a call. ``all_equal_fill``,
``check_allocation`` and ``chunk_limit`` stay importable from here.)

:class:`ChunkEngine` executes one read or write that an indexer has already
projected onto chunks (see :mod:`zarrforge.engine.indexing`; the contract is that
``out[p.out_selection] = chunk[p.chunk_selection]`` reads and the reverse
assignment writes).

Workers (the calling thread and pool threads; :func:`workers_for` decides how
many are worth it by the chunks' size, and a call it keeps on one thread still gets them
all when its chunks are measured slow, on a low-latency store: the cost of one chunk,
read or written, is timed on the first chunks of a call, one at a time, and kept, per engine, for the
calls after it) take consecutive groups of chunks from the call's stream of chunks,
each the next group when done with its last, so none idles while work remains. A
group fetches its chunks with one ``get_many``, then decodes and copies, or encodes and
stores, so I/O overlaps codec work without a task per chunk. Groups are a worker's
share of a batch sized by decoded bytes (:func:`batch_size_for`: small chunks travel to
the store in large requests, which hides a remote store's latency), and at most
:data:`GROUP_BYTES` on a store that says it is ``low_latency``. A call holds its output
plus about a group per worker.

Reads decode a chunk the selection covers entirely straight into the output
(``CodecChain.decode_into``); chunks never written read as the fill value. When
the codec chain is a single :class:`PartialCodec` (sharding), chunks covered in
part are read through byte ranges. Writes read a chunk only when the write covers
part of it; each chunk's new stored bytes, or the answer to delete it, come from
one call, :meth:`~zarrforge.engine.chunk_update.ChunkUpdater.updated`, which chooses how
the chunk is coded; a chunk read for a write is read and written back against the
generation read where the store has conditional writes, retried here on conflict.
Each group stores its own chunks unless the store's keys are not independent
(``StoreCapabilities.independent_keys``): then a batch goes to one ``set_many``.
Any chunk held whole is first checked against ``config.max_chunk_bytes`` (and
``max_request_bytes``), before anything is allocated for it.

With a decoded-chunk cache (``cache``, :mod:`zarrforge.engine.chunk_cache`), a read asks
the pool for the chunks it reads whole (and for shards that fit the pool, read whole), and
fetches only the rest, without read-ahead. Every write, delete and read-modify-write of
chunk keys is announced afterwards (:mod:`zarrforge.storing.write_notices`), failed or not,
so every pool in the process drops what it held of them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, Literal

import numpy as np

from .. import config
from ..abc.chunk_grid import ChunkGrid
from ..abc.codec import ChunkSpec
from ..abc.data_type import DataType
from ..abc.memory_layout import MemoryLayout
from ..abc.storage_transformer import ChunkKeys
from ..abc.store import Store
from ..errors import CodecError, ConflictError
from ..registries.plugin_failures import store_bugs_named
from ..storing import write_notices
from ..storing.optimistic import pause_before_retry, read_modify_write
from .chunk_cache import CachedChunks
from .chunk_helpers import ChunkLimit, all_equal_fill, check_allocation, check_chunk, chunk_limit  # noqa: F401
from .chunk_io import (
    KeyFetcher,
    batch_size_for,
    chunk_locks,
    read_ahead,
    typical_chunk_bytes,
    typical_chunk_shape,
)
from .chunk_update import ChunkUpdater, Encoded, Keep
from .codec_chain import CodecChain
from .parallel import (  # noqa: F401
    GROUPS_PER_WORKER,
    UNCOMPRESSED_FACTOR,
    ItemCost,
    grouped,
    run_groups,
    using_threads,  # (UNCOMPRESSED_FACTOR, workers_for: kept here too)
    workers_for,
)
from .plain_runs import PlainRuns, plain_chunks_by_runs

GROUP_BYTES = 4 * 2**20  # decoded bytes a worker takes at a time from a low-latency store
# Calls of fewer chunks are not measured for threads (parallel.ItemCost): spreading them
# would gain little, and measuring splits their one batch into a group per thread.
MEASURED_CALL_CHUNKS = 32
PLAIN_CHUNK_BYTES = 2**20  # plain chunks up to this size take the engine's fast path
# Plain chunks from a low-latency store are touched twice by the engine (read, then copied
# into the output; or gathered, then written): in groups of at most this many bytes the
# second touch finds them still in the core's cache (W5, W5r: benchmarks/RESULTS.md,
# session 29).
PLAIN_GROUP_BYTES = 256 * 2**10


class Aimed:
    """A chunk projection with the output it reads into (:meth:`ChunkEngine.read_gathered`)."""

    __slots__ = ("chunk_selection", "complete", "coords", "out", "out_selection")

    def __init__(self, projection: Any, out: np.ndarray) -> None:
        self.coords = projection.coords
        self.chunk_selection = projection.chunk_selection
        self.out_selection = projection.out_selection
        self.complete = projection.complete
        self.out = out


class _ArrayNamed:
    """``with _ArrayNamed(path):`` names the array in a CodecError passing through (the
    chunk is named where it is coded). A class, as ``codec_chain._named_failures``: it
    runs once per call."""

    __slots__ = ("path",)

    def __init__(self, path: str | None) -> None:
        self.path = path

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if isinstance(exc, CodecError) and exc.array is None and self.path is not None:
            raise exc.located(array=self.path) from exc.__cause__
        return False


def grouped_by_chunk(aimed: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Gathered reads (:class:`Aimed`, sorted by chunk) in consecutive groups of about
    ``size``, a group never ending inside a chunk's reads: the reads of one chunk share
    one fetch (:meth:`ChunkEngine._fetch_part` asks once for each key of its group)."""
    group: list[Any] = []
    for item in aimed:
        if len(group) >= size and item.coords != group[-1].coords:
            yield group
            group = []
        group.append(item)
    if group:
        yield group


class ChunkEngine:
    def __init__(
        self,
        *,
        store: Store,
        keys: ChunkKeys,
        grid: ChunkGrid,
        chain: CodecChain,
        data_type: DataType,
        fill_value: Any,
        layout: MemoryLayout,
        threads: int,
        write_empty_chunks: bool,
        name: str | None = None,
        cache: CachedChunks | None = None,
    ) -> None:
        self.name = name  # the array's path, named by codec errors
        self.cache = cache  # decoded chunks kept for later reads (chunk_cache=), or None
        self.store = store
        self.keys = keys
        self.grid = grid
        self.chain = chain
        self.data_type = data_type
        self.fill_value = fill_value
        self.layout = layout
        self.threads = threads
        self.write_empty_chunks = write_empty_chunks
        shape = typical_chunk_shape(grid)
        self._chunk_bytes = typical_chunk_bytes(shape, data_type)
        self._chunk_items = max(1, math.prod(shape))
        self.batch_size = batch_size_for(self._chunk_bytes, threads)
        typical = ChunkSpec(shape, data_type, fill_value, layout)
        self._computes = chain.computes(typical)
        self._regular_spec = typical if grid.regular_chunk_shape is not None else None
        self._specs: dict[tuple[int, ...], ChunkSpec] = {}
        # Small chunks of a regular grid whose chain only lays out the elements
        # (CodecChain.plain_dtype) are coded without a codec call per chunk (read here,
        # written by the updater): per-chunk Python is what such chunks cost. Larger ones
        # gain nothing from it.
        self._plain: np.dtype | None = None
        if self._regular_spec is not None and self._chunk_bytes <= PLAIN_CHUNK_BYTES:
            self._plain = chain.plain_dtype(typical)
        self.updater = ChunkUpdater(chain, write_empty_chunks=write_empty_chunks, plain=self._plain)
        # seconds per chunk, read and written, measured when the byte rule gives one thread
        self._costs = {"read": ItemCost(), "write": ItemCost()}

    def spec_for(self, coords: Sequence[int]) -> ChunkSpec:
        if self._regular_spec is not None:
            return self._regular_spec
        shape = self.grid.chunk_shape(coords)
        spec = self._specs.get(shape)
        if spec is None:
            if len(self._specs) >= 4096:  # irregular grids: keep the cache bounded
                self._specs.clear()
            spec = self._specs[shape] = ChunkSpec(shape, self.data_type, self.fill_value, self.layout)
        return spec

    def _group_size(self, workers: int, elements: int, *, latency_bound: bool = False) -> int:
        """Chunks one worker takes at a time, for a call over ``elements`` array elements:
        its share of a batch, so a high-latency store sees large requests; for
        low-latency stores no more than :data:`GROUP_BYTES` decoded, and plain chunks
        (one thread too) no more than :data:`PLAIN_GROUP_BYTES`. Each worker gets
        about :data:`GROUPS_PER_WORKER` groups of the call (the call's chunks estimated
        from its elements), so the last groups to finish leave few threads idle; with
        ``latency_bound`` (reads that fetch ahead in quarter groups) at least one."""
        share = max(1, self.batch_size // workers)
        low_latency = self.store.capabilities.low_latency
        if low_latency and self._plain is not None:
            share = min(share, max(1, PLAIN_GROUP_BYTES // max(1, self._chunk_bytes)))
        if workers <= 1:
            return share
        if low_latency:
            share = max(1, min(share, GROUP_BYTES // max(1, self._chunk_bytes)))
        chunks = -(-max(1, elements) // self._chunk_items)  # at least this many chunks
        per_worker = 1 if latency_bound else GROUPS_PER_WORKER
        return max(1, min(share, -(-chunks // (workers * per_worker))))

    def _workers(self, operation: str, elements: int) -> tuple[int, ItemCost | None]:
        """Threads for a call over ``elements`` array elements, and the cost to measure on
        it (``None``: nothing to measure). By the byte rule (:func:`workers_for`, with the
        setting in force now); where that rule says one thread on a low-latency store, all
        of them once this engine has measured its chunks slow for ``operation`` ("read"
        or "write"), and a call of at least :data:`MEASURED_CALL_CHUNKS` chunks measures
        them (:func:`~zarrforge.engine.parallel.run_groups`), except that plain chunks of a
        store whose batches run without the GIL (``StoreCapabilities.io_without_gil``)
        take all of them. Smaller calls keep their one batch; a store with latency keeps
        the large groups that batch its requests (its reads fetch ahead on threads of
        their own whatever the codec costs)."""
        workers = workers_for(
            self._computes, self._chunk_bytes, self.threads, config.get().parallel_chunk_bytes
        )
        capabilities = self.store.capabilities
        if workers > 1 or self.threads <= 1 or not capabilities.low_latency:
            return workers, None
        cost = self._costs[operation]
        if cost.slow():
            return self.threads, None
        if -(-max(1, elements) // self._chunk_items) < MEASURED_CALL_CHUNKS:
            return workers, None
        if capabilities.io_without_gil and not self._computes:
            # Plain chunks are mostly I/O, which such a store's batches make without the
            # GIL: other threads copy chunks meanwhile (W5, W5r: benchmarks/RESULTS.md,
            # session 28), where with the GIL held they would only take turns.
            return self.threads, None
        return workers, cost

    def _run(
        self,
        work: Callable[[list[Any]], None],
        items: Iterable[Any],
        group_size: int,
        workers: int,
        cost: ItemCost | None = None,
        serial_group_size: int | None = None,
    ) -> None:
        """``work`` on consecutive groups of ``items`` on up to ``workers`` of this
        array's threads (:func:`~zarrforge.engine.parallel.run_groups`; with ``cost``,
        all of them when the chunks are measured slow, else groups of
        ``serial_group_size``)."""
        run_groups(work, items, group_size, workers, self.threads, cost, serial_group_size)

    def read_chunk(self, coords: tuple[int, ...]) -> np.ndarray | None:
        """The decoded chunk at ``coords``, or ``None`` if it was never written."""
        key = self.keys.key(coords)
        if self.cache is not None:
            spec = self.spec_for(coords)
            with using_threads(self.threads), store_bugs_named(self.store), _ArrayNamed(self.name):
                chunk = self.cache.chunks([key], lambda k, data: self.chain.decode(data, spec, key=k))[key]
            return None if chunk is None else np.array(chunk)  # the caller's own copy
        with store_bugs_named(self.store):
            data = self.store.get(key)
        if data is None:
            return None
        with using_threads(self.threads), _ArrayNamed(self.name):
            return self.chain.decode(data, self.spec_for(coords), key=key)

    def update_chunk(
        self, coords: tuple[int, ...], change: Callable[[np.ndarray], np.ndarray | None]
    ) -> None:
        """Replace the stored chunk at ``coords`` by ``change(chunk)`` (a writable copy
        of it), as one read-modify-write: on a store with conditional writes it is
        written only if nobody changed the chunk meanwhile, and redone otherwise
        (:func:`~zarrforge.storing.optimistic.read_modify_write`). A chunk that is not stored
        is left alone, and so is one for which ``change`` returns ``None`` (no change)."""
        key = self.keys.key(coords)

        def update(view: Store) -> None:
            old = view.get(key)
            if old is None:
                return
            result = self.updater.changed(old, self.spec_for(coords), change, coords=coords, key=key)
            if result is None:
                view.delete(key)
            elif not isinstance(result, Keep):  # the one Keep is KEEP
                view.set(key, result[0] if len(result) == 1 else b"".join(result))

        with (
            using_threads(self.threads),
            store_bugs_named(self.store),
            _ArrayNamed(self.name),
            write_notices.announcing_writes(self.store, [key]),
        ):
            read_modify_write(self.store, update)

    def _get_many(self, keys: list[str]) -> list[bytes | None]:
        return self.store.get_many([(k, None) for k in keys]) if keys else []

    def _fetcher(self, key: str) -> KeyFetcher:
        return KeyFetcher(self.store, key)

    # --- reading ------------------------------------------------------------------

    def read(self, projections: Iterable[Any], out: np.ndarray) -> None:
        """``out[p.out_selection] = chunk[p.chunk_selection]`` for each projection."""
        with using_threads(self.threads), store_bugs_named(self.store), _ArrayNamed(self.name):
            self._read(projections, out, out.size)

    def read_gathered(self, reads: Sequence[tuple[Iterable[Any], np.ndarray]]) -> None:
        """Several reads as one call: :meth:`read` of each ``(projections, out)`` pair, their
        chunks fetched and decoded together (sorted by chunk, so reads of one chunk share
        its fetch), as one stream of groups, so many small reads reach the store as the
        large concurrent batches one large read would."""
        aimed = sorted(
            (Aimed(p, out) for projections, out in reads for p in projections), key=lambda a: a.coords
        )
        with using_threads(self.threads), store_bugs_named(self.store), _ArrayNamed(self.name):
            self._read(aimed, None, sum(out.size for _, out in reads))

    def _read(self, projections: Iterable[Any], out: np.ndarray | None, elements: int) -> None:
        """``out``: the output of every projection, or ``None`` when each is an
        :class:`Aimed` carrying its own."""
        limit = chunk_limit()
        read_part = self._read_part if self.cache is None else self._read_part_cached
        items = iter(projections)
        first = next(items, None)
        if first is None:
            return
        second = next(items, None)
        if second is None:
            # One chunk (a small read): on the calling thread, without sizing groups or
            # asking for threads, as run_groups would run a single group anyway
            read_part([first], out, limit)
            return
        projections = itertools.chain((first, second), items)
        workers, cost = self._workers("read", elements)
        if out is None:
            cost = None  # gathered reads keep their one batch (the asyncio API's promise)
        # With a chunk cache, each group asks the pool, which fetches the rest in one batch:
        # no read-ahead, which would fetch the hits too.
        fetching_ahead = not self.store.capabilities.low_latency and self.cache is None
        # groups sized for every thread when the chunks' cost may call for them
        spread = workers if cost is None else self.threads
        group_size = self._group_size(spread, elements, latency_bound=fetching_ahead)
        # and for one thread, should they prove cheap
        serial = self._group_size(workers, elements, latency_bound=fetching_ahead)
        if not fetching_ahead:
            if out is None:  # gathered reads: groups of whole chunks, each chunk fetched once

                def read_parts(parts: list[list[Any]]) -> None:
                    for part in parts:
                        read_part(part, None, limit)

                self._run(read_parts, grouped_by_chunk(projections, group_size), 1, workers, cost)
                return
            self._run(
                lambda part: read_part(part, out, limit), projections, group_size, workers, cost, serial
            )
            return
        # A store with latency: the chunks of the next groups are fetched while the
        # workers decode theirs, so waiting on the store and decoding overlap.
        # Quarter groups, four times as many ahead: as many bytes in flight, and decoding
        # starts as soon as the first quarter arrives.
        small = max(1, group_size // 4)
        parts = grouped(projections, small) if out is not None else grouped_by_chunk(projections, small)
        ahead = read_ahead(parts, self._fetch_part, workers * (group_size // small))
        self._run(
            lambda item: self._read_part(item[0][0], out, limit, item[0][1].result()), ahead, 1, workers, cost
        )

    def _fetch_part(self, part: list[Any]) -> tuple[list[str], dict[int, bytes | None]]:
        """The keys of ``part`` and the stored bytes of the chunks it reads whole."""
        partial = self.chain.partial is not None
        keys = [self.keys.key(p.coords) for p in part]
        whole = [i for i, p in enumerate(part) if not partial or p.complete]
        wanted = list(dict.fromkeys(keys[i] for i in whole))  # gathered reads share chunks
        if len(wanted) == len(whole):
            return keys, dict(zip(whole, self._get_many(wanted)))
        fetched = dict(zip(wanted, self._get_many(wanted)))
        return keys, {i: fetched[keys[i]] for i in whole}

    def _read_part(
        self,
        part: list[Any],
        out: np.ndarray | None,
        limit: ChunkLimit,
        fetched: tuple[list[str], dict[int, bytes | None]] | None = None,
    ) -> None:
        keys, encoded = self._fetch_part(part) if fetched is None else fetched
        del fetched
        fill = self.fill_value
        decode = self.chain.decode
        plain = self._plain if limit[0] is None or self._chunk_bytes <= limit[0] else None
        chunk_bytes = self._chunk_bytes
        runs = None
        if self._regular_spec is not None and PlainRuns.usable(plain, self._regular_spec.shape, out):
            runs = PlainRuns(plain, self._regular_spec.shape, out)  # type: ignore[arg-type]
        for i, p in enumerate(part):
            target = p.out if out is None else out
            spec = self.spec_for(p.coords)
            if i in encoded:
                data = encoded.pop(i)  # let each chunk's bytes go once decoded
                if data is None:
                    target[p.out_selection] = fill
                    continue
                if (
                    runs is not None
                    and p.complete
                    and len(data) == chunk_bytes
                    and runs.add(p.out_selection, data)
                ):
                    continue
                # A plain chunk of the right length is a view of its bytes (see __init__);
                # any other goes through the chain, which also reports a wrong length.
                plain_chunk = (
                    np.frombuffer(data, plain).reshape(spec.shape)
                    if plain is not None and len(data) == self._chunk_bytes
                    else None
                )
                if plain_chunk is None:
                    # (a chunk the read covers may still overhang the array's edge by far)
                    check_chunk(spec, keys[i], limit)
                if p.complete and all(type(s) is slice for s in p.out_selection):
                    view = target[(*p.out_selection, Ellipsis)]  # slices: a view of the output
                    if view.shape == spec.shape:
                        if plain_chunk is None:
                            self.chain.decode_into(data, spec, view, key=keys[i])
                        else:
                            np.copyto(view, plain_chunk, casting="equiv")
                        continue
                chunk = decode(data, spec, key=keys[i]) if plain_chunk is None else plain_chunk
                target[p.out_selection] = chunk[p.chunk_selection]
                continue
            values = self.chain.decode_partial(self._fetcher(keys[i]), spec, p.chunk_selection, key=keys[i])
            target[p.out_selection] = fill if values is None else values
        if runs is not None:
            runs.flush()

    def _read_part_cached(self, part: list[Any], out: np.ndarray | None, limit: ChunkLimit) -> None:
        """:meth:`_read_part` through the chunk cache: each chunk the part reads whole
        comes from the pool or is fetched, decoded and kept there. A chunk of a partial
        codec (a shard) is read whole when it fits the pool, else by ranges as without a
        cache."""
        cache = self.cache
        assert cache is not None
        partial = self.chain.partial is not None
        keys = [self.keys.key(p.coords) for p in part]
        specs = {}  # key -> spec of the chunks read whole
        for key, p in zip(keys, part):
            spec = self.spec_for(p.coords)
            if not partial or p.complete or cache.fits(spec.nbytes):
                specs[key] = spec

        def decode(key: str, data: bytes) -> np.ndarray:
            spec = specs[key]
            check_chunk(spec, key, limit)
            return self.chain.decode(data, spec, key=key)

        chunks = cache.chunks(list(specs), decode) if specs else {}
        fill = self.fill_value
        for i, p in enumerate(part):
            target = p.out if out is None else out
            key = keys[i]
            if key in chunks:
                chunk = chunks[key]
                target[p.out_selection] = fill if chunk is None else chunk[p.chunk_selection]
                continue
            spec = self.spec_for(p.coords)
            values = self.chain.decode_partial(self._fetcher(key), spec, p.chunk_selection, key=key)
            target[p.out_selection] = fill if values is None else values

    # --- writing ------------------------------------------------------------------

    def write(self, projections: Iterable[Any], value: np.ndarray) -> None:
        """``chunk[p.chunk_selection] = value[p.out_selection]`` for each projection."""
        with using_threads(self.threads), store_bugs_named(self.store), _ArrayNamed(self.name):
            self._write(projections, value)

    def _write(self, projections: Iterable[Any], value: np.ndarray) -> None:
        limit = chunk_limit()
        workers, cost = self._workers("write", value.size)
        spread = workers if cost is None else self.threads
        group_size = self._group_size(spread, value.size)
        serial = self._group_size(workers, value.size)  # should the chunks prove cheap
        capabilities = self.store.capabilities
        # A chunk the write covers in part is read, changed and written back: on a store
        # with conditional writes, written only if nobody changed it meanwhile, and redone
        # otherwise. (A store gathering several keys into one object handles whole batches
        # itself and offers no conditional writes.)
        conditional = capabilities.conditional_writes and capabilities.independent_keys
        # whole plain chunks of a regular grid: their bytes gathered a run at a time
        plain = self._plain if limit[0] is None or self._chunk_bytes <= limit[0] else None

        def updated(group: list[Any]) -> tuple[list[str], list[Encoded | None]]:
            keys = [self.keys.key(p.coords) for p in group]
            incomplete = [i for i, p in enumerate(group) if not p.complete]
            if conditional and incomplete:
                updating = [keys[i] for i in incomplete]
                with write_notices.announcing_writes(self.store, updating):
                    self._update_conditionally([group[i] for i in incomplete], updating, value, limit)
                complete = [i for i, p in enumerate(group) if p.complete]
                return (
                    [keys[i] for i in complete],
                    [self._updated(group[i], keys[i], None, value, limit) for i in complete],
                )
            if not incomplete and plain is not None:
                return keys, self._plain_updated(group, keys, value, limit)
            existing = dict(zip(incomplete, self._get_many([keys[i] for i in incomplete])))
            return keys, [
                self._updated(p, keys[i], existing.pop(i, None), value, limit) for i, p in enumerate(group)
            ]

        def store_group(group: list[Any]) -> None:
            partial = [self.keys.key(p.coords) for p in group if not p.complete]
            if conditional or not partial:
                self._store_results(*updated(group))
                return
            # no conditional writes: at least writers in this process take turns
            with chunk_locks(self.store, partial):
                self._store_results(*updated(group))

        if capabilities.independent_keys:
            # each group stores its own chunks, its I/O overlapping the others' encoding
            self._run(store_group, projections, group_size, workers, cost, serial)
            return
        # The store gathers several keys into one object: a batch is stored whole, in one
        # set_many, once all of its chunks are encoded.
        for batch in grouped(projections, self.batch_size):
            done: list[tuple[list[str], list[Encoded | None]]] = []
            self._run(lambda group: done.append(updated(group)), batch, group_size, workers, cost, serial)  # noqa: B023  # called before the loop moves on
            self._store_results(
                [k for keys, _ in done for k in keys], [r for _, results in done for r in results]
            )

    def _store_results(self, keys: list[str], results: list[Encoded | None]) -> None:
        """Store each chunk's bytes, delete the chunks whose result is ``None``. A chunk
        encoded as several pieces (a shard) goes to ``set_parts``, which writes them
        without joining them first, unless the store needs the batch whole."""
        whole = not self.store.capabilities.independent_keys
        writes, deletes = [], []
        with write_notices.announcing_writes(self.store, keys):
            for key, parts in zip(keys, results):
                if parts is None:
                    deletes.append(key)
                elif len(parts) == 1 or whole:
                    writes.append((key, parts[0] if len(parts) == 1 else b"".join(parts)))
                else:
                    self.store.set_parts(key, parts)
            if writes:
                self.store.set_many(writes)
            if deletes:
                self.store.delete_many(deletes)

    def _update_conditionally(
        self, part: list[Any], keys: list[str], value: np.ndarray, limit: ChunkLimit
    ) -> None:
        """Read-modify-write each chunk of ``part`` (each covered in part by the write)
        against the generation read: a chunk another writer changed meanwhile is read and
        updated again, with a growing, randomised pause between rounds, up to
        ``config.conflict_retries`` times."""
        pending = list(zip(part, keys))
        retries = config.get().conflict_retries
        for attempt in itertools.count():
            fetched = self.store.get_versioned_many([key for _, key in pending])
            conflicted = []
            for (p, key), (old, generation) in zip(pending, fetched):
                result = self._updated(p, key, old, value, limit)
                try:
                    if result is None:
                        self.store.delete_if(key, if_generation=generation)
                    else:
                        data = result[0] if len(result) == 1 else b"".join(result)
                        self.store.set_if(key, data, if_generation=generation)
                except ConflictError:
                    conflicted.append((p, key))
            if not conflicted:
                return
            if attempt >= retries:
                names = [key for _, key in conflicted]
                raise ConflictError(
                    f"{len(names)} chunk(s) kept changing under this write: {names[:10]} were "
                    f"updated by other writers on each of {retries + 1} tries (config "
                    "conflict_retries); nothing of the write was lost on the other chunks, "
                    "and these chunks hold the other writers' last values",
                    key=names[0],
                    keys=names,
                )
            pending = conflicted
            pause_before_retry(attempt)

    def _plain_updated(
        self, group: list[Any], keys: list[str], value: np.ndarray, limit: ChunkLimit
    ) -> list[Encoded | None]:
        """:meth:`_updated` of each chunk of ``group``, which the write covers whole and
        whose chain is plain: side-by-side chunks gathered from ``value`` with one copy
        a run (:func:`~zarrforge.engine.plain_runs.plain_chunks_by_runs`)."""
        spec = self._regular_spec
        assert spec is not None and self._plain is not None  # (plain chunks: a regular grid)
        gathered = plain_chunks_by_runs([p.out_selection for p in group], value, self._plain, spec.shape)
        encoded = self.updater.plain_encoded
        return [
            self._updated(p, keys[i], None, value, limit) if data is None else encoded(data, spec)
            for i, (p, data) in enumerate(zip(group, gathered))
        ]

    def _updated(
        self, p: Any, key: str, old: bytes | None, value: np.ndarray, limit: ChunkLimit
    ) -> Encoded | None:
        """The chunk of projection ``p`` after the write (``None``: delete it), from its
        stored bytes ``old`` (:meth:`ChunkUpdater.updated`)."""
        return self.updater.updated(
            old,
            self.spec_for(p.coords),
            p.chunk_selection,
            value[p.out_selection],
            complete=p.complete,
            coords=p.coords,
            key=key,
            limit=limit,
        )
