"""Helpers of the load benchmark ``tests/bench_load.py`` (not tests; pytest skips them)."""
