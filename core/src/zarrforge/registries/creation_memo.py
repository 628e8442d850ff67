"""The model a format built for a new array, found again for the next array asked for
with the same arguments.

Creating many arrays with the same arguments (the variables of an xarray dataset, the
members of a group that differ in their attributes only) resolves the same data type,
grid, key encoding and codecs each time, about a quarter of a creation's cost.
:class:`CreationMemo` keeps the model a format built from an
:class:`~zarrforge.abc.format.ArrayCreationSpec` and gives it out again, with the new
spec's attributes, when:

* every other argument is a plain value (str, int, float, bool, None, and tuples, lists
  and dicts of them; a NumPy dtype, scalar type or scalar) equal to the earlier one, of
  the same types, floats by their ``repr`` (``-0.0`` is not ``0.0``) and NumPy scalars
  by their bits, dicts in the same order. An object argument (a codec instance, a
  numcodecs codec, a ``ChunkGrid``) is never remembered: its equality says nothing of
  what it would build. Neither is an argument that names ``must_understand`` anywhere:
  resolving it may warn (a skipped extension), and the warning belongs to every
  creation;
* the registries are unchanged since (:func:`zarrforge.registries.registry.generation`)
  and ``config.get()`` is the same settings object (every change makes a new one);
* the format is of the same class.

Contract for a format using it: it builds the model from the spec, the registries and
the settings alone, and the model's attributes are the spec's (``attributes_from_json``),
with nothing else depending on them (v2 is not such a format: its dimension names live in
an attribute). The parts shared between the arrays are immutable by their contracts
(codecs: :mod:`zarrforge.abc.codec`; data types, grids and key encodings are values); the
model itself is a new object for each array, with its own dicts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import config
from ..abc.format import ArrayCreationSpec
from ..abc.metadata import ArrayMetadata
from . import registry
from .resolution import attributes_from_json

_ENTRIES = 256  # arrays asked for with different arguments; the memory empties when full


class _NotPlain(Exception):
    """An argument the memo does not remember (see the module docstring)."""


def _plain(value: Any) -> Any:
    """``value`` as a hashable key that is equal only for values of the same types and
    JSON; :class:`_NotPlain` for anything else. (Tuples of list comprehensions, not of
    generators: a comprehension runs inline, and this runs for every creation.)"""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    if kind is float:
        return (kind, repr(value))
    if kind is tuple or kind is list:
        return (kind, tuple([_plain(item) for item in value]))
    if kind is dict:
        if "must_understand" in value:
            raise _NotPlain
        return (kind, tuple([(_plain(k), _plain(v)) for k, v in value.items()]))
    if isinstance(value, np.generic):  # a NumPy scalar (a fill value): by its bits
        return (kind, value.dtype, value.tobytes())
    if isinstance(value, np.dtype):
        return (kind, value, repr(value))
    if isinstance(value, type) and issubclass(value, np.generic):
        return (kind, value)
    raise _NotPlain


def _key(fmt: Any, spec: ArrayCreationSpec) -> tuple[Any, ...] | None:
    try:
        # every field but the attributes, a field added to the spec later included
        arguments = tuple([_plain(value) for name, value in vars(spec).items() if name != "attributes"])
    except _NotPlain:
        return None
    return (type(fmt), registry.generation(), arguments)


class CreationMemo:
    """Remembers the models a format built for new arrays (see the module docstring).
    It raises nothing of its own: :meth:`new_array` raises what building raises.

    Examples
    --------
    A format keeps one and builds through it (the v3 format does); the second array's
    arguments differ in their attributes only:

    >>> from zarrforge.abc.format import ArrayCreationSpec
    >>> from zarrforge.nodes.hierarchy import get_format
    >>> fmt, memo = get_format(3), CreationMemo()
    >>> def spec(attributes):
    ...     return ArrayCreationSpec((4,), "int8", (2,), filters=(), compressors=(), attributes=attributes)
    >>> first = memo.new_array(fmt, spec({"a": 1}), fmt.new_array)
    >>> again = memo.new_array(fmt, spec({"b": 2}), fmt.new_array)
    >>> again.codecs is first.codecs, again.attributes
    (True, {'b': 2})
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[tuple[Any, ...], tuple[Any, ArrayMetadata]] = {}

    def new_array(
        self, fmt: Any, spec: ArrayCreationSpec, build: Callable[[ArrayCreationSpec], ArrayMetadata]
    ) -> ArrayMetadata:
        """``build(spec)``, or the model it built for equal arguments, with ``spec``'s
        attributes."""
        key = _key(fmt, spec)
        settings = config.get()
        if key is not None:
            with self._lock:
                found = self._models.get(key)
            if found is not None and found[0] is settings:
                model = found[1]
                return model.replace(
                    attributes=attributes_from_json(spec.attributes, field="attributes"),
                    extra_fields=dict(model.extra_fields),
                    format_data=dict(model.format_data),
                )
        model = build(spec)
        if key is not None and type(model) is ArrayMetadata:
            with self._lock:
                if len(self._models) >= _ENTRIES:
                    self._models.clear()
                self._models[key] = (settings, model)
        return model
