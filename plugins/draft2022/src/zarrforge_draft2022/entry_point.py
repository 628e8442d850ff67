"""The entry point document ``zarr.json`` and the hierarchy-wide settings it carries.

``zarr_format`` says which dialect the hierarchy uses:
``https://purl.org/zarr/spec/core/3.<minor>`` (editor's draft) or
``https://purl.org/zarr/spec/protocol/core/3.<minor>`` (zarr-python 2). Any
other ``https://purl.org/zarr/spec/...`` value is an error naming the field
(a draft document this plugin cannot read); anything else -- the final v3
format's ``zarr_format: 3`` in particular -- means "not this format".

``metadata_encoding`` must be the JSON encoding of either dialect;
``metadata_key_suffix`` (default ``.json``) is appended to metadata keys.

``extensions`` follows ``must_understand``: an entry this installation does
not recognise (no ``zarrforge.extensions`` plugin under its URI) stops every
node of the hierarchy from opening unless it says ``"must_understand":
false``, in which case it is ignored.

``storage_transformers`` (editor's draft only; zarr-python 2 rejects any key
beyond the four above) is the stack of *global* storage transformers,
written like array ones (``{"extension": URI, "type": ..., "configuration":
{...}}``). They act on every key but ``zarr.json`` itself: the format reads
and writes metadata documents through them, and every array's chunk I/O
goes through them below its own transformers (see
:class:`GlobalStorageTransformer`). A global transformer's ``wrap`` receives
``metadata=None`` and chunk keys that match nothing when it wraps the store
for metadata documents.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Sequence
from typing import Any

from zarrforge.abc.storage_transformer import ChunkKeys, StorageTransformer, wrap_store
from zarrforge.abc.store import Store
from zarrforge.errors import MetadataError, MustUnderstandError
from zarrforge.plugin_api.formats import load_document, registry

from . import transformers as st
from .dialects import EDITOR, URI_STEM, ZARR_FORMAT_URI, ZARR_PYTHON
from .keys import ENTRY_POINT_KEY

ENTRY_FIELDS = {
    "zarr_format",
    "metadata_encoding",
    "metadata_key_suffix",
    "extensions",
    "storage_transformers",
}
_VERSION_RE = re.compile(r"3\.(\d+)")
_SUFFIX_RE = re.compile(r"[A-Za-z0-9._-]*")

NO_CHUNK_KEYS = ChunkKeys(key=lambda coords: "", coords=lambda key: None)


class GlobalStorageTransformer(StorageTransformer):
    """A global storage transformer as it appears in an array's model.

    The array's ``storage_transformers`` end with these (the last entry sits
    closest to the store), so its chunk I/O passes through them; the format
    leaves them out of the array document because they belong to ``zarr.json``.
    """

    name = "draft-2022 global storage transformer"

    def __init__(self, inner: StorageTransformer) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[misc]

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> GlobalStorageTransformer:
        raise TypeError("built by the draft-2022 format from zarr.json, not from the registry")

    def to_json(self) -> dict[str, Any]:
        return self.inner.to_json()

    def wrap(self, store: Store, keys: ChunkKeys, metadata: Any, *, path: str | None = None) -> Store:
        return wrap_store(self.inner, store, keys, metadata, path=path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GlobalStorageTransformer) and other.to_json() == self.to_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))


@dataclasses.dataclass(frozen=True)
class EntryPoint:
    dialect: str
    minor: int = 0
    suffix: str = ".json"
    extensions: tuple[Any, ...] = ()
    transformers: tuple[StorageTransformer, ...] = ()
    document: dict[str, Any] | None = None

    def meta_store(self, store: Store) -> Store:
        """The store metadata documents are read and written through."""
        for transformer in reversed(self.transformers):
            store = wrap_store(transformer, store, NO_CHUNK_KEYS, None, path=None)
        return store

    def global_transformers(self) -> tuple[GlobalStorageTransformer, ...]:
        return tuple(GlobalStorageTransformer(t) for t in self.transformers)

    def to_json(self) -> dict[str, Any]:
        uri = ZARR_FORMAT_URI[self.dialect]
        doc: dict[str, Any] = {
            "zarr_format": uri,
            "metadata_encoding": uri,
            "metadata_key_suffix": self.suffix,
            "extensions": list(self.extensions),
        }
        if self.transformers:
            doc["storage_transformers"] = [
                st.to_draft(t, field=f"storage_transformers[{i}]") for i, t in enumerate(self.transformers)
            ]
        return doc


def dialect_of(zarr_format: Any) -> tuple[str, int] | None:
    """``(dialect, minor)`` for a draft ``zarr_format`` URI; None when it is not a draft URI."""
    if not isinstance(zarr_format, str) or not zarr_format.startswith("https://purl.org/zarr/spec/"):
        return None
    for dialect in (ZARR_PYTHON, EDITOR):
        stem = URI_STEM[dialect]
        if zarr_format.startswith(stem):
            match = _VERSION_RE.fullmatch(zarr_format[len(stem) :])
            if match:
                return dialect, int(match.group(1))
    raise MetadataError(
        f"unsupported Zarr format {zarr_format!r}; the draft-2022 format reads "
        f"{ZARR_FORMAT_URI[EDITOR]!r} and {ZARR_FORMAT_URI[ZARR_PYTHON]!r} (and their 3.x "
        "minor versions)",
        field="zarr_format",
        value=zarr_format,
        key=ENTRY_POINT_KEY,
    )


def parse_entry_point(data: bytes) -> EntryPoint | None:
    """The entry point, or None when ``zarr.json`` is not a 2022-draft entry point.

    The draft claims the document by its marker alone: a ``zarr_format`` naming one of
    its URIs. Anything else (bytes that are not JSON, the final v3 format's root node,
    with NaN in its attributes or not) is another format's, never a broken entry point."""
    key = ENTRY_POINT_KEY
    if _MARKER not in data:  # no draft URI anywhere: not parsed at all (a v3 root can be big)
        return None
    try:
        document = load_document(data, key=key, allow_nan=True)
    except MetadataError:
        return None  # not JSON: no marker of the draft's
    found = dialect_of(document.get("zarr_format"))
    if found is None:
        return None
    dialect, minor = found
    try:
        return _parse(document, dialect, minor)
    except MetadataError as exc:
        raise with_key(exc, key) from None


