"""The benchmark suite's thread sweep (``benchmarks/run.py --threads-sweep``), at a tiny scale.

One driver run at scale 1/64 with threads 1 and 2, for zarrforge and tensorstore, checks
that every (engine, workload, threads) ran once, verified, and reported the thread count
it was given, that the limits ran at each count (L-files on one thread), and that the
files are written; one child per zarr engine checks that its thread setting is echoed.
Nothing here looks at timings.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
try:
    from benchmarks import sweep
    from benchmarks.child import PREFIX
finally:
    sys.path.remove(str(REPO))  # the package is imported; leave the other tests' sys.path alone

pytest.importorskip("tensorstore")

THREADS = [1, 2]
WORKLOADS = ["W1", "W3r", "W5r"]  # one per floor: L-zstd, L-zstd-inner, L-files
ENGINES = ["zarrforge", "tensorstore"]


def test_thread_counts() -> None:
    assert sweep.auto_counts(1) == [1]
    assert sweep.auto_counts(2) == [1, 2]
    assert sweep.auto_counts(6) == [1, 2, 4, 6]
    assert sweep.auto_counts(8) == [1, 2, 4, 8]
    assert sweep.thread_counts("auto") == sweep.auto_counts(os.cpu_count())
    assert sweep.thread_counts("4, 1,2,2") == [1, 2, 4]
    for bad in ("0,1", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            sweep.thread_counts(bad)


def test_sweep_records_every_engine_workload_and_thread_count(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run.py"),
            "--scale",
            "1/64",
            "--repeat",
            "1",
            "--threads-sweep",
            ",".join(map(str, THREADS)),
            "--only",
            ",".join(WORKLOADS),
            "--engines",
            ",".join(ENGINES),
            "--path",
            str(tmp_path / "data"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((out / "sweep.json").read_text())
    assert result["settings"]["threads"] == THREADS
    assert result["settings"]["workloads"] == WORKLOADS
    assert result["settings"]["limits"] == ["L-zstd", "L-zstd-inner", "L-files"]
    assert result["cpu_count"] == os.cpu_count() and result["machine"]["cores"] == os.cpu_count()

    runs = [(r["engine"], r["workload"], r["threads"]) for r in result["runs"]]
    expected = {(e, w, n) for e in ENGINES for w in WORKLOADS for n in THREADS}
    expected |= {("limits", name, n) for name in result["settings"]["limits"] for n in THREADS}
    assert sorted(runs) == sorted(expected)  # one record each, nothing else
    for r in result["runs"]:
        assert not r.get("error"), (r["engine"], r["workload"], r["threads"], r.get("error"))
        assert r["verified"] is True and len(r["seconds"][next(iter(r["seconds"]))]) == 1
        in_force = 1 if r["workload"] == "L-files" else r["threads"]
        assert r["configuration"]["threads"] == in_force, (r["engine"], r["workload"], r["threads"])
    tensorstore = result["engine_configuration"]["tensorstore"]["2"]["context_limits"]
    assert tensorstore == {"data_copy_concurrency": {"limit": 2}, "file_io_concurrency": {"limit": 2}}

    table = result["table"]
    assert [(row["workload"], row["threads"]) for row in table] == [
        (w, n) for w in WORKLOADS for n in THREADS
    ]
    for row in table:
        assert row["floor_seconds"] is not None and row["ratios"]["zf/floor"] > 0
        assert row["ratios"]["zf/ts"] > 0
        assert row["floor_threads"] == (1 if row["floor"].startswith("L-files") else row["threads"])

    text = (out / "sweep.md").read_text()
    assert "| W3r | 2 |" in text and "zf/floor" in text and text in proc.stdout
    assert "| L-files | 1 | 1 |" in text and "| tensorstore | 1 | 2 |" in text
    if importlib.util.find_spec("matplotlib"):
        assert (out / "sweep.png").stat().st_size > 0
    else:
        assert "matplotlib is not installed" in proc.stderr
    assert not (out / "latest.json").exists()  # the sweep writes its own files only
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("engine", ["zarr-python", "zarrs-python"])
def test_zarr_engines_echo_their_thread_setting(engine: str, tmp_path: Path) -> None:
    """A child given ``--threads 2`` reports 2 in force (zarrs-python: under its own Python,
    the zarr-python 3.4.2 + zarrs environment of tests/interop, as ``make bench-sweep``
    names it in ``$ZARRFORGE_BENCH_ZARRS_PYTHON``)."""
    if engine == "zarr-python":
        python = sys.executable
    else:
        ensured = subprocess.run(
            [sys.executable, str(REPO / "tests/interop/_side_venv.py"), "zarr34"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert ensured.returncode == 0, ensured.stderr
        python = ensured.stdout.strip().splitlines()[-1]
    proc = subprocess.run(
        [
            python,
            "-m",
            "benchmarks.child",
            "--engine",
            engine,
            "--workload",
            "W5r",
            "--scale",
            "0.015625",
            "--repeat",
            "1",
            "--root",
            str(tmp_path),
            "--threads",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line[len(PREFIX) :]) for line in proc.stdout.splitlines() if line.startswith(PREFIX)]
    record = next(e for e in events if e["event"] == "result")
    assert record["threads"] == 2
    configuration = record["configuration"]
    assert configuration["threads"] == 2 and configuration["threading"]["max_workers"] == 2
    if engine == "zarrs-python":
        assert configuration["codec_pipeline"]["chunk_concurrent_maximum"] == 2


def _part(n: int, seconds: dict[str, float], **settings: object) -> dict[str, object]:
    """A ``sweep.json`` of one thread count, as ``run.py --threads-sweep N`` writes it."""
    runs = [
        {"engine": engine, "workload": "W2", "threads": n, "best": {"total": s}, "verified": True}
        for engine, s in seconds.items()
    ]
    runs.append(
        {
            "engine": "limits",
            "workload": "L-zstd",
            "threads": n,
            "best": {"read": 0.5 / n},
            "verified": True,
        }
    )
    base = {"scale": 1, "repeat": 1, "engines": list(seconds), "workloads": ["W2"], "threads": [n]}
    return {
        "cpu_count": 16,
        "date": "2026-12-04T00:00:00",
        "command": f"run.py --threads-sweep {n}",
        "settings": {**base, **settings},
        "runs": runs,
    }


def test_merged_sweeps_rebuild_one_table_across_their_thread_counts(tmp_path: Path) -> None:
    parts = [  # run in the device script's order: the telling counts first
        _part(4, {"zarrforge": 0.25, "tensorstore": 0.5}),
        _part(1, {"zarrforge": 1.0, "tensorstore": 1.5}),
    ]
    merged = sweep.merge(parts)
    assert merged["settings"]["threads"] == [1, 4]
    assert merged["commands"] == ["run.py --threads-sweep 4", "run.py --threads-sweep 1"]
    assert len(merged["runs"]) == 6
    rows = {row["threads"]: row for row in merged["table"]}
    assert rows[4]["engines"]["zarrforge"]["speedup"] == pytest.approx(4.0)
    assert rows[4]["engines"]["tensorstore"]["speedup"] == pytest.approx(3.0)
    assert rows[4]["ratios"]["zf/ts"] == pytest.approx(0.5)
    assert rows[1]["floor_seconds"] == pytest.approx(0.5) and rows[4]["floor_seconds"] == pytest.approx(0.125)

    for path, part in zip(("a.json", "b.json"), parts):
        (tmp_path / path).write_text(json.dumps(part))
    assert sweep.main([str(tmp_path / "out"), str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "out" / "sweep.json").read_text())["table"] == merged["table"]
    text = (tmp_path / "out" / "sweep.md").read_text()
    assert "| W2 | 1 | 1 | 1.5 |" in text and "| W2 | 4 | 0.25 | 0.5 |" in text


def test_sweeps_of_different_settings_are_not_merged() -> None:
    with pytest.raises(ValueError, match="scale"):
        sweep.merge([_part(1, {"zarrforge": 1.0}), _part(2, {"zarrforge": 0.5}, scale=0.5)])
    with pytest.raises(ValueError, match="no sweep"):
        sweep.merge([])
