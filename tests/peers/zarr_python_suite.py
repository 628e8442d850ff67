"""zarr-python 3.4.2's own test suite, run on zarrforge: how many of its items pass.

    python tests/peers/zarr_python_suite.py [--files test_api.py ...] [--workers N]
                                            [--update-floor]

What it does (issue #43; ``make peer-suites`` runs it, and ``.ci/run`` after ``make test``):

1. builds (or reuses) a Python >= 3.12 environment holding zarr-python 3.4.2, the test tools
   its suite pins and zarrforge installed editable from this checkout
   (``tests/interop/_side_venv.py``, ``zarrsuite``);
2. fetches zarr-python's sdist with that environment's pip into ``.cache/peer-suites/``
   (git-ignored; reused while it is there): nothing of it is kept in this repository;
3. runs the test modules :data:`FILES` twice with zarr-python's own pytest configuration:
   as they are, and with the top-level import redirected (:func:`redirected`: ``import
   zarr`` and ``from zarr import X`` in the test modules mean zarrforge, while
   ``zarr.<submodule>`` imports and the suite's ``conftest.py`` stay zarr-python's, as for
   a user who keeps their ``LocalStore`` objects and changes the top-level import);
4. prints, per file, the items zarr-python passes and how many of those zarrforge passes,
   overall and for the items that reach zarr only through its top-level names
   (``tests/peers/_classify.py``), and the most frequent first-failure causes;
5. exits 1 when a count falls below its floor in ``zarr_python_floor.json`` (beside this
   file), which only rises: ``--update-floor`` raises it to the counts of this run. The
   floor stands a little under the counts measured when it was set (3,949 and 260 on
   2026-12-02 against 3,900 and 255): a few of the suite's items draw their cases at
   random (hypothesis), and a floor a lucky draw sets would fail CI on an unlucky one.

Standard library only: it runs with any Python, and everything of the peer runs in the
side environment.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "interop"))
from _side_venv import ensure_zarrsuite_venv  # noqa: E402

VERSION = "3.4.2"
FILES = (
    "test_api.py",
    "test_group.py",
    "test_array.py",
    "test_indexing.py",
    "test_tree.py",
    "test_v2.py",
    "test_zarr.py",
)
CACHE = REPO / ".cache" / "peer-suites"
ITEM_TIMEOUT = 60  # seconds; zarr-python's slowest item takes about 20
FLOOR = HERE / "zarr_python_floor.json"
IMPORT_ZARR = re.compile(r"^(\s*)import zarr(\s+as\s+\w+)?\s*$", re.MULTILINE)
FROM_ZARR = re.compile(r"^(\s*)from zarr import ", re.MULTILINE)


def sdist_tree(python: Path) -> Path:
    """zarr-python's sdist, unpacked under :data:`CACHE` (downloaded on first use)."""
    tree = CACHE / f"zarr-{VERSION}"
    if (tree / "tests" / "conftest.py").exists():
        return tree
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / f"zarr-{VERSION}.tar.gz"
    if not archive.exists():
        done = subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                f"zarr=={VERSION}",
                "-d",
                str(CACHE),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not archive.exists():
            sys.exit(f"fetching zarr-python {VERSION}'s sdist failed:\n{done.stdout}{done.stderr}")
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return tree


def redirected(source: str) -> str:
    """A test module's source with its top-level zarr imports meaning zarrforge."""
    source = IMPORT_ZARR.sub(lambda m: f"{m.group(1)}import zarrforge{m.group(2) or ' as zarr'}", source)
    return FROM_ZARR.sub(lambda m: f"{m.group(1)}from zarrforge import ", source)


def prepare(tree: Path, label: str, files: list[str], *, redirect: bool) -> Path:
    """A copy of the suite to run as ``label``: its tests/ and its pytest configuration."""
    run_dir = CACHE / "runs" / label
    shutil.rmtree(run_dir, ignore_errors=True)
    shutil.copytree(
        tree / "tests", run_dir / "tests", ignore=shutil.ignore_patterns("__pycache__", "benchmarks")
    )
    shutil.copy(tree / "pyproject.toml", run_dir / "pyproject.toml")
    if redirect:
        for name in files:
            path = run_dir / "tests" / name
            path.write_text(redirected(path.read_text(encoding="utf-8")), encoding="utf-8")
    return run_dir


def run_suite(
    python: Path, run_dir: Path, files: list[str], workers: int, classify: bool
) -> tuple[Path, Path | None, float]:
    log = run_dir / "report.jsonl"
    classes = run_dir / "classify.jsonl" if classify else None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(HERE)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if classes is not None:
        env["ZARRFORGE_PEER_CLASSIFY"] = str(classes)
    command = [
        str(python),
        "-m",
        "pytest",
        *[f"tests/{name}" for name in files],
        "-o",
        "addopts=",
        "-p",
        "no:cacheprovider",
        "-p",
        "_classify",
        "-q",
        "--no-header",
        "-rN",
        f"--report-log={log}",
        # an item that hangs on zarrforge (a pool whose child never answers) fails
        # alone, instead of the whole run meeting the suite's 600 s fault handler
        "-p",
        "timeout",
        f"--timeout={ITEM_TIMEOUT}",
        *(["-n", str(workers)] if workers > 1 else []),
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=run_dir, env=env, capture_output=True, text=True, timeout=1800)
    if not log.exists():
        sys.exit(
            f"the run in {run_dir} wrote no report (exit {done.returncode}):\n"
            f"{done.stdout[-4000:]}{done.stderr[-4000:]}"
        )
    return log, classes, time.monotonic() - started


