"""Hook implementations of zarrforge-example-thirdparty (entry-point group ``zarrforge.plugins``)."""

from __future__ import annotations

from typing import Any

from zarrforge.plugin_api.hooks import hookimpl

from .units import remember


@hookimpl
def zarrforge_node_opened(node: Any) -> None:
    # Called for every array and group opened or created, by every zarrforge user of this
    # environment: stay cheap, never write to the store.
    remember(node)
