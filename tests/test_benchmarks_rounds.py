"""``benchmarks/run.py --rounds``: the engines of a workload alternate across rounds, and
the table's record for each keeps every repetition and the best of them all. Nothing
here times anything: the records are made up, as the children would report them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
try:
    from benchmarks import run
finally:
    sys.path.remove(str(REPO))


def test_each_round_runs_every_engine_in_the_other_order() -> None:
    jobs = run.round_jobs(["W4", "W6c"], ["zarrforge", "tensorstore"], 3)
    assert [(engine, w) for engine, w, _ in jobs] == [
        ("zarrforge", "W4"),
        ("tensorstore", "W4"),
        ("tensorstore", "W4"),
        ("zarrforge", "W4"),
        ("zarrforge", "W4"),
        ("tensorstore", "W4"),
        ("zarrforge", "W6c"),
        ("tensorstore", "W6c"),
        ("tensorstore", "W6c"),
        ("zarrforge", "W6c"),
        ("zarrforge", "W6c"),
        ("tensorstore", "W6c"),
    ]
    assert run.round_jobs(["W4"], ["zarrforge", "tensorstore"], 1) == [
        ("zarrforge", "W4", None),
        ("tensorstore", "W4", None),
    ]


def _record(engine: str, seconds: list[float], peak: float, **extra) -> dict:
    return {
        "engine": engine,
        "workload": "W4",
        "threads": None,
        "repeat": len(seconds),
        "seconds": {"total": seconds},
        "best": {"total": min(seconds)},
        "cpu_seconds": [s * 0.9 for s in seconds],
        "others_cpu_share": [0.0] * len(seconds),
        "peak_rss_mib": peak,
        **extra,
    }


def test_the_rounds_of_one_engine_merge_into_one_record_with_the_best_of_all() -> None:
    runs = [
        _record("zarrforge", [0.9, 0.8], 100),
        _record("tensorstore", [0.7, 0.75], 300),
        _record("tensorstore", [0.95, 0.9], 310),
        _record("zarrforge", [0.6, 1.1], 120),
    ]
    merged = run.merged_rounds(runs)
    assert [r["engine"] for r in merged] == ["zarrforge", "tensorstore"]
    zf, ts = merged
    assert zf["best"] == {"total": 0.6} and ts["best"] == {"total": 0.7}
    assert zf["seconds"]["total"] == [0.9, 0.8, 0.6, 1.1] and zf["repeat"] == 4
    assert zf["cpu_seconds"] == pytest.approx([0.81, 0.72, 0.54, 0.99])
    assert (zf["peak_rss_mib"], ts["peak_rss_mib"]) == (120, 310)
    assert (zf["rounds"], ts["rounds"]) == (2, 2)


def test_a_failed_round_is_the_merged_record() -> None:
    failed = {"engine": "zarrforge", "workload": "W4", "threads": None, "error": "exit status 1"}
    merged = run.merged_rounds([_record("zarrforge", [0.5], 100), failed])
    assert merged == [{**failed, "rounds": 2}]


def test_a_single_round_is_left_as_it_was() -> None:
    record = _record("zarrforge", [0.5, 0.4], 100)
    assert run.merged_rounds([record]) == [{**record, "rounds": 1}]