# what differs between runs of the same failure: addresses, ids, temporary paths
_ADDRESS = re.compile(r" at 0x[0-9a-f]+|0x[0-9a-f]{6,}|\d{6,}|/tmp/\S*")


def outcomes(log: Path) -> dict[str, tuple[str, str]]:
    """nodeid -> (outcome, first failure's message) from a pytest report log."""
    found: dict[str, tuple[str, str]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        report = json.loads(line)
        if report.get("$report_type") != "TestReport":
            continue
        nodeid, outcome = report["nodeid"], report["outcome"]
        if nodeid in found and found[nodeid][0] != "passed":
            continue  # its first failure (or skip) stands
        if outcome == "failed":
            crash = (report.get("longrepr") or {}).get("reprcrash") or {}
            message = _ADDRESS.sub("", (crash.get("message") or "?").splitlines()[0])[:160]
            found[nodeid] = ("failed", message)
        elif outcome == "skipped":
            found[nodeid] = ("skipped", "")
        else:
            found.setdefault(nodeid, ("passed", ""))
    return found


def classification(path: Path | None) -> dict[str, bool]:
    """nodeid -> whether the item reaches zarr-python past its top level."""
    if path is None or not path.exists():
        return {}
    beyond: dict[str, bool] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        beyond[record["nodeid"]] = record["objects"] or record["names"]
    return beyond


def summarise(
    peer: dict[str, tuple[str, str]],
    ours: dict[str, tuple[str, str]],
    beyond: dict[str, bool],
    files: list[str],
) -> dict:
    rows = {}
    causes: dict[str, collections.Counter] = {"top": collections.Counter(), "beyond": collections.Counter()}
    for name in files:
        prefix = f"tests/{name}::"
        row = {"peer": 0, "ours": 0, "top_peer": 0, "top_ours": 0}
        for nodeid, (outcome, _) in peer.items():
            if not nodeid.startswith(prefix) or outcome != "passed":
                continue
            top = not beyond.get(nodeid, True)
            mine, message = ours.get(nodeid, ("missing", "not collected on zarrforge"))
            row["peer"] += 1
            row["top_peer"] += top
            if mine == "passed":
                row["ours"] += 1
                row["top_ours"] += top
            else:
                causes["top" if top else "beyond"][message or mine] += 1
        rows[name] = row
    totals = {key: sum(row[key] for row in rows.values()) for key in ("peer", "ours", "top_peer", "top_ours")}
    return {"files": rows, "totals": totals, "causes": {k: v.most_common(25) for k, v in causes.items()}}


def report(summary: dict, seconds: dict[str, float]) -> None:
    print(
        f"zarr-python {VERSION}'s suite on zarrforge (items zarr-python passes; of those, "
        "the items zarrforge passes)"
    )
    print(f"{'file':<18}{'all: peer':>10}{'ours':>7}{'top-level only: peer':>22}{'ours':>7}")
    for name, row in summary["files"].items():
        print(f"{name:<18}{row['peer']:>10}{row['ours']:>7}{row['top_peer']:>22}{row['top_ours']:>7}")
    t = summary["totals"]
    print(f"{'total':<18}{t['peer']:>10}{t['ours']:>7}{t['top_peer']:>22}{t['top_ours']:>7}")
    for kind, title in (("top", "top-level only"), ("beyond", "zarr-python objects passed in")):
        print(f"\nfirst-failure causes, {title}:")
        for message, count in summary["causes"][kind]:
            print(f"{count:>6}  {message}")
    print("\n" + ", ".join(f"{label} run {s:.0f} s" for label, s in seconds.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", nargs="+", default=list(FILES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--update-floor", action="store_true")
    args = parser.parse_args(argv)
    python = ensure_zarrsuite_venv()
    tree = sdist_tree(python)
    seconds = {}
    peer_dir = prepare(tree, "zarr-python", args.files, redirect=False)
    peer_log, _, seconds["zarr-python"] = run_suite(
        python, peer_dir, args.files, args.workers, classify=False
    )
    ours_dir = prepare(tree, "zarrforge", args.files, redirect=True)
    ours_log, classes, seconds["zarrforge"] = run_suite(
        python, ours_dir, args.files, args.workers, classify=True
    )
    summary = summarise(outcomes(peer_log), outcomes(ours_log), classification(classes), args.files)
    (CACHE / "runs" / "summary.json").write_text(json.dumps(summary, indent=1))
    report(summary, seconds)
    if args.files != list(FILES):
        return 0  # a partial run neither checks nor moves the floor
    floor = json.loads(FLOOR.read_text()) if FLOOR.exists() else {"ours": 0, "top_ours": 0}
    totals = summary["totals"]
    below = [f"{key}: {totals[key]} < floor {value}" for key, value in floor.items() if totals[key] < value]
    if below:
        print(f"\nFAILED: below the floor ({FLOOR.name}): {'; '.join(below)}")
        return 1
    if args.update_floor:
        raised = {key: max(value, totals[key]) for key, value in floor.items()}
        FLOOR.write_text(json.dumps(raised, indent=1) + "\n")
        print(f"\nfloor now {raised}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
