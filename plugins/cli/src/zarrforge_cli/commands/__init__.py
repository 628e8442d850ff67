"""zarrforge-cli's own subcommands, one module each, declared as ``zarrforge.cli`` entry
points in pyproject.toml like any plugin's (imported only when run or listed)."""
