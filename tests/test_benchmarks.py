"""The benchmark suite's correctness checks, at a tiny scale (see benchmarks/README.md).

Every workload and limit runs once, through the same code the benchmark
children run (:func:`benchmarks.child.run`), for every engine, at scale 1/256
in a temporary directory; each run verifies what it read or listed and raises
if it is wrong. One driver run in a subprocess checks the table and JSON
output. Nothing here looks at timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
try:
    from benchmarks import child, data, engines, workloads
    from benchmarks.limits import LIMITS
    from benchmarks.workloads import WORKLOADS
finally:
    sys.path.remove(str(REPO))  # the package is imported; leave the other tests' sys.path alone

SCALE = 1 / 256  # every workload still verifies; the module takes half the time of 1/64

pytest.importorskip("zarr")
pytest.importorskip("tensorstore")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One directory for the module, so the read workloads reuse what the writes left.
    return tmp_path_factory.mktemp("bench")


# engines this interpreter can import (zarrs-python runs under its own: see the last test)
IN_PROCESS = tuple(name for name in engines.NAMES if name not in engines.INTERPRETERS)


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("engine", IN_PROCESS)
def test_workload_verifies(engine: str, workload: str, root: Path) -> None:
    record = child.run(engine, workload, scale=SCALE, repeat=1, root=root)
    assert record["verified"] is True
    assert len(record["seconds"]["total"]) == 1


@pytest.mark.parametrize("limit", list(LIMITS))
def test_limit_verifies(limit: str, root: Path) -> None:
    record = child.run("limits", limit, scale=SCALE, repeat=1, root=root)
    assert record["verified"] is True


def test_engines_write_the_same_metadata(tmp_path: Path) -> None:
    """The three engines create the sharded array with identical codecs, grid and fill value."""
    spec = data.spec("sharded3d", SCALE)
    values = data.generate(spec)
    seen = {}
    for name in IN_PROCESS:
        path = tmp_path / f"{name}.zarr"
        engines.load(name).write_array(str(path), spec, values)
        doc = json.loads((path / "zarr.json").read_text())
        for codec in doc["codecs"]:
            if codec["name"] == "sharding_indexed":  # tensorstore leaves out the default
                codec["configuration"].setdefault("index_location", "end")
        seen[name] = {k: doc[k] for k in ("shape", "data_type", "chunk_grid", "codecs", "fill_value")}
    assert seen["zarrforge"] == seen["zarr-python"] == seen["tensorstore"]


def test_a_wrong_read_fails_verification(tmp_path: Path) -> None:
    ctx = workloads.Context(root=tmp_path, scale=SCALE)
    w = WORKLOADS["W5r"]
    engine = engines.load("zarrforge")
    state = w.prepare(engine, ctx)
    result = w.run(engine, ctx, state)
    result[0, 0] ^= 1
    with pytest.raises(workloads.VerificationError, match="1 of"):
        w.verify(engine, ctx, state, result)


def test_wrong_members_fail_verification() -> None:
    members = data.group_members()
    members["m007"] = {**members["m007"], "scale": 0.0}
    with pytest.raises(workloads.VerificationError, match="m007"):
        workloads.check_members(members, "W6")
    del members["m007"]
    with pytest.raises(workloads.VerificationError, match="299"):
        workloads.check_members(members, "W6")


def test_scaled_shapes_keep_chunks() -> None:
    for name in data.BASE:
        full = data.spec(name, 1.0)
        tiny = data.spec(name, 1 / 4096)
        assert tiny.chunks == full.chunks and tiny.shards == full.shards
        assert all(n >= c for n, c in zip(tiny.shape, tiny.chunks))
    assert data.spec("float3d", 0.125).shape == (256, 256, 256)
    assert data.spec("float3d", 0.3).shape == data.spec("sharded3d", 0.3).shape


def test_driver_writes_table_and_json(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run.py"),
            "--scale",
            "1/256",
            "--repeat",
            "2",
            "--only",
            "W5,W5r,W6",
            "--engines",
            "zarrforge,tensorstore",
            "--path",
            str(tmp_path / "data"),
            "--out",
            str(out),
            "--no-chart",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| W5r |" in proc.stdout and "L-files/read" in proc.stdout
    result = json.loads((out / "latest.json").read_text())
    assert result["settings"]["workloads"] == ["W5", "W5r", "W6"]
    assert result["settings"]["limits"] == ["L-files", "L-list"]
    assert result["environment"]["unset_in_children"] == ["OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]
    runs = {(r["engine"], r["workload"]): r for r in result["runs"]}
    assert all(not r.get("error") for r in runs.values())
    assert len(runs["zarrforge", "W6"]["seconds"]["total"]) == 2
    row = next(r for r in result["table"] if r["workload"] == "W5")
    assert row["ratios"]["zf/limit"] is not None and row["ratios"]["zf/zp"] is None
    w6 = next(r for r in result["table"] if r["workload"] == "W6")
    assert w6["limit"] == "L-list/list" and w6["ratios"]["zf/limit"] > 0
    assert not (tmp_path / "data").exists()  # removed without --keep


def test_the_conditional_write_benchmark_runs_and_checks_the_shard(tmp_path: Path) -> None:
    """benchmarks/conditional_writes.py at its smallest: the four shard writers' final
    values are checked by the script itself (it exits with an error on a lost update)."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "conditional_writes.py"),
            "--scale",
            "0.01",
            "--repeat",
            "1",
            "--rounds",
            "3",
            "--path",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["one_shard_four_processes"]["updates"] == 4 * 4 * 3
    assert set(report["timings_s"]) == {
        "whole/conditional",
        "whole/unconditional",
        "partial/conditional",
        "partial/unconditional",
    }
    assert set(report["workloads"]["timings_s"]) == {
        "W1/conditional",
        "W1/unconditional",
        "W3/conditional",
        "W3/unconditional",
    }


