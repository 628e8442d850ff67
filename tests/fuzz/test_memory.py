"""Allocation guards: the memory-sensitive targets under an address-space limit, and the
ways found (and fixed) that made zarrforge allocate far more than a chunk's size.

* ``test_targets_under_rlimit``: a short run of every memory-sensitive target in
  a subprocess whose address space is capped (``run_fuzz.py --child``); any
  huge allocation there becomes a ``MemoryError``, which the oracle reports.
* ``test_decompression_bomb_*`` (B2, fixed): a small compressed chunk that inflates
  to far more than the chunk's decoded size is refused by every compressor
  before it inflates (the chain passes each decoder the size it must produce).
* ``test_write_allocates_whole_chunk`` (B5, fixed): writing three elements to an
  array whose metadata declares a 1 TiB chunk is refused with
  ``ResourceLimitError`` under ``max_request_bytes`` instead of allocating it.
* ``test_request_limit_and_size_do_not_overflow`` (fixed): element counts are
  Python integers, so they do not wrap around for huge arrays.
* ``test_request_limit_is_checked_before_the_chunks_are_enumerated`` (B9, fixed): a
  read or write that ``max_request_bytes`` refuses does not first list every chunk it
  touches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MEMORY_TARGETS = [
    "codec_decode",
    "sharding_index",
    "draft_shard_index",
    "metadata_v3",
    "metadata_v2_zarray",
    "metadata_draft",
]


def test_targets_under_rlimit() -> None:
    seconds = float(os.environ.get("ZARRFORGE_FUZZ_RLIMIT_SECONDS", "0.7"))
    process = subprocess.run(
        [
            sys.executable,
            str(HERE / "run_fuzz.py"),
            "--child",
            ",".join(MEMORY_TARGETS),
            "--seconds",
            str(seconds),
            "--batch",
            "25",
            "--memory-mb",
            "768",
            "--tolerate-known",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert process.returncode == 0, process.stderr[-3000:]
    final: dict[str, dict] = {}
    for line in process.stdout.splitlines():
        record = json.loads(line)
        final[record["target"]] = record
    assert sorted(final) == sorted(MEMORY_TARGETS), process.stdout[-2000:]
    problems = {name: r["failures"] for name, r in final.items() if r["failures"]}
    assert not problems, json.dumps(problems, indent=1)[:6000]
    assert all(r["cases"] > 0 for r in final.values())


BOMB_SCRIPT = textwrap.dedent("""
    import json, resource, sys
    from zarrforge.abc.codec import ChunkSpec
    from zarrforge.engine.codec_chain import CodecChain
    from zarrforge.errors import CorruptChunkError
    from zarrforge.registries import resolution as c

    compressors = json.loads(sys.argv[1])
    inflated = int(sys.argv[2])
    spec = ChunkSpec((10,), c.data_type_from_json("int8"), 0, c.memory_layout("C"))
    bombs = []
    zeros = bytes(inflated)
    for document in compressors:
        chain = CodecChain(c.codecs_from_json([{"name": "bytes"}, document]))
        bombs.append((document["name"], chain, chain.bytes_bytes[0].encode(zeros)))
    del zeros
    with open("/proc/self/status") as f:
        vm = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
    limit = vm + 96 * 2**20  # far less than one bomb inflated, far more than one chunk
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name, chain, bomb in bombs:
        try:
            chain.decode(bomb, spec, key="a/c/0")
            outcome = "decoded"
        except CorruptChunkError as exc:
            cause, memory = exc, False
            while cause is not None:
                memory = memory or isinstance(cause, MemoryError)
                cause = cause.__cause__ or cause.__context__
            outcome = "memory" if memory else "refused"
        except MemoryError:
            outcome = "bare MemoryError"
        print(json.dumps({"codec": name, "compressed": len(bomb), "outcome": outcome}), flush=True)
