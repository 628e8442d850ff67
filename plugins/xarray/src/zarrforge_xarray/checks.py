"""What a write into an existing store must agree with, checked before the first byte.

:func:`check_against_store` compares the dataset with the variables the group
holds, for ``mode="a"``, ``"a-"`` and ``"r+"`` (with ``append_dim`` or
``region``), and raises ``ValueError`` naming the variable, the dimension and both
sizes, when the write could not complete. Each message starts with the words of
xarray's own refusal of the same write (which callers and xarray's tests match), then
says what zarrforge found:

* mode ``"r+"`` writes existing variables only;
* ``append_dim`` must be a dimension of the stored dataset;
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

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr
from xarray.backends.zarr import encode_zarr_attr_value

import zarrforge
from zarrforge.hierarchy_api import check_document

from .store import MissingDimensionNamesError, ZarrforgeDataStore, stored_name


def _numeric(dtype: np.dtype) -> bool:
    return dtype.kind in "biufcmM"  # numbers, booleans, datetimes, timedeltas


def _appendable(dtype: np.dtype, stored: np.dtype) -> bool:
    """Can values of ``dtype`` be appended onto a stored ``stored`` without being cast or
    truncated in a way the caller did not ask for? (CF encoding turns times and packed
    numbers into the stored numbers afterwards.)"""
    if dtype == stored or dtype == np.dtype(object):
        return True
    if _numeric(dtype) and _numeric(stored):
        return True
    return dtype.kind in "SU" and stored.kind in "OT"  # fixed-width onto variable-length text


def check_against_store(
    dataset: xr.Dataset,
    group: zarrforge.Group,
    *,
    append_dim: Hashable | None,
    region: Mapping[Hashable, slice] | None,
    skip_without_append_dim: bool = False,
    existing_only: bool = False,
) -> None:
    """Refuse, before anything is written, a dataset the stored one cannot take (see the
    module docstring). ``skip_without_append_dim``: mode "a-" with ``append_dim``, which
    leaves existing variables without ``append_dim`` alone; ``existing_only``: mode
    "r+", which writes no new variables."""
    reader = ZarrforgeDataStore(group)
    arrays = dict(reader._arrays)
    if existing_only and (new := [stored_name(k) for k in dataset.variables if stored_name(k) not in arrays]):
        raise ValueError(
            f"dataset contains non-pre-existing variables {new!r}: the store lacks "
            "them, and mode='r+' writes existing variables only (use mode='a' to "
            "add them)"
        )
    stored_sizes = _stored_sizes(reader, arrays)
    if append_dim is not None and str(append_dim) not in stored_sizes:
        raise ValueError(
            f"append_dim={append_dim!r} does not match any existing dataset "
            f"dimensions: the stored dataset's are {sorted(stored_sizes)}"
        )
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
            raise ValueError(dimension_names_differ(name, variable.dims, stored_dims))
        stored = dict(zip(stored_dims, array.shape))
        _check_sizes(name, variable, stored, append_dim, region)
        _check_dtype(name, variable, array)  # appended, written in a region or overwritten


def dimension_names_differ(name: str, given: tuple[Hashable, ...], stored: tuple[Hashable, ...]) -> str:
    """The refusal of a write giving an existing variable other dimension names."""
    return (
        f"variable {name!r} already exists with different dimension names: it has "
        f"dimensions {tuple(map(str, given))}, but the stored one has {tuple(stored)}; "
        "dimensions cannot be changed by appending or writing a region"
    )


def _stored_sizes(reader: ZarrforgeDataStore, arrays: dict[str, zarrforge.Array]) -> dict[str, int]:
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


def _check_sizes(
    name: str,
    variable: xr.Variable,
    stored: dict[str, int],
    append_dim: Hashable | None,
    region: dict[Hashable, slice],
) -> None:
    given = {str(d): n for d, n in variable.sizes.items()}
    expected: dict[str, int] = {}
    for dim, size in stored.items():
        if append_dim is not None and dim == str(append_dim):
            continue
        if dim in map(str, region):
            window = region[next(d for d in region if str(d) == dim)]
            start, stop, _ = window.indices(size)
            if (window.start or 0) > size or (window.stop is not None and window.stop > size):
                raise ValueError(
                    f"variable {name!r}: region {dim}={window} reaches beyond the "
                    f"stored dimension {dim!r} of size {size}"
                )
            expected[dim] = max(0, stop - start)
        else:
            expected[dim] = size
    compared = {dim: given[dim] for dim in expected}
    if compared != expected:
        dims = ", ".join(
            f"{d!r}: {compared[d]} given, {expected[d]} stored"
            for d in expected
            if compared[d] != expected[d]
        )
        hint = (
            f"; only append_dim={str(append_dim)!r} may change size"
            if append_dim is not None
            else "; to change a size, append along it (append_dim=...), or write part of "
            "the variable with region=..."
        )
        raise ValueError(f"variable {name!r} already exists with different dimension sizes ({dims}){hint}")


def _check_dtype(name: str, variable: xr.Variable, array: zarrforge.Array) -> None:
    dtype, stored = variable.dtype, array.dtype
    if not _appendable(dtype, stored):
        raise ValueError(
            f"Mismatched dtypes for variable {name!r}: the store holds {stored}, "
            f"the dataset to write gives {dtype}; writing it there would cast or "
            "truncate the values. "
            f"Convert the variable first (dataset[{name!r}].astype("
            f"{str(stored)!r}))"
        )


def _check_new(
    name: str, variable: xr.Variable, stored_sizes: dict[str, int], append_dim: Hashable | None
) -> None:
    for dim, size in variable.sizes.items():
        dim = str(dim)
        if append_dim is not None and dim == str(append_dim):
            continue
        if dim in stored_sizes and stored_sizes[dim] != size:
            raise ValueError(
                f"variable {name!r} (new) has {dim!r} of size {size}, but the "
                f"stored dataset's {dim!r} has size {stored_sizes[dim]}"
            )


def check_attribute_values(
    dataset: xr.Dataset, variables: Iterable[Hashable], *, dataset_attrs: bool
) -> None:
    """Refuse, as xarray does (a ``TypeError``, "Invalid attribute in Dataset.attrs"),
    an attribute value that Zarr metadata (JSON) cannot hold: the dataset's own
    attributes when ``dataset_attrs`` (every mode but "r+" writes them) and those of
    ``variables`` (the ones this write creates). Values are taken as xarray writes them
    (numpy arrays as lists, numpy scalars as numbers) and checked by zarrforge's JSON
    writer's rule, so the refusal comes before any attribute is written."""
    owners: list[tuple[str, Mapping[Any, Any]]] = [("the dataset", dataset.attrs)] if dataset_attrs else []
    owners += [(f"variable {str(name)!r}", dataset.variables[name].attrs) for name in variables]
    for owner, attrs in owners:
        for key, value in attrs.items():
            try:
                # as an attribute: NaN and infinity are allowed there, as zarr-python writes them
                check_document({"attributes": {str(key): encode_zarr_attr_value(value)}})
            except zarrforge.errors.MetadataError as exc:
                raise TypeError(
                    f"Invalid attribute in Dataset.attrs: attribute {str(key)!r} of {owner} is "
                    f"a {type(value).__name__}, which Zarr metadata (JSON) cannot hold; valid "
                    "are strings, numbers, booleans, None, and lists and dicts of them (numpy "
                    f"arrays and scalars are written as those) ({exc})"
                ) from exc
