"""The implementation of :mod:`pytest_toolharness.strategies`, one module per kind of value drawn.

Schemas and their instances, tools, permission rules, shell commands (with bash as their oracle),
hooks and messages; users import them through :mod:`pytest_toolharness.strategies`.
"""