def test_the_xarray_write_benchmark_checks_both_outputs_and_reports_the_floor(tmp_path: Path) -> None:
    """benchmarks/xarray_write.py at its smallest: before timing, it reads each engine's
    output with the other engine and compares it with the dataset (an exception, so a
    nonzero exit, if they differ); the report has both engines and the zstd floor."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "xarray_write.py"),
            "--scale",
            "0.01",
            "--variables",
            "2",
            "--repeat",
            "1",
            "--path",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["variables"] == 2 and report["shape"] == [8, 512, 410]
    assert set(report["best_s"]) == {"zarrforge", "zarr-python", "floor (zstd only)"}
    assert set(report["over_floor"]) == {"zarrforge", "zarr-python"}
    assert list(tmp_path.iterdir()) == []  # its temporary directory is removed


def test_zarrs_python_runs_as_a_peer_under_its_own_python(tmp_path: Path) -> None:
    """zarrs-python (zarr-python 3.4 with the Rust codec pipeline) needs Python >= 3.12: its
    children run under ``$ZARRFORGE_BENCH_ZARRS_PYTHON``; here the zarr-python 3.4.2
    environment of tests/interop (built by ``make test``), which holds zarrs too."""
    ensured = subprocess.run(
        [sys.executable, str(REPO / "tests/interop/_side_venv.py"), "zarr34"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ensured.returncode == 0, ensured.stderr
    python = ensured.stdout.strip().splitlines()[-1]
    out = tmp_path / "results"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run.py"),
            "--scale",
            "1/256",
            "--repeat",
            "1",
            "--only",
            "W2,W6",
            "--engines",
            "zarrforge,zarrs-python",
            "--no-limits",
            "--path",
            str(tmp_path / "data"),
            "--out",
            str(out),
            "--no-chart",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ZARRFORGE_BENCH_ZARRS_PYTHON": python},
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads((out / "latest.json").read_text())
    runs = {(r["engine"], r["workload"]): r for r in result["runs"]}
    assert not runs["zarrs-python", "W2"].get("error"), runs["zarrs-python", "W2"].get("error")
    configuration = runs["zarrs-python", "W2"]["configuration"]
    assert configuration["codec_pipeline"]["path"] == "zarrs.ZarrsCodecPipeline"
    assert configuration["zarrs"] == "0.2.3" and configuration["version"] == "3.4.2"
    row = next(r for r in result["table"] if r["workload"] == "W2")
    assert row["ratios"]["zf/zrs"] > 0 and "zf/zrs" in proc.stdout


def test_the_cloud_benchmark_runs_every_engine_against_a_local_s3(tmp_path: Path) -> None:
    """benchmarks/cloud.py at toy size: W7 and W8 through a local S3 and its latency proxy,
    each engine's reads checked against the values written by the script itself."""
    out = tmp_path / "cloud.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "cloud.py"),
            "--latency",
            "0",
            "--repeat",
            "1",
            "--scale",
            "0.02",
            "--reads",
            "8",
            "--json",
            str(out),
            "--engines",
            "zarrforge (fsspec),zarrforge (obstore),zarr-python (ObjectStore),tensorstore (s3)",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert set(result["seconds"]) == {
        "zarrforge (fsspec)",
        "zarrforge (obstore)",
        "zarr-python (ObjectStore)",
        "tensorstore (s3)",
    }
    for engine, seconds in result["seconds"].items():
        assert set(seconds) == {"W7w", "W7r", "W8"}, (engine, seconds)
    assert "| W8 | zarrforge (obstore) |" in proc.stdout


def test_the_serve_benchmark_runs_its_three_measurements(tmp_path: Path) -> None:
    # the quick form: every server must send every stored byte, or the run fails
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.serve_throughput",
            "--side",
            "512",
            "--members",
            "50",
            "--passes",
            "1",
            "--repeat",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for heading in ("Pass-through chunks", "Re-encoded chunks", "Time to first byte"):
        assert heading in done.stdout
    assert "zarrforge / http.server throughput" in done.stdout
