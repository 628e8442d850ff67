"""The isolation rule: a broken plugin cannot break what does not need it.

The engine calls plugins on behalf of data that is not theirs: every format looks
for its nodes at every path opened or created, a family is asked whether it
``claims`` a name, every data type is asked whether it maps a numpy dtype, every
hook implementation sees every URL, store object and opened node. A plugin that
fails *unexpectedly* there (anything but a :class:`~zarrforge.errors.ZarrforgeError`:
a bug, not an answer) is taken to answer "not mine" and left out of that decision:
:func:`left_out` says so once per plugin per process with a
:class:`~zarrforge.errors.PluginFailureWarning` naming the plugin (its distribution,
version and entry point), and everything else goes on.

Where the data does need the plugin (the node is its format's, the codec is its
name, the URL names its scheme), the same failure is a
:class:`~zarrforge.errors.PluginFailureError` naming the plugin (:func:`failure`),
never a bare traceback from inside it.

A failure of the environment is neither: a network that does not connect, credentials
that cannot be found, a service that refuses (:func:`environmental`: ``OSError`` and
its ``ConnectionError``/``TimeoutError``, and the error classes that the stores and URL
adapters in play declare as their libraries' failures of the environment, their
``environmental_errors``: :mod:`zarrforge.abc.store`; the core names no library).
Where a plugin opens a store for a URL (:class:`named` with ``url=``), such a failure
is a :class:`~zarrforge.errors.StoreError` naming the URL and chaining the library's
exception, not a bug report against the plugin.

This module is a leaf (it imports only the errors): the callers describe the
plugin, as ``"<point> <name> (<origin>)"``.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Literal

from ..errors import PluginFailureError, PluginFailureWarning, StoreError, ZarrforgeError

_warned: set[tuple[str, str]] = set()  # (point, name) already warned about
_lock = threading.Lock()


def unexpected(exc: BaseException) -> bool:
    """Is ``exc`` a plugin's bug rather than its answer (a zarrforge error is an answer)?"""
    return isinstance(exc, Exception) and not isinstance(exc, ZarrforgeError)


def _declared_classes(declared: Iterable[type[BaseException] | str]) -> Iterator[type[BaseException]]:
    """The classes of ``declared``; a dotted name is looked up only in a module already
    imported (an exception of a library never imported cannot have been raised)."""
    for entry in declared:
        if not isinstance(entry, str):
            yield entry
            continue
        module_name, _, class_name = entry.rpartition(".")
        module = sys.modules.get(module_name)
        found = getattr(module, class_name, None) if module is not None else None
        if isinstance(found, type) and issubclass(found, BaseException):
            yield found


def environmental(exc: BaseException, declared: Iterable[type[BaseException] | str] = ()) -> bool:
    """Is ``exc`` a failure of the environment (network, credentials, the service) rather
    than a bug in the code that met it? ``OSError`` (connections, timeouts, files), and an
    instance of a class in ``declared``: the ``environmental_errors`` of the plugins in
    play (classes, or their dotted names)."""
    if isinstance(exc, OSError):
        return True
    return any(isinstance(exc, cls) for cls in _declared_classes(declared))


