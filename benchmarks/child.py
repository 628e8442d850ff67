"""Run one (engine, workload) pair, repeated, in this process; report as JSON lines.

Usage (the driver does this; run from the repository root)::

    python -m benchmarks.child --engine zarrforge --workload W1 --scale 1 --repeat 3 --root DIR

``--engine limits`` runs a limit (``L-zstd``, ...) instead. Stores go to
``DIR/<engine>/``. ``--settle S``: before each repetition, wait up to S seconds
for other processes to leave the CPU alone (under 10% of it for half a second).
``--threads N`` (the thread sweep): the engine, or the limit, runs with N threads
(:func:`benchmarks.engines.load`, :func:`benchmarks.limits.set_threads`); without it
each keeps its default. The record's ``threads`` is N (or ``None``); its
``configuration["threads"]`` is the count read back from the engine.

Contract: prints one line ``@@BENCH {json}`` per repetition (``event: rep``:
its seconds per phase, the process's CPU seconds (user + system, all
threads), the share of the machine's CPU capacity that *other* processes
(and the hypervisor's steal) took meanwhile, its peak and baseline RSS) as soon as it is done, then
one ``event: result`` line with the whole record, after the result of the
last repetition has been verified. The previous repetition's result is freed
before the next starts, so a repetition's peak RSS is its own. Exits 0 on
success, 2 when verification fails (``event: error``, ``kind: verification``)
and 1 on any other error. :func:`run` is the same thing as a function, for
the tests.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import engines, limits, memory
from .workloads import WORKLOADS, Context, VerificationError

PREFIX = "@@BENCH "
MiB = 2**20


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # all threads of this process
    return usage.ru_utime + usage.ru_stime


def machine_busy_seconds() -> float:
    """CPU seconds all processes of the machine have spent busy (``/proc/stat``)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _workload(name: str) -> Any:
    if name in WORKLOADS:
        return WORKLOADS[name]
    if name in limits.LIMITS:
        return limits.LIMITS[name]
    raise ValueError(f"unknown workload {name!r}; known: {', '.join([*WORKLOADS, *limits.LIMITS])}")


def others_share(seconds: float) -> float:
    """The share of the machine's CPU that other processes used over the next ``seconds``."""
    own0, busy0, t0 = _cpu_seconds(), machine_busy_seconds(), time.perf_counter()
    time.sleep(seconds)
    own, busy = _cpu_seconds() - own0, machine_busy_seconds() - busy0
    return max(0.0, busy - own) / ((os.cpu_count() or 1) * (time.perf_counter() - t0))


def settle(limit: float, quiet: float = 0.10, window: float = 0.5) -> float:
    """Wait (at most ``limit`` seconds) until other processes use under ``quiet`` of the
    machine's CPU for ``window`` seconds; the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if others_share(window) < quiet:
            break
    return time.perf_counter() - start


def run(
    engine_name: str,
    workload_name: str,
    *,
    scale: float,
    repeat: int,
    root: Path,
    emit: Callable[[dict[str, Any]], None] = lambda event: None,
    settle_seconds: float = 0.0,
    threads: int | None = None,
) -> dict[str, Any]:
    """Prepare, time ``repeat`` repetitions, verify; the record of the run.

    With ``settle_seconds`` each repetition first waits, at most that long, for the
    rest of the machine to go quiet (see :func:`settle`). With ``threads`` the engine
    (or the limit) is set to that many threads first; this changes process-wide
    settings, so it is for a child process of its own."""
    workload = _workload(workload_name)
    is_limit = workload_name in limits.LIMITS
    if is_limit != (engine_name == "limits"):
        raise ValueError(f"workload {workload_name!r} is not run by engine {engine_name!r}")
    if is_limit:
        limits.set_threads(threads)
    engine = None if is_limit else engines.load(engine_name, threads=threads)
    ctx = Context(root=Path(root) / engine_name, scale=scale)
    state = workload.prepare(engine, ctx)
    seconds: dict[str, list[float]] = {}
    peaks: list[int] = []
    baselines: list[int] = []
    cpu_seconds: list[float] = []
    shares: list[float] = []
    result: Any = None
    for i in range(repeat):
        workload.before_rep(engine, ctx, state)
        result = None
        gc.collect()
        waited = settle(settle_seconds) if settle_seconds > 0 else 0.0
        baseline = memory.start_section()
        cpu0, busy0 = _cpu_seconds(), machine_busy_seconds()
        t0 = time.perf_counter()
        result = workload.run(engine, ctx, state)
        elapsed = time.perf_counter() - t0
        cpu, busy = _cpu_seconds() - cpu0, machine_busy_seconds() - busy0
        others = max(0.0, busy - cpu) / ((os.cpu_count() or 1) * elapsed)
        peak = memory.section_peak()
        phases = {p: result[p] for p in limits.PHASES[workload_name]} if is_limit else {"total": elapsed}
        for phase, value in phases.items():
            seconds.setdefault(phase, []).append(value)
        peaks.append(peak)
        baselines.append(baseline)
        emit(
            {
                "event": "rep",
                "engine": engine_name,
                "workload": workload_name,
                "rep": i + 1,
                "repeat": repeat,
                "seconds": phases,
                "cpu_seconds": cpu,
                "others_cpu_share": others,
                "settled_seconds": waited,
                "peak_rss_mib": peak / MiB,
                "baseline_rss_mib": baseline / MiB,
            }
        )
        cpu_seconds.append(cpu)
        shares.append(others)
    details = workload.verify(engine, ctx, state, result)
    record = {
        "engine": engine_name,
        "workload": workload_name,
        "scale": scale,
        "repeat": repeat,
        "size": workload.size_note(scale),
        "seconds": seconds,
        "best": {phase: min(values) for phase, values in seconds.items()},
        "cpu_seconds": cpu_seconds,
        "others_cpu_share": shares,
        "peak_rss_mib": max(peaks) / MiB,
        "baseline_rss_mib": min(baselines) / MiB,
        "lifetime_peak_rss_mib": memory.lifetime_peak() / MiB,
        "rss_method": memory.method(),
        "verified": True,
        "details": details,
        "threads": threads,
        "configuration": (
            engine.configuration() if engine is not None else limits.configuration(workload_name)
        ),
    }
    emit({"event": "result", **record})
    return record


def _emit(event: dict[str, Any]) -> None:
    sys.stdout.write(PREFIX + json.dumps(event) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", required=True)
    parser.add_argument("--workload", required=True)
    parser.add_argument("--scale", type=float, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--settle", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        run(
            args.engine,
            args.workload,
            scale=args.scale,
            repeat=args.repeat,
            root=args.root,
            emit=_emit,
            settle_seconds=args.settle,
            threads=args.threads,
        )
    except VerificationError as exc:
        print(f"VERIFICATION FAILED: {args.engine} {args.workload}: {exc}", file=sys.stderr)
        _emit({"event": "error", "kind": "verification", "message": str(exc)})
        return 2
    except Exception as exc:  # noqa: BLE001  # reported to the driver, which fails the run
        traceback.print_exc()
        _emit({"event": "error", "kind": type(exc).__name__, "message": str(exc)})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
