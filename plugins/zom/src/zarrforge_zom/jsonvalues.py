"""JSON values as the models hold them: :func:`jsonify` makes them, :func:`canonical`
compares them.

The lowest layer of the models, beside :mod:`.errors`: the models, :mod:`.diff` and the
command line all need JSON equality, and none of them may import another for it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .errors import SpecError


def jsonify(value: Any, where: str = "value") -> Any:
    """A JSON-native deep copy of ``value``: tuples become lists, numpy scalars and
    arrays Python values; anything JSON cannot hold is a :class:`SpecError`."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise SpecError(f"object keys must be strings, got {key!r}", field=where)
            out[key] = jsonify(item, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple)):
        return [jsonify(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy scalars and arrays
        return jsonify(value.tolist(), where)
    raise SpecError(f"{type(value).__name__} {value!r} is not a JSON value", field=where)


def canonical(value: Any) -> str:
    """A string that is equal for two JSON values exactly when the values are."""
    return json.dumps(value, sort_keys=True, allow_nan=True, separators=(",", ":"))
