"""A store over a caller's mapping: ``zarrforge.create_array({}, ...)`` and the like.

zarr-python takes a ``dict`` (or any ``MutableMapping``) as a store; so does zarrforge,
through the ``zarrforge_adapt_store`` hook (:mod:`zarrforge_std.hooks`). A plain ``dict``
becomes a :class:`~zarrforge_std.stores.memory.MemoryStore` holding its data in that
dict, with every guarantee of the in-memory store. Any other mapping becomes a
:class:`MappingStore`: keys are store keys, values ``bytes``; reads of a part slice the
value; it promises no atomic or conditional writes, since the mapping may be anything (a
``shelve``, a ``zict`` buffer, an object of the caller's), and a read-only ``Mapping``
gives a read-only store. A value that is not bytes-like is refused naming its key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from zarrforge.errors import StoreError
from zarrforge.plugin_api.stores import ByteRange, Store, StoreCapabilities, validate_key, validate_prefix


class MappingStore(Store):
    scheme = "mapping"
    capabilities = StoreCapabilities(writable=True, listable=True, partial_reads=True)

    def __init__(self, mapping: Mapping[str, Any], *, read_only: bool = False) -> None:
        super().__init__(read_only=read_only or not isinstance(mapping, MutableMapping))
        self.mapping = mapping

    def __eq__(self, other: object) -> bool:
        # two stores over one mapping (passed as a store twice) are the same store
        if not isinstance(other, MappingStore):
            return NotImplemented
        return other.mapping is self.mapping and other.read_only == self.read_only

    def __hash__(self) -> int:
        return id(self.mapping)

    def _value(self, key: str) -> bytes | None:
        value = self.mapping.get(key)
        if value is None or isinstance(value, bytes):
            return value
        try:
            return bytes(memoryview(value))
        except TypeError:
            raise StoreError(
                f"the mapping's value at {key!r} is a {type(value).__name__}, "
                "not bytes: it was not written as a store value",
                key=key,
            ) from None

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        value = self._value(validate_key(key))
        if value is None or byte_range is None:
            return value
        return value[byte_range.slice_of(len(value))]

    def exists(self, key: str) -> bool:
        return validate_key(key) in self.mapping

    def _set(self, key: str, value: bytes) -> None:
        self.mapping[key] = bytes(value)  # type: ignore[index]

    def _delete(self, key: str) -> None:
        self.mapping.pop(key, None)  # type: ignore[attr-defined]

    def list_prefix(self, prefix: str) -> Iterator[str]:
        validate_prefix(prefix)
        return iter(sorted(k for k in list(self.mapping) if k.startswith(prefix)))

    def __repr__(self) -> str:
        return f"MappingStore({type(self.mapping).__qualname__})"
