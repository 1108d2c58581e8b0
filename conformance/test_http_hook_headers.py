"""HOOK-8: an http hook's headers carry only the environment variables its ``allowedEnvVars`` lists.

Claude Code's http hooks take ``headers`` whose values may name environment variables (``$NAME``,
``${NAME}``); a variable is filled in only when the hook's ``allowedEnvVars`` lists it, and any other
reference is sent as an empty string, so a hook configured by a repository can't read the user's
secrets out of the environment. The header values are composed from pieces (text, references to
variables that are allowed or not, set or not, whose names are prefixes of one another, in both
spellings, text that only looks like a reference); the endpoint is real (127.0.0.1) and tells what it
received through its answer, a denial whose reason is the headers as received.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import plain_tool, run_calls
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HookSpec

# Names under one prefix nobody's environment uses; the stems are prefixes of one another, so a
# harness that matches a name by its start (``$TOKEN`` read as ``$TOK``) shows it.
_PREFIX = "THX_HDR_"
_STEMS = ("TOK", "TOKEN", "TOKEN_2", "TOKENX", "A", "AB")
_PREFIX_PAIRS = tuple((a, b) for a in _STEMS for b in _STEMS if a != b and b.startswith(a))
# Text between references: none of it starts a name, so it never lengthens the reference before it;
# ``$$``, ``$1``, ``$-`` and a lone ``$`` are not references.
_TEXT = st.sampled_from(("", "Bearer ", "-", ":", "/", "$$", "$1", "$-", "$ ", "x=", ".", "$"))
_VALUE = st.text(alphabet="abcXYZ0189-._~+/=", max_size=12)


@dataclass(frozen=True)
class Variable:
    """One environment variable the scenario names: whether it is set (to what) and allowed."""

    name: str
    value: str | None
    allowed: bool


@dataclass(frozen=True)
class HeaderCase:
    """The variables, and each header as written (``template``) with the value the endpoint must get."""

    variables: tuple[Variable, ...]
    headers: tuple[tuple[str, str, str], ...]  # (name, template, expected)


@st.composite
def header_cases(draw: st.DrawFn) -> HeaderCase:
    """Variables (set or not, allowed or not) and 1-3 headers composed of text and references to them."""
    stems = draw(st.lists(st.sampled_from(_STEMS), min_size=1, max_size=4, unique=True))
    drawn = {stem: Variable(_PREFIX + stem, draw(st.none() | _VALUE), draw(st.booleans())) for stem in stems}
    shadowed: Variable | None = None
    if draw(st.booleans(), label="a listed name is the start of a set, unlisted one"):
        # The corner a match by the name's start gets wrong, drawn on purpose: independent draws
        # rarely list the short name, set the long one, leave it unlisted and reference it.
        short, long = draw(st.sampled_from(_PREFIX_PAIRS))
        drawn[short] = Variable(_PREFIX + short, draw(st.none() | _VALUE), True)
        shadowed = drawn[long] = Variable(_PREFIX + long, draw(_VALUE.filter(bool)), False)
    variables = tuple(drawn.values())
    headers: list[tuple[str, str, str]] = []
    for index in range(draw(st.integers(1, 3))):
        template, expected = "v=", "v="
        for piece in range(draw(st.integers(1, 4))):
            text = draw(_TEXT)
            template, expected = template + text, expected + text
            first = index == piece == 0
            variable = shadowed if first and shadowed else draw(st.sampled_from(variables))
            braced = draw(st.booleans())
            template += f"${{{variable.name}}}" if braced else f"${variable.name}"
            # After an unbraced reference the next piece must not continue the name: ``;`` ends it.
            template += "" if braced else ";"
            filled = (variable.value or "") if variable.allowed else ""
            expected += filled + ("" if braced else ";")
        headers.append((f"X-Thx-H{index}", template + ".", expected + "."))
    return HeaderCase(variables, tuple(headers))


@contextmanager
def environment(variables: tuple[Variable, ...]) -> Iterator[None]:
    """The drawn variables set in this process's environment (the harness's, in process), then restored."""
    saved = dict(os.environ)
    for name in [n for n in os.environ if n.startswith(_PREFIX)]:
        del os.environ[name]
    for variable in variables:
        if variable.value is not None:
            os.environ[variable.name] = variable.value
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@requires("execution", "permissions", "hooks", "hook_sources")
@pytest.mark.requirement("HOOK-8", "SHOULD")
@settings(max_examples=40, deadline=None)
@given(case=header_cases())
def test_http_hook_headers_carry_only_the_variables_allowed_env_vars_lists(
    new_harness: Callable[[], Any], case: HeaderCase
) -> None:
    """HOOK-8: an http hook's header gets ``$NAME`` / ``${NAME}`` filled only when ``allowedEnvVars`` lists NAME.

    Any other reference, and a listed variable that is not set, becomes an empty string; text that
    is no reference (``$$``, ``$1``, a lone ``$``) is sent as written; a name that is a prefix of
    another never stands in for it. The endpoint answers with the headers it received.
    """
    hook = HookSpec(
        event="PreToolUse",
        outcome="echo_headers",
        hook_type="http",
        as_command=True,
        timeout=10.0,
        headers=tuple((name, template) for name, template, _ in case.headers),
        allowed_env_vars=tuple(v.name for v in case.variables if v.allowed),
    )
    with environment(case.variables):
        run = run_calls(new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "1"})], hooks=[hook])
    expected = json.dumps({name: value for name, _, value in case.headers}, sort_keys=True)
    text = run.result_text("toolu_1")
    assert run.ran() == 0, f"the endpoint denied the call: {run.describe()}"
    assert expected in text, (
        f"headers {[(n, t) for n, t, _ in case.headers]} with {case.variables} must reach the endpoint as "
        f"{expected}; the denial the model got says what it received: {text!r}"
    )
