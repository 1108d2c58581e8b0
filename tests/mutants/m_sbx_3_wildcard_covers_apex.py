"""SBX-3 mutant: ``*.example.com`` in ``allowedDomains`` also lets ``example.com`` itself through."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-3"
DESCRIPTION = (
    "a wildcard domain pattern covers the name it is written over as well as its subdomains: the proxy"
    " lets a request to example.com through under allowedDomains ['*.example.com']"
)


def _matches(host: str, pattern: str) -> bool:
    if pattern.startswith("*."):
        return host == pattern[2:] or host.endswith(pattern[1:])
    return host == pattern


adapter = make_factory(Patch("reference_impl.sandbox._policy", "_matches", lambda _original: _matches))
