"""Benchmarks: `python benchmarks/run.py` (ratios against baselines measured in the same run)."""
