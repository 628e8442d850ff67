"""Zip members are inflated under the same limits as any other value read (issue #41):
``config.max_chunk_bytes`` for a chunk, ``config.max_document_bytes`` for a metadata
document; checked against the size the zip directory declares before anything is
inflated, and while inflating, so that a header that lies gets no further. The refusal
names the key and the setting, in every mode (an append-mode open reports it, not an
append-only error)."""

from __future__ import annotations

import struct
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import zarrforge as zf
from zarrforge.errors import DocumentTooLargeError, ResourceLimitError, StoreError
from zarrforge_fsspec.zip import ZipStore

MiB = 1 << 20
INFLATED = 32 * MiB  # what one member inflates to, from about 32 KiB in the archive


def _array_document() -> bytes:
    array = zf.create_array(None, shape=(16,), chunks=(16,), dtype="uint8", compressors=None)
    return array.store.get("zarr.json")


def _archive(path: Path, members: dict[str, bytes]) -> str:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, value in members.items():
            archive.writestr(name, value)
    return f"zip://{path}"


def _peak(action: Callable[[], Any]) -> tuple[BaseException | None, int]:
    """What ``action`` raised, and the most memory Python held meanwhile."""
    tracemalloc.start()
    try:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001  # returned to the test
            return exc, tracemalloc.get_traced_memory()[1]
        return None, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_chunk_member_inflating_past_max_chunk_bytes_is_refused_before_inflating(tmp_path):
    url = _archive(tmp_path / "bomb.zip", {"zarr.json": _array_document(), "c/0": bytes(INFLATED)})
    array = zf.open_array(url, mode="r")
    with zf.config.set(max_chunk_bytes=MiB):
        error, peak = _peak(lambda: array[...])
    assert isinstance(error, ResourceLimitError), repr(error)
    message = str(error)
    assert "'c/0'" in message and f"declares {INFLATED} bytes" in message
    assert "max_chunk_bytes" in message and "zarrforge.config.set(" in message
    assert peak < MiB  # nothing of the member's size was inflated


@pytest.mark.parametrize("mode", ["r", "r+", "a"])
def test_a_document_member_inflating_past_max_document_bytes_is_refused(tmp_path, mode):
    document = b'{"zarr_format": 3, "node_type": "group", "attributes": {"x": "' + b"x" * INFLATED + b'"}}'
    url = _archive(tmp_path / "bomb.zip", {"zarr.json": document})
    with zf.config.set(max_document_bytes=MiB):
        error, peak = _peak(lambda: zf.open_group(url, mode=mode))
    assert isinstance(error, DocumentTooLargeError), repr(error)  # in mode "a" too
    assert error.key == "zarr.json" and error.limit == MiB and "max_document_bytes" in str(error)
    assert peak < 2 * MiB


def _lie_about_size(path: Path, name: str, declared: int) -> None:
    """Make the archive's headers say that ``name`` inflates to ``declared`` bytes."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
        local = info.header_offset
    central = data.rindex(b"PK\x01\x02")  # the one member's entry in the directory
    assert data[local : local + 4] == b"PK\x03\x04"
    struct.pack_into("<I", data, local + 22, declared)  # the local header's size
    struct.pack_into("<I", data, central + 24, declared)  # the central directory's
    path.write_bytes(bytes(data))


def test_a_member_whose_header_understates_its_size_inflates_no_further(tmp_path):
    path = tmp_path / "liar.zip"
    _archive(path, {"c/0": bytes(INFLATED)})
    _lie_about_size(path, "c/0", 100)
    store = ZipStore(path, read_only=True)
    with zf.config.set(max_chunk_bytes=MiB):
        error, peak = _peak(lambda: store.get("c/0"))
    assert isinstance(error, StoreError) and "'c/0'" in str(error), repr(error)
    assert peak < MiB


def test_a_ranged_read_is_bounded_too(tmp_path):
    path = tmp_path / "bomb.zip"
    _archive(path, {"c/0": bytes(INFLATED)})
    store = ZipStore(path, read_only=True)
    with zf.config.set(max_chunk_bytes=MiB):
        from zarrforge.abc.store import ByteRange

        assert store.get("c/0", ByteRange(offset=10, length=5)) == bytes(5)
        with pytest.raises(ResourceLimitError, match="'c/0'.*max_chunk_bytes"):
            store.get("c/0", ByteRange(offset=10))
    assert len(store.get("c/0")) == INFLATED  # under the default limit: read whole


def test_check_deep_reports_the_member_by_name_without_inflating_it(tmp_path):
    from click.testing import CliRunner

    from zarrforge_cli.main import cli

    url = _archive(tmp_path / "bomb.zip", {"zarr.json": _array_document(), "c/0": bytes(INFLATED)})
    with zf.config.set(max_chunk_bytes=MiB):
        results: list[Any] = []
        error, peak = _peak(lambda: results.append(CliRunner().invoke(cli, ["check", "--deep", url])))
    assert error is None and results[0].exit_code == 1, results[0].output
    assert "c/0" in results[0].output and "max_chunk_bytes" in results[0].output
    assert peak < 2 * MiB
