"""zarr-python's ``zarr.api``, under the same names: ``zarrforge.api.synchronous`` (the
functions of ``import zarrforge``) and ``zarrforge.api.asynchronous`` (those of
:mod:`zarrforge.asyncio`), for code that imports them by these module paths.

One of the faces on top of the core (tests/test_layers.py): its modules may import the user
API, the asyncio face and every layer below. This ``__init__`` imports nothing.
"""
