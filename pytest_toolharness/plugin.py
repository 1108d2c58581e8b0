"""The pytest plugin entry point (``pytest11``: ``toolharness``)."""

from __future__ import annotations
