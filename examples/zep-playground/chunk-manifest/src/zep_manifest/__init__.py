"""ZEP playground: the ``example.chunk-manifest`` storage transformer (:mod:`zep_manifest.transformer`)."""
