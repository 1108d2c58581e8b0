"""Mutant: pytest's assertion-rewrite cache is taken for its source's code by its header alone."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "a __pycache__/test_a.cpython-311-pytest-9.2.0.pyc whose header fits test_a.py is trusted whatever "
    "code it holds (as pytest itself loads it), so `pytest -q` runs the denied program from a forged "
    "body unasked (the engine before session 31, which compared only this interpreter's own caches)"
)


class _AnyCode:
    """Equal to whatever cached code it is compared with: the body is never looked at."""

    def __eq__(self, _other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def _mutate(_original: Any) -> Any:
    def _pytest_code(_text: bytes, _source: str, _tag: str) -> Any:
        return _AnyCode()

    return _pytest_code


adapter = make_factory(Patch("reference_impl.permissions._python_resolution", "_pytest_code", _mutate))
