"""zarrforge-std: the core Zarr v3 extensions, registered through entry points.

Nothing here is imported by ``import zarrforge``; the registries import each
module the first time a document or call names one of its entries.
"""
