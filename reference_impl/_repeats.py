"""Finding repeated values in linear time (pools reach 10,000 tools; ``list.count`` per item is quadratic)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from typing import TypeVar

__all__ = ["repeated"]

T = TypeVar("T", bound=Hashable)


def repeated(values: Iterable[T]) -> list[T]:
    """The values that occur more than once, each listed once, sorted."""
    return sorted((value for value, count in Counter(values).items() if count > 1), key=str)
