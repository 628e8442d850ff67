"""Fuzz targets: the shard index decoders of ``sharding_indexed`` and the 2022 draft's
sharding storage transformer, on mutated shards.

``sharding_index``: a shard written by the codec, then damaged either
*semantically* (index entries replaced by hostile ``(offset, nbytes)`` pairs
-- half empty, overlapping, inside the index, past the end, absurdly large,
zero length -- and the index re-encoded so its CRC still matches, which
sends the damage straight to the index validation) or at the byte level.
Then ``decode``, ``decode_partial`` and ``encode_partial`` run on it; each
must give a correct result or a ``CorruptChunkError`` naming the key.
Differential checks: when the whole shard decodes, a partial read of it must
succeed and equal the same selection of the whole, and a partial update
must decode to the whole with the update applied.

``draft_shard_index``: an array of the 2022 draft with the sharding
transformer; one stored shard is damaged the same two ways (its index is a
bare little-endian ``uint64`` table at the end, no checksum); then chunk
reads through the transformer store (whole values and byte ranges, which
must agree), the listing of stored chunks, an array read (chunks in other
shards must still read their true values) and a write that rewrites the
damaged shard.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from _fuzzkit import expect, mutate_bytes, target
from hypothesis import strategies as st

import zarrforge
from zarrforge import config
from zarrforge.abc.codec import ChunkSpec
from zarrforge.abc.store import ByteRange
from zarrforge.engine.codec_chain import CodecChain
from zarrforge.errors import CorruptChunkError
from zarrforge.registries import resolution as c
from zarrforge_sharding.index import EMPTY, MAX_RANGE
from zarrforge_std.stores.memory import MemoryStore

KEY = "fuzz/c/0/0"
B = {"name": "bytes", "configuration": {"endian": "little"}}
U64 = 2**64 - 1


def corrupt_only(caught: list, what: str) -> None:
    """Damage must surface as a ``CorruptChunkError``, not as any other zarrforge error."""
    for error in caught:
        assert isinstance(error, CorruptChunkError), (
            f"{what} of a damaged shard raised {type(error).__name__}: {error}"
        )


def hostile_entry(draw: Any, entries: np.ndarray, shard_size: int, index_size: int) -> tuple[int, int]:
    """An ``(offset, nbytes)`` pair chosen to break one of the index's invariants."""
    used = entries.reshape(-1, 2)
    used = used[used[:, 0] != EMPTY]
    other = (int(used[0][0]), int(used[0][1])) if len(used) else (0, 1)
    offset = draw(st.integers(0, max(0, shard_size)))
    return draw(
        st.sampled_from(
            [
                (U64, U64),  # empty
                (U64, draw(st.integers(0, 64))),  # half empty
                (offset, U64),  # half empty the other way
                (0, shard_size),  # covers everything, index included
                (0, index_size),  # exactly the index (index at the start)
                (max(0, shard_size - index_size), index_size),  # exactly the index (at the end)
                (max(0, shard_size - 1), 5),  # runs past the end
                (shard_size, 0),  # zero bytes at the very end
                (offset, 0),  # zero bytes
                other,  # a duplicate of another entry
                (other[0] + 1, other[1]),  # overlapping another entry
                (MAX_RANGE - 1, 1),
                (MAX_RANGE, 1),
                (1, MAX_RANGE),
                (2**63, 2**63),
                (U64 - 1, 2),
                (offset, draw(st.integers(0, 2 * shard_size + 1))),
            ]
        )
    )


@st.composite
def shard_cases(draw: Any) -> dict[str, Any]:
    ndim = draw(st.integers(1, 2))
    inner = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    cps = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    shape = tuple(i * n for i, n in zip(inner, cps))
    inner_codecs = draw(
        st.sampled_from([[B], [B, {"name": "gzip", "configuration": {"level": 1}}], [B, {"name": "crc32c"}]])
    )
    index_codecs = draw(st.sampled_from([[B, {"name": "crc32c"}], [B]]))
    location = draw(st.sampled_from(["end", "start"]))
    dtype = draw(st.sampled_from(["uint16", "int8"]))
    n = int(np.prod(shape))
    density = draw(st.sampled_from([0.0, 0.3, 1.0]))
    raw = draw(st.lists(st.integers(1, 100), min_size=n, max_size=n))
    keep = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    values = np.array([v if k < density else 0 for v, k in zip(raw, keep)]).reshape(shape)
    selection = tuple(
        draw(
            st.one_of(
                st.integers(0, s - 1),
                st.builds(
                    lambda a, b, step: slice(min(a, b), max(a, b), step),
                    st.integers(0, s),
                    st.integers(0, s),
                    st.integers(1, 3),
                ),
            )
        )
        for s in shape
    )
    return {
        "inner": inner,
        "shape": shape,
        "inner_codecs": inner_codecs,
        "index_codecs": index_codecs,
        "location": location,
        "dtype": dtype,
        "values": values,
        "selection": selection,
        "damage": draw(st.sampled_from(["index", "bytes", "index+bytes"])),
        "data": draw(st.data()),
    }


