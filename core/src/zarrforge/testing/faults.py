"""Fault injection for store tests: :class:`FaultyStore`.

A :class:`FaultyStore` wraps any store and forwards every call to it, except
the calls a *rule* selects, which suffer a *fault*::

    from zarrforge.testing.faults import FaultyStore, Fail, Truncate, on

    store = FaultyStore(MemoryStore())
    store.add(on("set", "a/c/*", nth=3), Fail())           # the 3rd chunk write raises
    store.add(on("get", "a/zarr.json"), Delay(0.5))        # every read of it is slow
    store.add(on("set", "a/c/0/0"), Truncate(0.5, then_fail=True), times=1)  # a torn write

Calls. Each call through the store is described by a :class:`Call`:
``method`` (``"get"``, ``"set"``, ``"delete"``, ``"exists"``, ``"getsize"``,
``"list_prefix"``, ``"list_dir"``, ``"erase_prefix"``), ``key`` (the key, or
the prefix for listings), ``number`` (1-based count of every call through
this store), ``method_number`` and ``key_number`` (the same count among calls
of this method, and of this method on this key). Batched calls are split:
``get_many`` is one ``get`` per request and ``set_many`` / ``delete_many``
one ``set`` / ``delete`` per item, in order, so a fault can hit the middle of
a batch (the items before it are written, the rest are not). This gives up
the inner store's batching, which is the point in a test.

Rules. ``add(predicate, fault, times=None)`` adds a :class:`Rule`; a predicate
is any ``Callable[[Call], bool]``, usually made by :func:`on` (method(s), key
glob, ``nth`` / ``from_nth`` matching call). The first rule whose predicate
accepts the call, and that has firings left (``times``), applies its fault;
a call no rule accepts is forwarded unchanged. Rules can be added and
removed (:meth:`FaultyStore.clear`) at any time; all bookkeeping is
thread-safe.

Faults (each says which methods it applies to; elsewhere it forwards):

* :class:`Fail` -- raise (a :class:`~zarrforge.errors.StoreError` naming the key
  by default, or the exception you give, e.g. ``OSError(errno.ENOSPC, ...)``, or
  a callable taking the :class:`Call` and returning one); nothing reaches the
  inner store.
* :class:`Truncate` -- ``set``: store only the first part of the value (then,
  with ``then_fail=True``, raise: a write torn by a crash on a store without
  atomic writes); ``get``: return only the first part.
* :class:`Corrupt` -- ``get``: return the value with one byte changed.
* :class:`Delay` -- sleep, then forward (slow I/O, and a way to widen race windows).
* :class:`Stale` -- ``get`` / ``exists`` / ``getsize``: answer from the value the
  key had before its latest write through this store (``None`` if it had
  none): a store with read-after-write lag.
* :class:`Drop` -- ``set`` / ``delete``: report success and do nothing (a lost write).

Races made certain: :class:`ChangeBetweenReads` runs another writer's change right
after a read (of a key, or a versioned read), between the reader's steps.

``calls`` lists every :class:`Call`, ``fired`` every ``(Call, fault)`` applied.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from ..abc.store import ByteRange, ListDirResult, Store, StoreCapabilities, WrapperStore, validate_key
from ..errors import StoreError

__all__ = [
    "Call",
    "Rule",
    "FaultyStore",
    "on",
    "Fault",
    "Fail",
    "Truncate",
    "Corrupt",
    "Delay",
    "Stale",
    "Drop",
]


@dataclasses.dataclass(frozen=True)
class Call:
    method: str
    key: str | None
    number: int
    method_number: int
    key_number: int


Predicate = Callable[[Call], bool]


def on(
    method: str | Iterable[str] | None = None,
    key: str | None = None,
    *,
    nth: int | None = None,
    from_nth: int | None = None,
    where: Predicate | None = None,
) -> Predicate:
    """A predicate selecting calls by method(s), key glob (``fnmatch``; ``None``: any
    key), and position among the calls matching those: ``nth`` selects only the n-th
    (1-based), ``from_nth`` the n-th and every later one. ``where`` adds any further
    condition on the :class:`Call`."""
    methods = None if method is None else ({method} if isinstance(method, str) else set(method))
    lock = threading.Lock()
    seen = [0]

    def predicate(call: Call) -> bool:
        if methods is not None and call.method not in methods:
            return False
        if key is not None and (call.key is None or not fnmatch.fnmatchcase(call.key, key)):
            return False
        if where is not None and not where(call):
            return False
        with lock:
            seen[0] += 1
            position = seen[0]
        if nth is not None and position != nth:
            return False
        if from_nth is not None and position < from_nth:
            return False
        return True

    return predicate


class Fault:
    """Base class: ``apply(store, call, proceed, *args)`` returns the call's result.

    ``proceed()`` performs the call on the inner store; ``args`` are the call's
    arguments after the key (the value of a ``set``, the byte range of a ``get``).
    """

    methods: frozenset[str] = frozenset()

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Fail(Fault):
    methods = frozenset(
        {"get", "set", "delete", "exists", "getsize", "list_prefix", "list_dir", "erase_prefix"}
    )

    def __init__(self, error: BaseException | Callable[[Call], BaseException] | None = None) -> None:
        self.error = error

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        if self.error is None:
            raise StoreError(
                f"injected fault: {call.method} of {call.key!r} failed (call {call.number})", key=call.key
            )
        raise (
            self.error(call)
            if callable(self.error) and not isinstance(self.error, BaseException)
            else self.error
        )


class Truncate(Fault):
    """Keep ``keep`` of the value: a fraction (``0 <= keep < 1``) or a byte count."""

    methods = frozenset({"set", "get"})

    def __init__(self, keep: float = 0.5, *, then_fail: bool = False) -> None:
        self.keep = keep
        self.then_fail = then_fail

    def _cut(self, value: bytes) -> bytes:
        n = int(len(value) * self.keep) if isinstance(self.keep, float) else int(self.keep)
        return value[: max(0, min(n, len(value)))]

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        if call.method == "get":
            value = proceed()
            return None if value is None else self._cut(value)
        key = cast(str, call.key)  # a write's call names its key
        store._remember(key)
        store.inner.set(key, self._cut(args[0]))
        if self.then_fail:
            raise StoreError(
                f"injected fault: the write of {call.key!r} was torn after "
                f"{len(self._cut(args[0]))} of {len(args[0])} bytes",
                key=call.key,
            )
        return None


class Corrupt(Fault):
    """Flip the bits of byte ``offset`` (negative: from the end) of the value read."""

    methods = frozenset({"get"})

    def __init__(self, offset: int = 0, mask: int = 0xFF) -> None:
        self.offset = offset
        self.mask = mask

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        value = proceed()
        if not value:
            return value
        data = bytearray(value)
        data[self.offset % len(data)] ^= self.mask
        return bytes(data)


class Delay(Fault):
    methods = frozenset(
        {"get", "set", "delete", "exists", "getsize", "list_prefix", "list_dir", "erase_prefix"}
    )

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        time.sleep(self.seconds)
        return proceed()


class Stale(Fault):
    methods = frozenset({"get", "exists", "getsize"})

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        found, value = store.previous_value(call.key)
        if not found:
            return proceed()  # never written through this store: nothing older to show
        if call.method == "exists":
            return value is not None
        if call.method == "getsize":
            return None if value is None else len(value)
        byte_range: ByteRange | None = args[0] if args else None
        if value is None or byte_range is None:
            return value
        return value[byte_range.slice_of(len(value))]


class Drop(Fault):
    methods = frozenset({"set", "delete"})

    def apply(self, store: FaultyStore, call: Call, proceed: Callable[[], Any], *args: Any) -> Any:
        return None


@dataclasses.dataclass
class Rule:
    predicate: Predicate
    fault: Fault
    times: int | None = None  # firings left; None: unlimited

    def __post_init__(self) -> None:
        if not isinstance(self.fault, Fault):
            raise TypeError(f"a rule needs a Fault, got {self.fault!r}")


class FaultyStore(WrapperStore):
    """``inner`` with the faults of ``rules`` injected (see the module docstring).

    ``history=True`` (the default) remembers, for every key written through this
    store, the value it had before (one extra read of the inner store per write);
    :class:`Stale` needs it.

    ``conditional=True`` passes the inner store's conditional writes through (off by
    default, so that every write is a plain ``set``/``delete`` a rule can catch): each
    ``set_if`` / ``delete_if`` is then a ``"set"`` / ``"delete"`` call to the rules, and
    a :class:`Fail` among them raises before the inner store is asked; other faults
    pass conditional writes through unchanged.
    """

    def __init__(
        self, inner: Store, rules: Iterable[Rule] = (), *, history: bool = True, conditional: bool = False
    ) -> None:
        super().__init__(inner)
        self.conditional = conditional
        self.rules: list[Rule] = list(rules)
        self.calls: list[Call] = []
        self.fired: list[tuple[Call, Fault]] = []
        self.history = history
        self._previous: dict[str, bytes | None] = {}
        self._lock = threading.Lock()
        self._method_counts: dict[str, int] = {}
        self._key_counts: dict[tuple[str, str | None], int] = {}

    # --- rules ------------------------------------------------------------------------

    def add(self, predicate: Predicate, fault: Fault, *, times: int | None = None) -> Rule:
        rule = Rule(predicate, fault, times)
        with self._lock:
            self.rules.append(rule)
        return rule

    def remove(self, rule: Rule) -> None:
        with self._lock:
            self.rules.remove(rule)

    def clear(self) -> None:
        """Remove every rule (the call log and history stay)."""
        with self._lock:
            self.rules.clear()

    def previous_value(self, key: str | None) -> tuple[bool, bytes | None]:
        """``(True, value before the latest write)`` for keys written through this store."""
        with self._lock:
            if key in self._previous:
                return True, self._previous[key]
        return False, None

    # --- dispatch -------------------------------------------------------------------------

    def _call(self, method: str, key: str | None) -> tuple[Call, Fault | None]:
        with self._lock:
            number = len(self.calls) + 1
            self._method_counts[method] = self._method_counts.get(method, 0) + 1
            self._key_counts[(method, key)] = self._key_counts.get((method, key), 0) + 1
            call = Call(method, key, number, self._method_counts[method], self._key_counts[(method, key)])
            self.calls.append(call)
            rules = list(self.rules)
        for rule in rules:
            if rule.fault.methods and method not in rule.fault.methods:
                continue
            if not rule.predicate(call):
                continue
            with self._lock:
                if rule.times is not None:
                    if rule.times <= 0:
                        continue
                    rule.times -= 1
                self.fired.append((call, rule.fault))
            return call, rule.fault
        return call, None

    def _run(self, method: str, key: str | None, proceed: Callable[[], Any], *args: Any) -> Any:
        call, fault = self._call(method, key)
        if fault is None:
            return proceed()
        return fault.apply(self, call, proceed, *args)

    # --- reads -------------------------------------------------------------------------------

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        validate_key(key)
        return self._run("get", key, lambda: self.inner.get(key, byte_range), byte_range)

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        return [self.get(key, byte_range) for key, byte_range in requests]

    def exists(self, key: str) -> bool:
        return self._run("exists", key, lambda: self.inner.exists(key))

    def getsize(self, key: str) -> int | None:
        return self._run("getsize", key, lambda: self.inner.getsize(key))

    def list_prefix(self, prefix: str) -> Iterator[str]:
        return self._run("list_prefix", prefix, lambda: self.inner.list_prefix(prefix))

    def list_dir(self, prefix: str) -> ListDirResult:
        return self._run("list_dir", prefix, lambda: self.inner.list_dir(prefix))

    # --- writes ------------------------------------------------------------------------------

    def _remember(self, key: str) -> None:
        if self.history:
            before = self.inner.get(key)
            with self._lock:
                self._previous[key] = before

    def _set(self, key: str, value: bytes) -> None:
        def proceed() -> None:
            self._remember(key)
            self.inner.set(key, value)

        self._run("set", key, proceed, value)

    def _delete(self, key: str) -> None:
        def proceed() -> None:
            self._remember(key)
            self.inner.delete(key)

        self._run("delete", key, proceed)

    # set_many / delete_many are Store's defaults: one set / delete per key, each meeting
    # the rules on its own (the split the module contract promises).

    @property
    def capabilities(self) -> StoreCapabilities:  # type: ignore[override]  # Store's attribute; a property, as WrapperStore's
        inner = self.inner.capabilities
        if self.conditional:
            return inner
        return dataclasses.replace(inner, conditional_writes=False, versioned_ranges=False)

    def _conditionally(self, method: str, key: str, proceed: Callable[[], Any]) -> Any:
        call, fault = self._call(method, key)
        if isinstance(fault, Fail):
            return fault.apply(self, call, proceed)
        return proceed()

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        return self._conditionally(
            "set", key, lambda: self.inner.set_if(key, value, if_generation=if_generation)
        )

    def _delete_if(self, key: str, if_generation: Any) -> None:
        self._conditionally("delete", key, lambda: self.inner.delete_if(key, if_generation=if_generation))

    def erase_prefix(self, prefix: str) -> None:
        self._check_writable(prefix or "<root>")
        self._run("erase_prefix", prefix, lambda: self.inner.erase_prefix(prefix))


class ChangeBetweenReads(WrapperStore):
    """Makes a race certain: runs ``change()`` (another writer's write) right after each
    of the first ``times`` reads through it, so the caller's next request meets the
    change. ``key`` limits it to reads of that key; ``versioned_only`` to versioned
    reads (``get_versioned``, ``get_versioned_many``: between an update's read and its
    conditional write). Whole-value ``get_many`` is read one key at a time, so the change
    can land inside a batch; a ``get_versioned_many`` or ``get_ranges`` is one read.
    ``reads`` counts the reads seen; ``times`` may be changed at any time. It changes no
    key and no value, so conditional writes and versioned ranges pass through."""

    forwards_conditional_writes = True

    def __init__(
        self,
        inner: Store,
        change: Callable[[], Any],
        *,
        key: str | None = None,
        times: int = 1,
        versioned_only: bool = False,
    ) -> None:
        super().__init__(inner)
        self.change, self.key, self.times = change, key, times
        self.versioned_only = versioned_only
        self.reads = 0

    def _after(self, keys: Sequence[str], versioned: bool) -> None:
        if (versioned or not self.versioned_only) and (self.key is None or self.key in keys):
            self.reads += 1
            if self.reads <= self.times:
                self.change()

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        value = self.inner.get(key, byte_range)
        self._after([key], False)
        return value

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        return [self.get(key, byte_range) for key, byte_range in requests]

    def _get_versioned(self, key: str) -> Any:
        answer = self.inner.get_versioned(key)
        self._after([key], True)
        return answer

    def get_versioned_many(self, keys: Sequence[str]) -> list[Any]:
        answer = self.inner.get_versioned_many(keys)
        self._after(keys, True)
        return answer

    def _get_ranges(self, key: str, ranges: list[ByteRange | None], if_generation: Any) -> Any:
        answer = self.inner.get_ranges(key, ranges, if_generation=if_generation)
        self._after([key], False)
        return answer
