"""Reads of a directory's tree under a deny rule for what is beneath it (PERM-11).

A search or listing of a directory reads everything beneath it: a ``Read`` deny rule covering a file
there must stop it or ask, as the real ``grep -r`` says the file is read.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import host_answering, read_tool, run_calls
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_SECRET = "TOPSECRET"
_RULES = ("./secret/**", "secret/**", "/secret/**", "**/key.txt", "*.txt", "./secret/key.txt", "./secret")
_DIRECTORIES = ("secret", "secret/.", "./secret/.", "secret/", "./secret", ".", "./", "src/..", "src")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    rule=st.sampled_from(_RULES),
    directory=st.sampled_from(_DIRECTORIES),
    tool=st.sampled_from(["Grep", "Glob"]),
    absolute=st.booleans(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
@example(rule="./secret/**", directory="secret", tool="Grep", absolute=False, mode="default")
@example(rule="./secret/**", directory="./secret/.", tool="Glob", absolute=False, mode="default")
@example(rule="./secret/**", directory=".", tool="Grep", absolute=False, mode="default")
def test_reading_a_tree_never_reads_a_denied_file_unasked(
    new_harness: Callable[[], Any], rule: str, directory: str, tool: str, absolute: bool, mode: str
) -> None:
    """PERM-11: a search or listing of a directory (Grep, Glob) under a ``Read`` deny rule for a file beneath it is denied or asked, never run.

    Composed: the rule's shape (the tree ``secret/**`` anchored or not, a pattern, the file, the
    directory) x the directory read (the denied one, with ``/.`` or ``/``, one above it, a ``..`` back
    up, an unrelated one), relative or absolute. The real ``grep -r`` says whether the tree holds the
    denied file; a tree that doesn't may be read.
    """
    root = fresh_dir()
    (root / "secret").mkdir()
    (root / "secret" / "key.txt").write_text(f"{_SECRET}\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    path = str(root / directory) if absolute else directory
    found = subprocess.run(["grep", "-rq", _SECRET, path], cwd=root, check=False).returncode == 0
    run = run_calls(
        new_harness(),
        [read_tool(tool)],
        [(tool, {"file_path": path})],
        rules=[RuleSpec(f"Read({rule})", "deny")],
        mode=mode,
        cwd=root,
        host=host_answering("deny"),
    )
    if found:
        assert run.ran() == 0, (
            f"{tool} of {path!r} ran under Read({rule}) deny ({mode}), and grep -r reads it"
        )
