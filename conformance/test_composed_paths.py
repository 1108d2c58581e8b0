"""Path deny rules against paths composed from segments the filesystem resolves, the filesystem the judge (PERM-11).

A maze (``ths.build_path_maze``) holds one protected file, reachable through a symbolic link, a hard
link, a link to the directory itself, a link back up from a subdirectory, ``/proc/self/root`` and
``..`` out and back; ``ths.path_spellings`` composes paths from those segments. A Read the harness
runs under ``Read(<the file>)`` deny must not open the protected file, as the filesystem
(``os.path.samefile``) says; a spelling that reaches another file may run or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import read_tool, run_calls
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    rule_form=st.sampled_from([f"./{ths.MAZE_TARGET}", f"**/{ths.MAZE_TARGET}", f"/{ths.MAZE_TARGET}"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_path_deny_holds_for_every_spelling_that_reaches_the_file(
    new_harness: Callable[[], Any], data: st.DataObject, rule_form: str, mode: str
) -> None:
    """PERM-11: a ``Read`` deny rule stops every path that opens the protected file, however composed.

    Relative and absolute, through symbolic and hard links, ``/proc/self/root``, ``..`` through a link
    (physical, not lexical), doubled slashes and ``.``; the filesystem says which spellings reach the
    file, and none of those may be read.
    """
    maze = ths.build_path_maze(fresh_dir())
    path = data.draw(ths.path_spellings(str(maze.root)), label="path")
    rules = [RuleSpec(f"Read({rule_form})", "deny"), RuleSpec("Read", "allow")]
    run = run_calls(
        new_harness(), [read_tool()], [("Read", {"file_path": path})], rules=rules, mode=mode, cwd=maze.root
    )
    if run.ran() == 0:
        return
    assert not ths.same_file(maze, path), (
        f"Read({rule_form}) deny ({mode}) let {path!r} be read, and it is {maze.target}"
    )
