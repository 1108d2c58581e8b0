"""PERM-17 mutant: an expansion that assigns (``${V=x}``, ``${V:=x}``) is read as a plain expansion."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "set -a; : ${GIT_CONFIG_GLOBAL=../cfg/.gitconfig}; git commit runs the configuration's editor past"
    " a deny rule: bash assigns (and under set -a exports) a variable in ${V=x} and ${V:=x} as V=x; does,"
    " and the engine before session 29 saw no assignment there"
)

adapter = make_factory(
    Patch("reference_impl.permissions._bash_reader", "_assigned_name", lambda _original: lambda *_args: None)
)
