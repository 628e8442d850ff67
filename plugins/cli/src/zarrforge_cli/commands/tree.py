"""``zarrforge tree URL``: the hierarchy below a group."""

from __future__ import annotations

import json
from typing import Any

import click

from ..console import make_console
from ._common import json_option, open_node, path_option


def _label(name: str, node: Any) -> str:
    import zarrforge

    if isinstance(node, zarrforge.Group):
        return f"[bold blue]{name}[/]"
    shape = "(" + ", ".join(str(s) for s in node.shape) + ("," if node.ndim == 1 else "") + ")"
    return f"{name} {shape} {node.dtype}"


def _as_json(node: Any, depth: int | None) -> dict[str, Any]:
    import zarrforge

    if not isinstance(node, zarrforge.Group):
        return {"node_type": "array", "shape": list(node.shape), "dtype": str(node.dtype)}
    out: dict[str, Any] = {"node_type": "group", "members": {}}
    if depth is None or depth > 0:
        for name, member in node.members():
            out["members"][name] = _as_json(member, None if depth is None else depth - 1)
    return out


@click.command()
@click.argument("url")
@path_option
@click.option("--depth", type=click.IntRange(min=0), default=None,
              help="Show this many levels below the node (default: all).")
@json_option
def tree(url: str, path: str, depth: int | None, as_json: bool) -> None:
    """Show the arrays and groups below the node at URL, with shapes and data types."""
    import zarrforge
    from rich.markup import escape
    from rich.tree import Tree

    node = open_node(url, path)
    if as_json:
        click.echo(json.dumps(_as_json(node, depth), indent=2))
        return
    root = Tree(_label(escape(node.name), node))

    def walk(group: Any, branch: Tree, level: int) -> None:
        if depth is not None and level >= depth:
            return
        for name, member in group.members():
            child = branch.add(_label(escape(name), member))
            if isinstance(member, zarrforge.Group):
                walk(member, child, level + 1)

    if isinstance(node, zarrforge.Group):
        walk(node, root, 0)
    make_console().print(root)
