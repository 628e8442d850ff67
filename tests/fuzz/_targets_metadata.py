"""Fuzz targets: the metadata readers of the v3, v2 and 2022-draft formats.

Seeds are small hierarchies that zarrforge itself writes (every format, a
spread of data types, codecs, grids, sharding, consolidated metadata), each
with a few chunks of real data. A case takes one seed, mutates one or two of
its JSON documents (values, types, keys, nesting, splices from other seeds,
byte damage), stores the result and then uses the node the way a user would:

1. ``zarrforge.open`` (format detection, parsing, validation),
2. for an array: read a small region that includes stored chunks (the codec
   chain now meets real chunk bytes under mutated metadata), ``info``,
   ``size``, the last element, the whole array (refused by
   ``max_request_bytes`` when large), ``nchunks_initialized``, and the
   metadata written back through the format (``metadata``); write the region
   back; for a group: its members;
3. change an attribute (the format writes the whole document from the model)
   and open the node again: what zarrforge wrote it must read back, with no
   error at all, and to the same document.

Every step must succeed or raise a zarrforge error naming the key or field
(see :func:`_fuzzkit.expect`). ``max_request_bytes`` bounds what one read or
write may allocate, including a whole chunk that a partial write must decode
(``test_memory.py`` shows both limits at work).
"""

from __future__ import annotations

import contextlib
import functools
import json
import warnings
from typing import Any

import numpy as np
from _fuzzkit import expect, json_values, mutate_bytes, mutate_document, serialize, target
from hypothesis import strategies as st

import zarrforge
from zarrforge import config
from zarrforge.errors import SkippedExtensionWarning
from zarrforge_std.stores.memory import MemoryStore

READ_LIMIT = 8 * 2**20
JSON_NAMES = (".json", ".zarray", ".zgroup", ".zattrs", ".zmetadata")


def _is_document(key: str) -> bool:
    return key.endswith(JSON_NAMES)


# --- seeds ----------------------------------------------------------------------------------

ARRAY_SEEDS: list[tuple[str, dict[str, Any], Any]] = [
    # (label, create_array kwargs, data or None)
    (
        "int16-gzip",
        {
            "shape": (10, 7),
            "chunks": (4, 3),
            "dtype": "int16",
            "fill_value": 3,
            "compressors": ["gzip"],
            "attributes": {"x": [1, 2]},
            "dimension_names": ["y", "x"],
        },
        "ramp",
    ),
    (
        "f8-big-zstd-crc",
        {
            "shape": (9,),
            "chunks": (4,),
            "dtype": ">f8",
            "fill_value": float("nan"),
            "compressors": [{"name": "zstd", "configuration": {"level": 1, "checksum": True}}, "crc32c"],
        },
        "ramp",
    ),
    ("bool-0d", {"shape": (), "dtype": "bool", "fill_value": True}, "ramp"),
    ("u1-blosc", {"shape": (20,), "chunks": (8,), "dtype": "uint8", "compressors": ["blosc"]}, "ramp"),
    (
        "c16",
        {
            "shape": (3, 3),
            "chunks": (2, 2),
            "dtype": "complex128",
            "fill_value": complex(float("nan"), float("inf")),
        },
        "ramp",
    ),
    ("string-vlen", {"shape": (5,), "chunks": (2,), "dtype": "string", "fill_value": ""}, "strings"),
    ("datetime", {"shape": (6,), "chunks": (4,), "dtype": "datetime64[s]"}, "ramp"),
    (
        "f4-order-F",
        {
            "shape": (4, 5),
            "chunks": (3, 2),
            "dtype": "float32",
            "order": "F",
            "filters": [{"name": "transpose", "configuration": {"order": [1, 0]}}],
        },
        "ramp",
    ),
    (
        "i4-delta-blosc",
        {
            "shape": (12,),
            "chunks": (5,),
            "dtype": "int32",
            "filters": [{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}],
            "compressors": [{"name": "numcodecs.zlib", "configuration": {"level": 1}}],
        },
        "ramp",
    ),
    (
        "sharded",
        {"shape": (8, 6), "chunks": (2, 3), "shards": (4, 6), "dtype": "uint16", "compressors": ["gzip"]},
        "ramp",
    ),
    (
        "rectilinear",
        {
            "shape": (7,),
            "dtype": "int8",
            "chunks": {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[2, 5]]}},
        },
        "ramp",
    ),
    ("raw-bits", {"shape": (4,), "chunks": (2,), "dtype": "r16"}, "ramp"),
    (
        "offset-ext",
        {
            "shape": (6,),
            "chunks": (3,),
            "dtype": "int64",
            "extensions": [{"name": "zarrforge.offset", "configuration": {"offset": [2]}}],
        },
        "ramp",
    ),
]
FORMATS = ("3", "2", "draft-2022")


