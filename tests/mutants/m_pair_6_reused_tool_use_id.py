"""PAIR-6 mutant: the request builder trusts the transcript and sends a reused tool_use id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PAIR-6"
DESCRIPTION = "The final request check is skipped, so a transcript that reuses a tool_use id is sent (the API rejects it)"


def _no_check(_original: Any) -> Any:
    def check_request_rules(params: Mapping[str, Any]) -> None:
        return None

    return check_request_rules


adapter = make_factory(Patch("reference_impl.request._builder", "check_request_rules", _no_check))
