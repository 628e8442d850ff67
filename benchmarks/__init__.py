"""zarrforge's benchmark suite: see benchmarks/README.md. Run ``python benchmarks/run.py``."""
