"""Name -> implementation registries, one per extension point.

Each extension point has one :class:`Registry`, fed from two sources:

* **installed entry points** in the point's group (``zarrforge.codecs``, ...),
  read once, lazily, on the first lookup. Only the entry point a document
  actually names is imported.
* **in-process registration** (:meth:`Registry.register`), which takes
  precedence over anything installed, so experiments need no packaging.

Names are matched exactly, except that a name ending in ``*`` declares a
*family*: ``r*`` matches ``r8``, ``r16``, ...; ``numcodecs.*`` matches every
``numcodecs.<id>``. The implementation receives the full name and may reject
it. Exact names beat families, a longer family beats a shorter one, and in-process
registrations beat installed ones. ``*`` alone is the catch-all family: it matches
every name no other entry matches, so an adapter of another library's extensions
(zarr-python's codecs) answers only for names zarrforge's own plugins leave free.

A family's implementation answers ``claims(name) -> bool`` (declared by every contract,
:class:`~zarrforge.abc.extension_point.ExtensionPoint`, true by default); a
family whose implementation answers ``False`` does not match that name, and the
lookup goes on to the next shorter family, then to "unknown" (so ``name in registry``
stays false for a name the catch-all's library lacks, and a ``must_understand: false``
entry is still skipped). By default a family matches every name it covers.
A family whose ``claims`` fails unexpectedly claims nothing (one warning per process,
``zarrforge.registries.plugin_failures``); one that fails to import is left out when a shorter
family claims the name, and is the lookup's error otherwise (the name may be its).

When two *different* distributions install the same name, the lookup fails
with :class:`~zarrforge.errors.PluginConflictError` naming both, unless
:meth:`Registry.prefer` picked one. Unknown names raise
:class:`~zarrforge.errors.UnknownExtensionError` listing what is installed
and, for names the Zarr ecosystem knows, the package that provides them.

A loaded class that declares a ``name`` (codecs, data types, extensions,
formats, ...) must declare the entry point's own name, else loading fails with
:class:`~zarrforge.errors.PluginLoadError` naming both and the distribution (a
family entry point's class receives the full name and is not checked).

Security: metadata is untrusted, so a name only ever resolves through an
installed entry point or an explicit registration; nothing here imports a
module named by a document.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import importlib_metadata

from ..abc.chunk_grid import ChunkGrid
from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..abc.codec import Codec
from ..abc.data_type import DataType
from ..abc.extension import Extension
from ..abc.format import Format
from ..abc.memory_layout import MemoryLayout
from ..abc.storage_transformer import StorageTransformer
from ..abc.store import Store
from ..abc.url_adapter import URLAdapter
from ..errors import PluginConflictError, PluginLoadError, UnknownExtensionError, ZarrforgeError
from . import entry_points, plugin_failures
from .entry_points import PREFER_ENV, RegistryEntry, configured_preference, qualified_name, who
from .known_providers import KNOWN_PROVIDERS

FAMILY_SUFFIX = "*"
_generations = itertools.count(1)  # next() on it is atomic: concurrent changes lose no count
_generation = 0  # the generation of the registries' last change (see generation())
# The family covering every name: what another engine's registry adapts (zarr-python's
# codecs), below every family and name of zarrforge's own by design. It is no name one
# writes, and a name of zarrforge's own standing above it hides nothing worth reporting.
CATCH_ALL = FAMILY_SUFFIX


class Registry:
    """The registry of one extension point."""

    def __init__(self, point: str, group: str, base: type | None = None) -> None:
        self.point = point
        self.group = group
        self.base = base
        self._lock = threading.RLock()
        self._installed: dict[str, list[importlib_metadata.EntryPoint]] | None = None
        self._local: dict[str, Any] = {}
        self._loaded: dict[str, Any] = {}
        self._preferred: dict[str, str] = {}
        self._hidden: frozenset[str] = frozenset()  # see hidden()
        # name -> implementation as get() last answered; emptied by every change above.
        # Metadata names an extension for every node and codec, so lookups are hot.
        self._answers: dict[str, Any] = {}

    # --- configuration ------------------------------------------------------

    def _changed(self) -> None:
        """What any change of what names resolve to does (the caller holds the lock):
        forget the remembered answers, and count a new generation of the registries."""
        global _generation
        self._answers.clear()
        _generation = next(_generations)

    def register(self, name: str, implementation: Any, *, replace: bool = False) -> None:
        """Register ``implementation`` under ``name`` in this process (wins over installed).

        Registering a name again with another implementation is a ``ValueError`` naming
        both, unless ``replace=True`` says the second is meant to replace the first
        (registering the same implementation again changes nothing)."""
        self._check_type(name, implementation, origin="in-process registration")
        with self._lock:
            current = self._local.get(name)
            if current is not None and current is not implementation and not replace:
                raise ValueError(
                    f"{self.point} {name!r} is already registered in this process as "
                    f"{qualified_name(current)}; registering {qualified_name(implementation)} "
                    "too would silently replace it: pass replace=True to mean that, or "
                    "unregister the first"
                )
            self._local[name] = implementation
            self._changed()

    def unregister(self, name: str) -> None:
        with self._lock:
            self._local.pop(name, None)
            self._changed()

    @contextlib.contextmanager
    def hidden(self, *names: str) -> Iterator[None]:
        """Within the block, this process behaves as if ``names`` were not installed:
        neither their entry points nor in-process registrations of them answer. How the
        conformance kits and tests see what an environment without a plugin does."""
        with self._lock:
            saved = {name: self._local.pop(name) for name in names if name in self._local}
            self._hidden = self._hidden | set(names)
            self._changed()
        try:
            yield
        finally:
            with self._lock:
                self._hidden = self._hidden - set(names)
                self._local.update(saved)
                self._changed()

    def prefer(self, name: str, distribution: str) -> None:
        """Resolve a name installed by several distributions to ``distribution``'s.

        ``distribution`` must be one that installs ``name``: a misspelling is a
        ``ValueError`` listing the ones that do, not a preference silently ignored."""
        with self._lock:
            providers = sorted(
                {ep.dist.name for ep in self._installed_entry_points().get(name, []) if ep.dist is not None}
            )
            if distribution not in providers:
                raise ValueError(
                    f"{self.point} {name!r} is not installed by a distribution named "
                    f"{distribution!r}; installed by: {', '.join(providers) or 'none'}"
                )
            self._preferred[name] = distribution
            self._loaded.pop(name, None)
            self._changed()

    def refresh(self) -> None:
        """Forget what was read from installed metadata (after installing a plugin)."""
        entry_points.forget_installed()
        with self._lock:
            self._installed = None
            self._loaded.clear()
            self._changed()

    # --- lookup -------------------------------------------------------------

    def get(self, name: str, *, field: str | None = None) -> Any:
        """The implementation registered for ``name``."""
        if not isinstance(name, str):
            raise UnknownExtensionError(self.point, repr(name), self.names(), field=field)
        answer = self._answers.get(name)
        if answer is not None:
            return answer
        with self._lock:
            answer = self._lookup(name, field)
            if len(self._answers) >= 1024:  # family names ("numcodecs.*") are unbounded
                self._answers.clear()
            self._answers[name] = answer
            return answer

    def _lookup(self, name: str, field: str | None) -> Any:
        """:meth:`get` without the remembered answers; the caller holds the lock."""
        found = self._key_of(name)
        if found is None:
            raise UnknownExtensionError(self.point, name, self.names(), self.provider_hint(name), field=field)
        local, key = found
        return self._local[key] if local else self._installed_implementation(key)

    def _key_of(self, name: str) -> tuple[bool, str] | None:
        """Which entry answers for ``name``: ``(in-process?, its name or family)``, or
        ``None``; the caller holds the lock."""
        if name in self._local:
            return True, name
        family = self._claiming_family(name, self._local, self._local.__getitem__)
        if family is not None:
            return True, family
        installed = self._installed_entry_points()
        key = (
            name
            if name in installed
            else self._claiming_family(name, installed, self._installed_implementation)
        )
        return None if key is None else (False, key)

    def origin(self, name: str) -> str:
        """Where the implementation answering for ``name`` comes from, for messages:
        ``"entry point 'x' = 'mod:Cls' of distribution 'dist' 1.0"`` or
        ``"registered in-process as mod:Cls"``."""
        with self._lock:
            try:
                found = self._key_of(name)
            except ZarrforgeError:
                found = None
            if found is None:
                installed = self._installed_entry_points()
                keys = [name] if name in installed else self._families_matching(name, installed)
                found = (False, keys[0]) if keys else None
            if found is None:
                return "not registered"
            local, key = found
            if local:
                return f"registered in-process as {qualified_name(self._local[key])}"
            return "; ".join(
                f"entry point {key!r} = {ep.value!r} of {who(ep)}"
                for ep in self._installed_entry_points()[key]
            )

    def first_answer(self, question: Callable[[Any], Any], *, doing: str) -> Any:
        """The first answer other than ``None`` of ``question(implementation)`` over every
        registered name (the names in order): "which data type is this numpy dtype?".
        An implementation that fails to load, or whose answer fails unexpectedly, is left
        out (``zarrforge.registries.plugin_failures``; ``doing`` says what it was asked); a
        zarrforge error it raises is its answer and propagates."""
        for name in self.names():
            try:
                answer = question(self.get(name))
            except (PluginLoadError, PluginConflictError) as exc:
                plugin_failures.left_out(self.point, name, self.origin(name), exc, doing)
                continue
            except Exception as exc:
                if not plugin_failures.unexpected(exc):
                    raise
                plugin_failures.left_out(self.point, name, self.origin(name), exc, doing)
                continue
            if answer is not None:
                return answer
        return None

    def _installed_implementation(self, key: str) -> Any:
        """The loaded implementation of the installed entry ``key``; the caller holds the lock."""
        if key not in self._loaded:
            self._loaded[key] = self._load(key, self._installed_entry_points()[key])
        return self._loaded[key]

    def __contains__(self, name: str) -> bool:
        with self._lock:
            installed = self._installed_entry_points()
            if name in self._local or name in installed:
                return True
            try:
                return (
                    self._claiming_family(name, self._local, self._local.__getitem__) is not None
                    or self._claiming_family(name, installed, self._installed_implementation) is not None
                )
            except (PluginLoadError, PluginConflictError):
                return True  # a family that cannot load: the lookup says why

    def names(self) -> list[str]:
        """The names (and families) one can write; the catch-all is none of them."""
        with self._lock:
            return sorted((set(self._local) | set(self._installed_entry_points())) - {CATCH_ALL})

    def entries(self) -> list[RegistryEntry]:
        """Every registered name with where it comes from (one row per provider)."""
        rows: list[RegistryEntry] = []
        with self._lock:
            for name, impl in self._local.items():
                rows.append(RegistryEntry(self.point, name, None, None, qualified_name(impl), "in-process"))
            for name, eps in self._installed_entry_points().items():
                for ep in eps:
                    dist = ep.dist
                    rows.append(
                        RegistryEntry(
                            self.point,
                            name,
                            dist.name if dist else None,
                            dist.version if dist else None,
                            ep.value,
                            "entry point",
                        )
                    )
        return sorted(rows, key=lambda r: (r.name, r.source, r.distribution or ""))

    def shadowed_by(self, name: str, source: str) -> list[str]:
        """What a lookup of ``name`` hides when it answers with the ``source``
        (``"entry point"`` or ``"in-process"``) registration: installed providers of the
        same name (for in-process ones) and installed families matching it from other
        distributions, as ``"'<family or name>' of <distribution>"``."""
        with self._lock:
            installed = self._installed_entry_points()
            own = {ep.dist.name for ep in installed.get(name, []) if ep.dist is not None}
            hidden = []
            if source == "in-process":
                hidden += [f"{name!r} of {dist}" for dist in sorted(own)]
            if not name.endswith(FAMILY_SUFFIX):
                for family in self._families_matching(name, installed):
                    if family == CATCH_ALL or not self._would_claim(family, name):
                        continue
                    hidden += [
                        f"{family!r} of {ep.dist.name}"
                        for ep in installed[family]
                        if ep.dist is not None and (source == "in-process" or ep.dist.name not in own)
                    ]
            return hidden

    def _would_claim(self, family: str, name: str) -> bool:
        """Would the installed ``family`` answer for ``name`` were nothing else registered?
        (A family that cannot load is counted as answering.)"""
        try:
            return self._claims(self._installed_implementation(family), name)
        except (PluginLoadError, PluginConflictError):
            return True
        except Exception as exc:
            if not plugin_failures.unexpected(exc):
                raise
            return False  # as in a lookup: a failing claims() claims nothing

    # --- internals ------------------------------------------------------------

    def _installed_entry_points(self) -> dict[str, list[importlib_metadata.EntryPoint]]:
        if self._installed is None:
            table: dict[str, list[importlib_metadata.EntryPoint]] = {}
            seen: set[tuple[str, str | None]] = set()
            for ep in entry_points.installed(self.group):
                dist_name = ep.dist.name if ep.dist else None
                # The same distribution can be visible twice on sys.path
                # (e.g. an editable install beside a build); that is no clash.
                if (ep.name, dist_name) in seen:
                    continue
                seen.add((ep.name, dist_name))
                table.setdefault(ep.name, []).append(ep)
            self._installed = table
        if self._hidden:
            return {name: eps for name, eps in self._installed.items() if name not in self._hidden}
        return self._installed

    @staticmethod
    def _families_matching(name: str, table: Iterable[str]) -> list[str]:
        """The families of ``table`` covering ``name``, the longest (most specific) first."""
        matching = [
            candidate
            for candidate in table
            if candidate.endswith(FAMILY_SUFFIX)
            and name.startswith(candidate[: -len(FAMILY_SUFFIX)])
            and len(name) > len(candidate) - len(FAMILY_SUFFIX)
        ]
        return sorted(matching, key=len, reverse=True)

    @classmethod
    def _family_of(cls, name: str, table: Iterable[str]) -> str | None:
        matching = cls._families_matching(name, table)
        return matching[0] if matching else None

    @staticmethod
    def _claims(implementation: Any, name: str) -> bool:
        return bool(implementation.claims(name))  # ExtensionPoint.claims: every name by default

    def _claiming_family(self, name: str, table: Any, implementation_of: Any) -> str | None:
        """The longest family of ``table`` covering ``name`` whose implementation (found
        with ``implementation_of(family)``) claims it; the caller holds the lock.

        A family whose ``claims`` fails unexpectedly does not claim the name (one warning
        per process). A family that fails to load is left out, with a warning, when a
        shorter one claims the name; when none does, its error is raised: the name may
        well be that family's."""
        doing = f"asked whether it claims {name!r}"
        unloadable: list[tuple[str, ZarrforgeError]] = []
        for family in self._families_matching(name, table):
            try:
                implementation = implementation_of(family)
            except (PluginLoadError, PluginConflictError) as exc:
                unloadable.append((family, exc))
                continue
            try:
                if not self._claims(implementation, name):
                    continue
            except Exception as exc:
                if not plugin_failures.unexpected(exc):
                    raise
                plugin_failures.left_out(self.point, family, self.origin(family), exc, doing, stacklevel=5)
                continue
            for failed, error in unloadable:
                plugin_failures.left_out(self.point, failed, self.origin(failed), error, doing, stacklevel=5)
            return family
        if unloadable:
            raise unloadable[0][1]
        return None

    def _load(self, name: str, eps: list[importlib_metadata.EntryPoint]) -> Any:
        ep = self._choose(name, eps)
        provider = who(ep)
        try:
            implementation = ep.load()
        except Exception as exc:
            raise PluginLoadError(
                f"{self.point} {name!r}: the entry point {ep.value!r} of {provider} "
                f"(group {self.group!r}) failed to import: {exc}"
            ) from exc
        self._check_type(name, implementation, origin=f"entry point {ep.value!r} of {provider}")
        declared = getattr(implementation, "name", None)
        if isinstance(declared, str) and declared != name and not name.endswith(FAMILY_SUFFIX):
            raise PluginLoadError(
                f"{self.point} {name!r}: the entry point {ep.value!r} of {provider} (group "
                f"{self.group!r}) loads a class declaring name {declared!r}; the entry-point "
                "name and the class's name must be the same (it is the name written to "
                "metadata)"
            )
        return implementation

    def _choose(self, name: str, eps: list[importlib_metadata.EntryPoint]) -> importlib_metadata.EntryPoint:
        if len(eps) == 1:
            return eps[0]
        attr = _attr_for(self.point)
        wanted, source = self._preferred.get(name), f"registry.{attr}.prefer()"
        if wanted is None:
            wanted, source = configured_preference(f"{attr}:{name}")
        providers = ", ".join(f"{ep.dist.name if ep.dist else '?'} ({ep.value})" for ep in eps)
        for ep in eps:
            if wanted is not None and ep.dist is not None and ep.dist.name == wanted:
                return ep
        if wanted is not None:
            raise PluginConflictError(
                f"{self.point} {name!r}: {source} chooses {wanted!r}, which does not provide "
                f"it; the distributions that do: {providers}"
            )
        raise PluginConflictError(
            f"{self.point} {name!r} is provided by several distributions: {providers}; "
            f"choose one with zarrforge.registry.{attr}.prefer({name!r}, '<distribution>'), "
            f"zarrforge.config.set(prefer={{'{attr}:{name}': '<distribution>'}}), or the "
            f"environment variable {PREFER_ENV}='{attr}:{name}=<distribution>' (for the "
            "command line)"
        )

    def _check_type(self, name: str, implementation: Any, *, origin: str) -> None:
        if self.base is None:
            return
        if not (isinstance(implementation, type) and issubclass(implementation, self.base)):
            raise PluginLoadError(
                f"{self.point} {name!r} from {origin} is {implementation!r}, which is not "
                f"a subclass of {self.base.__module__}.{self.base.__qualname__}"
            )

    def provider_hint(self, name: str) -> str | None:
        table = KNOWN_PROVIDERS.get(self.point, {})
        if name in table:
            return table[name]
        # the catch-all adapts another library's names: it says nothing of who provides one
        family = self._family_of(name, [key for key in table if key != FAMILY_SUFFIX])
        return table[family] if family else None

    def __repr__(self) -> str:
        return f"<Registry {self.point!r} group={self.group!r}>"


