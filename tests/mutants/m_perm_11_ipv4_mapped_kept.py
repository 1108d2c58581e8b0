"""PERM-11 mutant: an IPv4-mapped IPv6 host is kept as IPv6, so it escapes a rule for the IPv4 host."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = "WebFetch(domain:127.0.0.1) deny misses http://[::ffff:127.0.0.1]/, which reaches 127.0.0.1"

_KEEP_IPV6 = rewrite("return str(mapped if mapped is not None else address)", "return str(address)")

# Both readers of a host: matching a URL, and checking a rule's host when it is parsed.
adapter = make_factory(
    Patch("reference_impl.permissions._url_hosts", "normalise_host", _KEEP_IPV6),
    Patch("reference_impl.permissions._rule_syntax", "normalise_host", _KEEP_IPV6),
)
