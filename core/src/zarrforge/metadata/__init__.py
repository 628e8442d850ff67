"""Format-independent metadata: the node model, JSON handling, extension objects.

Nothing in this package imports a plugin; names resolve through
:mod:`zarrforge.registry`.
"""
