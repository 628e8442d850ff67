"""Nodes and the hierarchy: opening, creating and replacing arrays and groups in a store.

* :mod:`.node`: the base of ``Array`` and ``Group`` (:mod:`.node_properties` holds what it
  computes without reading), and opening a node of any installed format;
* :mod:`.hierarchy`: where nodes are, their parents, views of consolidated metadata
  (:mod:`.consolidated`);
* :mod:`.node_writing`: writing a node's document without losing what stands there, with
  :mod:`.unreadable` (never over a node no installed format reads);
* :mod:`.attributes`: a node's attributes, persisted on change.

Layer rule (tests/test_layers.py): modules here may import each other, the chunk engine,
the store tools, the registries, the contracts, the documents and the leaves; never the
user API. This ``__init__`` imports nothing.
"""
