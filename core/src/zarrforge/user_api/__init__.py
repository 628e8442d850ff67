"""The user API: what ``import zarrforge`` offers, built on the nodes and the engine.

``Array`` (:mod:`.arrays`, with :mod:`.array_properties`, :mod:`.array_engine`,
:mod:`.array_selections`, :mod:`.array_resizing`), ``Group`` (:mod:`.groups`,
:mod:`.tree_view`), creating and opening (:mod:`.api`, :mod:`.creation`), copying
(:mod:`.copying`), summaries (:mod:`.info`, :mod:`.debug_info`), dask (:mod:`.dask_bridge`),
installed plugins (:mod:`.discovery`) and zarr-python's convenience functions
(:mod:`.zarr_api`). ``zarrforge/__init__.py`` hands these out by name, loading them on
first use.

Layer rule (tests/test_layers.py): modules here may import each other and every layer
below (nodes, engine, store tools, registries, contracts, documents, leaves); above them
stand only the faces: the package, :mod:`zarrforge.asyncio`, :mod:`zarrforge.hierarchy_api`,
:mod:`zarrforge.plugin_api` and :mod:`zarrforge.testing`. This ``__init__`` imports nothing.
"""