""")

BOMBS = {
    "gzip": {"name": "gzip", "configuration": {"level": 1}},
    "zstd": {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
    "blosc": {
        "name": "blosc",
        "configuration": {"cname": "zstd", "clevel": 1, "shuffle": "noshuffle", "typesize": 1},
    },
    "numcodecs.zlib": {"name": "numcodecs.zlib", "configuration": {"level": 1}},
    "numcodecs.bz2": {"name": "numcodecs.bz2", "configuration": {"level": 1}},
    "numcodecs.lzma": {"name": "numcodecs.lzma", "configuration": {"preset": 1}},
    "numcodecs.lz4": {"name": "numcodecs.lz4"},
    "numcodecs.gzip": {"name": "numcodecs.gzip", "configuration": {"level": 1}},
    "numcodecs.zstd": {"name": "numcodecs.zstd", "configuration": {"level": 1}},
    "numcodecs.blosc": {
        "name": "numcodecs.blosc",
        "configuration": {"cname": "zstd", "clevel": 1, "shuffle": 0},
    },
}


def _bomb_outcomes(names: list[str], inflated: int = 192 * 2**20) -> dict[str, str]:
    process = subprocess.run(
        [sys.executable, "-c", BOMB_SCRIPT, json.dumps([BOMBS[n] for n in names]), str(inflated)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr[-3000:]
    return {r["codec"]: r["outcome"] for r in map(json.loads, process.stdout.splitlines())}


def test_decompression_bomb_is_refused_without_inflating() -> None:
    """A ~1-MB chunk for a 10-byte array chunk must be refused (CorruptChunkError)
    without allocating what it inflates to (192 MiB here, under a 96 MiB cap)."""
    outcomes = _bomb_outcomes(sorted(BOMBS))
    assert outcomes == dict.fromkeys(BOMBS, "refused"), outcomes


def test_write_allocates_whole_chunk() -> None:
    script = textwrap.dedent("""
        import json, resource
        import zarrforge
        from zarrforge import config
        from zarrforge.errors import ResourceLimitError
        from zarrforge_std.stores.memory import MemoryStore
        store = MemoryStore()
        zarrforge.create_array(store, "a", shape=(10,), chunks=(5,), dtype="int8")
        doc = json.loads(store.get("a/zarr.json"))
        doc["shape"] = [2**40]
        doc["chunk_grid"]["configuration"]["chunk_shape"] = [2**40]   # 1 TiB chunks
        store.set("a/zarr.json", json.dumps(doc).encode())
        with config.set(max_request_bytes=2**20):
            array = zarrforge.open_array(store, "a", mode="r+")
            assert list(array[0:3]) == [0, 0, 0]
            try:
                array[0:3] = 5
                print("written")
            except ResourceLimitError:
                print("refused")
            except MemoryError:
                print("bare MemoryError")
    """)
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr[-3000:]
    assert process.stdout.strip() == "refused", process.stdout


def test_request_limit_and_size_do_not_overflow() -> None:
    import zarrforge
    from zarrforge import config
    from zarrforge.errors import ResourceLimitError
    from zarrforge_std.stores.memory import MemoryStore

    array = zarrforge.create_array(
        MemoryStore(), "a", shape=(2**32, 2**32), chunks=(2**15, 2**15), dtype="int8"
    )
    assert array.size == 2**64
    with config.set(max_request_bytes=2**20):
        with pytest.raises(ResourceLimitError):
            array[...]


def test_request_limit_is_checked_before_the_chunks_are_enumerated() -> None:
    script = textwrap.dedent("""
        import zarrforge
        from zarrforge import config
        from zarrforge.errors import ResourceLimitError
        from zarrforge_std.stores.memory import MemoryStore
        array = zarrforge.create_array(MemoryStore(), "a", shape=(10**8,), chunks=(1,),
                                       dtype="int8")
        with config.set(max_request_bytes=2**20):
            try:
                array[...]
            except ResourceLimitError:
                print("read refused")
            try:
                array[...] = 1
            except ResourceLimitError:
                print("write refused")
    """)
    try:
        process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=8)
    except subprocess.TimeoutExpired:
        pytest.fail("a read or write that max_request_bytes refuses ran for more than 8 s")
    assert process.stdout.split() == ["read", "refused", "write", "refused"], process.stderr[-2000:]


def _overhanging(sharded: bool):
    """A (3,)-element array whose metadata was edited to declare 1 GiB chunks (and, sharded,
    1 GiB inner chunks), with a small stored chunk: found by the metadata_v2_zarray long run."""
    import zarrforge
    from zarrforge_std.stores.memory import MemoryStore

    store = MemoryStore()
    zarrforge.create_array(
        store, "a", shape=(3,), chunks=(3,), dtype="int32", shards=(3,) if sharded else None
    )
    array = zarrforge.open_array(store, "a", mode="r+")
    array[...] = [1, 2, 3]
    stored = store.get("a/zarr.json")
    assert stored is not None
    doc = json.loads(stored)
    doc["chunk_grid"]["configuration"]["chunk_shape"] = [2**28]
    if sharded:
        doc["codecs"][0]["configuration"]["chunk_shape"] = [2**28]
    store.set("a/zarr.json", json.dumps(doc).encode())
    return zarrforge.open_array(store, "a", mode="r+")


@pytest.mark.parametrize("sharded", [False, True], ids=["plain", "sharded"])
@pytest.mark.parametrize("region", [slice(0, 3), slice(0, 2)], ids=["covered", "part"])
def test_chunk_overhanging_the_array_is_checked_against_the_limit(sharded, region) -> None:
    """Reading all three elements covers the chunk's in-bounds part, yet decoding it means
    holding all 2**28 declared elements: refused up front under max_request_bytes."""
    from zarrforge import config
    from zarrforge.errors import ResourceLimitError

    array = _overhanging(sharded)
    # the chunk's key, or for part of a shard the inner chunk's shape (it has no key)
    whole = not sharded or region == slice(0, 3)
    named = r"chunk 'a/c/0' of shape" if whole else r"inner chunks? a \w+ touches of shape"
    setting = r".*over the limit of 1048576 bytes \(zarrforge.config max_request_bytes\)"
    with config.set(max_request_bytes=2**20):
        with pytest.raises(ResourceLimitError, match=named + setting):
            array[region]
        with pytest.raises(ResourceLimitError, match=named + setting):
            array[region] = 7
