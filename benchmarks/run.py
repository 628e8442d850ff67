#!/usr/bin/env python3
"""The benchmark driver: runs every (engine, workload) in a child process of its own.

Usage (from anywhere; ``make bench BENCH_ARGS="..."`` does this in its own venv)::

    python benchmarks/run.py [--scale 1.0] [--repeat 3] [--rounds 1] [--path /dev/shm/zarrforge-bench]
                             [--only W1,W2,...] [--engines zarrforge,zarr-python,tensorstore]
                             [--out benchmarks/results] [--no-limits] [--no-chart] [--keep]
                             [--settle SECONDS] [--timeout SECONDS]
                             [--threads-sweep auto|1,2,4,...]

Contract:

* Each (engine, workload) and each limit runs in a fresh child
  (``python -m benchmarks.child``), which repeats it ``--repeat`` times, reports
  every repetition, and verifies the result; its peak RSS is its own.
* The children's environment lacks ``OPENBLAS_CORETYPE`` and
  ``OPENBLAS_L2_SIZE`` (they slow numpy on this kind of machine); what they
  were is recorded.
* Limits run first (those the selected workloads need, unless ``--no-limits``,
  plus any named in ``--only``), then the workloads in order, all engines of
  one workload after each other.
* ``--rounds N`` runs each workload's engines N times, one child each per round, in
  the opposite order every other round, and the table keeps each engine's best over
  every repetition of every round (``latest.json`` has each child's runs). A
  slowdown of the host lasting longer than one child then falls on every engine's
  runs, instead of inflating one engine's whole best-of-``--repeat`` and with it
  the ratio (this host's 2-core ratios moved by 20-40% between runs otherwise).
* Data lives under ``--path`` (default ``/dev/shm/zarrforge-bench``), emptied
  before and removed after the run unless ``--keep``; the driver only ever
  deletes a directory it marked as its own.
* Output: the Markdown table on stdout, and in ``--out``: ``latest.json``
  (everything, with date, machine, versions, command), ``latest.md`` (the
  table) and ``ratios.png`` (unless ``--no-chart`` or matplotlib is missing).
* The zarrforge source (HEAD and a digest of uncommitted changes under
  ``core/`` and ``plugins/``) is recorded for every child; if it changed during
  the run, the output says which runs measured which code.
* ``--threads-sweep 1,2,4`` (or ``auto``: 1, 2, 4, ... up to ``os.cpu_count()``,
  which it always includes) runs, instead of the table above, W1, W2, W3, W3r, W4,
  W5 and W5r (those of them ``--only`` names) for every engine at every thread
  count N, each child with ``--threads N``, and their limits at every N; it writes
  ``sweep.json``, ``sweep.md`` and ``sweep.png`` (see :mod:`benchmarks.sweep`).
* Exit status 1 if any child failed (its error is in the table and the JSON),
  else 0.
"""

from __future__ import annotations

import argparse
import datetime
import fractions
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import engines as engine_registry  # noqa: E402
from benchmarks import machine, report, sweep  # noqa: E402
from benchmarks.child import PREFIX  # noqa: E402
from benchmarks.limits import LIMITS  # noqa: E402
from benchmarks.workloads import WORKLOADS  # noqa: E402

UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
SENTINEL = ".zarrforge-bench"


