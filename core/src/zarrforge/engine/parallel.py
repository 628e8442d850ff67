"""The threads a call is given, and how its work is spread over them.

Contract:

* :func:`run_groups` calls ``work`` on consecutive groups of items on up to
  ``workers`` threads, the calling thread being one. Each thread takes the next
  group when it finishes its last, so none idles while work remains. A call uses as
  many threads as it has groups, up to ``workers``: nothing else caps it. After a
  failure no new group is handed out, and the call returns or raises only once
  every group in progress has finished.
* Every call given ``threads`` threads shares one pool of ``threads - 1`` threads
  (the caller is the last), calls nested inside another's work included: a codec
  that spreads its own work (sharding's inner chunks) runs on the same pool as the
  engine call that called it, so the threads running a call's codecs never exceed
  what the call was given (a forked child starts with no pools: it makes its own).
  A worker the pool has not started when its call ends
  is dropped, so a call made on a pool thread never waits for a thread that is
  busy running it.
* ``call_threads`` is the thread count of the engine call in progress in this
  thread (:func:`using_threads` sets it; it travels into the pool threads the call
  uses), or ``config.threads`` outside one.
* :func:`async_call_pool` is the pool on which :mod:`zarrforge.asyncio` runs its blocking
  calls: threads of their own, so waiting calls never hold the engine's workers.
* :func:`map_parallel` is the service for plugins: ``fn`` over a list of items on
  the call's threads when each item carries enough work done outside Python's GIL
  (``workers_for``), else on the calling thread; results in item order.
* **Threads by measured cost.** The byte rule of ``workers_for`` misses small items
  whose codecs are slow (a 4 KiB chunk of zstd level 19, lzma or zfp costs far more
  than its size says). A call that rule keeps on one thread, given an
  :class:`ItemCost` (one per codec chain and operation, kept across calls), runs its
  first items on the calling thread one at a time, timing :data:`MEASURED_ITEMS` of
  them after the first (which pays for warming up); when the least of them took at
  least :data:`SLOW_ITEM_SECONDS`, the rest of the call, and every later call with the
  same ``ItemCost``, uses all its threads; otherwise the rest goes on in the groups a
  one-thread call takes (``serial_group_size``), so a call that stays on one thread
  makes no more store requests than it would given one. The byte rule only
  ever adds threads this way: a call it already spreads is not measured.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from .. import config

T = TypeVar("T")
R = TypeVar("R")

# Plain (uncompressed) chunks need this many times parallel_chunk_bytes to go to threads.
# Session 11 measured on 2 cores (local and memory stores, uint8 chunks, 1 vs 2 threads):
# 16 KiB chunks were slower on two threads, 64 KiB and larger faster (1.3-1.7x) — the same
# crossover as compressed chunks; until then it was 16 (a guess from 4 KiB chunks).
UNCOMPRESSED_FACTOR = 1
#: seconds of work per item (chunk) from which a call spreads its items over threads,
#: whatever their size: a little more than what one item of the byte rule's smallest
#: threaded size (64 KiB through zstd level 1, with the engine's own work) costs on the
#: machines measured, so the two rules agree where both apply
SLOW_ITEM_SECONDS = 150e-6
#: items of a call timed, one at a time (after a first, untimed one), before its items
#: are judged
MEASURED_ITEMS = 3
#: groups each worker should get of a :func:`map_parallel` call, so the last ones to
#: finish leave little idle time behind them
GROUPS_PER_WORKER = 4
#: the most decoded bytes one :func:`map_parallel` group covers
MAP_GROUP_BYTES = 4 * 2**20

_pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


#: threads that fetch groups of chunks ahead of the workers decoding them (stores with
#: latency only); they wait on the store, so they cost no CPU
READ_AHEAD_THREADS = 16

#: threads that run the blocking calls of :mod:`zarrforge.asyncio` off the event loop; a
#: call hands its chunk work to the pools above as a call from any thread does
ASYNC_CALL_THREADS = 16
# the pools of a fixed size for one purpose (read-ahead, asyncio calls), by purpose
_purpose_pools: dict[str, concurrent.futures.ThreadPoolExecutor] = {}


def _forget_pools_in_a_forked_child() -> None:
    # A forked child has only the thread that forked: the pools' threads are not there
    # (work handed to them would wait for ever), and another thread may have held the lock.
    global _pools_lock
    _pools.clear()
    _purpose_pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_forget_pools_in_a_forked_child)
_call_threads: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "zarrforge_call_threads", default=None
)


def pool_for(threads: int) -> concurrent.futures.ThreadPoolExecutor:
    """The pool shared by every call given ``threads`` threads (``threads - 1`` of them)."""
    with _pools_lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = concurrent.futures.ThreadPoolExecutor(max(1, threads - 1), thread_name_prefix="zarrforge")
            _pools[threads] = pool
        return pool


def _purpose_pool(purpose: str, threads: int) -> concurrent.futures.ThreadPoolExecutor:
    with _pools_lock:
        pool = _purpose_pools.get(purpose)
        if pool is None:
            pool = _purpose_pools[purpose] = concurrent.futures.ThreadPoolExecutor(
                threads, thread_name_prefix=f"zarrforge-{purpose}"
            )
        return pool


def read_ahead_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The pool of :data:`READ_AHEAD_THREADS` threads that fetch chunks ahead of a read
    (:func:`zarrforge.engine.chunk_io.read_ahead`); like the others, made afresh after a fork."""
    return _purpose_pool("read-ahead", READ_AHEAD_THREADS)


