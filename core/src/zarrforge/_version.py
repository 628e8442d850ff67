"""The version of zarrforge: the one place it is written.

Every distribution of this repository (core and the plugins under plugins/) is released
together at this version: their pyproject.toml files read it from here
(``[tool.hatch.version]``), and their packages' ``__version__`` is this one.
"""

__version__ = "0.2.0"
