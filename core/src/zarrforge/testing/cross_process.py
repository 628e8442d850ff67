"""Writers in several processes at once, for the store and format suites.

:func:`run_processes` starts ``count`` processes of the given start method, each running
``target(*args, worker)`` (``target`` a module-level function, ``args`` picklable), all
released together by a barrier so that their writes overlap, and returns the
tracebacks of those that failed (an empty list when every one finished).

:class:`CrossProcessStoreConformance` is the store suite's concurrent-writer case. Its
subclass implements ``reopen_args(store)``: a picklable callable and arguments that open
the same store in another process (``(LocalStore, (store.root,))``). Several processes
(``key_writer_processes``, default 2) each set ``keys_per_process`` keys of their own
under one prefix, deleting every other key right after setting the next, all at
once; afterwards exactly the keys not deleted hold exactly their values. A store that
keeps its keys in one shared document rewritten without conditional writes loses keys
this way, and the failure names them.
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..abc.store import Store

#: seconds a writer process may take before it is reported as hung
WRITER_TIMEOUT = 300.0


def _guarded(target: Callable[..., Any], args: tuple, worker: int, barrier: Any, failures: Any) -> None:
    try:
        barrier.wait(timeout=WRITER_TIMEOUT)
        target(*args, worker)
    except BaseException:  # noqa: BLE001  # sent to the parent, which reports it
        failures.put(f"writer {worker}: {traceback.format_exc()[-4000:]}")


def run_processes(target: Callable[..., Any], args: tuple, count: int, *, method: str = "spawn") -> list[str]:
    # a concrete context (spawn, fork, forkserver), all with Process; typeshed's BaseContext has none
    context: Any = multiprocessing.get_context(method)
    barrier, failures = context.Barrier(count), context.Queue()
    workers = [
        context.Process(target=_guarded, args=(target, args, w, barrier, failures)) for w in range(count)
    ]
    for worker in workers:
        worker.start()
    found = []
    for number, worker in enumerate(workers):
        worker.join(WRITER_TIMEOUT)
        if worker.is_alive():
            worker.kill()
            worker.join()
            found.append(f"writer {number}: did not finish in {WRITER_TIMEOUT} s and was killed")
        elif worker.exitcode != 0:
            found.append(f"writer {number}: exited with status {worker.exitcode}")
    while not failures.empty():
        found.append(failures.get())
    return found


def key_of(worker: int, i: int) -> str:
    return f"conformance/concurrent/w{worker}-{i}"


def value_of(worker: int, i: int) -> bytes:
    return f"value {i} of writer {worker}".encode()


def write_and_delete_keys(opener: Callable[..., Store], opener_args: tuple, keys: int, worker: int) -> None:
    """Set ``keys`` keys of this worker's, deleting each even one once the next is set."""
    store = opener(*opener_args)
    for i in range(keys):
        store.set(key_of(worker, i), value_of(worker, i))
        if i % 2:
            store.delete(key_of(worker, i - 1))


class CrossProcessStoreConformance:
    key_writer_processes = 2
    keys_per_process = 40

    def reopen_args(self, store: Store) -> tuple[Callable[..., Store], tuple[Any, ...]]:
        raise NotImplementedError(
            "implement reopen_args(store) -> (opener, args) that opens the same store in another process"
        )

    def test_processes_writing_and_deleting_keys_lose_nothing(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)  # type: ignore[attr-defined]
        opener, args = self.reopen_args(store)
        count, keys = self.key_writer_processes, self.keys_per_process
        failures = run_processes(write_and_delete_keys, (opener, args, keys), count)
        assert not failures, "a writer process failed:\n" + "\n".join(failures)
        expected = {
            key_of(w, i): value_of(w, i) for w in range(count) for i in range(keys) if i % 2 or i == keys - 1
        }
        deleted = [key_of(w, i) for w in range(count) for i in range(keys) if key_of(w, i) not in expected]
        lost = sorted(key for key in expected if store.get(key) is None)
        back = sorted(key for key in deleted if store.get(key) is not None)
        wrong = {
            key: store.get(key) for key in expected if key not in lost and store.get(key) != expected[key]
        }
        assert not (lost or back or wrong), (
            f"{count} processes each set {keys} keys of their own at once, deleting every "
            f"other one: {len(lost)} keys set and never deleted read as absent (lost: "
            f"{lost[:6]}{'...' if len(lost) > 6 else ''}), {len(back)} deleted keys read "
            f"back ({back[:6]}), {len(wrong)} keys hold other values "
            f"({', '.join(f'{k!r} is {v!r}, expected {expected[k]!r}' for k, v in list(wrong.items())[:3])})"
        )