def _scale(text: str) -> float:
    try:
        value = float(fractions.Fraction(text))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number or fraction: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("the scale must be positive")
    return value


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _default_path() -> Path:
    shm = Path("/dev/shm")
    return (shm if shm.is_dir() else Path(tempfile.gettempdir())) / "zarrforge-bench"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="zarrforge vs zarr-python vs tensorstore, and limits.")
    p.add_argument(
        "--scale",
        type=_scale,
        default=1.0,
        help="fraction of the full data size (1.0 = 512 MiB arrays; 0.125 or 1/8 = quick)",
    )
    p.add_argument("--repeat", type=int, default=3, help="repetitions per workload; the best counts")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="children per engine and workload, their order alternating; the best of all counts",
    )
    p.add_argument("--path", type=Path, default=_default_path(), help="where the data goes")
    p.add_argument(
        "--only",
        type=_names,
        default=None,
        help=f"comma-separated workloads and limits: {','.join([*WORKLOADS, *LIMITS])}",
    )
    p.add_argument(
        "--engines",
        type=_names,
        default=list(engine_registry.available()),
        help=f"comma-separated, of {','.join(engine_registry.NAMES)} (default: all; "
        "zarrs-python only when $ZARRFORGE_BENCH_ZARRS_PYTHON names its Python)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=REPO / "benchmarks" / "results",
        help="where latest.json, latest.md and ratios.png go",
    )
    p.add_argument("--no-limits", action="store_true", help="run no limit that --only does not name")
    p.add_argument("--no-chart", action="store_true", help="do not draw ratios.png")
    p.add_argument("--keep", action="store_true", help="keep the data under --path afterwards")
    p.add_argument("--timeout", type=float, default=3600, help="seconds before a child is killed")
    p.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="before each repetition, wait up to this many seconds for other processes "
        "to leave the CPU alone (for shared machines)",
    )
    p.add_argument(
        "--threads-sweep",
        type=sweep.thread_counts,
        default=None,
        metavar="auto|1,2,4",
        help=f"run {','.join(sweep.WORKLOADS)} and their limits with each engine set to "
        "each of these thread counts ('auto': 1,2,4,... up to the CPU count); "
        "writes sweep.json, sweep.md, sweep.png",
    )
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    unknown = [e for e in args.engines if e not in engine_registry.NAMES]
    if unknown:
        p.error(f"unknown engine(s) {unknown}; known: {', '.join(engine_registry.NAMES)}")
    selected = args.only if args.only is not None else [*WORKLOADS, *LIMITS]
    unknown = [w for w in selected if w not in WORKLOADS and w not in LIMITS]
    if unknown:
        p.error(f"unknown workload(s) {unknown}; known: {', '.join([*WORKLOADS, *LIMITS])}")
    if args.threads_sweep is not None:
        if args.only is None:
            selected = [*sweep.WORKLOADS, *sweep.LIMITS]
        outside = [w for w in selected if w not in sweep.WORKLOADS and w not in sweep.LIMITS]
        if outside:
            p.error(
                f"--threads-sweep runs only {','.join([*sweep.WORKLOADS, *sweep.LIMITS])}; "
                f"not {','.join(outside)}"
            )
        if args.rounds != 1:
            p.error("--rounds is not for --threads-sweep")
    args.workloads = [w for w in WORKLOADS if w in selected]
    wanted = {w for w in selected if w in LIMITS}
    if not args.no_limits:
        wanted |= {limit.split("/")[0] for w in args.workloads if (limit := WORKLOADS[w].limit)}
    args.limits = [name for name in LIMITS if name in wanted]
    return args


def child_environment() -> tuple[dict[str, str], dict[str, str | None]]:
    env = dict(os.environ)
    was = {name: env.pop(name, None) for name in UNSET}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env, was


