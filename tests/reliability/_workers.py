"""Worker processes of the reliability suite (run as ``python _workers.py MODE ...``).

Every mode opens a local directory store by path, prints ``ready`` once it is
about to start writing (the parent starts its clock, or its kill timer,
there), and prints one line per unit of work so a parent can see progress.

* ``write DIR LAYOUT SHAPE CHUNKS THREADS PASSES``: rewrite the whole array
  ``a`` with generation 1, 2, 1, 2, ... (``_reliability.generation_values``).
* ``attrs DIR ROUNDS PAYLOAD``: rewrite the attributes of ``a`` again and again
  (``{"round": r, "payload": "x" * PAYLOAD}``).
* ``copy SRC DST``: ``zarrforge.copy(SRC, DST, overwrite=True)``, one line per unit.
* ``disjoint DIR SHAPE CHUNKS WORKER WORKERS ROUNDS UNIT [DELETES]``: write the chunks
  (or, with ``UNIT`` = ``shard``, the shards) numbered ``WORKER`` modulo ``WORKERS``,
  generations 1..ROUNDS; with ``DELETES`` = ``yes`` odd rounds but the last write the
  fill value instead (so chunks are deleted).
* ``same-chunk DIR WORKER ROUNDS``: write chunk (0, 0) of ``a`` whole, filled with the
  constant ``WORKER * 1000 + round``.
* ``set-attr DIR WORKER ROUNDS``: ``a.attrs[f"w{WORKER}-{round}"] = round`` in a loop.
* ``commit DIR VALUE PAUSE``: one transaction setting every element of ``a`` and its
  attribute ``value`` to ``VALUE``, committed through a store that sleeps ``PAUSE``
  seconds before each write and prints ``wrote KEY`` after it.
* ``tx-increment DIR ROUNDS GO``: once the file ``GO`` exists, ``ROUNDS`` transactions
  adding 1 to a[0], a[4] and the attribute ``count``, each retried until it commits.
* ``parts DIR WORKER WORKERS ROUNDS``: write the elements of ``a`` whose flat index is
  ``WORKER`` modulo ``WORKERS`` (parts of every chunk, never a whole one), set to
  ``WORKER * 1000 + round``.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _reliability import generation_values

import zarrforge
from zarrforge.abc.store import WrapperStore
from zarrforge_std.stores.local import LocalStore


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def say(*parts: object) -> None:
    print(*parts, flush=True)


def write(root: str, layout: str, shape: str, chunks: str, threads: str, passes: str) -> None:
    shape_t, chunks_t = _ints(shape), _ints(chunks)
    generations = {g: generation_values(shape_t, chunks_t, g) for g in (1, 2)}
    array = zarrforge.open_array(root, "a", mode="r+", threads=int(threads))
    say("ready")
    for i in range(int(passes)):
        array[...] = generations[1 + i % 2]
        say("pass", i)


def attrs(root: str, rounds: str, payload: str) -> None:
    array = zarrforge.open_array(root, "a", mode="r+")
    say("ready")
    for r in range(int(rounds)):
        array.attrs.put({"round": r, "payload": "x" * int(payload)})
        say("round", r)


def copy(source: str, dest: str) -> None:
    say("ready")
    zarrforge.copy(
        source, dest, overwrite=True, progress=lambda path, done, total: say("unit", path, done, total)
    )
    say("done")


def disjoint(
    root: str, shape: str, chunks: str, worker: str, workers: str, rounds: str, unit: str, deletes: str = "no"
) -> None:
    shape_t, chunks_t = _ints(shape), _ints(chunks)
    array = zarrforge.open_array(root, "a", mode="r+", threads=1)
    # the draft's sharding transformer reports no shards; create() makes them twice the chunks
    step = (array.shards or tuple(2 * c for c in chunks_t)) if unit == "shard" else chunks_t
    grid = [range(0, n, s) for n, s in zip(shape_t, step)]
    mine = [origin for i, origin in enumerate(itertools.product(*grid)) if i % int(workers) == int(worker)]
    final = int(rounds)
    values = {g: generation_values(shape_t, chunks_t, g) for g in range(1, final + 1)}
    say("ready")
    for g in range(1, final + 1):
        for origin in mine:
            region = tuple(slice(o, min(o + s, n)) for o, s, n in zip(origin, step, shape_t))
            fill = deletes == "yes" and g % 2 == 1 and g != final
            array[region] = 0 if fill else values[g][region]
        say("round", g)


def same_chunk(root: str, worker: str, rounds: str) -> None:
    array = zarrforge.open_array(root, "a", mode="r+", threads=1)
    chunk = array.chunks
    region = tuple(slice(0, c) for c in chunk)
    say("ready")
    for r in range(int(rounds)):
        array[region] = np.full(chunk, int(worker) * 1000 + r, dtype=array.dtype)
    say("done")


def set_attr(root: str, worker: str, rounds: str) -> None:
    say("ready")
    for r in range(int(rounds)):
        array = zarrforge.open_array(root, "a", mode="r+")
        array.attrs[f"w{worker}-{r}"] = r
    say("done")


def parts(root: str, worker: str, workers: str, rounds: str) -> None:
    array = zarrforge.open_array(root, "a", mode="r+", threads=1)
    mine = np.arange(array.size).reshape(array.shape) % int(workers) == int(worker)
    say("ready")
    for r in range(int(rounds)):
        array.vindex[mine] = int(worker) * 1000 + r
        say("round", r)
    say("done")


class _SlowWrites(WrapperStore):
    """Sleeps before each write and says which key it wrote (a window to kill in)."""

    forwards_conditional_writes = True

    def __init__(self, inner, pause: float) -> None:
        super().__init__(inner)
        self.pause = pause

    def _set_if(self, key, value, if_generation):
        time.sleep(self.pause)
        generation = super()._set_if(key, value, if_generation)
        say("wrote", key)
        return generation

    def _set_many(self, items):
        for key, value in items:
            time.sleep(self.pause)
            self.inner.set(key, value)
            say("wrote", key)


def commit(root: str, value: str, pause: str) -> None:
    """One transaction on array ``a`` (chunks of 4): even chunks get ``value`` through
    two partial writes (read, then written: conditional at commit), odd chunks whole
    (written blind), and attributes["value"] = value; committed through a store that
    pauses before each write."""
    store = LocalStore(root)
    tx = zarrforge.transaction(store)
    array = zarrforge.open_array(tx, "a", mode="r+", threads=1)
    v = int(value)
    for start in range(0, array.shape[0], 4):
        if start // 4 % 2 == 0:
            array[start : start + 3] = v
            array[start + 3] = v
        else:
            array[start : start + 4] = v
    array.attrs["value"] = v
    tx.store = _SlowWrites(store, float(pause))
    say("ready")
    tx.commit()
    say("done")


def tx_increment(root: str, rounds: str, go: str) -> None:
    """``ROUNDS`` transactions, each adding 1 to a[0] and a[4] (two chunks) and to the
    attribute ``count`` of ``a``, retried until they commit; started once the file
    ``GO`` exists (so that all workers run at once)."""
    store = LocalStore(root)
    say("ready")
    while not Path(go).exists():
        time.sleep(0.005)
    conflicts = 0
    for _ in range(int(rounds)):
        while True:
            tx = zarrforge.transaction(store)
            try:
                array = zarrforge.open_array(tx, "a", mode="r+", threads=1)
                array[0] += 1
                array[4] += 1
                array.attrs["count"] = array.attrs["count"] + 1
                tx.commit()
                break
            except zarrforge.errors.ConflictError:
                conflicts += 1
                if tx.state == "open":
                    tx.abort()
    say("done", conflicts)


MODES: dict[str, Callable[..., None]] = {
    "parts": parts,
    "write": write,
    "attrs": attrs,
    "copy": copy,
    "disjoint": disjoint,
    "same-chunk": same_chunk,
    "set-attr": set_attr,
    "commit": commit,
    "tx-increment": tx_increment,
}

if __name__ == "__main__":
    MODES[sys.argv[1]](*sys.argv[2:])
