"""Mutant: ``sandbox.network.deniedDomains`` entries are validated but kept as written."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-3"
DESCRIPTION = (
    "deniedDomains: ['LocalHost.'] is checked for validity, then stored as written, so the proxy's "
    "normalised 'localhost' never equals it and the denied host is reached"
)


def _mutate(original: Any) -> Any:
    def domain_pattern(name: str, text: str, where: str) -> str:
        normal: str = original(name, text, where)
        if where.startswith("sandbox.network.deniedDomains"):
            return text.strip()  # BUG: the normal form is only used to validate a denial
        return normal

    return domain_pattern


adapter = make_factory(Patch("reference_impl.sandbox._settings", "domain_pattern", _mutate))
