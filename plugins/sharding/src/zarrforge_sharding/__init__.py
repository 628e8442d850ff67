"""zarrforge-sharding: the ``sharding_indexed`` codec (see :mod:`zarrforge_sharding.codec`)."""