def _fill(array: Any, kind: str) -> None:
    shape = array.shape
    if kind == "strings":
        array[...] = np.array([f"s{i}\u00e9" for i in range(int(np.prod(shape)))], dtype=array.dtype).reshape(
            shape
        )
        return
    n = int(np.prod(shape))
    values = np.arange(n).reshape(shape)
    if array.dtype.kind == "M":
        values = values.astype("datetime64[s]")
    elif array.dtype.kind == "V":
        values = np.frombuffer(np.arange(n, dtype="<u2").tobytes(), dtype=array.dtype).reshape(shape)
    array[...] = values.astype(array.dtype) if array.dtype.kind not in "MV" else values


@functools.cache
def seeds() -> tuple[tuple[str, str, str, dict[str, bytes]], ...]:
    """``(label, format, node path, snapshot of the whole store)`` for every seed that
    the format can represent."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fmt in FORMATS:
            for label, kwargs, data in ARRAY_SEEDS:
                store = MemoryStore()
                try:
                    zarrforge.create_group(store, "", zarr_format=fmt, attributes={"root": True})
                    array = zarrforge.create_array(store, "g/a", zarr_format=fmt, **kwargs)
                    if data:
                        _fill(array, data)
                except Exception:  # noqa: BLE001  # not every format represents every seed
                    continue
                out.append((label, fmt, "g/a", dict(store._data)))
            # a consolidated hierarchy (v3 inline / v2 .zmetadata), opened at its root
            store = MemoryStore()
            try:
                root = zarrforge.create_group(store, "", zarr_format=fmt, attributes={"t": "c"})
                zarrforge.create_array(store, "a", shape=(4,), chunks=(2,), dtype="int8", zarr_format=fmt)[
                    ...
                ] = 1
                zarrforge.create_group(store, "sub/deeper", zarr_format=fmt)
                del root
                zarrforge.consolidate_metadata(store)
                out.append(("consolidated", fmt, "", dict(store._data)))
            except Exception:  # noqa: BLE001  # the draft has no consolidated metadata
                out.append(("hierarchy", fmt, "", dict(store._data)))
    return tuple(out)


@functools.cache
def donors() -> list[Any]:
    docs = []
    for _, _, _, snapshot in seeds():
        for key, value in snapshot.items():
            if _is_document(key):
                docs.append(json.loads(value))
    return docs


# --- using a node -------------------------------------------------------------------------------


def exercise(store: MemoryStore, path: str) -> None:
    """Open the node at ``path`` and use it; every step under the oracle."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedExtensionWarning)
        with config.set(max_request_bytes=READ_LIMIT, threads=1):
            node = None
            with expect():
                node = zarrforge.open(store, path, mode="r+")
            if node is None:
                return
            if isinstance(node, zarrforge.Group):
                with expect():
                    node.members(max_depth=None)
                with expect():
                    dict(node.attrs)
                with expect():
                    node.metadata
                rewrite_and_reopen(store, path, node)
                return
            region = tuple(slice(0, min(n, 6)) for n in node.shape)
            values = None
            with expect():
                values = node[region]
            with expect():
                node.info  # builds the printable summary
            with expect():
                node.size
            with expect():
                node[...]  # the whole array: small, or refused by max_request_bytes
            if all(n > 0 for n in node.shape):
                with expect():
                    node[tuple(-1 for _ in node.shape)]  # the last element, counted from the end
            with expect():
                node.nchunks_initialized
            with expect():
                json.dumps(node.metadata, default=str)
            if values is not None:
                with expect():
                    node[region] = values
                    again = node[region]
                    assert _same(again, values), f"read back {again!r} after writing {values!r}"
            rewrite_and_reopen(store, path, node)


def _canonical(document: Any) -> str:
    return json.dumps(document, sort_keys=True, default=repr)


