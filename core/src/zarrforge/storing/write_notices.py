"""Who hears that zarrforge wrote or erased keys: what keeps caches of stored data coherent.

Contract: every place in zarrforge that writes, deletes or erases chunk keys (the chunk
engine, a resize dropping chunks, a node replaced or erased, a transaction's commit) runs
the store calls inside :func:`announcing_writes` (the keys) or :func:`announcing_erasure`
(a key prefix), which announce them when the block ends, also when it failed part way
(:func:`written` and :func:`erased` announce at once). Each listener (an object with ``forget(names, prefix)``,
registered with :func:`listen` and held weakly: the engine's decoded-chunk caches) is then
told the keys as ``(namespace, key)`` names, where :func:`location_of` says where the
store's data lives, so stores over the same data (two handles on one directory) name a
key alike. Nothing is told of writes that bypass zarrforge's own calls (``store.set`` by
hand, another process): caches revalidate against the store for those.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Hashable, Iterable, Iterator
from typing import Protocol

from ..abc.store import Store


class Listener(Protocol):
    def forget(self, names: Iterable[tuple[Hashable, str]], prefix: bool = False) -> None: ...


_listeners: weakref.WeakSet[Listener] = weakref.WeakSet()


def listen(listener: Listener) -> None:
    """Tell ``listener`` of every write from now on, while it lives."""
    _listeners.add(listener)


_object_tokens: dict[int, int] = {}  # id(store) -> a number no other store object gets
_object_counter = itertools.count(1)
_tokens_lock = threading.Lock()


def location_of(store: Store) -> tuple[Hashable, str]:
    """``(namespace, prefix)`` of the data under ``store``: its base store's
    :meth:`~zarrforge.abc.store.Store.data_location`, else the base store object itself
    (a number no other object gets, even after this one is gone, so a name of a collected
    store is never met again)."""
    base = store.base_store()
    named = base.data_location()
    if named is not None:
        return named
    return ("object", object_token(base)), ""


def object_token(thing: object) -> int:
    """A number naming ``thing`` while it lives, never given to another object, even
    after this one is gone (where ``id`` is given again to the next object at its
    address). An object that cannot be weakly referenced gets a new number each time."""
    with _tokens_lock:
        token = _object_tokens.get(id(thing))
        if token is None:
            token = next(_object_counter)
            try:
                weakref.finalize(thing, _object_tokens.pop, id(thing), None)
                _object_tokens[id(thing)] = token
            except TypeError:  # not weakly referenceable: a name for this call alone
                pass
    return token


def written(store: Store, keys: Iterable[str]) -> None:
    """``keys`` of ``store`` were written or deleted: every listener forgets them."""
    if not _listeners:
        return
    namespace, prefix = location_of(store)
    names = [(namespace, prefix + key) for key in keys]
    for listener in list(_listeners):
        listener.forget(names)


def erased(store: Store, key_prefix: str) -> None:
    """Every key under ``key_prefix`` of ``store`` may have changed (a node replaced or
    erased; ``""``: the whole store): every listener forgets them."""
    if not _listeners:
        return
    namespace, prefix = location_of(store)
    for listener in list(_listeners):
        listener.forget([(namespace, prefix + key_prefix)], prefix=True)


@contextlib.contextmanager
def announcing_writes(store: Store, keys: Iterable[str]) -> Iterator[None]:
    """The block writes or deletes ``keys`` of ``store``: :func:`written` when it ends,
    however it ends."""
    try:
        yield
    finally:
        written(store, keys)


@contextlib.contextmanager
def announcing_erasure(store: Store, key_prefix: str) -> Iterator[None]:
    """The block may erase keys under ``key_prefix`` of ``store``: :func:`erased` when it
    ends, however it ends."""
    try:
        yield
    finally:
        erased(store, key_prefix)
