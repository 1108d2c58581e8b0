"""Adapter factories named ``package.module:factory``: importing one, and the default (the reference harness).

The plugin finds the adapter a run uses (``pytest_toolharness._adapter_loading``) and the framework
adapters find the factory of what they wrap here; nothing is imported until a factory is resolved.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_ADAPTER_SPEC", "AdapterLoadError", "resolve_factory"]

# Overridable by the package (and by the ini key / option for users); resolved lazily.
DEFAULT_ADAPTER_SPEC = "pytest_toolharness.adapters.reference:make_adapter"


class AdapterLoadError(Exception):
    """The adapter could not be found, imported, built or validated."""


def resolve_factory(spec: str, search_dirs: tuple[Path, ...] = ()) -> Callable[[], Any]:
    """Import ``package.module:attribute`` and return the attribute, which must be callable.

    If the top-level package is not importable, ``search_dirs`` (the invocation and root directories)
    are added to ``sys.path`` and the import is tried once more: the ``pytest`` console script does
    not put the current directory on the path, but an adapter module beside the project is common.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name.strip() or not attribute.strip():
        raise AdapterLoadError(f"adapter {spec!r} is not of the form 'package.module:factory'")
    module_name, attribute = module_name.strip(), attribute.strip()
    try:
        module = _import(module_name, search_dirs)
    except ImportError as exc:
        raise AdapterLoadError(f"adapter {spec!r}: can't import {module_name!r}: {exc}") from exc
    factory: Any = module
    for part in attribute.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError:
            raise AdapterLoadError(f"adapter {spec!r}: module {module_name!r} has no {attribute!r}") from None
    if not callable(factory):
        raise AdapterLoadError(f"adapter {spec!r}: {attribute!r} is not callable")
    return factory  # type: ignore[no-any-return]


def _import(module_name: str, search_dirs: tuple[Path, ...]) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        missing_top = exc.name == top
        added = [str(d) for d in search_dirs if str(d) not in sys.path]
        if not (missing_top and added):
            raise
        sys.path[:0] = added
        return importlib.import_module(module_name)
