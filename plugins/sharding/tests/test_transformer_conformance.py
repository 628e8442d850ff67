"""The 2022 draft's sharding storage transformer against the storage transformer suite."""

from __future__ import annotations

from zarrforge.testing import StorageTransformerConformance
from zarrforge_sharding.draft_transformer import NAME


def entry(cps):
    return {"name": NAME, "configuration": {"type": "indexed", "chunks_per_shard": cps}}


class TestDraftShardingTransformer(StorageTransformerConformance):
    transformer_documents = [entry([2, 3]), entry([1, 1]), entry([5, 5])]
    invalid_transformer_documents = [
        (entry([0, 2]), "configuration.chunks_per_shard"),
        (entry("2,3"), "configuration.chunks_per_shard"),
        (entry([2, True]), "configuration.chunks_per_shard"),
        (
            {"name": NAME, "configuration": {"type": "hashed", "chunks_per_shard": [2, 2]}},
            "configuration.type",
        ),
    ]
