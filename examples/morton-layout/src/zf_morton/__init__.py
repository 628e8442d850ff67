"""zarrforge-example-morton: a Z-order (Morton order) memory layout, registered as
``zf_morton.zorder`` in ``zarrforge.memory_layouts``."""

from __future__ import annotations

from .zorder import ZOrder, z_positions

__all__ = ["ZOrder", "z_positions"]
