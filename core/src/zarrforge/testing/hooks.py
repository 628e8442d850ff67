"""The hook plugin conformance suite (the ``zarrforge.plugins`` entry-point group).

Subclass :class:`HookConformance` and set:

* ``plugin``: your hook plugin, the module or object your ``zarrforge.plugins`` entry
  point names;
* ``claimed_urls``: URLs your ``zarrforge_resolve_store`` claims (each must give a
  :class:`~zarrforge.abc.store.Store`), if it implements that hook;
* ``adapted_objects(self)``: objects your ``zarrforge_adapt_store`` adapts (each must give
  a ``Store``), if it implements that hook; a method, since such objects are often made
  by another library;
* ``max_call_seconds`` (default 0.5): the longest one call may take (a call over it is
  timed again, since a first call may import what the plugin needs). Hooks run in every
  user's calls (``zarrforge_node_opened`` for every node opened), so they must be cheap.

What it checks, against :mod:`zarrforge.hookspecs`: every ``zarrforge_*`` function the
plugin implements is declared by a specification (a misspelled name is never called);
each implementation, called as the engine calls it (the engine would otherwise leave a
failing hook out with a warning, so a broken hook fails silently in users' hands), raises nothing but zarrforge errors, returns
what its specification says (``None`` or a ``Store`` for the store hooks, ``None`` for
``zarrforge_node_opened``), declines (``None``) what is not its own (URLs of schemes no
plugin knows, ``memory://`` URLs, plain objects), answers within ``max_call_seconds``,
and ``zarrforge_node_opened`` writes nothing to the store of the node it is shown (an
array and a group of every installed format that can write them). Hooks that other
plugins declare (``zarrforge.hookspecs``) are checked for being declared only.
Each failure names the hook and the property, in a sentence.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

import zarrforge as zf

from ..abc.store import Store, WrapperStore
from ..errors import ZarrforgeError
from ..hierarchy_api import installed_formats
from ..plugin_api import declared_hooks
from .kit_store import KitMemoryStore

STORE_HOOKS = ("zarrforge_resolve_store", "zarrforge_adapt_store")
# URLs and objects that are nobody's: every store hook must decline them (no mapping: a
# dict is a store, as in zarr-python, which zarrforge-std adapts)
FOREIGN_URLS = ("zarrforge-kit-unknown://bucket/data.zarr", "zarrforge-kit-unknown::memory://x")
FOREIGN_OBJECTS: tuple[Any, ...] = (object(), 42, 2.5, ("a", "tuple"), ["a", "list"], b"bytes")


class _WritesRecorded(WrapperStore):
    """Forwards reads; records (and refuses to pass on) every write and delete."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.writes: list[str] = []

    def _set(self, key: str, value: bytes) -> None:
        self.writes.append(f"set {key!r}")

    def _delete(self, key: str) -> None:
        self.writes.append(f"delete {key!r}")

    def erase_prefix(self, prefix: str) -> None:
        self.writes.append(f"erase_prefix {prefix!r}")