def _codec(case: dict[str, Any]) -> tuple[CodecChain, Any, ChunkSpec]:
    data_type = c.data_type_from_json(case["dtype"])
    spec = ChunkSpec(case["shape"], data_type, data_type.default_fill_value(), c.memory_layout("C"))
    document = {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": list(case["inner"]),
            "codecs": case["inner_codecs"],
            "index_codecs": case["index_codecs"],
            "index_location": case["location"],
        },
    }
    chain = CodecChain.evolved(c.codecs_from_json([document]), spec)
    chain.validate(spec)
    return chain, chain.array_bytes, spec


def _damage_index(case: dict[str, Any], codec: Any, spec: ChunkSpec, shard: bytes) -> bytes:
    data = case["data"]
    index_size = codec._index_size(spec)
    where = codec._index_slice(spec, len(shard))
    entries = np.array(
        codec.index_chain.decode(shard[where], codec._index_spec(spec), key=KEY), dtype=np.uint64
    )
    flat = entries.reshape(-1, 2)
    for _ in range(data.draw(st.integers(1, 3), label="entries")):
        i = data.draw(st.integers(0, len(flat) - 1), label="entry")
        flat[i] = hostile_entry(data.draw, entries, len(shard), index_size)
    encoded = codec.index_chain.encode(entries, codec._index_spec(spec))
    return shard[: where.start] + encoded + shard[where.stop :]


@target(
    "sharding_index",
    strategy=shard_cases,
    examples=250,
    description="sharding_indexed: hostile index entries (valid CRC) and byte damage; "
    "decode, decode_partial, encode_partial",
)
def fuzz_sharding(case: dict[str, Any]) -> None:
    chain, codec, spec = _codec(case)
    values = case["values"].astype(spec.dtype)
    selection = case["selection"]
    shard = chain.encode(values, spec)
    assert np.array_equal(chain.decode(shard, spec, key=KEY), values)

    def fetcher(blob: bytes) -> Any:
        return lambda ranges: [blob[r.slice_of(len(blob))] for r in ranges]

    partial = chain.decode_partial(fetcher(shard), spec, selection, key=KEY)
    assert partial is not None and np.array_equal(partial, values[selection])
    damaged = shard
    if "index" in case["damage"]:
        damaged = _damage_index(case, codec, spec, damaged)
    if "bytes" in case["damage"]:
        damaged = mutate_bytes(case["data"], damaged)

    whole = partial = None
    with expect(key=KEY) as caught:
        whole = chain.decode(damaged, spec, key=KEY)
        assert whole.shape == spec.shape and whole.dtype == spec.dtype
    corrupt_only(caught, "decode")
    with expect(key=KEY) as caught:
        partial = chain.decode_partial(fetcher(damaged), spec, selection, key=KEY)
    corrupt_only(caught, "decode_partial")
    if whole is not None:
        assert partial is not None, "the whole shard decodes but a partial read of it fails"
        assert np.array_equal(partial, whole[selection]), (partial, whole[selection])
    update = np.full(np.shape(values[selection]), 7, dtype=spec.dtype)
    updated = None
    with expect(key=KEY) as caught:
        updated = ("ok", chain.encode_partial(damaged, spec, selection, update, key=KEY))
    corrupt_only(caught, "encode_partial")
    if whole is not None and updated is not None:
        expected = whole.copy()
        expected[selection] = update
        result = updated[1]
        if result is None:
            assert not np.any(expected), "encode_partial dropped a shard that holds data"
        else:
            assert np.array_equal(chain.decode(result, spec, key=KEY), expected)


# --- the 2022 draft's sharding transformer ------------------------------------------------------