def _what(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def left_out(
    point: str, name: str, origin: str, exc: BaseException, doing: str, *, stacklevel: int = 3
) -> None:
    """Record that the ``point`` plugin ``name`` (from ``origin``) failed while ``doing``
    something for other data, and warn once per process that it was left out."""
    with _lock:
        if (point, name) in _warned:
            return
        _warned.add((point, name))
    warnings.warn(
        f"the {point} plugin {name!r} ({origin}) failed while {doing} ({_what(exc)}); "
        "zarrforge left it out of that decision and goes on without it. Report it to the "
        "plugin's authors; `zarrforge plugins` lists what is installed.",
        PluginFailureWarning,
        stacklevel=stacklevel,
    )


def failed(point: str | None = None) -> frozenset[str]:
    """The names of the plugins (of ``point``, or of every point as ``"point:name"``) left
    out in this process after failing unexpectedly."""
    with _lock:
        if point is not None:
            return frozenset(name for p, name in _warned if p == point)
        return frozenset(f"{p}:{name}" for p, name in _warned)


def failure(
    point: str, name: str, origin: str, exc: BaseException, doing: str, **details: str | None
) -> PluginFailureError:
    """The error for a plugin that failed unexpectedly on data that needs it (raise it
    ``from exc``)."""
    return PluginFailureError(
        f"the {point} plugin {name!r} ({origin}) failed while {doing}: {_what(exc)}; this "
        "is a bug in that plugin: report it to its authors",
        point=point,
        name=name,
        origin=origin,
        **details,
    )


def environment_failure(url: str, exc: BaseException, doing: str) -> StoreError:
    """The error for the environment failing (:func:`environmental`) while ``doing``
    something for ``url`` (raise it ``from exc``)."""
    return StoreError(
        f"cannot open {url!r}: {_what(exc)} (while {doing}); a failure outside "
        "zarrforge and its plugins (the network, the credentials, the service or "
        "the file system): check them and the storage_options",
        url=url,
    )


class named:
    """``with named(point, name, origin, doing):`` turns a plugin's unexpected failure
    inside the block into :func:`failure`'s error. Zarrforge errors, and the exception
    types in ``answers`` (a store's ``OSError``), pass unchanged. With ``url`` (the
    plugin opens a store for it), a failure of the environment (:func:`environmental`,
    with the classes ``environmental_errors`` the plugins in play declare) that is not in
    ``answers`` is :func:`environment_failure`'s StoreError naming the URL.
    ``origin`` may be a callable, asked only on failure (looking it up costs a registry
    lookup)."""

    __slots__ = ("answers", "doing", "environmental_errors", "name", "origin", "point", "url")

    def __init__(
        self,
        point: str,
        name: str,
        origin: str | Callable[[], str],
        doing: str,
        answers: tuple[type[BaseException], ...] = (),
        url: str | None = None,
        environmental_errors: Iterable[type[BaseException] | str] = (),
    ) -> None:
        self.point, self.name, self.origin, self.doing = point, name, origin, doing
        self.answers = answers
        self.url = url
        self.environmental_errors = environmental_errors

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if exc is None or not unexpected(exc) or isinstance(exc, self.answers):
            return False
        if self.url is not None and environmental(exc, self.environmental_errors):
            raise environment_failure(self.url, exc, self.doing) from exc
        origin = self.origin() if callable(self.origin) else self.origin
        raise failure(self.point, self.name, origin, exc, self.doing) from exc


class store_bugs_named:
    """``with store_bugs_named(store):`` around chunk I/O turns an unexpected exception
    raised inside the store's own package into :func:`failure`'s error naming the store;
    anything else (zarrforge errors, a store's ``OSError`` and the errors its class declares
    environmental, :func:`environmental`; failures elsewhere) passes unchanged. Nothing is looked
    at unless something fails, so it costs nothing on the way through; the innermost frame
    of the traceback says whose code raised."""

    __slots__ = ("store",)

    def __init__(self, store: Any) -> None:
        self.store = store

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> Literal[False]:
        if exc is None or not unexpected(exc) or environmental(exc, type(self.store).environmental_errors):
            return False
        package = type(self.store).__module__.partition(".")[0]
        innermost = traceback
        while innermost is not None and innermost.tb_next is not None:
            innermost = innermost.tb_next
        raised_in = innermost.tb_frame.f_globals.get("__name__", "") if innermost else ""
        if package in ("zarrforge", "builtins") or raised_in.partition(".")[0] != package:
            return False
        kind_name = type(self.store).__qualname__
        raise failure(
            "store", kind_name, f"{type(self.store).__module__}.{kind_name}", exc, "reading or writing chunks"
        ) from exc
