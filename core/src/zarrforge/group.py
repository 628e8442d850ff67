"""The user-facing :class:`Group`.

A group lists and opens its children through its format, creates child arrays
and groups, and persists its attributes on change. ``group["a/b"]`` opens a
nested member; ``"a/b" in group`` tests for one.
"""

from __future__ import annotations

from typing import Any, Iterator

from . import api, paths
from .errors import NodeNotFoundError
from .node import Node


class Group(Node):
    _kind = "group"

    # --- members ---------------------------------------------------------------------

    def _child_path(self, name: str) -> str:
        return paths.join(self._path, paths.normalize_path(name))

    def __getitem__(self, name: str) -> Any:
        path = self._child_path(name)
        return api.open_node(self._store, path, fmt=self._format,
                             mode="r" if self._read_only else "r+")

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except NodeNotFoundError:
            return default

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return self._format.detect(self._store, self._child_path(name))

    def keys(self) -> list[str]:
        return sorted(self._format.list_children(self._store, self._path))

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def members(self, max_depth: int | None = 0) -> list[tuple[str, Any]]:
        """``(name, node)`` pairs of the children, sorted by name.

        ``max_depth=None`` walks the whole subtree (names are then relative
        paths); ``0`` lists direct children only.
        """
        result: list[tuple[str, Any]] = []
        for name in self.keys():
            node = self[name]
            result.append((name, node))
            if isinstance(node, Group) and (max_depth is None or max_depth > 0):
                deeper = None if max_depth is None else max_depth - 1
                result.extend((f"{name}/{sub}", n) for sub, n in node.members(deeper))
        return result

    def arrays(self) -> list[tuple[str, Any]]:
        return [(n, m) for n, m in self.members() if not isinstance(m, Group)]

    def groups(self) -> list[tuple[str, "Group"]]:
        return [(n, m) for n, m in self.members() if isinstance(m, Group)]

    def array_keys(self) -> list[str]:
        return [n for n, _ in self.arrays()]

    def group_keys(self) -> list[str]:
        return [n for n, _ in self.groups()]

    # --- creation --------------------------------------------------------------------

    def create_array(self, name: str, **kwargs: Any) -> Any:
        return api.create_array(self._store, self._child_path(name), fmt=self._format, **kwargs)

    def create_group(self, name: str, **kwargs: Any) -> "Group":
        return api.create_group(self._store, self._child_path(name), fmt=self._format, **kwargs)

    def require_group(self, name: str) -> "Group":
        path = self._child_path(name)
        if self._format.detect(self._store, path):
            node = self[name]
            if isinstance(node, Group):
                return node
        return self.create_group(name)

    def __delitem__(self, name: str) -> None:
        self._check_writable()
        path = self._child_path(name)
        if not self._format.detect(self._store, path):
            raise NodeNotFoundError(f"no member {name!r} in group {self.name!r}")
        self._format.erase_node(self._store, path)

    # --- display ---------------------------------------------------------------------

    def tree(self) -> str:
        """The hierarchy below this group as indented text."""
        lines = [self.name]

        def walk(group: Group, indent: str) -> None:
            members = group.members()
            for i, (name, node) in enumerate(members):
                last = i == len(members) - 1
                branch = "└── " if last else "├── "
                if isinstance(node, Group):
                    lines.append(f"{indent}{branch}{name}")
                    walk(node, indent + ("    " if last else "│   "))
                else:
                    lines.append(f"{indent}{branch}{name} {node.shape} {node.dtype}")

        walk(self, "")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<zarrforge.Group {self.name!r}>"
