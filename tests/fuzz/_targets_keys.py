"""Fuzz targets: chunk key decoders and the node-path validator, on random strings.

``chunk_keys``: ``decode_key(key, ndim)`` of every chunk key encoding (every
registered one in each configuration, plus the 2022 draft's in both
dialects) must return ``None`` or a tuple of ``ndim`` non-negative ints, and
never raise. Strings are drawn around the real alphabet of keys (digits,
separators, ``c``, Unicode digits, signs, spaces) as well as fully random.
A second property is checked separately (``test_keys.py``), because the
decoders break it today: a decoded key must be *the* key of its coordinates
(``encode_key(decode_key(k)) == k``), otherwise listings report aliases
such as ``c/01`` as stored chunks.

``node_paths``: ``paths.normalize_path`` must raise ``InvalidPathError`` or
return a normal path: no leading or trailing ``/``, no empty, ``.`` or
``..`` segment, no backslash or NUL, no name with the ``__zarr`` prefix (names
with the spec's reserved ``__`` prefix are valid paths: zarrforge reads such nodes
and refuses them only when creating), idempotent, and a valid store key once ``/zarr.json`` is appended.
"""

from __future__ import annotations

import functools
from typing import Any

from _fuzzkit import target
from hypothesis import strategies as st

from zarrforge import registry
from zarrforge.abc.store import validate_key
from zarrforge.errors import InvalidPathError
from zarrforge.metadata import paths

KEY_ALPHABET = st.sampled_from(
    [*list("0123456789c./"), "٣", "１", "²", "-", "+", " ", "_", "\x00", "\n", "e", "x", "C"]  # noqa: RUF001  # fullwidth on purpose
)
key_strings = st.one_of(
    st.text(KEY_ALPHABET, max_size=16),
    st.text(max_size=16),
    st.lists(
        st.integers(0, 10**6).map(str) | st.sampled_from(["", "00", "01", "-1", "+1", " 1", "1_0"]),
        max_size=5,
    ).flatmap(
        lambda parts: st.sampled_from(
            [
                "c/" + "/".join(parts),
                "c." + ".".join(parts),
                "c" + "/".join(parts),
                ".".join(parts),
                "/".join(parts),
            ]
        )
    ),
)


@functools.cache
def encodings() -> list[tuple[str, Any]]:
    found = []
    for name in registry.chunk_key_encodings.names():
        implementation = registry.chunk_key_encodings.get(name)
        for separator in ("/", "."):
            try:
                encoding = implementation.from_json(name, {"separator": separator})
            except Exception:  # noqa: BLE001  # an encoding without this separator
                continue
            found.append((f"{name}{separator}", encoding))
    from zarrforge_draft2022.keys import DraftChunkKeyEncoding

    for dialect in ("zarr-python", "editor"):
        for separator in ("/", "."):
            found.append((f"draft-{dialect}{separator}", DraftChunkKeyEncoding(separator, dialect)))
    return found


@st.composite
def key_cases(draw: Any) -> tuple[str, Any, str, int]:
    label, encoding = draw(st.sampled_from(encodings()), label="encoding")
    return label, encoding, draw(key_strings, label="key"), draw(st.integers(0, 5), label="ndim")


@target(
    "chunk_keys",
    strategy=key_cases,
    examples=1500,
    memory_sensitive=False,
    description="decode_key of every chunk key encoding on random strings",
)
def fuzz_chunk_keys(value: tuple[str, Any, str, int]) -> None:
    label, encoding, key, ndim = value
    coords = encoding.decode_key(key, ndim)  # must not raise
    if coords is None:
        return
    assert isinstance(coords, tuple) and len(coords) == ndim, (label, key, ndim, coords)
    assert all(type(i) is int and i >= 0 for i in coords), (label, key, coords)


path_strings = st.one_of(
    st.text(max_size=24),
    st.lists(
        st.sampled_from(
            [
                "a",
                "b",
                "",
                ".",
                "..",
                "...",
                "__x",
                "__zarrx",
                "_x",
                "zarr.json",
                "c",
                "a\\b",
                "\x00",
                " ",
                "é",
                ".a",
                "a.",
                "\ud800",
                "x" * 300,
            ]
        ),
        max_size=5,
    )
    .map("/".join)
    .flatmap(lambda p: st.sampled_from([p, "/" + p, p + "/", "//" + p + "//"])),
)


@target(
    "node_paths",
    strategy=lambda: st.one_of(path_strings, st.none(), st.integers(), st.binary()),
    examples=1500,
    memory_sensitive=False,
    description="paths.normalize_path on random strings (and non-strings)",
)
def fuzz_node_paths(path: Any) -> None:
    try:
        normal = paths.normalize_path(path)
    except InvalidPathError as exc:
        assert str(exc), "InvalidPathError without a message"
        return
    assert isinstance(normal, str), normal
    if normal == "":
        assert path is None or path.strip("/") == "", path
        return
    assert not normal.startswith("/") and not normal.endswith("/"), normal
    for name in normal.split("/"):
        assert name not in ("", ".", "..") and set(name) != {"."}, (path, normal)
        assert not name.startswith("__zarr") and name != "zarr.json", (path, normal)
        assert "\\" not in name and "\x00" not in name, (path, normal)
    assert paths.normalize_path(normal) == normal, "normalize_path is not idempotent"
    validate_key(normal + "/zarr.json")
