"""What the subcommands share: opening the node a URL names, common options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from .. import storage_options as storage

F = TypeVar("F", bound=Callable[..., Any])

path_option = click.option(
    "--path", default="", metavar="PATH", help="Node path inside the store (default: its root)."
)
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print machine-readable JSON instead of text."
)


def open_node(url: str, path: str = "", options: dict[str, Any] | None = None) -> Any:
    """The node at ``path`` of ``url``, read-only, with the command's storage options."""
    import zarrforge

    return zarrforge.open(
        url, path, mode="r", storage_options=storage.for_url(url, options or {}, "--storage-option")
    )


def format_label(name: str | None) -> str:
    return f"Zarr v{name}" if name in ("2", "3") else str(name)


def node_kind(node: Any) -> str:
    import zarrforge

    return "group" if isinstance(node, zarrforge.Group) else "array"


def options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply
