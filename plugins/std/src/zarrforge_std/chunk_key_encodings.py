"""The ``default`` and ``v2`` chunk key encodings.

* ``default``: ``c`` followed by each coordinate, each preceded by the
  separator (``"/"``, the default, or ``"."``): ``c/1/0``; a 0-d array's only
  chunk is ``c``.
* ``v2``: the coordinates joined by the separator (``"."``, the default, or
  ``"/"``): ``1.0``; a 0-d array's only chunk is ``0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from zarrforge.abc.chunk_key_encoding import ChunkKeyEncoding
from zarrforge.errors import MetadataError

from ._config import check_keys


class _SeparatedEncoding(ChunkKeyEncoding):
    default_separator: ClassVar[str]
    separator: str  # always set, from the configuration or default_separator

    def __init__(self, separator: str) -> None:
        self.separator = separator
        # the %-template of a key, per number of coordinates: one format call a key,
        # about a fifth of joining the coordinates one by one (a read of many small
        # chunks encodes one key each)
        self._templates: dict[int, str] = {}

    def _encoded(self, head: str, coords: Sequence[int]) -> str:
        """``head`` then the coordinates as decimal integers, separated (``head`` ends with
        the separator unless it is empty)."""
        template = self._templates.get(len(coords))
        if template is None:
            template = self._templates[len(coords)] = head + self.separator.join(["%d"] * len(coords))
        try:
            return template % tuple(coords)
        except TypeError:  # a coordinate %d does not take (a numeric string): int() decides
            return head + self.separator.join(map(str, map(int, coords)))

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ChunkKeyEncoding:
        config = check_keys(name, configuration, {"separator"})
        separator = config.get("separator", cls.default_separator)
        if separator not in ("/", "."):
            raise MetadataError(
                f"separator must be '/' or '.', got {separator!r}",
                field="configuration.separator",
                value=separator,
            )
        return cls(separator)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"separator": self.separator}}

    @staticmethod
    def _parse(parts: list[str], ndim: int) -> tuple[int, ...] | None:
        # Only the canonical spelling encode_key produces: "01" is not chunk 1.
        if len(parts) != ndim or not all(
            p.isdigit() and p.isascii() and (p == "0" or not p.startswith("0")) for p in parts
        ):
            return None
        return tuple(int(p) for p in parts)


class DefaultEncoding(_SeparatedEncoding):
    name = "default"
    default_separator = "/"

    def encode_key(self, coords: Sequence[int]) -> str:
        return self._encoded("c" + self.separator, coords) if len(coords) else "c"

    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        if ndim == 0:
            return () if key == "c" else None
        head = "c" + self.separator
        if not key.startswith(head):
            return None
        return self._parse(key[len(head) :].split(self.separator), ndim)


class V2Encoding(_SeparatedEncoding):
    name = "v2"
    default_separator = "."

    def encode_key(self, coords: Sequence[int]) -> str:
        return self._encoded("", coords) if len(coords) else "0"

    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        if ndim == 0:
            return () if key == "0" else None
        return self._parse(key.split(self.separator), ndim)
