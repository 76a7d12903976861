"""Benchmarks, run by hand (see README.md); not shipped, not collected by pytest."""
