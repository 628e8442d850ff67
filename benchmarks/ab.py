"""Interleaved A/B of zarrforge against another revision of itself.

    python benchmarks/ab.py --before REV [--after REV] [--rounds 5] [--scale 1/8]
                            [--only W1,W2,...] [--repeat 1] [--out DIR]

Each round runs the benchmark driver (``run.py``: zarrforge only, ``--repeat``
repetitions, one by default, no limits) once for each side, alternating which side goes first, so a drift in the
machine's speed falls on both. A side is a revision's source: ``--before`` (and
``--after``, when given) is checked out into a temporary git worktree; without
``--after`` the working tree is the after side. The side's ``core/src`` and
``plugins/*/src`` go first on ``PYTHONPATH``, ahead of the editable installs, so the
same interpreter, harness and data serve both; entry points are the installed ones.
A worktree has no compiled extension modules: each one built in this working tree
(``plugins/*/src/**/*.so``, zarrforge-batch-io's C helper) is copied into it where the
revision's C source beside it is the same, so both sides run it; otherwise the before
side runs without it, and this script says so.

The report is one row per workload: the best time of each side over the rounds and
after/before (above 1: the after side is slower). ``ab.json`` under ``--out`` holds
every round's times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_WORKLOADS = "W1,W2,W3,W3r,W4,W5,W5r,W6c,W6"


def source_path(tree: Path) -> str:
    """``PYTHONPATH`` that puts the zarrforge sources of ``tree`` first."""
    roots = [tree / "core" / "src", *sorted(tree.glob("plugins/*/src"))]
    return os.pathsep.join(str(root) for root in roots)


@contextlib.contextmanager
def checkout(revision: str | None):
    """The source tree of ``revision`` (``None``: this working tree), for the block."""
    if revision is None:
        yield REPO
        return
    with tempfile.TemporaryDirectory(prefix="zf-ab-") as parent:
        tree = Path(parent) / "tree"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), revision], check=True
        )
        try:
            _share_compiled(tree)
            yield tree
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)


def _share_compiled(tree: Path) -> None:
    """Copy this working tree's built extension modules into ``tree`` where the C source
    they were built from is the same there (see the module docstring)."""
    for built in sorted(REPO.glob("plugins/*/src/**/*.so")):
        relative = built.relative_to(REPO)
        stem = built.name.split(".", 1)[0]  # _native.cpython-312-x86_64-linux-gnu.so -> _native
        source, theirs = built.with_name(f"{stem}.c"), tree / relative.with_name(f"{stem}.c")
        if source.is_file() and theirs.is_file() and source.read_bytes() == theirs.read_bytes():
            shutil.copy2(built, tree / relative)
        else:
            print(f"ab: {relative} is not shared with the other side (its C source differs)", file=sys.stderr)


def one_run(tree: Path, args: argparse.Namespace, out: Path) -> dict[str, float]:
    """Best seconds per workload of one driver run on ``tree``'s sources."""
    env = dict(os.environ, PYTHONPATH=source_path(tree))
    command = [
        sys.executable,
        str(REPO / "benchmarks" / "run.py"),
        "--engines",
        "zarrforge",
        "--repeat",
        str(args.repeat),
        "--no-limits",
        "--no-chart",
        "--scale",
        args.scale,
        "--only",
        args.only,
        "--out",
        str(out),
    ]
    subprocess.run(command, env=env, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    table = json.loads((out / "latest.json").read_text())["table"]
    return {
        row["workload"]: row["engines"]["zarrforge"]["seconds"]
        for row in table
        if not row["engines"]["zarrforge"]["failed"]
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the baseline revision")
    parser.add_argument("--after", default=None, help="default: the working tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale", default="1/8")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="repetitions within a run (its best counts); more than 1 leaves out the first "
        "call's one-time costs (plugin loading), which dominate a workload as short as W6c",
    )
    parser.add_argument("--only", default=DEFAULT_WORKLOADS)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "ab")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    times: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    with checkout(args.before) as before, checkout(args.after) as after:
        sides = {"before": before, "after": after}
        for round_number in range(args.rounds):
            order = ["before", "after"] if round_number % 2 == 0 else ["after", "before"]
            for side in order:
                for workload, seconds in one_run(sides[side], args, args.out / side).items():
                    times[side].setdefault(workload, []).append(seconds)
                print(f"round {round_number + 1}/{args.rounds}: {side} done", file=sys.stderr)
    report = {
        "before": args.before,
        "after": args.after or "working tree",
        "rounds": args.rounds,
        "scale": args.scale,
        "times": times,
    }
    (args.out / "ab.json").write_text(json.dumps(report, indent=1))
    print(f"| workload | before ({args.before}) s | after s | after/before |")
    print("| --- | --- | --- | --- |")
    for workload in args.only.split(","):
        old, new = times["before"].get(workload), times["after"].get(workload)
        if not old or not new:
            print(
                f"| {workload} | {'FAILED' if not old else min(old)} | "
                f"{'FAILED' if not new else min(new)} | |"
            )
            continue
        print(f"| {workload} | {min(old):.4f} | {min(new):.4f} | {min(new) / min(old):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