def prepare_root(root: Path) -> None:
    """Empty ``root``, which must be missing, empty, or marked as ours."""
    if root.exists():
        if any(root.iterdir()) and not (root / SENTINEL).exists():
            sys.exit(f"refusing to use {root}: it is not empty and was not made by this benchmark")
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / SENTINEL).write_text("data of zarrforge's benchmarks/run.py; safe to delete\n")


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_child(
    engine: str,
    workload: str,
    args: argparse.Namespace,
    env: dict[str, str],
    label: str,
    threads: int | None = None,
) -> dict[str, Any]:
    """Run one child (with ``--threads threads`` if given); its result record, or a
    record with ``error``."""
    python = sys.executable if engine == "limits" else engine_registry.interpreter(engine, sys.executable)
    command = [
        python,
        "-m",
        "benchmarks.child",
        "--engine",
        engine,
        "--workload",
        workload,
        "--scale",
        repr(args.scale),
        "--repeat",
        str(args.repeat),
        "--root",
        str(args.path),
        "--settle",
        repr(args.settle),
    ]
    if threads is not None:
        command += ["--threads", str(threads)]
    record: dict[str, Any] | None = None
    error: str | None = None
    started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    source = machine.source_state(REPO)
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
        timer = threading.Timer(args.timeout, proc.kill)
        timer.start()
        assert proc.stdout is not None  # stdout=PIPE
        try:
            for line in proc.stdout:
                if not line.startswith(PREFIX):
                    continue
                event = json.loads(line[len(PREFIX) :])
                if event["event"] == "rep":
                    phases = "  ".join(f"{k} {v:.3f} s" for k, v in event["seconds"].items())
                    _log(
                        f"{label} rep {event['rep']}/{event['repeat']}  {phases}  "
                        f"peak {event['peak_rss_mib']:,.0f} MiB"
                    )
                elif event["event"] == "result":
                    record = event
                elif event["event"] == "error":
                    error = f"{event['kind']}: {event['message']}"
            code = proc.wait()
        finally:
            timer.cancel()
        if record is None or code != 0:
            stderr.seek(0)
            tail = stderr.read()[-3000:]
            error = error or (f"killed after {args.timeout} s" if code == -9 else f"exit status {code}")
            _log(f"{label} FAILED: {error}\n{tail}")
            return {
                "engine": engine,
                "workload": workload,
                "threads": threads,
                "error": error,
                "stderr_tail": tail,
                "started": started,
                "source": source,
            }
    _log(f"{label} verified; best " + "  ".join(f"{k} {v:.3f} s" for k, v in record["best"].items()))
    record.pop("event", None)
    record["started"] = started
    record["source"] = source
    return record


def source_changes(records: list[dict[str, Any]]) -> list[str]:
    """One line per distinct source state the runs used, if there was more than one."""
    states: dict[tuple[Any, Any], list[str]] = {}
    for r in records:
        if r["engine"] == "limits":
            continue
        s = r.get("source") or {}
        states.setdefault((s.get("commit"), s.get("uncommitted")), []).append(
            f"{r['engine']} {r['workload']}"
        )
    if len(states) <= 1:
        return []
    return [
        f"commit {c}" + (f" + uncommitted changes {u}" if u else "") + ": " + ", ".join(runs)
        for (c, u), runs in states.items()
    ]


def round_jobs(workloads: list[str], engines: list[str], rounds: int) -> list[tuple[str, str, int | None]]:
    """The ``(engine, workload, None)`` jobs of ``rounds`` rounds: per workload, every
    engine once a round, in reverse order every other round."""
    return [
        (engine, w, None)
        for w in workloads
        for r in range(rounds)
        for engine in (engines if r % 2 == 0 else engines[::-1])
    ]


