"""``zarrforge tree URL``: the hierarchy below a group.

A child that cannot be opened (unreadable metadata, an extension that is not
installed) is shown as broken, with the reason, and the walk goes on with its
siblings; the exit code is then 1. A group whose members cannot be known (a store
that cannot list its keys, such as plain HTTP, and no consolidated metadata to list
them from) says so in place of its members.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import click

from .. import storage_options as storage
from ..console import make_console
from ._common import json_option, open_node, path_option

UNLISTABLE = (
    "members unknown: the store cannot list its keys and the group has no "
    "consolidated metadata to list them from"
)


@dataclasses.dataclass
class Child:
    """One member: the opened node, or why it could not be opened."""

    name: str
    node: Any = None
    error: str | None = None


def _is_group(node: Any) -> bool:
    import zarrforge

    return isinstance(node, zarrforge.Group)


def _open(group: Any, name: str) -> Child:
    try:
        node = group[name]
        if not _is_group(node):
            node.shape, node.dtype  # noqa: B018  # a listed array resolves its metadata here
    except Exception as exc:  # noqa: BLE001  # a broken node is shown, its siblings still are
        return Child(name, error=f"{type(exc).__name__}: {exc}")
    return Child(name, node)


def children(group: Any) -> list[Child] | None:
    """The group's members in name order, each opened or broken; ``None`` when they
    cannot be known (see the module docstring)."""
    from zarrforge.errors import StoreError

    try:
        names = group.keys()
    except StoreError:
        if group.store.capabilities.listable:
            raise  # a store that lists failed: not something it cannot tell
        return None
    return [_open(group, name) for name in names]


def _shape(node: Any) -> str:
    return "(" + ", ".join(str(s) for s in node.shape) + ("," if node.ndim == 1 else "") + ")"


def _label(name: str, child: Child) -> str:
    from rich.markup import escape

    if child.error is not None:
        return f"{escape(name)} [red]broken: {escape(child.error)}[/]"
    if _is_group(child.node):
        return f"[bold blue]{escape(name)}[/]"
    return f"{escape(name)} {_shape(child.node)} {child.node.dtype}"


class Walk:
    """The tree below a node, as rich text or as JSON, counting broken nodes."""

    def __init__(self, depth: int | None) -> None:
        self.depth = depth
        self.broken = 0

    def _below(self, group: Any) -> list[Child] | None:
        found = children(group)
        self.broken += sum(1 for c in found or [] if c.error is not None)
        return found

    def as_json(self, child: Child, level: int = 0) -> dict[str, Any]:
        if child.error is not None:
            return {"node_type": "broken", "error": child.error}
        node = child.node
        if not _is_group(node):
            return {"node_type": "array", "shape": list(node.shape), "dtype": str(node.dtype)}
        out: dict[str, Any] = {"node_type": "group", "members": {}}
        if self.depth is None or level < self.depth:
            found = self._below(node)
            if found is None:
                out["members"], out["unknown"] = None, UNLISTABLE
            for member in found or []:
                out["members"][member.name] = self.as_json(member, level + 1)
        return out

    def as_tree(self, branch: Any, group: Any, level: int = 0) -> None:
        if self.depth is not None and level >= self.depth:
            return
        found = self._below(group)
        if found is None:
            branch.add(f"[italic]({UNLISTABLE})[/]")
            return
        for member in found:
            sub = branch.add(_label(member.name, member))
            if member.error is None and _is_group(member.node):
                self.as_tree(sub, member.node, level + 1)


@click.command()
@click.argument("url")
@path_option
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=None,
    help="Show this many levels below the node (default: all).",
)
@storage.flags()
@json_option
def tree(url: str, path: str, depth: int | None, as_json: bool, storage_options: dict[str, Any]) -> None:
    """Show the arrays and groups below the node at URL, with shapes and data types.

    A member that cannot be opened is marked broken, with the reason, and the rest
    is still shown; the exit code is then 1 (`zarrforge check` lists every problem).
    """
    from rich.tree import Tree

    node = open_node(url, path, storage_options)
    walk = Walk(depth)
    root = Child(node.name, node)
    if as_json:
        click.echo(json.dumps(walk.as_json(root), indent=2))
    else:
        shown = Tree(_label(node.name, root))
        if _is_group(node):
            walk.as_tree(shown, node)
        make_console().print(shown)
    if walk.broken:
        click.echo(
            f"{walk.broken} node{'s' * (walk.broken != 1)} could not be opened "
            "(marked broken); zarrforge check lists every problem",
            err=True,
        )
        click.get_current_context().exit(1)
