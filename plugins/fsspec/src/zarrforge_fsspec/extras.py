"""Which extra of zarrforge-fsspec installs the package a protocol needs.

fsspec answers a protocol whose package is missing with an ``ImportError`` naming the
package ("Install s3fs to access S3"), not the extra that brings it; :func:`missing_package`
turns that into a zarrforge error naming both the extra and the fsspec message. The table
follows ``plugins/fsspec/pyproject.toml``'s optional dependencies
(``plugins/fsspec/tests/test_extras.py`` holds them together).
"""

from __future__ import annotations

from zarrforge.errors import PluginLoadError

# protocol -> the extra of zarrforge-fsspec that installs its filesystem's package
EXTRA_OF_PROTOCOL = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "abfs": "azure",
    "az": "azure",
    "hf": "hf",
    "http": "http",
    "https": "http",
    "sftp": "sftp",
}
# the extras zarrforge[all] includes (core/pyproject.toml)
IN_ALL = frozenset({"s3", "http"})


def missing_package(url: str, error: ImportError) -> PluginLoadError:
    """The error for ``url`` when fsspec could not import its filesystem's package."""
    protocols = [part.split("://", 1)[0] for part in url.split("::") if "://" in part]
    extras = [EXTRA_OF_PROTOCOL[p] for p in protocols if p in EXTRA_OF_PROTOCOL]
    if not extras:
        return PluginLoadError(
            f"cannot open {url!r}: {error} (the package fsspec names is "
            "not one zarrforge installs; install it with pip)"
        )
    extra = extras[0]
    also = " (or pip install 'zarrforge[all]', which includes it)" if extra in IN_ALL else ""
    return PluginLoadError(
        f"cannot open {url!r}: its filesystem needs a package that is not installed; "
        f"pip install 'zarrforge-fsspec[{extra}]' installs it{also}. fsspec says: {error}"
    )
