"""zarr-python's ``zarr.api.asynchronous``: zarrforge's coroutines of the same names.

Contract:

* ``open``, ``open_array``, ``open_group``, ``create_array`` and ``create_group`` are
  :mod:`zarrforge.asyncio`'s.
* Every other name (those of :mod:`zarrforge.api.synchronous`, which holds every name of
  zarr-python's module, :data:`ZARR_PYTHON_NAMES`) is the coroutine of zarrforge's blocking
  function of that name. The coroutine takes the blocking function's arguments, an
  ``AsyncArray``/``AsyncGroup`` standing for its blocking node, and runs the call off
  the event loop as one cancellable blocking call (:func:`zarrforge.asyncio.offload.run_blocking`,
  as :mod:`zarrforge.asyncio` does). An array or group it returns comes back as an
  ``AsyncArray``/``AsyncGroup``; ``load`` of a group returns a ``dict`` of every array's
  values, all read off the loop (the blocking ``load`` reads each when looked up); anything
  else as the blocking function returns it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..asyncio.api import create_array, create_group, open, open_array, open_group  # noqa: A004  # zarr-python's names
from ..asyncio.arrays import AsyncArray
from ..asyncio.groups import AsyncGroup, wrap
from ..asyncio.offload import run_blocking
from ..user_api import zarr_api
from ..user_api.arrays import Array
from ..user_api.groups import Group
from . import synchronous

# zarr-python 3.4.2's zarr.api.asynchronous.__all__
ZARR_PYTHON_NAMES = (
    "array",
    "consolidate_metadata",
    "copy",
    "copy_all",
    "copy_store",
    "create",
    "create_array",
    "create_hierarchy",
    "empty",
    "empty_like",
    "from_array",
    "full",
    "full_like",
    "group",
    "load",
    "ones",
    "ones_like",
    "open",
    "open_array",
    "open_consolidated",
    "open_group",
    "open_like",
    "save",
    "save_array",
    "save_group",
    "tree",
    "zeros",
    "zeros_like",
)
_ASYNCIO_FACE = {
    "create_array": create_array,
    "create_group": create_group,
    "open": open,
    "open_array": open_array,
    "open_group": open_group,
}


def _blocking_node(value: Any) -> Any:
    """The blocking node behind an async face; any other argument as it is."""
    if isinstance(value, AsyncArray):
        return value.array
    if isinstance(value, AsyncGroup):
        return value.group
    return value


def _read_whole(result: Any) -> Any:
    """Run on the blocking call's thread: a lazy mapping of values read now."""
    if isinstance(result, zarr_api.LazyLoader):
        return {name: result[name] for name in result}
    return result


def _async_face(result: Any) -> Any:
    return wrap(result) if isinstance(result, (Array, Group)) else result


def coroutine_of(name: str, blocking: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """The coroutine function of the blocking function ``blocking`` (see the module's
    contract); ``name`` names the call in a cancellation's error."""

    @functools.wraps(blocking)
    async def coroutine(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_blocking_node(value) for value in args)
        kwargs = {key: _blocking_node(value) for key, value in kwargs.items()}
        return _async_face(await run_blocking(name, lambda: _read_whole(blocking(*args, **kwargs))))

    coroutine.__module__ = __name__
    # the blocking function's parameters; what it returns comes back as its async face
    coroutine.__signature__ = inspect.signature(blocking).replace(  # type: ignore[attr-defined]
        return_annotation=inspect.Signature.empty
    )
    coroutine.__doc__ = (
        f"``zarrforge.{name}`` as a coroutine, off the event loop "
        "(zarrforge.api.asynchronous's contract).\n\n" + (blocking.__doc__ or "")
    )
    return coroutine


# the blocking functions' coroutines, the asyncio face's own five in their place
_FOUND: dict[str, Callable[..., Awaitable[Any]]] = {
    **{name: coroutine_of(name, getattr(synchronous, name)) for name in synchronous.__all__},
    **_ASYNCIO_FACE,
}
globals().update(_FOUND)
__all__ = sorted(_FOUND)  # noqa: PLE0605  # computed from the table above

if TYPE_CHECKING:
    # what a type checker sees of the names made above: each a coroutine function
    def __getattr__(name: str) -> Callable[..., Awaitable[Any]]: ...
