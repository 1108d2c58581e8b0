"""Mutant: a managed-only settings key is honoured from any settings source, a repository's included."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-4"
DESCRIPTION = (
    "allowManagedPermissionRulesOnly honoured from project/user/local settings: a cloned repository's "
    ".claude/settings.json discards the user's deny rules"
)


def _keep_every_key(original: Any) -> Any:
    del original

    def restrict(data: Mapping[str, Any], source: str, name: str) -> tuple[dict[str, Any], tuple[Any, ...]]:
        return dict(data), ()  # the defect: no key is source-restricted

    return restrict


def _any_source(original: Any) -> Any:
    del original

    def flag(files: Iterable[Any], key: str) -> bool:
        return any(f.data.get(key) for f in files)  # the defect: any source, any truthy value

    return flag


adapter = make_factory(
    Patch("reference_impl.permissions._settings", "restrict_to_source", _keep_every_key),
    Patch("reference_impl.permissions._context", "managed_flag", _any_source),
)
