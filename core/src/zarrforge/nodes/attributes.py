"""User attributes of a node, persisted on every change.

:class:`Attributes` is a mutable mapping over a node's ``attributes``. Each
change is handed to the node as a function of the stored attributes: the node
applies it to the latest stored document (on stores with conditional writes;
to its own copy elsewhere) and writes it through its format, which refuses,
naming the attribute, what it cannot write. If anything fails the stored
document and this mapping are unchanged. ``update`` and ``put`` write
once for many changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from ..errors import MetadataError
from ..metadata.json_io import check_new_attributes

Change = Callable[[dict[str, Any]], dict[str, Any]]


class Attributes(MutableMapping):
    """``current()`` gives the node's attributes; ``apply(change)`` persists a change,
    a function from the stored attributes to the new ones (the node applies it to the
    latest stored document where the store allows, so concurrent changes of other
    attributes are kept)."""

    def __init__(self, current: Callable[[], dict[str, Any]], apply: Callable[[Change], None]) -> None:
        self._current = current
        self._apply = apply

    def _write(self, change: Change) -> None:
        # What can be written is the format's to say; its refusal names the attribute.
        self._apply(change)

    def __getitem__(self, key: str) -> Any:
        return self._current()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise MetadataError(
                f"attribute names must be strings, got {key!r}", field="attributes", value=key
            )
        check_new_attributes({key: value})
        self._write(lambda stored: {**stored, key: value})

    def __delitem__(self, key: str) -> None:
        if key not in self._current():
            raise KeyError(key)
        self._write(lambda stored: {k: v for k, v in stored.items() if k != key})

    def __iter__(self) -> Iterator[str]:
        return iter(dict(self._current()))

    def __len__(self) -> int:
        return len(self._current())

    def update(self, *args: Any, **kwargs: Any) -> None:  # one write for many keys
        new = dict(*args, **kwargs)
        check_new_attributes(new)
        self._write(lambda stored: {**stored, **new})

    def put(self, mapping: dict[str, Any]) -> None:
        """Replace every attribute at once."""
        new = dict(mapping)
        check_new_attributes(new)
        self._write(lambda stored: dict(new))

    def asdict(self) -> dict[str, Any]:
        return dict(self._current())

    def __repr__(self) -> str:
        return f"Attributes({dict(self._current())!r})"
