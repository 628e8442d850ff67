"""Metadata as plain documents: JSON handling, component references, unknown fields.

The leaf layer of metadata: nothing in this package imports a contract, a
registry, a plugin or the engine. Resolving names into implementations is
:mod:`zarrforge.resolution`; the resolved model is :mod:`zarrforge.abc.metadata`.
"""