def async_call_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The pool of :data:`ASYNC_CALL_THREADS` threads on which :mod:`zarrforge.asyncio`
    runs its blocking calls (made afresh after a fork, as the others)."""
    return _purpose_pool("async", ASYNC_CALL_THREADS)


def call_threads() -> int:
    """Threads the engine call in progress was given (``config.threads`` outside one)."""
    threads = _call_threads.get()
    return config.get().threads if threads is None else threads


class using_threads:  # lower case: used as the function it was, ``with using_threads(n):``
    """Within the block (and in the pool threads its work runs on), the call has
    ``threads`` threads. A class, not a generator: it runs once per engine call, small
    reads included."""

    __slots__ = ("threads", "token")

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def __enter__(self) -> None:
        self.token = _call_threads.set(self.threads)

    def __exit__(self, *exc_info: object) -> None:
        _call_threads.reset(self.token)


def workers_for(computes: bool, item_bytes: int, threads: int, min_bytes: int) -> int:
    """How many threads work on items of ``item_bytes`` decoded bytes should use:
    ``threads`` when each item carries enough work done outside the GIL
    (decompression, large copies) to pay for the hand-offs, else 1. Items whose codecs
    compute (``CodecChain.computes``: compression, sharding) qualify from
    ``min_bytes``, plain ones from :data:`UNCOMPRESSED_FACTOR` times that (config
    ``parallel_chunk_bytes``)."""
    needed = min_bytes if computes else UNCOMPRESSED_FACTOR * min_bytes
    return threads if item_bytes >= needed else 1


class ItemCost:
    """The seconds one item of some repeated work took (a chunk through one codec chain,
    read or written), measured on the first items of a call kept on one thread and kept
    for the calls after it; ``None`` until measured. Thread-safe enough: a race only
    measures twice."""

    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds: float | None = None

    def slow(self) -> bool:
        """Measured, and at least :data:`SLOW_ITEM_SECONDS` an item."""
        return self.seconds is not None and self.seconds >= SLOW_ITEM_SECONDS


def grouped(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in consecutive lists of ``size`` (the last may be shorter)."""
    group: list[T] = []
    for item in items:
        group.append(item)
        if len(group) >= size:
            yield group
            group = []
    if group:
        yield group


def run_groups(
    work: Callable[[list[Any]], None],
    items: Iterable[Any],
    group_size: int,
    workers: int,
    threads: int | None = None,
    cost: ItemCost | None = None,
    serial_group_size: int | None = None,
) -> None:
    """Call ``work`` on consecutive groups of ``items`` on up to ``workers`` threads of
    the pool for ``threads`` (default: ``call_threads``), the calling thread being
    one (see the module's contract). With ``workers`` 1 and a ``cost``, the call's
    threads are used when the items are slow (measured, see the module's contract);
    items measured cheap go on in groups of ``serial_group_size`` (default
    ``group_size``): the size a call on one thread takes, so a call that stays on one
    thread makes the few large batches it would make given one thread, not the many
    smaller ones sized to share its items among threads."""
    available = call_threads() if threads is None else threads
    if workers <= 1 and cost is not None and available > 1:
        items = iter(items)
        if not cost.slow():
            # On the calling thread while the items prove cheap, one item at a time: each
            # but the first (which pays for warming up: a codec's first call, its
            # imports) is timed; the cost is the least of them, as other processes only
            # ever add time to an item (a time slice lost on a busy machine), and it is
            # judged once MEASURED_ITEMS items are timed: when slow, the rest of the call
            # goes to every thread. (Single items, not whole groups: what is measured
            # runs on one thread, and a slow item is what calls for the others.)
            timed: list[float] = []
            for item in itertools.islice(items, MEASURED_ITEMS + 1):
                start = time.perf_counter()
                work([item])
                timed.append(time.perf_counter() - start)
            if len(timed) <= MEASURED_ITEMS:
                return  # the whole call: too few items to judge, and none left to spread
            cost.seconds = min(timed[1:])
            if not cost.slow():
                for group in grouped(items, serial_group_size or group_size):
                    work(group)
                return
        workers = available
    groups = grouped(items, group_size)
    if workers > 1:
        # as many workers as there are groups, up to ``workers``: a call with a single
        # group (a small read, say) needs no thread
        first = list(itertools.islice(groups, workers))
        workers = len(first)
        groups = itertools.chain(first, groups)
    if workers <= 1:
        for group in groups:
            work(group)
        return
    lock = threading.Lock()
    failed = threading.Event()

    def worker() -> None:
        while not failed.is_set():
            with lock:  # a generator may not be advanced by two threads at once
                group = next(groups, None)
            if group is None:
                return
            try:
                work(group)
            except BaseException:
                failed.set()
                raise

    pool = pool_for(max(workers, available))
    # each worker runs in a copy of this thread's context: the call's thread count and
    # the chunk being encoded go with it
    futures = [pool.submit(contextvars.copy_context().run, worker) for _ in range(workers - 1)]
    try:
        worker()
    except BaseException:
        failed.set()  # also for an interrupt that arrived outside ``work``
        raise
    finally:
        # A worker the pool has not started yet (its threads busy with other calls, or
        # with this very call when it runs inside one of them) has nothing left to do:
        # drop it rather than wait for a thread.
        started = [future for future in futures if not future.cancel()]
        concurrent.futures.wait(started)  # nothing runs on after the call
    for future in started:
        future.result()


