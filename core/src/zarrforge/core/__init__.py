"""zarr-python's ``zarr.core`` module path, for the few names its users import from it.

zarr-python's user guide imports ``GroupMetadata`` from ``zarr.core.group`` to describe
the groups ``create_hierarchy`` makes; :mod:`zarrforge.core.group` has it. Nothing else of
zarr-python's internals is mirrored: zarrforge's own layers are named in
docs/architecture.md.
"""
