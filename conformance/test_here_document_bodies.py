r"""A deny rule on a command a here-document's body carries holds outright (PERM-17, with PERM-1).

bash reads a body twice: the line's own bash expands it (an unquoted delimiter's ``$(...)`` and
backquotes run there; ``\$``, ``\``` and ``\\`` lose their backslash), then the statement given
it reads it (``bash``, ``sh -s``, ``source /dev/stdin``, ``{ bash; }`` run it as a script). The
lines are composed by :func:`pytest_toolharness.strategies.here_documents` (the reader, the
delimiter in any quoting, ``<<-`` with tabs, a backslash first, which tree-sitter-bash takes for
words, text lines with escapes bash removes and keeps) around ``rm -rf x`` in one of nine carriers.
The sandboxed bash says whether ``rm`` runs; where it does, ``Bash(rm:*)`` must refuse the call
outright: the host here answers every question "allow", so an engine that misreads the body and
only asks would run it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import bash_runs, host_answering, run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec


def _name_known_before_it_runs(document: ths.HereDocument) -> bool:
    """Not a lone backquote line beside a backquote carrier: the two pair up, and ``rm`` is glued to a substitution's output.

    (A name bash makes when it expands the line may be asked about: PERM-16.)
    """
    return "backquotes" not in document.carrier or "\\`\n" not in document.body


@pytest.mark.toolharness_heavy
@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=120, deadline=None)
@given(
    document=ths.here_documents("rm -rf x").filter(_name_known_before_it_runs),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_a_deny_on_what_a_here_document_runs_is_no_question(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    document: ths.HereDocument,
    mode: str,
) -> None:
    """PERM-17: where bash runs ``rm`` from a here-document's body (as it expands it, or as the shell it feeds), ``Bash(rm:*)`` denies outright.

    Beside ``Bash`` allowed, in any mode, with a host that answers "allow" to every question.
    """
    if not bash_runs(bash_oracle, document.line, "rm"):
        return
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": document.line})],
        rules=[RuleSpec("Bash(rm:*)", "deny"), RuleSpec("Bash", "allow")],
        mode=mode,
        host=host_answering("allow"),
    )
    assert run.ran() == 0, (
        f"Bash(rm:*) deny let {document.line!r} run ({mode}, the {document.carrier} carrier) once a "
        f"person said yes, and bash runs rm from it: {run.describe()}"
    )
