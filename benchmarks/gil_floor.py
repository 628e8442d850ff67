"""What 16 Python threads that sleep cost, with no engine at all: the floor of the
simulated many-core benchmark (:mod:`benchmarks.simulated_cores`).

Each of ``--threads`` threads takes the next of ``--calls`` calls from a lock-guarded
counter, does some GIL-held work, and sleeps ``--ms`` milliseconds (releasing the GIL,
as the sleeping codec does). The time per call at 16 threads, against the ideal
``ms / threads``, is what the interpreter's hand-over of the GIL costs on this machine,
before any engine work. Kinds of work, each a row:

* ``none``: nothing (the floor itself);
* ``python N us``: a busy loop of N microseconds, holding the GIL (what each µs of the
  engine's per-chunk Python costs under contention);
* ``reduction``: one numpy reduction over a 4 KiB chunk (``(a == b).any()``), which
  releases and retakes the GIL.

Command: ``.venv/bin/python -m benchmarks.gil_floor`` (prints a Markdown table). The
figures are for benchmarks/RESULTS.md, never asserted by a test.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable

import numpy as np


def busy(microseconds: float) -> Callable[[], None]:
    def work() -> None:
        end = time.perf_counter() + microseconds / 1e6
        while time.perf_counter() < end:
            pass

    return work


def reduction() -> Callable[[], None]:
    a = np.arange(1024, dtype="float32")
    b = np.full(1024, -1.0, dtype="float32")

    def work() -> None:
        (a == b).any()

    return work


def seconds(work: Callable[[], None], threads: int, calls: int, ms: float) -> float:
    """Wall seconds for ``calls`` calls of ``work`` then a sleep, on ``threads`` threads."""
    remaining = iter(range(calls))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if next(remaining, None) is None:
                    return
            work()
            time.sleep(ms / 1000)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--calls", type=int, default=4096)
    parser.add_argument("--ms", type=float, default=0.25)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    kinds = {
        "none": lambda: None,
        **{f"python {n} us": busy(n) for n in (10, 20, 30)},
        "reduction": reduction(),
    }
    ideal = args.calls * args.ms / 1000 / args.threads
    print(f"| work a call | T1 s | T{args.threads} s | µs a call at {args.threads} | speedup |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, work in kinds.items():
        one = min(seconds(work, 1, args.calls, args.ms) for _ in range(args.repeat))
        many = min(seconds(work, args.threads, args.calls, args.ms) for _ in range(args.repeat))
        print(f"| {name} | {one:.3f} | {many:.3f} | {many / args.calls * 1e6:.1f} | {one / many:.1f} |")
    print(f"\nideal T{args.threads}: {ideal:.3f} s ({args.ms} ms x {args.calls} calls / {args.threads})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
