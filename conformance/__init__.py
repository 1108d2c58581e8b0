"""The conformance suite: property-based tests, one or more per requirement ID."""

from __future__ import annotations
