"""Tools for concurrency tests: run writers on threads, keep a writer rewriting in the
background, and tally which whole version each read saw.

* :func:`run_threads` runs ``target(i)`` for ``i`` in ``range(count)`` on threads and
  returns the exceptions they raised (an empty list when every one finished).
* :func:`rewriting` runs ``write(n)`` for n = 0, 1, 2, ... on a thread until its
  ``with`` block ends, so the block's reads race with it.
* :func:`count_versions` reads random ``regions`` for ``seconds`` and counts, per
  version in ``versions``, the reads that equal it there; a read that equals none is
  ``"wrong"`` (what a reader must never see).
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np


def run_threads(target: Callable[[int], Any], count: int) -> list[BaseException]:
    errors: list[BaseException] = []

    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # noqa: BLE001 - returned to the test, which reports it
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@contextlib.contextmanager
def rewriting(write: Callable[[int], Any]) -> Iterator[None]:
    stop = threading.Event()

    def loop() -> None:
        n = 0
        while not stop.is_set():
            write(n)
            n += 1

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def count_versions(read: Callable[[Any], np.ndarray], versions: Mapping[int, np.ndarray],
                   regions: Sequence[Any], seconds: float, *, seed: int = 0,
                   stop: threading.Event | None = None) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    counts = {"reads": 0, "wrong": 0, **{f"v{n}": 0 for n in versions}}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (stop and stop.is_set()):
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
