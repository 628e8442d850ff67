"""ZEP playground: the ``example.scale`` extension (:mod:`zep_scale.extension`)."""
