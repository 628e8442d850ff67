"""The registries as plugins see them (``zarrforge.plugin_api.registry``): one object
whose attributes are the registries of the extension points, with ``register`` and
``refresh``. The install-hint table, the preference settings and the loading machinery
stay behind it, in :mod:`zarrforge.registry`.
"""

from __future__ import annotations

from typing import Any

from .registry import REGISTRIES, Registry, refresh, register


class Registries:
    """What plugins see of the registries (``zarrforge.plugin_api.registry``): the registry
    of each extension point by its attribute name (``registry.codecs``,
    ``registry.data_types``, ...), ``register`` and ``refresh``. The install-hint table,
    the preference settings and the loading machinery stay inside this module; a
    registry's own ``provider_hint(name)`` says which distribution provides a name."""

    def __getattr__(self, name: str) -> Registry:
        try:
            return REGISTRIES[name]
        except KeyError:
            raise AttributeError(
                f"plugin_api.registry has no {name!r}; the extension points "
                f"are {', '.join(sorted(REGISTRIES))}"
            ) from None

    def __dir__(self) -> list[str]:
        return sorted([*REGISTRIES, "register", "refresh"])

    def register(self, point: str, name: str, implementation: Any, *, replace: bool = False) -> None:
        register(point, name, implementation, replace=replace)

    def refresh(self) -> None:
        refresh()

    def __repr__(self) -> str:
        return f"<zarrforge registries: {', '.join(REGISTRIES)}>"


FACADE = Registries()
