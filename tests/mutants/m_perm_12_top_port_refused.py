"""PERM-12 mutant: the sandbox's proxy port keys refuse the top port, 65535 (off by one)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-12"
DESCRIPTION = (
    'a port range checked with `< 65535`: `"sandbox": {"network": {"socksProxyPort": 65535}}`, a valid '
    "setting, refuses the whole settings file"
)

adapter = make_factory(
    Patch(
        "reference_impl.sandbox._settings",
        "_type_ok",
        rewrite("0 < value < 65536", "0 < value < 65535"),
    )
)
