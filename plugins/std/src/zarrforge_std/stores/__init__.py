"""Stores of zarrforge-std: in-memory (``memory://``) and local directory (``file://``)."""
