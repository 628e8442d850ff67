"""The built-in subcommands, one module each (imported only when run)."""