_MARKER = b"purl.org"  # in every URI of the draft's zarr_format (slashes may be escaped)
_parsed: dict[bytes, EntryPoint | None] = {}
_parsed_lock = threading.Lock()


def cached_entry_point(data: bytes) -> EntryPoint | None:
    """:func:`parse_entry_point`, remembering the last few documents parsed in this
    process: every node operation reads the root ``zarr.json`` again, and under the
    final v3 format it is a group document that must be parsed only to find it is
    not an entry point. The result depends on the bytes alone and is immutable."""
    with _parsed_lock:
        if data in _parsed:
            return _parsed[data]
    entry = parse_entry_point(data)  # errors are not remembered: raised on every read
    with _parsed_lock:
        if len(_parsed) >= 16:
            _parsed.clear()
        _parsed[data] = entry
    return entry


def with_key(exc: MetadataError, key: str) -> MetadataError:
    """``exc`` naming the store key of the document (unless it names one)."""
    return exc.at(key)


def _parse(document: dict[str, Any], dialect: str, minor: int) -> EntryPoint:
    encoding = document.get("metadata_encoding", ZARR_FORMAT_URI[dialect])
    if dialect_of(encoding) is None:
        raise MetadataError(
            f"unsupported metadata encoding {encoding!r}; only the JSON encoding "
            f"({ZARR_FORMAT_URI[EDITOR]!r} or {ZARR_FORMAT_URI[ZARR_PYTHON]!r}) is "
            "implemented",
            field="metadata_encoding",
            value=encoding,
        )
    suffix = document.get("metadata_key_suffix", ".json")
    if not isinstance(suffix, str) or not _SUFFIX_RE.fullmatch(suffix):
        raise MetadataError(
            f"must be a string of the characters a-z, A-Z, 0-9, '.', '-', '_', got {suffix!r}",
            field="metadata_key_suffix",
            value=suffix,
        )
    extensions = document.get("extensions", [])
    if not isinstance(extensions, list):
        raise MetadataError(f"must be a list, got {extensions!r}", field="extensions", value=extensions)
    for i, entry in enumerate(extensions):
        check_extension(entry, field=f"extensions[{i}]")
    if minor == 0:
        unknown = sorted(set(document) - ENTRY_FIELDS)
        for name in unknown:
            value = document[name]
            if not (isinstance(value, dict) and value.get("must_understand") is False):
                raise MustUnderstandError(
                    f"unrecognised entry point field {name!r} with value {value!r} (a field "
                    'the engine does not know opens only with "must_understand": false)',
                    field=name,
                    value=value,
                )
    transformers = st.parse_list(document.get("storage_transformers"), field="storage_transformers")
    return EntryPoint(dialect, minor, suffix, tuple(extensions), transformers, document)


def check_extension(entry: Any, *, field: str) -> None:
    """The must_understand rule for an entry of an ``extensions`` list of the draft."""
    if not isinstance(entry, dict):
        raise MetadataError(
            f"an extension entry must be an object with 'extension' and 'must_understand', got {entry!r}",
            field=field,
            value=entry,
        )
    uri = entry.get("extension")
    if not isinstance(uri, str) or not uri:
        raise MetadataError(f"'extension' must be a URI, got {uri!r}", field=f"{field}.extension", value=uri)
    must = entry.get("must_understand", True)
    if not isinstance(must, bool):
        raise MetadataError(
            f"'must_understand' must be true or false, got {must!r}",
            field=f"{field}.must_understand",
            value=must,
        )
    configuration = entry.get("configuration")
    if configuration is not None and not isinstance(configuration, dict):
        raise MetadataError(
            f"'configuration' must be an object, got {configuration!r}",
            field=f"{field}.configuration",
            value=configuration,
        )
    if uri in registry.extensions:
        implementation = registry.extensions.get(uri, field=f"{field}.extension")
        try:
            implementation.from_json(uri, configuration)
        except MetadataError as exc:
            inner = f"{field}.{exc.field}" if exc.field else field
            raise MetadataError(exc.message, field=inner, value=exc.value) from exc
        return
    if must:
        raise MustUnderstandError(
            f"extension {uri!r} is not understood by any installed plugin and says "
            '"must_understand": true, so the hierarchy cannot be opened (install the plugin that '
            "registers it in the 'zarrforge.extensions' group)",
            field=f"{field}.extension",
            value=uri,
        )


def new_entry_point(dialect: str, transformers: Sequence[StorageTransformer] = ()) -> EntryPoint:
    if transformers and dialect != EDITOR:
        raise MetadataError(
            "global storage transformers exist in the editor's draft only "
            "(zarr-python 2 reads an entry point with exactly four fields); use "
            "the 'editor' dialect",
            field="storage_transformers",
        )
    return EntryPoint(dialect, 0, ".json", (), tuple(transformers))