@st.composite
def draft_cases(draw: Any) -> dict[str, Any]:
    ndim = draw(st.integers(1, 2))
    chunks = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    cps = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    shape = tuple(draw(st.integers(1, 2 * c * p + 1)) for c, p in zip(chunks, cps))
    return {
        "chunks": chunks,
        "shards": tuple(c * p for c, p in zip(chunks, cps)),
        "shape": shape,
        "density": draw(st.sampled_from([0.2, 1.0])),
        "damage": draw(st.sampled_from(["index", "bytes", "index+bytes"])),
        "data": draw(st.data()),
    }


def _draft_damage(case: dict[str, Any], blob: bytes, index_size: int) -> bytes:
    data = case["data"]
    if "index" in case["damage"] and len(blob) >= index_size:
        entries = np.frombuffer(blob[-index_size:], dtype="<u8").astype(np.uint64).copy()
        flat = entries.reshape(-1, 2)
        for _ in range(data.draw(st.integers(1, 3), label="entries")):
            i = data.draw(st.integers(0, len(flat) - 1), label="entry")
            flat[i] = hostile_entry(data.draw, entries, len(blob), index_size)
        blob = blob[:-index_size] + entries.astype("<u8").tobytes()
    if "bytes" in case["damage"]:
        blob = mutate_bytes(data, blob)
    return blob


@target(
    "draft_shard_index",
    strategy=draft_cases,
    examples=150,
    description="the 2022 draft's sharding transformer on damaged shards: chunk reads "
    "(whole and ranges), listing, array reads and writes",
)
def fuzz_draft_sharding(case: dict[str, Any]) -> None:
    data = case["data"]
    store = MemoryStore()
    with config.set(threads=1):
        array = zarrforge.create_array(
            store,
            "a",
            shape=case["shape"],
            chunks=case["chunks"],
            shards=case["shards"],
            dtype="uint8",
            fill_value=0,
            compressors=None,
            zarr_format="draft-2022",
        )
        n = int(np.prod(case["shape"]))
        values = (np.arange(n) % 250 + 1).astype("uint8").reshape(case["shape"])
        values[np.random.default_rng(n).random(case["shape"]) > case["density"]] = 0
        array[...] = values
        shard_keys = sorted(k for k in store.list() if k.startswith("data/"))
        if not shard_keys:
            return
        victim = data.draw(st.sampled_from(shard_keys), label="shard")
        cps = tuple(s // c for s, c in zip(case["shards"], case["chunks"]))
        index_size = 16 * int(np.prod(cps))
        shard = store.get(victim)
        assert shard is not None
        store.set(victim, _draft_damage(case, shard, index_size))

        array = zarrforge.open_array(store, "a", mode="r+")
        chunk_store = array.chunk_store
        grid = array.cdata_shape
        for coords in np.ndindex(*grid):
            key = array.chunk_key(coords)
            whole = part = None
            with expect(key=key) as caught:
                whole = chunk_store.get(key)
            corrupt_only(caught, f"reading chunk {key}")
            byte_range = data.draw(
                st.sampled_from([ByteRange(0, 1), ByteRange(1), ByteRange(length=2), ByteRange(2, 100)]),
                label="range",
            )
            with expect(key=key) as caught:
                part = ("ok", chunk_store.get(key, byte_range))
            corrupt_only(caught, f"reading {byte_range} of chunk {key}")
            if whole is not None and part is not None and part[1] is not None:
                assert part[1] == whole[byte_range.slice_of(len(whole))], (key, byte_range)
        with expect() as caught:
            array.nchunks_initialized  # lists through the transformer
        corrupt_only(caught, "listing the chunks")
        read = None
        with expect() as caught:
            read = array[...]
        corrupt_only(caught, "reading the array")
        if read is not None:
            victim_coords = tuple(int(x) for x in victim[len("data/root/a/c") :].split("/"))
            outside = np.ones(case["shape"], dtype=bool)
            outside[tuple(slice(v * s, (v + 1) * s) for v, s in zip(victim_coords, case["shards"]))] = False
            assert np.array_equal(read[outside], values[outside]), "a shard that was not damaged changed"
        region = tuple(slice(0, min(2, s)) for s in case["shape"])
        with expect() as caught:
            array[region] = 9
            assert np.all(array[region] == 9)
        corrupt_only(caught, "writing the array")
