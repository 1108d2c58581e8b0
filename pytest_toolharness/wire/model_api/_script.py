"""The script of a scripted model API server: which assistant turns it answers with.

A script is either a fixed sequence of turns (and scripted :class:`ApiError` answers) or a callable
that looks at the recorded request and returns the next turn, for scenarios that depend on what the
harness sent. :class:`Script` hands turns out, one per valid request for a turn, and notes when a
fixed sequence ran out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeAlias

from pytest_toolharness.wire.model_api._api_error import ApiError
from pytest_toolharness.wire.model_api._recording import RecordedRequest
from pytest_toolharness.wire.model_api._turns import AssistantTurn

__all__ = [
    "EXHAUSTED_TEXT",
    "Script",
    "ScriptItem",
    "ScriptSource",
]

#: The text of the turn a fixed script answers with once it has run out.
EXHAUSTED_TEXT = "Done."


#: What a script answers a request with: a turn, or an API error (e.g. 529 overloaded).
ScriptItem: TypeAlias = AssistantTurn | ApiError
ScriptSource: TypeAlias = Sequence[ScriptItem] | Callable[[RecordedRequest], ScriptItem]


class Script:
    """Hands out script items, one per valid ``/v1/messages`` request; thread-safe.

    A fixed sequence answers with its items in order; once it runs out it answers every further
    request with a text turn :data:`EXHAUSTED_TEXT` (stop reason ``end_turn``) and sets
    :attr:`exhausted`. A callable is asked for every request and never runs out.
    """

    def __init__(self, source: ScriptSource) -> None:
        if callable(source):
            self._fixed: tuple[ScriptItem, ...] | None = None
            self._callable: Callable[[RecordedRequest], ScriptItem] | None = source
        elif isinstance(source, Sequence) and not isinstance(source, str | bytes):
            items = tuple(source)
            for index, item in enumerate(items):
                if not isinstance(item, AssistantTurn | ApiError):
                    raise TypeError(
                        f"script[{index}] is a {type(item).__name__}, not an AssistantTurn or ApiError"
                    )
            self._fixed, self._callable = items, None
        else:
            raise TypeError(
                "a script is a sequence of AssistantTurn/ApiError or a callable (RecordedRequest) -> AssistantTurn"
            )
        self._served = 0
        self._exhausted_answers = 0
        self._lock = threading.Lock()

    @property
    def served(self) -> int:
        """How many scripted items (not exhaustion answers) were handed out."""
        with self._lock:
            return self._served

    @property
    def exhausted(self) -> bool:
        """True once a fixed script was asked for more items than it has."""
        with self._lock:
            return self._exhausted_answers > 0

    @property
    def remaining(self) -> int | None:
        """Items left in a fixed script; None for a callable script."""
        with self._lock:
            return None if self._fixed is None else len(self._fixed) - self._served

    def next_item(self, request: RecordedRequest) -> tuple[ScriptItem, bool]:
        """The answer to ``request`` and whether it is the exhaustion answer.

        Raises whatever the script callable raises, and :class:`TypeError` when it returns something
        that is not an :class:`AssistantTurn` or :class:`ApiError`.
        """
        if self._callable is not None:
            item = self._callable(request)
            if not isinstance(item, AssistantTurn | ApiError):
                raise TypeError(
                    f"the script callable returned a {type(item).__name__}, not an AssistantTurn or ApiError"
                )
            with self._lock:
                self._served += 1
            return item, False
        assert self._fixed is not None
        with self._lock:
            if self._served < len(self._fixed):
                item = self._fixed[self._served]
                self._served += 1
                return item, False
            self._exhausted_answers += 1
        return AssistantTurn.text(EXHAUSTED_TEXT), True
