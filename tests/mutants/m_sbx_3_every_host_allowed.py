"""Mutant: the sandbox's proxy lets every host through, whatever the allowed and denied domains say."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "SBX-3"
DESCRIPTION = "the proxy forwards CONNECT and HTTP requests to any host: the domain policy is never consulted"


adapter = make_factory(
    Patch(
        "reference_impl.sandbox._policy",
        "SandboxPolicy.allows_host",
        lambda _original: lambda _self, _host: True,
    )
)