def merged_rounds(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (engine, workload, threads), in first-run order: a single run as it
    is; several (``--rounds``) as one whose repetitions are all of theirs, its best the
    least of each phase, its peak memory the largest, ``rounds`` how many there were. A
    failed round makes the merged record that failure."""
    by_key: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in records:
        by_key.setdefault((r["engine"], r["workload"], r.get("threads")), []).append(r)
    merged = []
    for runs in by_key.values():
        failed = next((r for r in runs if r.get("error")), None)
        if len(runs) == 1 or failed is not None:
            merged.append({**(failed or runs[0]), "rounds": len(runs)})
            continue
        phases = runs[0]["seconds"].keys()
        merged.append(
            {
                **runs[0],
                "rounds": len(runs),
                "repeat": sum(r["repeat"] for r in runs),
                "seconds": {phase: [t for r in runs for t in r["seconds"][phase]] for phase in phases},
                "best": {phase: min(r["best"][phase] for r in runs) for phase in phases},
                "cpu_seconds": [c for r in runs for c in r.get("cpu_seconds", [])],
                "others_cpu_share": [s for r in runs for s in r.get("others_cpu_share", [])],
                "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
            }
        )
    return merged


def blas_report(env: dict[str, str]) -> Any:
    """The BLAS the children's numpy uses (threadpoolctl), or why it is unknown."""
    code = (
        "import json, numpy\ntry:\n import threadpoolctl\nexcept ImportError:\n"
        " print(json.dumps('threadpoolctl not installed'))\nelse:\n"
        " print(json.dumps(threadpoolctl.threadpool_info()))"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True
        ).stdout
        return json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return f"unknown: {exc}"


def _command(argv: list[str] | None) -> str:
    return (
        shlex.join([Path(sys.executable).name, "benchmarks/run.py", *sys.argv[1:]])
        if argv is None
        else shlex.join(["benchmarks/run.py", *argv])
    )


def _notes(
    records: list[dict[str, Any]], what: str, runs: list[dict[str, Any]] | None = None
) -> tuple[str, list[str], list[str]]:
    """The closing notes (source changed, disturbed runs) under a table, and their lists;
    ``runs``: every child's record where ``records`` merged rounds."""
    text = ""
    changed = source_changes(records if runs is None else runs)
    if changed:
        text += (
            "\nWarning: zarrforge's source (core/, plugins/) changed during the run, so the "
            "runs measured different code:\n" + "".join(f"- {line}\n" for line in changed)
        )
        _log("WARNING: the source tree changed during the run (see the note under the table)")
    disturbed = report.disturbed(records)
    if disturbed:
        text += (
            "\nNote: other processes took more than 10% of the machine's CPU during the best "
            "repetition of: " + ", ".join(disturbed) + f". Those times are inflated; {what} "
            "has every repetition with its CPU seconds and that share.\n"
        )
    return text, changed, disturbed


def _run_jobs(
    jobs: list[tuple[str, str, int | None]], args: argparse.Namespace, env: dict[str, str]
) -> tuple[list[dict[str, Any]], tuple[float, ...]]:
    """Each ``(engine, workload, threads)`` in a child of its own, in order; the records and
    the load average before. The data under ``--path`` is removed afterwards (not with
    ``--keep``)."""
    records = []
    load_before = os.getloadavg()
    try:
        for i, (engine, workload, threads) in enumerate(jobs, 1):
            label = f"[{i:>3}/{len(jobs)}] {engine:<12} {workload:<12}"
            if threads is not None:
                label += f" N={threads:<3}"
            records.append(run_child(engine, workload, args, env, label, threads=threads))
    finally:
        if not args.keep:
            shutil.rmtree(args.path, ignore_errors=True)
    return records, load_before


def _result(
    args: argparse.Namespace,
    env: dict[str, str],
    was: dict[str, str | None],
    argv: list[str] | None,
    records: list[dict[str, Any]],
    load_before: Any,
    changed: list[str],
    disturbed: list[str],
    info: dict[str, Any],
) -> dict[str, Any]:
    """What a run's JSON file says besides its table: machine, command, settings, load,
    disturbances, the children's environment, every run."""
    return {
        **info,
        "command": _command(argv),
        "settings": {
            "scale": args.scale,
            "repeat": args.repeat,
            "rounds": args.rounds,
            "settle": args.settle,
            "path": str(args.path),
            "engines": args.engines,
            "workloads": args.workloads,
            "limits": args.limits,
        },
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "disturbed_runs": disturbed,
        "source_changed_during_run": changed,
        "environment": {
            "unset_in_children": list(UNSET),
            "values_before_unset": was,
            "children_blas": blas_report(env),
            "rss_method": next((r["rss_method"] for r in records if "rss_method" in r), None),
        },
        "runs": records,
    }


def run_sweep(
    args: argparse.Namespace, env: dict[str, str], was: dict[str, str | None], argv: list[str] | None
) -> int:
    """The thread sweep: every (engine, workload, N) and (limit, N) in a child of its own."""
    counts = args.threads_sweep
    jobs = [("limits", name, n) for name in args.limits for n in counts]
    jobs += [(engine, w, n) for w in args.workloads for n in counts for engine in args.engines]
    _log(
        f"thread sweep {','.join(map(str, counts))} (os.cpu_count() {os.cpu_count()}): "
        f"{len(jobs)} runs, scale {args.scale:g}, repeat {args.repeat}, data in {args.path}"
    )
    records, load_before = _run_jobs(jobs, args, env)
    info = machine.describe(REPO)
    table = sweep.rows(records, args.engines, args.workloads, counts)
    title = sweep.title(args.scale, args.repeat, counts, os.cpu_count(), info["date"])
    text = sweep.markdown(table, records, args.engines, counts, title)
    # the notes name each run with its N
    notes, changed, disturbed = _notes(
        [{**r, "workload": f"{r['workload']} N={r.get('threads')}"} for r in records], "sweep.json"
    )
    text += notes
    configurations: dict[str, dict[str, Any]] = {}
    for r in records:
        if r.get("configuration"):
            name = r["engine"] if r["engine"] != "limits" else r["workload"]
            configurations.setdefault(name, {}).setdefault(str(r.get("threads")), r["configuration"])
    result = _result(args, env, was, argv, records, load_before, changed, disturbed, info)
    result["cpu_count"] = os.cpu_count()
    result["settings"]["threads"] = counts
    result.update(engine_configuration=configurations, table=table)
    return _write_outputs(
        args,
        "sweep",
        result,
        text,
        "sweep.png",
        lambda path: sweep.write_chart(table, args.engines, path, title),
        [f"{r['engine']} {r['workload']} N={r.get('threads')}" for r in records if r.get("error")],
    )


def _write_outputs(
    args: argparse.Namespace,
    stem: str,
    result: dict[str, Any],
    text: str,
    chart_name: str,
    chart: Callable[[Path], bool],
    failed: list[str],
) -> int:
    """Write ``<stem>.json``, ``<stem>.md`` and the chart, print the table, and say which
    runs failed (exit status 1 if any did)."""
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / f"{stem}.md").write_text(text)
    charted = False
    if not args.no_chart:
        charted = chart(args.out / chart_name)
        if not charted:
            _log("matplotlib is not installed: no chart drawn")
    print(text)
    _log(
        f"wrote {args.out / f'{stem}.json'}, {args.out / f'{stem}.md'}"
        + (f", {args.out / chart_name}" if charted else "")
    )
    if failed:
        _log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    env, was = child_environment()
    prepare_root(args.path)
    if args.threads_sweep is not None:
        return run_sweep(args, env, was, argv)
    jobs: list[tuple[str, str, int | None]] = [("limits", name, None) for name in args.limits]
    jobs += round_jobs(args.workloads, args.engines, args.rounds)
    _log(
        f"{len(jobs)} runs, scale {args.scale:g}, repeat {args.repeat}, rounds {args.rounds}, "
        f"data in {args.path}"
    )
    runs, load_before = _run_jobs(jobs, args, env)
    records = merged_rounds(runs)

    table = report.rows(records, args.engines, args.workloads)
    limits = report.limit_rows(records)
    text = report.markdown(table, limits, args.engines)
    notes, changed, disturbed = _notes(records, "latest.json", runs)
    text += notes
    info = machine.describe(REPO)
    configurations = {}
    for r in records:
        if r.get("configuration") and r["engine"] not in configurations:
            configurations[r["engine"]] = r["configuration"]
    result = _result(args, env, was, argv, runs, load_before, changed, disturbed, info)
    result.update(engine_configuration=configurations, table=table, limits=limits)
    best_of = f"{args.repeat}" if args.rounds == 1 else f"{args.rounds} rounds x {args.repeat}"
    title = (
        f"zarrforge time ratios, scale {args.scale:g}, best of {best_of}, "
        f"{info['machine']['cores']} cores, {info['date'][:10]}"
    )
    return _write_outputs(
        args,
        "latest",
        result,
        text,
        "ratios.png",
        lambda path: report.write_chart(table, path, title),
        [f"{r['engine']} {r['workload']}" for r in records if r.get("error")],
    )


if __name__ == "__main__":
    sys.exit(main())
