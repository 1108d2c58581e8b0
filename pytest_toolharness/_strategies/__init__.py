"""Hypothesis strategies for tool harnesses; the public face is :mod:`pytest_toolharness.strategies`."""
