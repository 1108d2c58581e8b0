"""PERM-11 mutant: a domain deny compares the local machine's spellings as strings, as before session 31."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-11"
DESCRIPTION = (
    "WebFetch(domain:127.0.0.1) deny misses http://0.0.0.0:8080/ and http://[::1]/, which reach 127.0.0.1; "
    "domain:localhost misses http://a.localhost/"
)

_SPELLING_ONLY = rewrite(
    'if behavior != "allow" and is_local_machine(want) and is_local_machine(host):',
    "if False:",
)

adapter = make_factory(Patch("reference_impl.permissions._rules", "host_matches", _SPELLING_ONLY))
