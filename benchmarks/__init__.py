"""Speed figures, run as modules from the repository root: `python -m benchmarks.NAME`."""
