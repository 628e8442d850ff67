"""``Group.tree()``: the hierarchy below a group as text, the way zarr-python draws it.

:func:`group_tree` walks the members depth first, ``level`` levels below the group at most
(``0``: its direct members; ``None``: all), and stops after ``max_nodes`` nodes, saying so
in a first line. Names are bold unless ``plain=True``: ANSI codes where standard output is
a terminal, ``<b>`` in the HTML that Jupyter shows. The result is a :class:`TreeText`, as
zarr-python's is an object of its own: its ``repr`` is the drawing, each line ending in a
newline (zarr-python's text exactly), its ``str`` the same without the last newline (so
``print(group.tree())`` ends with the drawing), and its ``_repr_mimebundle_`` gives Jupyter
both forms. Names are escaped in the HTML, never in the text.

A member that cannot be opened (a plugin it needs is not installed, its document is
damaged) does not stop the drawing: it is listed with a one-line reason,
``broken (cannot be opened: UnknownExtensionError: ...)``, and nothing below it is drawn.
Listings for display come from the group as ``(name, node)`` pairs in which such a
member is an :class:`UnopenedMember`; an array opened deferred that fails when its shape
or data type is first asked for is reported the same way (:func:`unopened_reason`).
"""

from __future__ import annotations

import html
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import ZarrforgeError

_PRE = (
    '<pre style="white-space:pre;overflow-x:auto;line-height:normal;'
    "font-family:Menlo,'DejaVu Sans Mono',consolas,'Courier New',monospace\">"
)


class TreeText:
    """A group's tree as text; Jupyter shows it as preformatted HTML."""

    def __init__(self, text: str, html_text: str) -> None:
        self.text = text
        self.html = html_text

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text.removesuffix("\n")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreeText) and (self.text, self.html) == (other.text, other.html)

    __hash__ = None  # type: ignore[assignment]

    def _repr_mimebundle_(
        self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None, **kwargs: Any
    ) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": f"{_PRE}{self.html}</pre>\n"}


class UnopenedMember:
    """A member a display lists but could not open: ``error`` says why."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    @property
    def reason(self) -> str:
        """Why, in one line: the error's class and the first line of its message, at most
        160 characters."""
        return one_line(self.error)


def one_line(error: BaseException, limit: int = 160) -> str:
    """``error``'s class and the first line of its message, cut at ``limit`` characters."""
    lines = str(error).splitlines()
    text = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unopened_reason(node: Any, probe: Callable[[Any], Any]) -> str | None:
    """Why a display cannot show ``node`` (one line), or ``None`` when it can: ``node`` is
    an :class:`UnopenedMember`, or ``probe(node)``, which asks for what the display shows
    (an array opened deferred resolves it only now), raises a zarrforge error."""
    if isinstance(node, UnopenedMember):
        return node.reason
    try:
        probe(node)
    except ZarrforgeError as exc:
        return one_line(exc)
    return None


def member_detail(node: Any, is_group: Callable[[Any], bool]) -> str:
    """What the tree writes after a member's name: ``" (4, 3) float32"`` for an array,
    nothing for a group, ``" (cannot be opened: <reason>)"`` for a member that failed."""
    reason = unopened_reason(node, lambda n: is_group(n) or (n.shape, n.dtype))
    if reason is not None:
        return f" (cannot be opened: {reason})"
    return "" if is_group(node) else f" {node.shape} {node.dtype}"


def _walk(
    group: Any, level: int | None, is_group: Callable[[Any], bool], depth: int = 0
) -> Iterator[tuple[int, bool, str, Any]]:
    """(depth, is last among its siblings, name, node), depth first, sorted by name."""
    members = list(group._members_here(tolerant=True))
    for i, (name, node) in enumerate(members):
        yield depth, i == len(members) - 1, name, node
        if is_group(node) and (level is None or depth < level):
            yield from _walk(node, level, is_group, depth + 1)


def group_tree(
    group: Any,
    level: int | None = None,
    *,
    is_group: Callable[[Any], bool],
    max_nodes: int = 500,
    plain: bool = False,
    expand: bool | None = None,
) -> TreeText:
    """The tree below ``group``; ``is_group`` tells its member groups from its arrays."""
    if expand:
        raise NotImplementedError(
            "tree(expand=True) is not implemented (nor in zarr-python); "
            "the tree is always drawn whole, down to level"
        )
    if level is not None and (not isinstance(level, int) or level < 0):
        raise ValueError(f"tree level must be None or an int >= 0 (0: the direct members), got {level!r}")
    if not isinstance(max_nodes, int) or max_nodes < 0:
        raise ValueError(f"tree max_nodes must be an int >= 0, got {max_nodes!r}")
    bold = "" if plain else "\x1b[1m" if sys.stdout.isatty() else ""
    unbold = "\x1b[0m" if bold else ""
    html_bold, html_unbold = ("", "") if plain else ("<b>", "</b>")
    text = [f"{bold}{group.name}{unbold}"]
    markup = [f"{html_bold}{html.escape(group.name)}{html_unbold}"]
    # the stems drawn left of a node: one per open ancestor ("│   " or, after a last child, "    ")
    stems: list[str] = []
    truncated = False
    for count, (depth, last, name, node) in enumerate(_walk(group, level, is_group)):
        if count == max_nodes:
            truncated = True
            break
        del stems[depth:]
        prefix = "".join(stems) + ("└── " if last else "├── ")
        detail = member_detail(node, is_group)
        text.append(f"{prefix}{bold}{name}{unbold}{detail}")
        markup.append(f"{prefix}{html_bold}{html.escape(name)}{html_unbold}{html.escape(detail)}")
        stems.append("    " if last else "│   ")
    note = (
        (f"Truncated at max_nodes={max_nodes}, some nodes and their children may be missing\n")
        if truncated
        else ""
    )
    return TreeText(note + "\n".join(text) + "\n", note + "\n".join(markup) + "\n")
