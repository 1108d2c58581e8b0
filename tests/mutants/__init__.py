"""Broken reference harnesses ("mutants"): each breaks exactly one requirement, and the suite must catch it."""
