"""Mutant: a domain rule is compared with the host as written (no percent-decoding, IDNA or numeric IPv4)."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "WebFetch(domain:127.0.0.1) misses http://2130706433/ and %65vil.com: hosts are only lower-cased"
)


def _mutate(original: Any) -> Any:
    del original

    def normalise_host(host: str) -> str | None:
        return host.strip().rstrip(".").lower() or None

    return normalise_host


# Both readers of a host: matching a URL, and checking a rule's host when it is parsed.
adapter = make_factory(
    Patch("reference_impl.permissions._url_hosts", "normalise_host", _mutate),
    Patch("reference_impl.permissions._rule_syntax", "normalise_host", _mutate),
)