def _build_registries() -> dict[str, Registry]:
    return {
        "data_types": Registry("data type", "zarrforge.data_types", DataType),
        "chunk_grids": Registry("chunk grid", "zarrforge.chunk_grids", ChunkGrid),
        "chunk_key_encodings": Registry(
            "chunk key encoding", "zarrforge.chunk_key_encodings", ChunkKeyEncoding
        ),
        "memory_layouts": Registry("memory layout", "zarrforge.memory_layouts", MemoryLayout),
        "codecs": Registry("codec", "zarrforge.codecs", Codec),
        "storage_transformers": Registry(
            "storage transformer", "zarrforge.storage_transformers", StorageTransformer
        ),
        "extensions": Registry("extension", "zarrforge.extensions", Extension),
        "stores": Registry("store", "zarrforge.stores", Store),
        "formats": Registry("format", "zarrforge.formats", Format),
        "url_adapters": Registry("URL adapter", "zarrforge.url_adapters", URLAdapter),
    }


REGISTRIES: dict[str, Registry] = _build_registries()

data_types = REGISTRIES["data_types"]
chunk_grids = REGISTRIES["chunk_grids"]
chunk_key_encodings = REGISTRIES["chunk_key_encodings"]
memory_layouts = REGISTRIES["memory_layouts"]
codecs = REGISTRIES["codecs"]
storage_transformers = REGISTRIES["storage_transformers"]
extensions = REGISTRIES["extensions"]
stores = REGISTRIES["stores"]
formats = REGISTRIES["formats"]
url_adapters = REGISTRIES["url_adapters"]


