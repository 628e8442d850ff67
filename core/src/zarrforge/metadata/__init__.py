"""Metadata as plain documents: JSON handling, component references, unknown fields, and
the paths of nodes in a hierarchy (:mod:`.paths`).

The documents layer, just above the leaves: its modules may import each other and
:mod:`zarrforge.errors` and :mod:`zarrforge.config`, nothing else of the core (no
contract, registry, plugin or engine). Resolving names into implementations is
:mod:`zarrforge.registries.resolution`; the resolved model is :mod:`zarrforge.abc.metadata`.
This package's ``__init__`` imports nothing.
"""