class HookConformance:
    plugin: Any = None
    claimed_urls: tuple[str, ...] = ()
    max_call_seconds = 0.5

    def adapted_objects(self) -> list[Any]:
        return []

    # --- helpers ----------------------------------------------------------------------------

    def _implemented(self) -> dict[str, Callable[..., Any]]:
        assert self.plugin is not None, "set plugin to your hook plugin (module or object)"
        return {
            name: getattr(self.plugin, name)
            for name in dir(self.plugin)
            if name.startswith("zarrforge_") and callable(getattr(self.plugin, name))
        }

    def _call(self, name: str, **kwargs: Any) -> Any:
        """The implementation ``name`` called as the engine calls it; a failure other than a
        zarrforge error, or a call slower than ``max_call_seconds`` (a second call, when the
        first was: the first may import what the plugin needs, once), fails the test."""
        answer, took = self._timed(name, kwargs)
        if took > self.max_call_seconds:
            answer, took = self._timed(name, kwargs)
        assert took <= self.max_call_seconds, (
            f"hook {name}({_shown(kwargs)}) took {took:.2f} s, more than max_call_seconds "
            f"({self.max_call_seconds} s): hooks run in every user's calls; stay cheap (no "
            "network or disk unless the call is yours, nothing imported on every call)"
        )
        return answer

    def _timed(self, name: str, kwargs: dict[str, Any]) -> tuple[Any, float]:
        function = self._implemented()[name]
        started = time.perf_counter()
        try:
            answer = function(**kwargs)
        except ZarrforgeError:
            raise
        except Exception as exc:
            raise AssertionError(
                f"hook {name}({_shown(kwargs)}) raised {type(exc).__name__}: {exc}. The engine "
                "leaves a hook that fails this way out, with a warning, so the plugin does "
                "nothing in users' hands: decline (return None) what is not yours, and raise "
                "zarrforge errors (zarrforge.errors) for what is"
            ) from exc
        return answer, time.perf_counter() - started

    def _store_answer(self, name: str, answer: Any, asked: str) -> None:
        assert answer is None or isinstance(answer, Store), (
            f"hook {name} answered {asked} with {type(answer).__qualname__} {answer!r:.80}: "
            "a store hook returns a zarrforge Store (zarrforge.abc.store.Store) or None"
        )

    # --- the tests --------------------------------------------------------------------------

    def test_every_hook_implemented_is_declared(self):
        known = set(declared_hooks())
        names = sorted(self._implemented())
        assert names, (
            f"{self.plugin!r} implements no zarrforge_* hook: set plugin to the "
            "module or object your zarrforge.plugins entry point names"
        )
        missing = sorted(set(names) - known)
        assert not missing, (
            f"{self.plugin!r} implements {missing}, which no hook specification declares: it "
            f"would never be called (a misspelling?). Declared hooks: {sorted(known)}"
        )

    def test_store_hooks_decline_what_is_not_theirs_quickly_and_cleanly(self):
        implemented = self._implemented()
        for name in STORE_HOOKS:
            if name not in implemented:
                continue
            for read_only in (True, False):
                if name == "zarrforge_resolve_store":
                    for url in FOREIGN_URLS:
                        answer = self._call(name, url=url, options={}, read_only=read_only)
                        assert answer is None, (
                            f"hook {name} claimed {url!r}, a URL of a scheme nobody provides: "
                            "answer None for URLs that are not yours (the next plugin, and the "
                            "registry, get their turn)"
                        )
                else:
                    for obj in FOREIGN_OBJECTS:
                        answer = self._call(name, obj=obj, options={}, read_only=read_only)
                        assert answer is None, (
                            f"hook {name} adapted {obj!r} ({type(obj).__qualname__}), an "
                            "object that is no store: answer None for objects that are not "
                            "yours"
                        )

    def test_store_hooks_answer_what_is_theirs_with_a_store(self):
        implemented = self._implemented()
        asked = 0
        if "zarrforge_resolve_store" in implemented:
            for url in self.claimed_urls:
                answer = self._call("zarrforge_resolve_store", url=url, options={}, read_only=True)
                self._store_answer("zarrforge_resolve_store", answer, repr(url))
                assert answer is not None, (
                    f"hook zarrforge_resolve_store declined {url!r}, one of claimed_urls"
                )
                asked += 1
        if "zarrforge_adapt_store" in implemented:
            for obj in self.adapted_objects():
                answer = self._call("zarrforge_adapt_store", obj=obj, options={}, read_only=True)
                self._store_answer("zarrforge_adapt_store", answer, f"a {type(obj).__qualname__}")
                assert answer is not None, (
                    f"hook zarrforge_adapt_store declined {obj!r:.80}, one of adapted_objects()"
                )
                asked += 1
        wanted = {"zarrforge_resolve_store": "claimed_urls", "zarrforge_adapt_store": "adapted_objects()"}
        missing = [
            wanted[name]
            for name in STORE_HOOKS
            if name in implemented
            and not (self.claimed_urls if name == "zarrforge_resolve_store" else self.adapted_objects())
        ]
        assert not missing, (
            f"the plugin implements a store hook: give {' and '.join(missing)} "
            "so the suite can check what it answers for its own"
        )
        assert asked or not any(name in implemented for name in STORE_HOOKS)

    def test_node_opened_returns_nothing_writes_nothing_and_is_quick(self):
        if "zarrforge_node_opened" not in self._implemented():
            return
        shown = 0
        for fmt in installed_formats():
            store = _WritesRecorded(KitMemoryStore())
            try:
                zf.create_group(store.inner, zarr_format=fmt)
                zf.create_array(store.inner, "a", shape=(3,), chunks=(2,), dtype="int16", zarr_format=fmt)[
                    ...
                ] = np.arange(3)
                nodes = [
                    zf.open_group(store, mode="r+", zarr_format=fmt),
                    zf.open_array(store, "a", mode="r+", zarr_format=fmt),
                    zf.open_array(store, "a", mode="r", zarr_format=fmt),
                ]
            except ZarrforgeError:
                continue  # a format that cannot write these nodes
            for node in nodes:
                answer = self._call("zarrforge_node_opened", node=node)
                assert answer is None, (
                    f"hook zarrforge_node_opened returned {answer!r:.80} for {node!r}: it "
                    "returns None (it may only look at the node)"
                )
                assert not store.writes, (
                    f"hook zarrforge_node_opened wrote to the store of {node!r} (format "
                    f"{fmt!r}): {store.writes[:5]}; it must not write (a read-only user, a "
                    "concurrent writer and a transaction all open nodes)"
                )
                shown += 1
        assert shown, "no installed format could write a node to show zarrforge_node_opened"


def _shown(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r:.60}" for k, v in kwargs.items())
