"""The adapter for the embedded reference harness (``reference_impl``), the suite's default.

This package is the only part of the plugin that imports ``reference_impl``, and it uses its public
names only. ``make_adapter`` is the factory ``--toolharness-adapter`` names by default.
"""

from __future__ import annotations

from pytest_toolharness.adapters.reference._adapter import (
    ReferenceAdapter,
    ReferenceHarness,
    claude_code_listing_adapter,
    listing_adapter,
    reference_adapter,
)

make_adapter = reference_adapter

__all__ = [
    "ReferenceAdapter",
    "ReferenceHarness",
    "claude_code_listing_adapter",
    "listing_adapter",
    "make_adapter",
    "reference_adapter",
]
