"""zarrforge-batch-io's C helper, called directly: what it reads and writes, what it
answers where it cannot, and that it leaves nothing behind when it stops. Skipped, saying
so, where the helper was not built (it is built wherever the test suite runs: POSIX with a
C compiler)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import zarrforge_batch_io as batch_io

pytestmark = pytest.mark.skipif(not batch_io.AVAILABLE, reason="the C helper was not built here")


@pytest.fixture
def directory(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    at = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield tmp_path, at
    finally:
        os.close(at)


def test_reads_whole_files_of_every_size(directory: tuple[Path, int]) -> None:
    path, at = directory
    # up to 64 KiB in the first pass; larger ones read at their size once the GIL is back
    sizes = [0, 1, 4096, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 1_000_003]
    rng = np.random.default_rng(5)
    contents = {f"f{size}": rng.integers(0, 256, size, dtype=np.uint8).tobytes() for size in sizes}
    for name, content in contents.items():
        (path / name).write_bytes(content)
    assert batch_io.read_files(at, list(contents), True) == list(contents.values())


def test_answers_none_where_there_is_no_file_and_an_errno_for_other_failures(
    directory: tuple[Path, int],
) -> None:
    import errno

    path, at = directory
    (path / "file").write_bytes(b"x")
    (path / "subdirectory").mkdir()
    os.symlink("file", path / "link")
    os.symlink("loop", path / "loop")
    names = ["absent", "file/below", "subdirectory", "link", "loop", "with\x00nul"]
    assert batch_io.read_files(at, names, True) == [None, None, None, b"x", errno.ELOOP, errno.EINVAL]
    # not following links: a link is refused (ELOOP), for the caller to report by name
    assert batch_io.read_files(at, ["file", "link"], False) == [b"x", errno.ELOOP]


def test_writes_and_renames_into_place_replacing_what_was_there(directory: tuple[Path, int]) -> None:
    path, at = directory
    (path / "old").write_bytes(b"before")
    values: list[bytes | bytearray | memoryview] = [
        b"",
        b"new",
        bytearray(b"from a bytearray"),
        memoryview(np.arange(70_000, dtype=np.uint16)),
    ]
    names = ["empty", "old", "third", "large"]
    written = batch_io.write_files(at, names, [f".tmp-{n}" for n in range(4)], values)
    assert written == 4
    assert sorted(os.listdir(path)) == sorted(names)  # no temporary file left
    assert [(path / n).read_bytes() for n in names] == [bytes(v) for v in values]


def test_stops_at_the_first_item_it_cannot_write_and_leaves_no_temporary_file(
    directory: tuple[Path, int],
) -> None:
    path, at = directory
    (path / ".tmp-1").write_bytes(b"someone else's")  # the second temporary name is taken
    assert batch_io.write_files(at, ["a", "b", "c"], [".tmp-0", ".tmp-1", ".tmp-2"], [b"1", b"2", b"3"]) == 1
    assert sorted(os.listdir(path)) == [".tmp-1", "a"]
    assert (path / ".tmp-1").read_bytes() == b"someone else's"
    strided = memoryview(np.arange(8, dtype=np.uint8))[::2]  # not one contiguous buffer
    assert batch_io.write_files(at, ["d", "e"], [".tmp-3", ".tmp-4"], [b"4", strided]) == 1
    assert batch_io.write_files(at, ["f\x00", "g"], [".tmp-5", ".tmp-6"], [b"5", b"6"]) == 0
    assert sorted(os.listdir(path)) == [".tmp-1", "a", "d"]


def test_a_removed_directory_takes_no_file(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    at = os.open(gone, os.O_RDONLY | os.O_DIRECTORY)
    try:
        gone.rmdir()
        assert batch_io.write_files(at, ["a"], [".tmp"], [b"1"]) == 0
        assert batch_io.read_files(at, ["a"], True) == [None]
    finally:
        os.close(at)


def test_arguments_of_the_wrong_kind_raise_before_any_file_is_touched(directory: tuple[Path, int]) -> None:
    path, at = directory
    with pytest.raises(TypeError):
        batch_io.read_files(at, ("a",), True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="names must be str"):
        batch_io.read_files(at, [b"a"], True)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="names must be str"):
        batch_io.write_files(at, ["a"], [7], [b"1"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="as long"):
        batch_io.write_files(at, ["a", "b"], [".t"], [b"1"])
    assert os.listdir(path) == []


@pytest.mark.parametrize("call", ["read_files", "write_files"])
def test_other_threads_run_python_while_a_batch_runs(directory: tuple[Path, int], call: str) -> None:
    """Counted, not timed. With a switch interval longer than the test, a thread holding
    the GIL keeps it until it gives it up: another thread counts its loops while a batch
    runs only if the batch gives up the GIL (the counter gives it up on every loop)."""
    path, at = directory
    names = [f"f{n}" for n in range(2000)]
    for name in names:
        (path / name).write_bytes(b"x" * 4096)
    phase = [0]
    inside = [0]

    def count() -> None:
        while phase[0] != 2:
            if phase[0] == 1:
                inside[0] += 1
            time.sleep(0)  # gives up the GIL

    interval = sys.getswitchinterval()
    counter = threading.Thread(target=count)
    sys.setswitchinterval(60)
    try:
        counter.start()
        phase[0] = 1
        for _ in range(5):
            if call == "read_files":
                assert batch_io.read_files(at, names, True) == [b"x" * 4096] * len(names)
            else:
                temporaries = [f".tmp-{n}" for n in range(len(names))]
                assert batch_io.write_files(at, names, temporaries, [b"y"] * len(names)) == len(names)
        phase[0] = 2
        counter.join()
    finally:
        phase[0] = 2
        sys.setswitchinterval(interval)
    assert inside[0] > 0
