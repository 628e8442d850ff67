"""User attributes of a node, persisted on every change.

:class:`Attributes` is a mutable mapping over a node's ``attributes``. Each
change builds the new dictionary and hands it to the node, which writes its
metadata document through its format (which refuses, naming the attribute,
what it cannot write); if anything fails the stored document and this mapping
are unchanged. ``update`` and ``put`` write
once for many changes.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Callable, Iterator

from .errors import MetadataError



class Attributes(MutableMapping):
    def __init__(self, current: Callable[[], dict[str, Any]],
                 persist: Callable[[dict[str, Any]], None]) -> None:
        self._current = current
        self._persist = persist

    def _write(self, new: dict[str, Any]) -> None:
        # What can be written is the format's to say (v2 writes NaN tokens in attributes
        # as zarr-python does, v3 refuses them); its refusal names the attribute.
        self._persist(new)

    def __getitem__(self, key: str) -> Any:
        return self._current()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise MetadataError(f"attribute names must be strings, got {key!r}",
                                field="attributes", value=key)
        self._write({**self._current(), key: value})

    def __delitem__(self, key: str) -> None:
        current = dict(self._current())
        del current[key]
        self._write(current)

    def __iter__(self) -> Iterator[str]:
        return iter(dict(self._current()))

    def __len__(self) -> int:
        return len(self._current())

    def update(self, *args: Any, **kwargs: Any) -> None:  # one write for many keys
        self._write({**self._current(), **dict(*args, **kwargs)})

    def put(self, mapping: dict[str, Any]) -> None:
        """Replace every attribute at once."""
        self._write(dict(mapping))

    def asdict(self) -> dict[str, Any]:
        return dict(self._current())

    def __repr__(self) -> str:
        return f"Attributes({self._current()!r})"
