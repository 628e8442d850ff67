"""The ``example.chunk-manifest`` storage transformer (read-only, virtual datasets).

An entry ``{"name": "example.chunk-manifest", "configuration": {"manifest": {...}}}``
maps chunk coordinates, written ``"<i>.<j>"`` (``"0"`` in one dimension), to the byte
range of an encoded chunk stored somewhere else: ``{"path": ..., "offset": ...,
"length": ...}``. A chunk the manifest does not name reads as missing (the fill value).
Keys that are not chunk keys (the array's ``zarr.json``) pass through to the store.

What the document may name is decided by the core's reference service
(:func:`zarrforge.plugin_api.storage_transformers.check_reference`): ``path`` is a key of
the array's own store, or an absolute path or URL below a prefix the user allowed in the
``reference_targets`` setting; ``..`` never. The manifest is checked when the entry is
read (paths, offsets, lengths) and against the array (:meth:`ChunkManifest.validate`: a
key outside the chunk grid), so a bad document is refused on creation and on open, at
``storage_transformers[i].configuration.manifest...``.

The data is read-only: writing or deleting a chunk raises
:class:`~zarrforge.errors.ReadOnlyError`, and nothing below changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from zarrforge.errors import MetadataError, ReadOnlyError
from zarrforge.plugin_api.storage_transformers import (
    ByteRange,
    ChunkKeys,
    ReferenceReader,
    StorageTransformer,
    Store,
    WrapperStore,
    check_reference,
)


@dataclasses.dataclass(frozen=True)
class ChunkRef:
    """Where one chunk's encoded bytes are."""

    path: str
    offset: int
    length: int


def _coords(key: str) -> tuple[int, ...] | None:
    parts = key.split(".")
    if not all(p.isdigit() and (p == "0" or not p.startswith("0")) for p in parts):
        return None
    return tuple(int(p) for p in parts)


def _ref(key: str, value: Any) -> ChunkRef:
    field = f"configuration.manifest.{key}"
    if not isinstance(value, dict):
        raise MetadataError(
            f"a manifest entry is an object with path, offset and length, got {value!r}", field=field
        )
    unknown = sorted(set(value) - {"path", "offset", "length"})
    if unknown:
        raise MetadataError(f"unknown key(s) {unknown}; valid: ['length', 'offset', 'path']", field=field)
    for name in ("offset", "length"):
        n = value.get(name)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise MetadataError(f"{name} must be a non-negative integer, got {n!r}", field=f"{field}.{name}")
    check_reference(value.get("path"), field=f"{field}.path")
    return ChunkRef(value["path"], value["offset"], value["length"])


class ChunkManifest(StorageTransformer):
    name = "example.chunk-manifest"

    def __init__(self, manifest: dict[str, ChunkRef]) -> None:
        self.manifest = manifest

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ChunkManifest:
        configuration = configuration or {}
        unknown = sorted(set(configuration) - {"manifest"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['manifest']", field="configuration"
            )
        manifest = configuration.get("manifest")
        if not isinstance(manifest, dict):
            raise MetadataError(
                f"manifest must be an object of chunk keys ('0.0'), got {manifest!r}",
                field="configuration.manifest",
            )
        refs = {}
        for key, value in manifest.items():
            if _coords(key) is None:
                raise MetadataError(
                    f"{key!r} is not a chunk key: write coordinates as '<i>.<j>', e.g. '0.1'",
                    field=f"configuration.manifest.{key}",
                )
            refs[key] = _ref(key, value)
        return cls(refs)

    def to_json(self) -> dict[str, Any]:
        manifest = {key: dataclasses.asdict(ref) for key, ref in self.manifest.items()}
        return {"name": self.name, "configuration": {"manifest": manifest}}

    def validate(self, metadata: Any) -> None:
        grid = tuple(metadata.chunk_grid.grid_shape)
        for key in self.manifest:
            coords = _coords(key) or ()
            if len(coords) != len(grid) or any(c >= n for c, n in zip(coords, grid)):
                raise MetadataError(
                    f"chunk {key!r} is outside the array's chunk grid {grid} (chunks '0.0' to "
                    f"'{'.'.join(str(n - 1) for n in grid)}')",
                    field=f"configuration.manifest.{key}",
                )

    def wrap(self, store: Store, keys: ChunkKeys, metadata: Any, *, path: str | None = None) -> Store:
        return ManifestStore(store, keys, self.manifest)


class ManifestStore(WrapperStore):
    """Chunk keys read from the manifest's byte ranges; other keys pass through."""

    def __init__(self, inner: Store, keys: ChunkKeys, manifest: dict[str, ChunkRef]) -> None:
        super().__init__(inner)
        self.keys = keys
        self.manifest = manifest
        self.references = ReferenceReader(inner)

    def _chunk(self, key: str) -> tuple[bool, ChunkRef | None]:
        """Whether ``key`` is a chunk key, and its manifest entry (``None`` if none)."""
        coords = self.keys.coords(key)
        if coords is None:
            return False, None
        return True, self.manifest.get(".".join(str(c) for c in coords))

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        return self.get_many([(key, byte_range)])[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        out: list[bytes | None] = [None] * len(requests)
        passed, wanted = [], []
        for i, (key, byte_range) in enumerate(requests):
            is_chunk, ref = self._chunk(key)
            if not is_chunk:
                passed.append(i)
            elif ref is not None:
                part = slice(0, ref.length) if byte_range is None else byte_range.slice_of(ref.length)
                start, stop = part.start, max(part.start, part.stop)
                wanted.append((i, (ref.path, ref.offset + start, stop - start)))
        for i, data in zip(passed, self.inner.get_many([requests[i] for i in passed])):
            out[i] = data
        for (i, _), data in zip(wanted, self.references.read_many([w for _, w in wanted])):
            out[i] = data
        return out

    def exists(self, key: str) -> bool:
        is_chunk, ref = self._chunk(key)
        return ref is not None if is_chunk else self.inner.exists(key)

    def getsize(self, key: str) -> int | None:
        is_chunk, ref = self._chunk(key)
        if is_chunk:
            return None if ref is None else ref.length
        return self.inner.getsize(key)

    def _refuse(self, key: str) -> None:
        if self._chunk(key)[0]:
            raise ReadOnlyError(
                f"{key!r}: {ChunkManifest.name} arrays are read-only; their chunks live elsewhere"
            )

    def _set(self, key: str, value: bytes) -> None:
        self._refuse(key)
        self.inner.set(key, value)

    def _delete(self, key: str) -> None:
        self._refuse(key)
        self.inner.delete(key)

    def _set_many(self, items: list[tuple[str, bytes]]) -> None:
        for key, _ in items:
            self._refuse(key)
        self.inner.set_many(items)

    def _delete_many(self, keys: list[str]) -> None:
        for key in keys:
            self._refuse(key)
        self.inner.delete_many(keys)

    def close(self) -> None:
        self.references.close()  # the stores it opened for absolute paths and URLs
        super().close()

    def list_prefix(self, prefix: str) -> Iterator[str]:
        for key in self.inner.list_prefix(prefix):
            if not self._chunk(key)[0]:
                yield key
        for name in self.manifest:
            key = self.keys.key(_coords(name) or ())
            if key.startswith(prefix):
                yield key
