"""The ``must_understand`` rule for fields a format does not recognise.

One rule for arrays and groups alike (v3 spec, "Extension definition"): a
field the implementation does not recognise may be present only if its value
is an object with ``"must_understand": false``. Such fields are returned to
be kept and written back unchanged; any other unknown field stops the node
from opening with a :class:`~zarrforge.errors.MustUnderstandError` naming the
field and its value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import MustUnderstandError


def split_unknown_fields(document: dict[str, Any], known: Iterable[str], *, key: str) -> dict[str, Any]:
    """The document's unknown fields that may be ignored; raise for the others.

    Parameters
    ----------
    document : dict[str, Any]
        The node's document.
    known : Iterable[str]
        The fields the format knows.
    key : str
        The document's store key, named by the error.

    Returns
    -------
    dict[str, Any]
        The unknown fields whose value is an object with ``"must_understand": false``.

    Raises
    ------
    zarrforge.errors.MustUnderstandError
        An unknown field may not be ignored.

    Examples
    --------
    >>> document = {"zarr_format": 3, "node_type": "group", "x.note": {"must_understand": False}}
    >>> split_unknown_fields(document, ("zarr_format", "node_type"), key="zarr.json")
    {'x.note': {'must_understand': False}}
    >>> from zarrforge.errors import MustUnderstandError
    >>> try:
    ...     split_unknown_fields({"x.new": 1}, (), key="zarr.json")
    ... except MustUnderstandError as exc:
    ...     print(exc.key, exc.field)
    zarr.json x.new
    """
    known = set(known)
    kept: dict[str, Any] = {}
    for name, value in document.items():
        if name in known:
            continue
        if isinstance(value, dict) and value.get("must_understand") is False:
            kept[name] = value
            continue
        raise MustUnderstandError(
            f"unrecognised metadata field {name!r} with value {value!r}; zarrforge can open "
            "a node with an unknown field only if the field's value is an object with "
            '"must_understand": false (install the plugin that understands it)',
            field=name,
            value=value,
            key=key,
        )
    return kept