def map_parallel(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    item_bytes: int,
    computes: bool = True,
    cost_key: Hashable | None = None,
) -> list[R]:
    """``[fn(item) for item in items]``, spread over the threads of the call in progress
    (``call_threads``) when items of ``item_bytes`` decoded bytes are worth it
    (``workers_for``; ``computes``: does ``fn`` compress or otherwise compute, rather
    than only copy?). Items go out in groups, about ``GROUPS_PER_WORKER`` per thread
    and at most ``MAP_GROUP_BYTES`` each. The first exception is raised once the
    groups in progress have finished; no group starts after it.

    For a codec that works on independent parts of a chunk (sharding's inner chunks):
    it runs on the pool of the engine call that called the codec, so it never uses
    more threads than that call was given.

    Parameters
    ----------
    fn : Callable[[T], R]
        The function applied to each item.
    items : Sequence[T]
        The items.
    item_bytes : int
        The decoded bytes of one item (how much work it is).
    computes : bool
        ``fn`` computes (compresses...) rather than only copies.
    cost_key : Hashable or None
        What names this kind of work across calls (a codec and the direction:
        ``(codec, "decode")``): the engine keeps the seconds ``fn`` took an item under
        it, and items the byte rule keeps on one thread then use the call's threads when
        they are slow (the module's contract). ``None``: the byte rule alone.

    Returns
    -------
    list[R]
        ``fn(item)`` for each item, in order.

    Raises
    ------
    Exception
        The first exception ``fn`` raised (of any class, passed on as it is), once the
        groups in progress have finished. It raises nothing of its own.

    Examples
    --------
    >>> map_parallel(abs, [-1, 2, -3], item_bytes=8)  # small items: the calling thread
    [1, 2, 3]
    >>> map_parallel(len, [b"ab", b"c"], item_bytes=1 << 20)  # the call's threads, if worth it
    [2, 1]
    """
    n = len(items)
    threads = call_threads()
    workers = min(n, workers_for(computes, item_bytes, threads, config.get().parallel_chunk_bytes))
    cost = None if cost_key is None or workers > 1 else _cost_of(cost_key)
    if workers <= 1 and (cost is None or n <= 1 or threads <= 1):
        return [fn(item) for item in items]
    results: list[Any] = [None] * n
    spread = max(workers, min(n, threads))  # the groups for the threads the call may get
    size = max(1, min(math.ceil(n / (spread * GROUPS_PER_WORKER)), MAP_GROUP_BYTES // max(1, item_bytes)))

    def work(group: list[int]) -> None:
        for i in group:
            results[i] = fn(items[i])

    run_groups(work, range(n), size, workers, threads, cost)
    return results


#: the measured costs of :func:`map_parallel`'s kinds of work, by ``cost_key``; bounded
#: (cleared when full: a cost is only a hint, measured again on the next call)
_COSTS: dict[Hashable, ItemCost] = {}
_MAX_COSTS = 1024


def _cost_of(key: Hashable) -> ItemCost:
    cost = _COSTS.get(key)
    if cost is None:
        if len(_COSTS) >= _MAX_COSTS:
            _COSTS.clear()
        cost = _COSTS[key] = ItemCost()
    return cost
