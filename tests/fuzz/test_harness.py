"""The fuzzing harness's own guards (``_fuzzkit.py``, ``run_fuzz.py``): a case that
hangs, hides a ``MemoryError`` or grows the peak memory fails, and the long runner
caps the address space. Each guard is shown catching what it is there for."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import _fuzzkit
import pytest
import run_fuzz
from _fuzzkit import Hang, Target, Violation, check_error

from zarrforge.errors import CorruptChunkError

HERE = Path(__file__).resolve().parent


def _case(check) -> Target:
    return Target("harness", strategy=lambda: None, check=check)


def test_the_default_limits_are_20_s_and_256_mib_per_case() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ZARRFORGE_FUZZ_CASE_SECONDS", "ZARRFORGE_FUZZ_CASE_MEMORY_MB")
    }
    script = "import json, _fuzzkit; print(json.dumps([_fuzzkit.CASE_SECONDS, _fuzzkit.CASE_MEMORY_BYTES]))"
    process = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=HERE,
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
        timeout=60,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    assert json.loads(process.stdout) == [20.0, 256 * 2**20]


def test_a_hanging_case_is_stopped_even_inside_except_exception(monkeypatch) -> None:
    monkeypatch.setattr(_fuzzkit, "CASE_SECONDS", 0.2)

    finished = []

    def stubborn(_value) -> None:
        until = time.monotonic() + 10
        while time.monotonic() < until:
            try:
                time.sleep(0.05)
            except Exception:  # noqa: BLE001  # what a codec or zarrforge might do
                pass
        finished.append(True)

    with pytest.raises(Hang, match="longer than 0.2 s"):
        _case(stubborn).run_case(None)
    assert not finished  # stopped inside its loop, not run to its end


def test_an_error_hiding_a_memory_error_fails_the_oracle() -> None:
    try:
        try:
            raise MemoryError()
        except MemoryError as exc:
            raise CorruptChunkError("chunk 'a/c/0' is damaged", key="a/c/0") from exc
    except CorruptChunkError as error:
        with pytest.raises(Violation, match="hides a MemoryError"):
            check_error(error, key="a/c/0")
    check_error(CorruptChunkError("chunk 'a/c/0' is damaged", key="a/c/0"), key="a/c/0")


def test_a_case_growing_the_peak_memory_past_the_limit_fails(monkeypatch) -> None:
    peaks = iter([0, _fuzzkit.CASE_MEMORY_BYTES, 0, _fuzzkit.CASE_MEMORY_BYTES + 2**20])
    monkeypatch.setattr(_fuzzkit, "_peak_rss", lambda: next(peaks))
    _case(lambda _value: None).run_case(None)  # at the limit: passes
    with pytest.raises(Violation, match="raised the process' peak memory by"):
        _case(lambda _value: None).run_case(None)


def test_the_long_runner_caps_the_address_space_1_gib_above_start_up(monkeypatch) -> None:
    limits: list[tuple] = []
    monkeypatch.setattr(run_fuzz, "_vm_size", lambda: 3 * 2**30)
    monkeypatch.setattr(run_fuzz.resource, "setrlimit", lambda *args: limits.append(args))
    monkeypatch.setattr(run_fuzz, "_fuzz_one", lambda target, seconds, batch: None)
    assert run_fuzz.main(["--child", "sharding_index", "--seconds", "0"]) == 0
    assert limits == [(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))]
