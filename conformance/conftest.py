"""Shared helpers of the conformance suite (loaded only when the suite runs)."""

from __future__ import annotations
