"""What a write into an existing store must agree with, checked before the first byte.

:func:`check_against_store` compares the dataset with the variables the group
holds, for ``mode="a"``, ``"a-"`` and ``"r+"`` (with ``append_dim`` or
``region``), and raises ``ValueError`` naming the variable, the dimension and both
sizes, in xarray's terms, when the write could not complete:

* a variable that exists must have the stored dimensions (names, any order);
* its sizes must equal the stored ones, except along ``append_dim`` (which grows)
  and along a ``region`` dimension, whose slice must lie inside the stored
  dimension and be as long as the dataset's;
* writing into an existing variable (appending, a region, an overwrite) keeps its
  kind of data: numbers, booleans,
  datetimes and timedeltas onto any of those, objects, and fixed-width text onto
  variable-length text pass; anything else (strings onto numbers, fixed-width
  strings of another width) must equal the stored dtype, as xarray's own writer
  requires, since it would otherwise be cast or truncated silently;
* a variable the store lacks must use the stored sizes of the dimensions it shares
  with the store (its new ``append_dim`` length aside).

The store's own encoding (scale factors, times) is applied by xarray afterwards;
what is compared here is what the caller can see: dimension names, sizes, dtypes.
"""

from __future__ import annotations

from typing import Any, Hashable, Mapping

import numpy as np
import xarray as xr

import zarrforge

from .store import MissingDimensionNamesError, ZarrforgeDataStore, stored_name


def _numeric(dtype: np.dtype) -> bool:
    return dtype.kind in "biufcmM"  # numbers, booleans, datetimes, timedeltas


def _appendable(dtype: np.dtype, stored: np.dtype) -> bool:
    """Can values of ``dtype`` be appended onto a stored ``stored`` without being cast or
    truncated in a way the caller did not ask for? (CF encoding turns times and packed
    numbers into the stored numbers afterwards.)"""
    if dtype == stored or dtype == object:
        return True
    if _numeric(dtype) and _numeric(stored):
        return True
    return dtype.kind in "SU" and stored.kind in "OT"  # fixed-width onto variable-length text


def check_against_store(dataset: xr.Dataset, group: zarrforge.Group, *,
                        append_dim: Hashable | None,
                        region: Mapping[Hashable, slice] | None,
                        skip_without_append_dim: bool = False) -> None:
    """Refuse, before anything is written, a dataset the stored one cannot take (see the
    module docstring). ``skip_without_append_dim``: mode "a-", which leaves existing
    variables without ``append_dim`` alone."""
    reader = ZarrforgeDataStore(group)
    arrays = dict(reader._arrays)
    stored_sizes = _stored_sizes(reader, arrays)
    region = dict(region or {})
    for key, variable in dataset.variables.items():
        name = stored_name(key)
        array = arrays.get(name)
        if array is None:
            _check_new(name, variable, stored_sizes, append_dim)
            continue
        if skip_without_append_dim and append_dim not in variable.dims:
            continue
        stored_dims, _ = reader._dimensions_and_attributes(array)
        if set(map(str, variable.dims)) != set(stored_dims):
            raise ValueError(f"variable {name!r} has dimensions {tuple(map(str, variable.dims))}, "
                             f"but the stored one has {stored_dims}; dimensions cannot be "
                             "changed by appending or writing a region")
        stored = dict(zip(stored_dims, array.shape))
        _check_sizes(name, variable, stored, append_dim, region)
        _check_dtype(name, variable, array)  # appended, written in a region or overwritten


def _stored_sizes(reader: ZarrforgeDataStore, arrays: dict[str, zarrforge.Array]
                  ) -> dict[str, int]:
    """The stored dimensions' sizes, from the arrays that name their dimensions (an array
    xarray cannot place is no reason to refuse writing others)."""
    sizes: dict[str, int] = {}
    for array in arrays.values():
        try:
            names, _ = reader._dimensions_and_attributes(array)
        except MissingDimensionNamesError:
            continue
        for dim, size in zip(names, array.shape):
            sizes.setdefault(dim, size)
    return sizes


def _check_sizes(name: str, variable: xr.Variable, stored: dict[str, int],
                 append_dim: Hashable | None, region: dict[Hashable, slice]) -> None:
    given = {str(d): n for d, n in variable.sizes.items()}
    expected: dict[str, int] = {}
    for dim, size in stored.items():
        if append_dim is not None and dim == str(append_dim):
            continue
        if dim in map(str, region):
            window = region[next(d for d in region if str(d) == dim)]
            start, stop, _ = window.indices(size)
            if (window.start or 0) > size or (window.stop is not None and window.stop > size):
                raise ValueError(f"variable {name!r}: region {dim}={window} reaches beyond the "
                                 f"stored dimension {dim!r} of size {size}")
            expected[dim] = max(0, stop - start)
        else:
            expected[dim] = size
    compared = {dim: given[dim] for dim in expected}
    if compared != expected:
        dims = ", ".join(f"{d!r}: {compared[d]} given, {expected[d]} stored"
                         for d in expected if compared[d] != expected[d])
        hint = (f"; only append_dim={str(append_dim)!r} may change size" if append_dim is not None
                else "; to change a size, append along it (append_dim=...), or write part of "
                     "the variable with region=...")
        raise ValueError(f"variable {name!r} already exists with different dimension sizes "
                         f"({dims}){hint}")


def _check_dtype(name: str, variable: xr.Variable, array: zarrforge.Array) -> None:
    dtype, stored = variable.dtype, array.dtype
    if not _appendable(dtype, stored):
        raise ValueError(f"variable {name!r}: the store holds {stored}, the dataset to write "
                         f"gives {dtype}; writing it there would cast or truncate the values. "
                         f"Convert the variable first (dataset[{name!r}].astype("
                         f"{str(stored)!r}))")


def _check_new(name: str, variable: xr.Variable, stored_sizes: dict[str, int],
               append_dim: Hashable | None) -> None:
    for dim, size in variable.sizes.items():
        dim = str(dim)
        if append_dim is not None and dim == str(append_dim):
            continue
        if dim in stored_sizes and stored_sizes[dim] != size:
            raise ValueError(f"variable {name!r} (new) has {dim!r} of size {size}, but the "
                             f"stored dataset's {dim!r} has size {stored_sizes[dim]}")
