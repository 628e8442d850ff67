"""The functions of :mod:`zarrforge.asyncio`: those of ``import zarrforge`` as coroutines.

Each takes the arguments of the blocking function of the same name (:mod:`zarrforge.user_api.api`,
zarr-python's modes and defaults), runs it off the event loop as one cancellable blocking
call (:mod:`zarrforge.asyncio.offload`) and returns the async face of the node
(:class:`~zarrforge.asyncio.AsyncArray` or :class:`~zarrforge.asyncio.AsyncGroup`), over
the resolved store under a cancellation point. ``create_array(data=...)`` creates the
array, then writes the data as a cancellable write (a cancelled or failed write leaves
the new array with every chunk written or not, as the blocking call's failure does).
"""

from __future__ import annotations

from typing import Any

from ..user_api import api
from .arrays import AsyncArray, data_argument
from .groups import AsyncGroup, wrap
from .offload import run_blocking


async def open_array(store: Any = None, path: str = "", **kwargs: Any) -> AsyncArray:
    """``zarrforge.open_array``, off the loop.

    Raises what :func:`zarrforge.open_array` raises.

    Parameters
    ----------
    store : Any
        As for :func:`zarrforge.open_array` (any store-like).
    path : str
        As for :func:`zarrforge.open_array`.
    **kwargs : Any
        The keywords of :func:`zarrforge.open_array`.

    Returns
    -------
    zarrforge.asyncio.AsyncArray
        The async face of the array.
    """
    return wrap(await run_blocking("open_array", lambda: api.open_array(store, path, **kwargs)))


async def open_group(store: Any = None, path: str = "", **kwargs: Any) -> AsyncGroup:
    """``zarrforge.open_group``, off the loop.

    Raises what :func:`zarrforge.open_group` raises.

    Parameters
    ----------
    store : Any
        As for :func:`zarrforge.open_group` (any store-like).
    path : str
        As for :func:`zarrforge.open_group`.
    **kwargs : Any
        The keywords of :func:`zarrforge.open_group`.

    Returns
    -------
    zarrforge.asyncio.AsyncGroup
        The async face of the group.
    """
    return wrap(await run_blocking("open_group", lambda: api.open_group(store, path, **kwargs)))


async def open(store: Any = None, path: str = "", **kwargs: Any) -> AsyncArray | AsyncGroup:  # noqa: A001
    """``zarrforge.open``: the array or group at ``path``, off the loop.

    Raises what :func:`zarrforge.open` raises.

    Parameters
    ----------
    store : Any
        As for :func:`zarrforge.open` (any store-like).
    path : str
        As for :func:`zarrforge.open`.
    **kwargs : Any
        The keywords of :func:`zarrforge.open`.

    Returns
    -------
    zarrforge.asyncio.AsyncArray or zarrforge.asyncio.AsyncGroup
        The async face of the node.
    """
    return wrap(await run_blocking("open", lambda: api.open(store, path, **kwargs)))


async def create_array(store: Any = None, path: str = "", **kwargs: Any) -> AsyncArray:
    """``zarrforge.create_array``, off the loop (``data=``: see the module docstring).

    Raises what :func:`zarrforge.create_array` raises.

    Parameters
    ----------
    store : Any
        As for :func:`zarrforge.create_array` (any store-like).
    path : str
        As for :func:`zarrforge.create_array`.
    **kwargs : Any
        The keywords of :func:`zarrforge.create_array`.

    Returns
    -------
    zarrforge.asyncio.AsyncArray
        The async face of the new array.
    """
    kwargs, data = data_argument(kwargs)
    array = wrap(await run_blocking("create_array", lambda: api.create_array(store, path, **kwargs)))
    if data is not None:
        await array.setitem(Ellipsis, data)
    return array


async def create_group(store: Any = None, path: str = "", **kwargs: Any) -> AsyncGroup:
    """``zarrforge.create_group``, off the loop.

    Raises what :func:`zarrforge.create_group` raises.

    Parameters
    ----------
    store : Any
        As for :func:`zarrforge.create_group` (any store-like).
    path : str
        As for :func:`zarrforge.create_group`.
    **kwargs : Any
        The keywords of :func:`zarrforge.create_group`.

    Returns
    -------
    zarrforge.asyncio.AsyncGroup
        The async face of the new group.
    """
    return wrap(await run_blocking("create_group", lambda: api.create_group(store, path, **kwargs)))
