"""A path rule's glob means what gitignore means by it (PERM-11, PERM-12).

Claude Code's ``Read(...)`` and ``Edit(...)`` rules follow the gitignore specification, and git is the
program that defines it: each draw composes a glob from gitignore's pieces (literal characters and
punctuation, ``*``, ``?``, ``**`` segments, bracket classes with ``!`` or ``^`` negation, ranges that
span ``/``, POSIX classes and ``[:`` that opens none, escapes, and sometimes an end that escapes or
opens nothing) and a path built from the glob with one piece changed or not, then asks git
(``git check-ignore --no-index``, the glob anchored in the ``.gitignore`` of DIR) whether the
glob matches the path. A ``Read(//DIR/GLOB)`` deny rule must keep the tool from reading exactly what git
says it matches, and an allow rule must allow exactly that: a glob read wider than git reads it is an
allow rule that lets through what its author never named.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._path_globs import gitignore_matches, globs_and_paths, rule_content
from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import host_answering, read_tool, run_calls
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None, reason="git (the gitignore oracle) is not installed"
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=150, deadline=None)
@given(case=globs_and_paths(dangling=True), effect=st.sampled_from(["deny", "allow"]))
@example(case=("a[!b]c", "a/c"), effect="allow")
@example(case=("a[.-0]c", "a/c"), effect="allow")
@example(case=("a**b", "a/x/b"), effect="allow")
@example(case=("[[:digit:]]*", "0a"), effect="deny")
@example(case=("a[!]b]c", "a]c"), effect="allow")
@example(case=("a[[:]b", "a[b"), effect="deny")
@example(case=("a[[::]b", "a:b"), effect="allow")
@example(case=("a$(b*", "a$(bc"), effect="deny")
@example(case=("a*\\", "ab\\"), effect="allow")
@example(case=("a[b-", "ab"), effect="deny")
@example(case=("a[b-]c", "a-c"), effect="allow")
def test_a_path_rule_glob_matches_what_gitignore_matches(
    new_harness: Callable[[], Any], case: tuple[str, str], effect: str
) -> None:
    """PERM-11: a ``Read(//DIR/GLOB)`` rule covers a path exactly when gitignore's glob matches it.

    The truth is git's: ``/GLOB`` in a ``.gitignore`` in DIR (outside the working directory), asked with
    ``git check-ignore``. A deny rule (beside ``Read`` allowed) stops exactly those reads; an allow rule (the
    host refusing the rest) lets exactly those run. Classes never match ``/`` (negated or spanning
    it), ``*``, ``?`` and ``a**b`` stay inside one segment, a whole-segment ``**`` spans any number,
    POSIX classes and escapes mean what they do to git (``[[:]`` holds ``[`` and ``:``), a trailing lone
    backslash or an unclosed class matches nothing. A harness may refuse a rule git finds no match for
    here, naming it.
    """
    glob, path = case
    # The files sit outside the working directory, where reading is not allowed by default.
    cwd, data = fresh_dir() / "project", fresh_dir() / "data"
    cwd.mkdir()
    (data / path).parent.mkdir(parents=True, exist_ok=True)
    (data / path).write_text("guarded\n", encoding="utf-8")
    matched = gitignore_matches(data, glob, path)
    rule = f"Read(/{data}/{rule_content(glob)})"
    rules = (
        [RuleSpec(rule, "deny"), RuleSpec("Read", "allow")] if effect == "deny" else [RuleSpec(rule, "allow")]
    )
    try:
        run = run_calls(
            new_harness(),
            [read_tool()],
            [("Read", {"file_path": str(data / path)})],
            rules=rules,
            host=host_answering("allow" if effect == "deny" else "deny"),
            cwd=cwd,
        )
    except Exception as error:  # a refused rule: only one that matches nothing here may be, and by name
        refused = str(error)
        assert not matched, f"{rule} refused ({refused}), but git says it matches {path!r}"
        assert rule in refused or repr(rule) in refused, f"refused {rule!r} without naming it: {refused}"
        return
    how = f"{rule} {effect}, reading {path!r}: git says the glob {'matches' if matched else 'does not match'} it"
    ran = (not matched) if effect == "deny" else matched
    assert run.ran() == int(ran), f"{how}; {run.describe()}"
