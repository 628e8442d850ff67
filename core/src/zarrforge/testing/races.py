"""Tools for concurrency tests: run writers on threads, keep a writer rewriting in the
background, and tally which whole version each read saw.

* :func:`run_threads` runs ``target(i)`` for ``i`` in ``range(count)`` on threads and
  returns the exceptions they raised (an empty list when every one finished).
* :func:`rewriting` runs ``write(n)`` for n = 0, 1, 2, ... on a thread until its
  ``with`` block ends, so the block's reads race with it; it yields a :class:`Rewrites`
  counting the writes finished, and raises the thread's error at the block's end.
  Meanwhile the interpreter lock changes hands every 0.1 ms (``sys.setswitchinterval``):
  at the default 5 ms a reading and a writing thread fall into step, the reader
  running only while one of the versions is stored, and the writer, waiting for
  the lock after each compressed inner chunk, finishes a handful of writes a second.
* :func:`count_versions` reads random ``regions`` for ``seconds`` (and on, while
  ``until()`` is false, for at most a minute more) and counts, per version in
  ``versions``, the reads that equal it there; a read that equals none is ``"wrong"``
  (what a reader must never see). A race is shown by counting: the reads go on until
  the writer has finished the writes asked for, however slowly a loaded host (or
  a reader holding the interpreter lock) lets it run.
* :func:`one_shard_array` and :func:`shard_versions`: an array held in one shard
  (:data:`SHARD_KEY`) and two versions of its values whose inner chunks sit at other
  offsets in the shard, for stores' tests of partial shard reads racing a rewrite: a
  read mixing one version's index with the other's bytes equals neither version.
  :func:`read_across_a_rewrite` reads :data:`SHARD_REGION` through a store that runs a
  rewrite after the first read of the shard, and :func:`one_version_of` says which
  version a read equals.
* :func:`shrinking_shard_versions` and ``one_shard_array(store, index_location="start")``:
  two versions whose second is a much shorter shard (its index at the start), so the
  ranges a reader computed from the first version's index lie wholly past the end of
  the second: a read must not combine the second's empty answer with the first's index
  (the spurious ``CorruptChunkError`` of issue #41).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

import zarrforge

from .faults import ChangeBetweenReads

#: seconds between the interpreter lock's changes of hands while :func:`rewriting` runs
RACE_SWITCH_INTERVAL = 1e-4

SHARD_SHAPE, INNER_SHAPE = (8, 12), (2, 3)  # one shard of 4 x 4 inner chunks
SHARD_KEY = "a/c/0/0"
SHARD_REGION = np.s_[2:4, 3:6]  # inner chunk (1, 1): at another offset in each version


def one_shard_array(store: Any, index_location: str = "end") -> Any:
    """The int32 array ``a`` of ``store``, one uncompressed shard of inner chunks, its
    index at ``index_location`` (``"end"`` or ``"start"``)."""
    if index_location == "end":
        return zarrforge.create_array(
            store,
            "a",
            shape=SHARD_SHAPE,
            chunks=INNER_SHAPE,
            shards=SHARD_SHAPE,
            dtype="int32",
            fill_value=0,
            compressors=None,
        )
    codecs = [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": list(INNER_SHAPE),
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "crc32c"},
                ],
                "index_location": index_location,
            },
        }
    ]
    return zarrforge.create_array(
        store, "a", shape=SHARD_SHAPE, chunks=SHARD_SHAPE, dtype="int32", fill_value=0, codecs=codecs
    )


def shard_versions() -> dict[int, np.ndarray]:
    """Two versions of :func:`one_shard_array`'s values: version 1 leaves the first inner
    chunk at the fill value (not stored), version 2 stores it, so every other inner
    chunk sits at another offset in the two."""
    base = np.arange(int(np.prod(SHARD_SHAPE)), dtype="int32").reshape(SHARD_SHAPE) + 1
    one = base.copy()
    one[tuple(slice(0, n) for n in INNER_SHAPE)] = 0
    return {1: one, 2: base + 1000}


def shrinking_shard_versions() -> dict[int, np.ndarray]:
    """Two versions of :func:`one_shard_array`'s values: version 1 stores every inner
    chunk, version 2 only the first (the rest are the fill value), so its shard ends
    before the bytes version 1's index gives any other inner chunk (those of
    :data:`SHARD_REGION` included)."""
    full = np.arange(int(np.prod(SHARD_SHAPE)), dtype="int32").reshape(SHARD_SHAPE) + 1
    short = np.zeros(SHARD_SHAPE, dtype="int32")
    short[tuple(slice(0, n) for n in INNER_SHAPE)] = -7
    return {1: full, 2: short}


def read_across_a_rewrite(store: Any, rewrite: Callable[[], Any]) -> tuple[np.ndarray, Any]:
    """:data:`SHARD_REGION` of ``store``'s array ``a``, read through a wrapper that runs
    ``rewrite`` after the first read of :data:`SHARD_KEY`; the values and the wrapper
    (its ``reads`` say how often the shard was read)."""
    wrapper = ChangeBetweenReads(store, rewrite, key=SHARD_KEY)
    return zarrforge.open_array(wrapper, "a")[SHARD_REGION], wrapper


def one_version_of(
    got: np.ndarray, versions: Mapping[int, np.ndarray], region: Any = SHARD_REGION
) -> int | None:
    """The number of the version ``got`` equals over ``region``, or ``None``."""
    return next((n for n, values in versions.items() if np.array_equal(got, values[region])), None)


def run_threads(target: Callable[[int], Any], count: int) -> list[BaseException]:
    errors: list[BaseException] = []

    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # noqa: BLE001  # returned to the test, which reports it
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


class Rewrites:
    """The writes :func:`rewriting`'s thread has finished (``done``)."""

    def __init__(self) -> None:
        self.done = 0


@contextlib.contextmanager
def rewriting(write: Callable[[int], Any]) -> Iterator[Rewrites]:
    stop = threading.Event()
    failed: list[Exception] = []
    rewrites = Rewrites()

    def loop() -> None:
        try:
            while not stop.is_set():
                write(rewrites.done)
                rewrites.done += 1
        except Exception as exc:  # noqa: BLE001  # raised at the with block's end, not lost
            failed.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(RACE_SWITCH_INTERVAL)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield rewrites
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    if failed:
        raise RuntimeError(f"the rewriting thread failed at its write: {failed[0]!r}") from failed[0]


def count_versions(
    read: Callable[[Any], np.ndarray],
    versions: Mapping[int, np.ndarray],
    regions: Sequence[Any],
    seconds: float,
    *,
    seed: int = 0,
    stop: threading.Event | None = None,
    until: Callable[[], bool] | None = None,
) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    counts = {"reads": 0, "wrong": 0, **{f"v{n}": 0 for n in versions}}
    start = time.monotonic()

    def more() -> bool:
        elapsed = time.monotonic() - start
        if stop is not None and stop.is_set():
            return False
        return elapsed < seconds or (until is not None and not until() and elapsed < seconds + 60)

    while more():
        region = regions[int(rng.integers(0, len(regions)))]
        got = read(region)
        counts["reads"] += 1
        for number, values in versions.items():
            if np.array_equal(got, values[region]):
                counts[f"v{number}"] += 1
                break
        else:
            counts["wrong"] += 1
    return counts
