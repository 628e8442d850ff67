"""ZEP playground: the ``example.delta`` codec (:mod:`zep_delta.codec`)."""
