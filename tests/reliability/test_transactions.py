"""Transactions between processes: no lost increment from four processes committing
transactions on the same keys, and a process killed (SIGKILL) in the middle of a
commit leaves every key whole, old or new, and a commit record that names exactly
the keys in doubt.

The crash worker (``_workers.py commit``) commits one transaction over a local directory
store: 16 chunks (half read then written, so written conditionally; half written
whole) and the array's attributes, pausing before each write. The parent kills it
after a random number of writes, then checks what zarrforge.transaction promises.
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

import numpy as np
from _reliability import start_worker

import zarrforge

SEED = random.randrange(2**31)


def _prepare(root: Path) -> None:
    array = zarrforge.create_array(str(root), "a", shape=(64,), chunks=(4,), dtype="i4", fill_value=-1)
    array[...] = 1
    array.attrs["value"] = 1


def _kill_after_writes(root: Path, writes: int) -> list[str]:
    process = start_worker("commit", str(root), "2", "0.02")
    assert process.stdout.readline().strip() == "ready", process.stderr.read()[-2000:]
    written: list[str] = []
    while len(written) < writes:
        line = process.stdout.readline().split()
        assert line and line[0] == "wrote", (line, process.stderr.read()[-2000:])
        written.append(line[1])  # the first is the commit record
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    return written


def test_a_commit_killed_midway_leaves_whole_keys_and_a_record_naming_them(tmp_path) -> None:
    rng = random.Random(SEED)
    # 18 writes in all: the record, then 17 keys; killed after the record alone, after
    # some keys, and with one key left
    for trial, writes in enumerate([1, rng.randint(2, 16), 17]):
        root = tmp_path / f"trial{trial}"
        _prepare(root)
        written = _kill_after_writes(root, writes)[1:]
        where = f"trial {trial}, killed after {writes} writes (seed {SEED})"
        (record,) = zarrforge.unfinished_commits(str(root))
        chunk_keys = [f"a/c/{i}" for i in range(16)]
        assert sorted(record.keys) == sorted([*chunk_keys, "a/zarr.json"]), where
        assert set(written) <= set(record.keys), where
        array = zarrforge.open_array(str(root), "a")
        values = array[...].reshape(16, 4)
        for i, chunk in enumerate(values):
            assert len(set(chunk.tolist())) == 1 and chunk[0] in (1, 2), (where, i, chunk)
            assert chunk[0] == (2 if f"a/c/{i}" in written else 1), (where, i)
        assert array.attrs["value"] == (2 if "a/zarr.json" in written else 1), where
        zarrforge.clear_commit_record(str(root), record)
        assert zarrforge.unfinished_commits(str(root)) == []


def test_a_transaction_killed_before_its_commit_changes_nothing(tmp_path) -> None:
    _prepare(tmp_path)
    before = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    process = start_worker("commit", str(tmp_path), "2", "5")
    assert process.stdout.readline().strip() == "ready", process.stderr.read()[-2000:]
    # killed in the pause before the commit's first write (its record)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    after = {
        p.relative_to(tmp_path): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and "__zarrforge_commits" not in str(p)
    }
    assert after == before
    assert np.array_equal(zarrforge.open_array(str(tmp_path), "a")[...], np.ones(64))


def test_transactions_from_four_processes_lose_no_increment(tmp_path) -> None:
    array = zarrforge.create_array(str(tmp_path), "a", shape=(8,), chunks=(4,), dtype="i4", fill_value=0)
    array.attrs["count"] = 0
    rounds = 15
    go = tmp_path.parent / f"{tmp_path.name}-go"
    workers = [start_worker("tx-increment", str(tmp_path), str(rounds), str(go)) for _ in range(4)]
    for process in workers:
        assert process.stdout.readline().strip() == "ready"
    go.touch()
    conflicts = 0
    for process in workers:
        out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err[-3000:]
        conflicts += int(out.split()[-1])
    array = zarrforge.open_array(str(tmp_path), "a")
    assert array[0] == array[4] == 4 * rounds
    assert array.attrs["count"] == 4 * rounds
    assert zarrforge.unfinished_commits(str(tmp_path)) == []
    print("conflicts retried:", conflicts)
