"""Naive, obviously-faithful implementations of the seeds' algorithms, used as test oracles."""
