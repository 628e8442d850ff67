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
* ``parts DIR WORKER WORKERS ROUNDS``: write the elements of ``a`` whose flat index is
  ``WORKER`` modulo ``WORKERS`` (parts of every chunk, never a whole one), set to
  ``WORKER * 1000 + round``.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import zarrforge  # noqa: E402

from _reliability import generation_values  # noqa: E402


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
    zarrforge.copy(source, dest, overwrite=True,
                   progress=lambda path, done, total: say("unit", path, done, total))
    say("done")


def disjoint(root: str, shape: str, chunks: str, worker: str, workers: str, rounds: str,
             unit: str, deletes: str = "no") -> None:
    shape_t, chunks_t = _ints(shape), _ints(chunks)
    array = zarrforge.open_array(root, "a", mode="r+", threads=1)
    step = array.shards if unit == "shard" else chunks_t
    grid = [range(0, n, s) for n, s in zip(shape_t, step)]
    mine = [origin for i, origin in enumerate(itertools.product(*grid))
            if i % int(workers) == int(worker)]
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


MODES = {"parts": parts, "write": write, "attrs": attrs, "copy": copy, "disjoint": disjoint,
         "same-chunk": same_chunk, "set-attr": set_attr}

if __name__ == "__main__":
    MODES[sys.argv[1]](*sys.argv[2:])