def rewrite_and_reopen(store: MemoryStore, path: str, node: Any) -> None:
    """Change an attribute (the format writes the whole document again from the model),
    then open the node afresh: what zarrforge wrote it must read, with no error at all,
    and the model must survive the trip unchanged."""
    written = []
    with expect():
        node.attrs["fuzz"] = 1
        written.append(node.metadata)
    if not written:
        return
    reopened = zarrforge.open(store, path, mode="r")  # any exception here fails the case
    assert _canonical(reopened.metadata) == _canonical(written[0]), (
        f"the document zarrforge wrote reads back differently:\n{_canonical(written[0])}\n"
        f"{_canonical(reopened.metadata)}"
    )


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    if a.dtype.kind in "mM":  # NaT, like NaN, is not equal to itself
        return bool(np.all((a == b) | (np.isnat(a) & np.isnat(b))))
    if a.dtype.kind == "V":
        return a.tobytes() == b.tobytes()
    return bool(np.all(a == b))


# --- targets ------------------------------------------------------------------------------------


def mutated_store(
    formats: tuple[str, ...], documents: tuple[str, ...], labels: tuple[str, ...] | None = None
) -> st.SearchStrategy:
    """A seed of one of ``formats`` (and of ``labels``, when given) with one or two of its
    documents whose name ends with one of ``documents`` mutated; the value is
    ``(store data, node path, label)``."""
    picked = [s for s in seeds() if s[1] in formats and (labels is None or s[0] in labels)]

    @st.composite
    def build(draw: Any) -> tuple[dict[str, bytes], str, str]:
        label, fmt, path, snapshot = draw(st.sampled_from(picked), label="seed")
        data = dict(snapshot)
        keys = sorted(k for k in data if k.endswith(documents))
        if not keys:
            return data, path, label
        for key in draw(
            st.lists(st.sampled_from(keys), min_size=1, max_size=2, unique=True), label="documents"
        ):
            doc = json.loads(data[key])
            mutated = mutate_document(draw_data(draw), doc, donors=donors())
            data[key] = serialize(draw_data(draw), mutated)
        if draw(st.integers(0, 9), label="chunk damage") == 0:  # sometimes a chunk too
            chunks = sorted(k for k in data if not _is_document(k))
            if chunks:
                key = draw(st.sampled_from(chunks))
                data[key] = mutate_bytes(draw_data(draw), data[key])
        return data, path, f"{fmt}:{label}"

    return build()


def draw_data(draw: Any) -> Any:
    """A ``data`` object for the mutators (they call ``data.draw``)."""

    class _Data:
        @staticmethod
        def draw(strategy: st.SearchStrategy, label: str | None = None) -> Any:
            return draw(strategy, label=label)

    return _Data


def _run(value: tuple[dict[str, bytes], str, str]) -> None:
    data, path, _ = value
    exercise(MemoryStore(data=dict(data)), path)


# name, formats of the seeds, which documents are mutated, pytest examples, description
_MUTATED_TARGETS = [
    (
        "metadata_v3",
        ("3",),
        ("zarr.json",),
        120,
        "mutated zarr.json documents (arrays, groups, consolidated) of the v3 format",
    ),
    ("metadata_v2_zarray", ("2",), (".zarray",), 120, "mutated .zarray documents"),
    (
        "metadata_v2_zgroup_zattrs",
        ("2",),
        (".zgroup", ".zattrs"),
        60,
        "mutated .zgroup and .zattrs documents",
    ),
    ("metadata_v2_zmetadata", ("2",), (".zmetadata",), 60, "mutated consolidated .zmetadata documents"),
    (
        "metadata_draft",
        ("draft-2022",),
        (".json",),
        120,
        "mutated 2022-draft entry points and array/group documents",
    ),
]
for _name, _formats, _suffixes, _examples, _description in _MUTATED_TARGETS:
    target(
        _name,
        strategy=functools.partial(mutated_store, _formats, _suffixes),
        examples=_examples,
        description=_description,
    )(_run)


# --- consolidated views read through the index, against the whole parse -----------------------


@contextlib.contextmanager
def _view_thresholds(indexed: bool) -> Any:
    """Large-view thresholds at 0 (every view is read through the index,
    ``zarrforge.metadata.raw_members``) or out of reach (every view parsed whole)."""
    import zarrforge_std.format_v3 as format_v3
    from zarrforge.metadata import raw_reading
    from zarrforge_v2 import _json as v2_json

    value = 0 if indexed else 1 << 40
    places = [
        (raw_reading, "RAW_MEMBERS_MIN_BYTES"),
        (format_v3._LARGE_DOCUMENTS, "min_bytes"),
        (v2_json, "LARGE_BYTES"),
        (v2_json._LARGE_DOCUMENTS, "min_bytes"),
    ]
    saved = [getattr(obj, name) for obj, name in places]
    for obj, name in places:
        setattr(obj, name, value)
    try:
        yield
    finally:
        for (obj, name), old in zip(places, saved):
            setattr(obj, name, old)


