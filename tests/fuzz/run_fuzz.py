"""Run the fuzz targets of ``tests/fuzz`` for a time budget (``scripts/fuzz-long`` calls this).

Each target runs in a subprocess of its own, so that

* an address-space limit (``RLIMIT_AS``: what the process had mapped after
  start-up plus ``--memory-mb``) turns any huge allocation into a
  ``MemoryError`` that the oracle reports (a ``MemoryError`` anywhere in an
  error's chain is a failure), and the in-process guard that skips writes to
  huge chunks is lifted;
* a crash of the interpreter (a segfault in a C codec) is reported with the
  number of cases tried before it, rather than ending the whole run.

A child runs hypothesis in batches of ``--batch`` examples, each with a fresh
random seed, until its time is up, and keeps going after a failure so one
bug does not hide the rest. It prints one JSON line per batch; the parent
prints a table (cases tried, failing batches, distinct failures by exception
type and place) and writes every distinct failure with its falsifying
example to ``--report`` (JSON) when asked.

"Cases" counts every execution of a target, including hypothesis'
shrinking replays of a failure. A target with a failure has run fewer fresh
cases than its count says.

    python tests/fuzz/run_fuzz.py --seconds 60                 # every target, 60 s each
    python tests/fuzz/run_fuzz.py --seconds 600 --targets codec_decode,sharding_index
    python tests/fuzz/run_fuzz.py --list
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by file name at run time, from this directory (see main)
    from tests.fuzz._fuzzkit import Target

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _vm_size() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _signature(exc: BaseException) -> str:
    """Exception type and the innermost frame outside hypothesis and the harness."""
    frames = traceback.extract_tb(exc.__traceback__)
    place = "?"
    for frame in reversed(frames):
        if "hypothesis" in frame.filename or frame.filename.endswith("_fuzzkit.py"):
            continue
        place = f"{os.path.relpath(frame.filename, ROOT)}:{frame.lineno} ({frame.name})"
        break
    known = [n for n in getattr(exc, "__notes__", []) if n.startswith("this is known bug")]
    label = f" [known {known[0].split()[4]}]" if known else ""
    return f"{type(exc).__name__} at {place}{label}"


def child(names: list[str], seconds: float, batch: int, memory_mb: int, tolerate_known: bool = False) -> int:
    """Fuzz ``names`` one after another, ``seconds`` each, in this process."""
    sys.path.insert(0, str(HERE))
    import _fuzzkit

    # by default report known bugs, labelled; ZARRFORGE_KNOWN_BUGS=fail overrides --tolerate-known
    _fuzzkit.TOLERATE_KNOWN_BUGS = tolerate_known and _fuzzkit.TOLERATE_KNOWN_BUGS
    targets = _fuzzkit.load_targets()
    chosen = [targets[name] for name in names]
    for target in chosen:
        target.strategy()  # build seeds and caches before the limit is set
    if memory_mb > 0 and any(t.memory_sensitive for t in chosen):
        limit = _vm_size() + memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for target in chosen:
        _fuzz_one(target, seconds, batch)
    return 0


def _fuzz_one(target: Target, seconds: float, batch: int) -> None:
    count = [0]

    def on_case() -> None:
        count[0] += 1

    start = time.monotonic()
    failures: dict[str, dict] = {}
    batches = failing = 0
    while time.monotonic() - start < seconds:
        seed = random.randrange(2**32)
        output = io.StringIO()
        try:
            with contextlib.redirect_stdout(output):
                target.hypothesis_test(batch, seed=seed, on_case=on_case)()
        except BaseException as exc:  # every failure is reported, then we go on
            if isinstance(exc, KeyboardInterrupt):
                raise
            failing += 1
            # hypothesis raises an ExceptionGroup when one run finds several distinct bugs
            for failure in getattr(exc, "exceptions", None) or [exc]:
                signature = _signature(failure)
                entry = failures.setdefault(signature, {"count": 0, "examples": []})
                entry["count"] += 1
                if len(entry["examples"]) < 3:
                    entry["examples"].append(
                        {
                            "seed": seed,
                            "error": f"{type(failure).__name__}: {failure}"[:2000],
                            "traceback": "".join(traceback.format_exception(failure))[-6000:],
                            "notes": list(getattr(failure, "__notes__", []))[:4],
                            "output": output.getvalue()[-4000:],
                        }
                    )
        batches += 1
        print(
            json.dumps(
                {
                    "target": target.name,
                    "cases": count[0],
                    "batches": batches,
                    "failing_batches": failing,
                    "elapsed": round(time.monotonic() - start, 1),
                    "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                    "failures": failures,
                }
            ),
            flush=True,
        )


def run_target(name: str, args: argparse.Namespace) -> dict:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        name,
        "--seconds",
        str(args.seconds),
        "--batch",
        str(args.batch),
        "--memory-mb",
        str(args.memory_mb),
    ] + ["--tolerate-known"] * args.tolerate_known
    process = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=args.seconds + 600)
    last: dict = {
        "target": name,
        "cases": 0,
        "batches": 0,
        "failing_batches": 0,
        "elapsed": 0.0,
        "failures": {},
    }
    for line in process.stdout.splitlines():
        with contextlib.suppress(ValueError):
            last = json.loads(line)
    last["returncode"] = process.returncode
    if process.returncode != 0:
        last["failures"][f"child exited with {process.returncode}"] = {
            "count": 1,
            "examples": [{"error": process.stderr[-4000:]}],
        }
    return last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds",
        type=float,
        default=float(os.environ.get("ZARRFORGE_FUZZ_SECONDS", "600")),
        help="time budget per target (default $ZARRFORGE_FUZZ_SECONDS or 600)",
    )
    parser.add_argument("--targets", default="", help="comma-separated target names (default: all)")
    parser.add_argument("--batch", type=int, default=200, help="examples per hypothesis run")
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=1024,
        help="address space a child may add after start-up (0: no limit)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="targets run at the same time")
    parser.add_argument("--report", default="", help="write the results as JSON to this file")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument(
        "--tolerate-known",
        action="store_true",
        help="let cases that hit a known bug (_fuzzkit.KNOWN_BUG_SIGNATURES) pass",
    )
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child.split(","), args.seconds, args.batch, args.memory_mb, args.tolerate_known)

    sys.path.insert(0, str(HERE))
    import _fuzzkit

    targets = _fuzzkit.load_targets()
    if args.list:
        for t in targets.values():
            print(f"{t.name:28} {t.description}")
        return 0
    names = [n for n in args.targets.split(",") if n] or list(targets)
    unknown = sorted(set(names) - set(targets))
    if unknown:
        parser.error(f"unknown target(s) {unknown}; see --list")
    print(
        f"fuzzing {len(names)} target(s), {args.seconds:g} s each, {args.jobs} at a time, "
        f"address-space headroom {args.memory_mb} MB",
        flush=True,
    )
    from concurrent.futures import ThreadPoolExecutor

    results = []
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for result in pool.map(lambda n: run_target(n, args), names):
            results.append(result)
            distinct = len(result["failures"])
            print(
                f"  {result['target']:28} {result['cases']:>9} cases  {result['batches']:>5} batches  "
                f"{result['failing_batches']:>3} failing  {distinct:>2} distinct  "
                f"{result['elapsed']:>7.1f} s",
                flush=True,
            )
            for signature, entry in result["failures"].items():
                print(f"      {entry['count']} x {signature}")
                first = entry["examples"][0]
                print("        " + first["error"].splitlines()[0][:300] if first["error"] else "")
    total_cases = sum(r["cases"] for r in results)
    total_failures = sum(len(r["failures"]) for r in results)
    new = sum(1 for r in results for signature in r["failures"] if "[known " not in signature)
    print(
        f"total: {total_cases} cases, {total_failures} distinct failure(s) ({new} not known "
        f"before) in {sum(1 for r in results if r['failures'])} of {len(results)} target(s)"
    )
    if args.report:
        Path(args.report).write_text(json.dumps({"seconds": args.seconds, "results": results}, indent=2))
        print(f"report: {args.report}")
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
