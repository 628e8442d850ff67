"""Reaching stores and writing to them safely, below the chunk engine and the nodes.

* :mod:`.storage`: a store from what the user passed (a path, a URL, a URL pipeline of
  :mod:`.url_pipeline`, an object a plugin adapts);
* :mod:`.listing`, :mod:`.versions`, :mod:`.read_memo`: listing keys, generations of
  values and ranges past a value's end, remembered reads;
* :mod:`.optimistic`: conditional writes retried on conflict;
* :mod:`.transaction`: buffered writes committed together (``zarrforge.transaction``);
* :mod:`.unfinished`: the marker an unfinished write leaves.

Layer rule (tests/test_layers.py): modules here may import each other, the registries
(:mod:`zarrforge.registries`), the contracts, the documents and the leaves; never the
engine, the nodes or the user API. This ``__init__`` imports nothing.
"""