def _attr_for(point: str) -> str:
    for attr, registry in REGISTRIES.items():
        if registry.point == point:
            return attr
    return point


def generation() -> int:
    """A number that changes whenever what a name resolves to may have changed in any
    registry (a registration, an unregistration, ``hidden``, ``prefer``, ``refresh``): what
    a memory of resolved names (``zarrforge.registries.creation_memo``) is keyed by.

    Returns
    -------
    int
        The current generation; equal numbers mean no registry changed in between.

    Examples
    --------
    >>> before = generation()
    >>> codecs.unregister("no.such.codec")
    >>> generation() > before
    True
    """
    return _generation


def register(point: str, name: str, implementation: Any, *, replace: bool = False) -> None:
    """Register ``implementation`` for ``name`` at extension point ``point``.

    ``point`` is a registry attribute name such as ``"codecs"`` or ``"data_types"``;
    ``replace``: as for :meth:`zarrforge.registries.registry.Registry.register`.

    Parameters
    ----------
    point : str
        The extension point: a registry attribute name (``"codecs"``, ``"data_types"``,
        ``"chunk_grids"``, ...).
    name : str
        The name the implementation answers for, as written in metadata.
    implementation : Any
        The class (or object) implementing the extension point's contract.
    replace : bool
        Replace an implementation already registered under ``name``.

    Raises
    ------
    KeyError
        ``point`` names no extension point (the message lists the valid ones).
    ValueError
        ``name`` is registered already with another implementation and ``replace`` is false.
    """
    if point not in REGISTRIES:
        raise KeyError(f"unknown extension point {point!r}; valid: {', '.join(sorted(REGISTRIES))}")
    REGISTRIES[point].register(name, implementation, replace=replace)


def registered() -> dict[str, list[RegistryEntry]]:
    """Every name of every extension point, with the distribution providing it.

    Returns
    -------
    dict[str, list[zarrforge.registries.entry_points.RegistryEntry]]
        Each extension point's registry attribute name -> its entries (name, distribution,
        where the implementation lives).
    """
    return {attr: registry.entries() for attr, registry in REGISTRIES.items()}


def refresh() -> None:
    """Re-read installed entry points (after installing or removing a plugin)."""
    for registry in REGISTRIES.values():
        registry.refresh()
