"""zarrforge-serve: any hierarchy zarrforge reads, served read-only as Zarr v3 over HTTP.

* :class:`ServedHierarchy` (``zarrforge_serve.hierarchy``): SOURCE opened read-only,
  answering ``zarr.json`` documents and chunks of its v3 translation.
* :func:`make_app` (``zarrforge_serve.app``): the aiohttp application, for embedding.
* :func:`serve` (``zarrforge_serve.server``): bind, print the banner, serve until
  interrupted; what ``zarrforge serve`` (``zarrforge_serve.command``) runs.
* :class:`TranslationOptions` (``zarrforge_serve.translation``): which codecs pass
  through, what re-encoded chunks are compressed with.

docs/serve.md is the guide: the translation table, the security defaults, a browser
example and a reverse proxy in front.
"""

from __future__ import annotations

from .app import make_app
from .hierarchy import ServedHierarchy
from .server import serve
from .translation import TranslationOptions

__all__ = ["ServedHierarchy", "TranslationOptions", "make_app", "serve"]
