"""Profile one (engine, workload) with cProfile: where does the time go?

Usage (from the repository root)::

    python -m benchmarks.profiling --workload W5 [--engine zarrforge] [--scale 0.125]
                                 [--threads 1] [--sort tottime] [--top 25] [--root DIR]

Contract: prepares the workload as the benchmark does (untimed), runs it once
to warm up, then once under ``cProfile`` and prints the top ``--top``
functions by ``--sort`` (``tottime`` or ``cumulative``), then verifies the
result. cProfile sees only the calling thread: work that zarrforge hands to
its thread pool shows up as waiting, so ``--threads 1`` (zarrforge only; sets
``zarrforge.config`` ``threads``) runs everything in the calling thread to
attribute it. The data goes to ``--root`` (default: a temporary directory
under /dev/shm), removed afterwards. Timings under a profiler are inflated:
use it to rank costs, not to measure them.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import tempfile
import time
from pathlib import Path

from . import child, engines
from .workloads import Context


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--engine", default="zarrforge", choices=engines.NAMES)
    p.add_argument("--workload", required=True)
    p.add_argument("--scale", type=float, default=0.125)
    p.add_argument("--threads", type=int, default=None, help="zarrforge worker threads")
    p.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--root", type=Path, default=None)
    args = p.parse_args(argv)
    if args.threads is not None:
        if args.engine != "zarrforge":
            p.error("--threads applies to zarrforge only")
        import zarrforge

        zarrforge.config.update(threads=args.threads)
    shm = Path("/dev/shm")
    root = args.root or Path(tempfile.mkdtemp(prefix="zarrforge-profile-", dir=shm if shm.is_dir() else None))
    try:
        workload = child._workload(args.workload)
        engine = engines.load(args.engine)
        ctx = Context(root=root / args.engine, scale=args.scale)
        state = workload.prepare(engine, ctx)
        workload.before_rep(engine, ctx, state)
        t0 = time.perf_counter()
        workload.run(engine, ctx, state)
        warm = time.perf_counter() - t0
        workload.before_rep(engine, ctx, state)
        profiler = cProfile.Profile()
        t0 = time.perf_counter()
        result = profiler.runcall(workload.run, engine, ctx, state)
        profiled = time.perf_counter() - t0
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(
            f"{args.engine} {args.workload} scale {args.scale:g}: {warm:.3f} s unprofiled, "
            f"{profiled:.3f} s under cProfile"
        )
        print(out.getvalue())
        workload.verify(engine, ctx, state, result)
        print("verified")
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
