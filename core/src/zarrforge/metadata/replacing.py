"""Copies of frozen dataclass values with some fields changed, without ``__init__`` again.

``dataclasses.replace`` builds the copy through the class's ``__init__``, which for a
frozen dataclass sets every field with ``object.__setattr__``: several microseconds for
the models and specs that every array creation copies (an ``ArrayMetadata`` has thirteen
fields). Where that ``__init__`` does nothing but set the fields (no ``__post_init__``,
every field taken by ``__init__``, no ``__slots__``), a copy of the instance's fields with
the changes set is the same value, and :func:`replaced` makes it so. Any other class,
or a change naming something that is not a field, goes through ``dataclasses.replace``,
which then runs the class's checks or raises its usual error.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

#: dataclass -> its field names, or None where copying its fields is not its __init__'s
_PLAIN_FIELDS: dict[type, frozenset[str] | None] = {}


def _plain_fields(cls: type) -> frozenset[str] | None:
    if cls not in _PLAIN_FIELDS:
        fields = dataclasses.fields(cls)
        plain = (
            not hasattr(cls, "__post_init__")
            and "__slots__" not in cls.__dict__
            and all(field.init for field in fields)
        )
        _PLAIN_FIELDS[cls] = frozenset(field.name for field in fields) if plain else None
    return _PLAIN_FIELDS[cls]


def replaced(value: T, **changes: Any) -> T:
    """``dataclasses.replace(value, **changes)``, without the class's ``__init__`` where
    that only sets the fields (see the module docstring).

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class Point:
    ...     x: int
    ...     y: int
    >>> replaced(Point(1, 2), y=5)
    Point(x=1, y=5)
    >>> try:  # not a field: refused, as dataclasses.replace refuses it
    ...     replaced(Point(1, 2), z=5)
    ... except TypeError:
    ...     print("refused")
    refused
    """
    names = _plain_fields(type(value))
    if names is None or not changes.keys() <= names:
        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    new = object.__new__(type(value))
    fields = new.__dict__
    fields.update(value.__dict__)
    fields.update(changes)
    return new
