"""The chunk engine: what a read or a write does to chunks.

* :mod:`.indexing`: selections into per-chunk pieces;
* :mod:`.codec_chain`: a chunk's codecs in order, encoding and decoding (with
  :mod:`.layout_codec` and :mod:`.codec_arguments`, the codecs a call names);
* :mod:`.chunk_update`: how a write changes one chunk (whole, partial codec,
  decode-modify-encode, the plain fast path);
* :mod:`.pipeline`: the scheduler, which decides what runs where (threads of
  :mod:`.parallel`, batched store calls of :mod:`.chunk_io`, conditional retries);
* :mod:`.chunking`, :mod:`.chunk_helpers`, :mod:`.chunk_context`: automatic chunk shapes,
  fill-value and size checks, the chunk position codecs may read.

Layer rule (tests/test_layers.py): modules here may import each other, the store tools
(:mod:`zarrforge.storing`), the registries, the contracts, the documents and the leaves;
never the nodes or the user API. This ``__init__`` imports nothing.
"""
