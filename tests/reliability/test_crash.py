"""A process killed (SIGKILL) in the middle of writing leaves a store that opens and reads,
with every chunk entirely old or entirely new.

The local directory store writes each value to a temporary file and renames it
over the key, so a chunk file is either the old one or the new one whatever
moment the writer dies. These tests check that end to end: an array of
generation 0 is rewritten by a subprocess (``_workers.py write``, generations
1, 2, 1, ... with several threads) that is killed at a random moment during a
pass; then every chunk must hold one generation completely. The same for a
process rewriting the metadata document in a loop.

``ZARRFORGE_CRASH_TRIALS`` sets the number of kills per layout (default 3);
the random delays are printed on failure (and come from a seeded generator,
``ZARRFORGE_CRASH_SEED``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from _reliability import classify, create, generation_values, start_worker

import zarrforge
from zarrforge_std.stores.local import TEMP_PREFIX, LocalStore

TRIALS = int(os.environ.get("ZARRFORGE_CRASH_TRIALS", "3"))
SEED = int(os.environ.get("ZARRFORGE_CRASH_SEED", str(random.randrange(2**31))))
SHAPE, CHUNKS = (1024, 1536), (64, 64)


def _wait_ready(process) -> float:
    line = process.stdout.readline()
    assert line.strip() == "ready", (line, process.stderr.read()[-2000:] if process.poll() else "")
    return time.monotonic()


def _time_one_pass(root: Path, layout: str) -> float:
    process = start_worker(
        "write", str(root), layout, ",".join(map(str, SHAPE)), ",".join(map(str, CHUNKS)), "4", "2"
    )
    start = _wait_ready(process)
    process.stdout.readline()
    elapsed = time.monotonic() - start
    process.wait(timeout=120)
    return elapsed


def _temp_files(root: Path) -> list[Path]:
    return list(root.rglob(f"{TEMP_PREFIX}*"))


@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "v2"])
def test_killed_writer_leaves_every_chunk_old_or_new(tmp_path: Path, layout: str) -> None:
    rng = random.Random(f"{SEED}-{layout}")
    expected = {g: generation_values(SHAPE, CHUNKS, g) for g in (0, 1, 2)}
    calibration = tmp_path / "calibration"
    create(str(calibration), layout, shape=SHAPE, chunks=CHUNKS)[...] = expected[0]
    one_pass = _time_one_pass(calibration, layout)
    seen: dict[str, int] = {}
    for trial in range(TRIALS):
        root = tmp_path / f"trial{trial}"
        create(str(root), layout, shape=SHAPE, chunks=CHUNKS)[...] = expected[0]
        process = start_worker(
            "write", str(root), layout, ",".join(map(str, SHAPE)), ",".join(map(str, CHUNKS)), "4", "50"
        )
        _wait_ready(process)
        delay = rng.uniform(0.05, 2.5) * one_pass
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        where = f"layout {layout}, trial {trial}, kill after {delay:.3f} s (one pass {one_pass:.3f} s, seed {SEED})"
        array = zarrforge.open_array(str(root), "a")
        labels = classify(array[...], expected, CHUNKS)
        torn = {c: v for c, v in labels.items() if v not in (0, 1, 2)}
        assert not torn, f"{where}: torn chunks {sorted(torn)[:10]}"
        for label in labels.values():
            seen[str(label)] = seen.get(str(label), 0) + 1
        # temporary files of the killed writer may remain; the store never lists them
        assert not any(TEMP_PREFIX in key for key in LocalStore(root).list())
    print(layout, "chunk generations seen after the kills:", seen, f"(one pass {one_pass:.2f} s)")
    assert len(seen) >= 1


def test_killed_metadata_writer_leaves_a_readable_document(tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}-attrs")
    for trial in range(TRIALS):
        root = tmp_path / f"trial{trial}"
        create(str(root), "v3", shape=(4,), chunks=(2,))[...] = 1
        process = start_worker("attrs", str(root), "100000", "200000")
        _wait_ready(process)
        time.sleep(rng.uniform(0.01, 0.3))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        array = zarrforge.open_array(str(root), "a")
        attributes = dict(array.attrs)
        assert attributes == {} or (
            set(attributes) == {"round", "payload"} and attributes["payload"] == "x" * 200000
        ), trial
        assert np.array_equal(array[...], [1, 1, 1, 1])
        json.loads((root / "a" / "zarr.json").read_bytes())
