"""Implementation-neutral summaries of what a reader returned for a corpus node.

The same module runs in the project's environment (zarrforge, zarr-python 3,
tensorstore) and in zarr-python 2.18's environment (a subprocess), so it
imports nothing but numpy and the standard library.

An array is summarised as its shape, a normalised data type, a SHA-256 over
its values in C order and a few leading values (for the reader of a failure
message). Values are hashed bit for bit for numeric types (little endian, so
NaN payloads and ``-0.0`` count); text is hashed as a JSON list of strings
whatever numpy kind carries it (``<U``, ``StringDType`` or objects), since
readers differ in that choice and the values are what the writer stored; so are
object arrays of optional values (``None``, a value, or ``["Some", inner]`` for an
element of an optional-of-optional type held in a ``Some`` wrapper).
A group is summarised as its attributes and the sorted names of its members.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from typing import Any

import numpy as np

SAMPLES = 4


def _text_item(item: Any) -> Any:
    if isinstance(item, bytes):
        return "base64:" + base64.b64encode(item).decode()
    if isinstance(item, np.generic):
        item = item.item()
    if isinstance(item, float) and not math.isfinite(item):
        return repr(item)
    if isinstance(item, (str, int, float, bool)) or item is None:
        return item
    if isinstance(item, (list, tuple, np.ndarray)):
        return [_text_item(x) for x in item]
    if type(item).__name__ == "Some" and hasattr(item, "value"):
        return ["Some", _text_item(item.value)]  # a present element of a nested optional type
    return repr(item)


def _json_value(item: Any) -> Any:
    """A JSON-safe rendering of one element (for the samples)."""
    if isinstance(item, np.generic):
        if item.dtype.kind == "V":
            return "base64:" + base64.b64encode(item.tobytes()).decode()
        if item.dtype.kind in "mM":
            return str(item)
        if item.dtype.kind == "c":
            return [_json_value(item.real), _json_value(item.imag)]
        item = item.item()
    if isinstance(item, float) and not math.isfinite(item):
        return repr(item)
    return _text_item(item)


def summarize_array(values: Any) -> dict[str, Any]:
    arr = np.asarray(values)
    kind = arr.dtype.kind
    if kind in "OUT":
        dtype = "text"
        payload = json.dumps([_text_item(x) for x in arr.reshape(-1).tolist()]).encode()
    else:
        le = arr.dtype.newbyteorder("<")  # a no-op for single-byte and native types
        dtype = le.str if arr.dtype.names is None else json.dumps(le.descr)
        payload = np.ascontiguousarray(arr.astype(le, copy=False)).tobytes()
    digest = hashlib.sha256(json.dumps(list(arr.shape)).encode() + b"|" + payload).hexdigest()
    flat = arr.reshape(-1)
    return {
        "shape": list(arr.shape),
        "dtype": dtype,
        "sha256": digest,
        "first": [_json_value(flat[i]) for i in range(min(SAMPLES, flat.size))],
    }


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)  # bare NaN/Infinity are not JSON
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def summarize_group(attributes: Any, members: Any) -> dict[str, Any]:
    return {"attributes": _json_safe(dict(attributes)), "members": sorted(str(m) for m in members)}
