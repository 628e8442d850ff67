"""Storage keys of the 2022 draft.

=========================  ==========================================
node at path ``P``         key
=========================  ==========================================
entry point                ``zarr.json``
array                      ``meta/root/P.array`` + suffix (root: ``meta/root.array`` + suffix)
explicit group             ``meta/root/P.group`` + suffix (root: ``meta/root.group`` + suffix)
chunk ``(j, i)``           ``data/root/P/c<j><sep><i>`` (root array: ``data/root/c...``)
=========================  ==========================================

The suffix is the entry point's ``metadata_key_suffix`` (``.json`` by
default); the separator is the array's ``chunk_grid.separator`` (``/`` by
default, or ``.``).

:class:`DraftChunkKeyEncoding` is the model's chunk key encoding: ``c``
followed by the coordinates joined by the separator (``c1/23/45``). A 0-d
array's only chunk is ``c`` in the editor's draft and ``c0`` in what
zarr-python 2 writes, so the encoding carries the dialect; it is also where
the model of an array records its dialect (``Format.document`` has no store
to ask). It is not registered: only this format builds it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from zarrforge.abc.chunk_key_encoding import ChunkKeyEncoding
from zarrforge.errors import InvalidPathError, MetadataError

from .dialects import EDITOR, ZARR_PYTHON

ENTRY_POINT_KEY = "zarr.json"
SEPARATORS = ("/", ".")
_NAME_RE = re.compile(r"[A-Za-z0-9._-]{1,255}")


def array_key(path: str, suffix: str) -> str:
    return f"meta/root/{path}.array{suffix}" if path else f"meta/root.array{suffix}"


def group_key(path: str, suffix: str) -> str:
    return f"meta/root/{path}.group{suffix}" if path else f"meta/root.group{suffix}"


def meta_prefix(path: str) -> str:
    return f"meta/root/{path}/" if path else "meta/root/"


def data_prefix(path: str) -> str:
    return f"data/root/{path}/" if path else "data/root/"


def validate_draft_path(path: str) -> None:
    """The draft's node-name rules: ``a-z A-Z 0-9 - _ .``, not only periods, at most 255."""
    for name in path.split("/") if path else ():
        if not _NAME_RE.fullmatch(name) or set(name) == {"."}:
            raise InvalidPathError(
                f"node name {name!r} (in path {'/' + path!r}) is not allowed by the 2022 draft: "
                "names use only the characters a-z, A-Z, 0-9, '-', '_' and '.', are not made "
                "only of periods and have at most 255 characters"
            )


class DraftChunkKeyEncoding(ChunkKeyEncoding):
    name = "draft-2022"
    separator: str  # always set, "/" or "."

    def __init__(self, separator: str = "/", dialect: str = ZARR_PYTHON) -> None:
        if separator not in SEPARATORS:
            raise MetadataError(
                f"separator must be '/' or '.', got {separator!r}",
                field="chunk_grid.separator",
                value=separator,
            )
        self.separator = separator
        self.dialect = dialect

    @property
    def scalar_key(self) -> str:
        return "c" if self.dialect == EDITOR else "c0"

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DraftChunkKeyEncoding:
        config = configuration or {}
        return cls(config.get("separator", "/"), config.get("dialect", ZARR_PYTHON))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"separator": self.separator, "dialect": self.dialect}}

    def encode_key(self, coords: Sequence[int]) -> str:
        if len(coords) == 0:
            return self.scalar_key
        return "c" + self.separator.join(str(int(i)) for i in coords)

    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        if ndim == 0:
            return () if key == self.scalar_key else None
        if not key.startswith("c"):
            return None
        parts = key[1:].split(self.separator)
        if len(parts) != ndim or not all(
            p.isascii() and p.isdigit() and (p == "0" or not p.startswith("0")) for p in parts
        ):
            return None
        return tuple(int(p) for p in parts)
