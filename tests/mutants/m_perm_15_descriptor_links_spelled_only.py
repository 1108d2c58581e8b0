"""PERM-15 mutant: whether a path names a descriptor is judged on its spelling only, not through links."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-15"
DESCRIPTION = (
    "_names_descriptor checks only the path as written, never the path its links resolve to: with "
    "h -> /proc/self/fd/3, exec 3< .git/config; echo x > h runs unasked in bypassPermissions (it reopens "
    ".git/config for writing), and Write to out -> /dev/fd/5 is allowed in bypassPermissions"
)


def _mutate(_original: object) -> object:
    from reference_impl.permissions._descriptors import descriptor_of

    def _names_descriptor(path: str, places: list[str] | None, cwd: object) -> bool:
        return descriptor_of(path) is not None  # the defect: the resolved forms are never looked at

    return _names_descriptor


adapter = make_factory(Patch("reference_impl.permissions._protected_paths", "_names_descriptor", _mutate))