def _view_outcome(data: dict[str, bytes], indexed: bool) -> tuple[Any, ...]:
    """What opening a consolidated root, every member through its view, and creating an
    array under it gives: the members, their metadata and the root's documents after, or
    the class of the first error (the index finds a broken entry when its member opens,
    the whole parse when the group does; both must find it)."""
    store = MemoryStore(data=dict(data))
    steps: list[Any] = []
    with (
        warnings.catch_warnings(),
        _view_thresholds(indexed),
        config.set(max_request_bytes=READ_LIMIT, threads=1),
    ):
        warnings.simplefilter("ignore")
        try:
            group = zarrforge.open_group(store, mode="r+")
            for name, member in sorted(group.members(max_depth=None)):
                steps.append((name, member.metadata))
            zarrforge.create_array(
                store,
                "fuzz-new",
                shape=(2,),
                chunks=(2,),
                dtype="u1",
                zarr_format=group.metadata_model.format_name,
            )
        except zarrforge.errors.ZarrforgeError as exc:
            return ("error", type(exc).__name__)
    documents = {
        key: json.loads(value) for key, value in store._data.items() if key in ("zarr.json", ".zmetadata")
    }
    return ("ok", _canonical(steps), _canonical(documents))


@target(
    "metadata_views_indexed",
    examples=60,
    strategy=functools.partial(mutated_store, ("3", "2"), ("zarr.json", ".zmetadata"), ("consolidated",)),
    description="mutated consolidated roots read through the view index and parsed "
    "whole: the same members, metadata and rewritten view, or the same error",
)
def _views_indexed(value: tuple[dict[str, bytes], str, str]) -> None:
    data, _, label = value
    whole, indexed = _view_outcome(data, indexed=False), _view_outcome(data, indexed=True)
    assert indexed == whole, f"{label}: indexed {indexed!r} != parsed whole {whole!r}"


# --- random JSON (and random bytes) at every metadata key ----------------------------------

RANDOM_KEYS = {
    "3": ["zarr.json"],
    "2": [".zarray", ".zgroup", ".zattrs", ".zmetadata"],
    "draft": ["zarr.json", "meta/root.array.json", "meta/root.group.json"],
}


@st.composite
def random_documents(draw: Any) -> tuple[dict[str, bytes], str, str]:
    layout = draw(st.sampled_from(sorted(RANDOM_KEYS)))
    data: dict[str, bytes] = {}
    if layout == "draft" and draw(st.booleans()):  # a valid entry point, random node document
        data["zarr.json"] = json.dumps(
            {
                "zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
                "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
                "metadata_key_suffix": ".json",
                "extensions": [],
            }
        ).encode()
    for key in draw(st.lists(st.sampled_from(RANDOM_KEYS[layout]), min_size=1, unique=True)):
        if draw(st.integers(0, 4)) == 0:
            data[key] = draw(st.binary(max_size=200))
        else:
            value = draw(json_values)
            if draw(st.booleans()):  # usually an object, which gets further than a bare value
                value = draw(
                    st.dictionaries(
                        st.sampled_from(
                            [
                                "zarr_format",
                                "node_type",
                                "shape",
                                "dtype",
                                "chunks",
                                "data_type",
                                "chunk_grid",
                                "codecs",
                                "fill_value",
                                "metadata",
                                "attributes",
                                "zarr_consolidated_format",
                                "chunk_memory_layout",
                                "chunk_key_encoding",
                            ]
                        ),
                        json_values,
                        max_size=8,
                    )
                )
                if layout == "3":
                    value.setdefault("zarr_format", 3)
                elif layout == "2" and key != ".zattrs":
                    value.setdefault("zarr_format", 2)
            data[key] = json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    return data, "", layout


@target(
    "metadata_random_json",
    strategy=random_documents,
    examples=150,
    description="random JSON values and random bytes at every metadata key of every format",
)
def fuzz_random_json(value: Any) -> None:
    _run(value)
