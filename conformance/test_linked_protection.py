"""A protected or denied file is a file, not a spelling: every name that reaches it is held (PERM-15, PERM-11).

Composed draws judged by the filesystem and git: each layout is made in a fresh directory, and a
draw counts only when ``realpath`` (or git itself) says the name written or read is the protected
or denied file.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import (
    assert_asked_not_run,
    edit_tool,
    host_answering,
    read_tool,
    run_calls,
    shell_tool,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# Protected names (one- and two-segment), each reached below through a link or git's own word.
_PROTECTED = (
    ".mcp.json",
    ".bashrc",
    ".gitmodules",
    ".claude/settings.json",
    ".vscode/tasks.json",
    ".git/config",
)
# git's directory by another name: its own word for it (--separate-git-dir), its hooks path or an
# included file, a link named .git in a subdirectory to a repository kept elsewhere, a bare repository.
_GIT_LAYOUTS = ("separate-git-dir", "hooks-path", "include", "linked-git-dir", "bare")
# A repository's HEAD as git's own setup reads it (validate_headref): a symbolic ref with any blanks
# after ``ref:``, or an object name's digits whatever follows them.
_HEADS = (
    "ref: refs/heads/main\n",
    "ref:refs/heads/main",
    "ref:\t refs/heads/main\n",
    "0" * 40 + " detached\n",
)


def _git(work: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=work, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@st.composite
def linked_protected_writes(draw: st.DrawFn) -> tuple[str, str, str, bool]:
    """(layout, protected name, the directory its link leads to, whether the target exists yet)."""
    layout = draw(st.sampled_from(("link", *_GIT_LAYOUTS)))
    return (
        layout,
        draw(st.sampled_from(_PROTECTED)),
        draw(st.sampled_from(("conf", "dotfiles", "cfg/deep"))),
        draw(st.booleans()),
    )


def _lay_out(work: Path, layout: str, name: str, into: str, exists: bool, head: str = _HEADS[0]) -> str:
    """Make the layout in ``work`` (a bare repository's HEAD spelled ``head``); the path (relative) a write then reaches the protected file by."""
    if layout == "separate-git-dir":
        (work / into).parent.mkdir(parents=True, exist_ok=True)
        _git(work, "init", "-q", f"--separate-git-dir={work / into}", ".")
        return f"{into}/hooks/pre-commit"
    if layout in ("linked-git-dir", "bare"):
        _git(work, "init", "-q", "--bare", into)
        (work / into / "HEAD").write_text(head, encoding="utf-8")
        if layout == "linked-git-dir":
            (work / "sub").mkdir()
            (work / "sub" / ".git").symlink_to(os.path.relpath(work / into, work / "sub"))
        return f"{into}/hooks/pre-commit"
    if layout == "hooks-path":
        _git(work, "init", "-q")
        _git(work, "config", "core.hooksPath", into)
        return f"{into}/pre-commit"
    if layout == "include":
        _git(work, "init", "-q")
        _git(work, "config", "include.path", f"../{into}.inc")
        (work / f"{into}.inc").parent.mkdir(parents=True, exist_ok=True)
        (work / f"{into}.inc").write_text("[core]\n", encoding="utf-8")
        return f"{into}.inc"
    top, _, rest = name.partition("/")
    (work / into).mkdir(parents=True)
    written = f"{into}/{rest or 'file'}"
    if exists:
        (work / written).parent.mkdir(parents=True, exist_ok=True)
        (work / written).write_text("x\n", encoding="utf-8")
    # The protected top name is the link: to the directory (a two-segment name) or to the file.
    (work / top).symlink_to(os.path.relpath(work / (into if rest else written), work))
    return written


def _reaches(work: Path, layout: str, name: str, written: str) -> bool:
    """The judge: the written name is the protected file (realpath), or git says it reads or runs it."""
    target = os.path.realpath(work / written)
    if layout == "link":
        return os.path.realpath(work / name) == target
    if layout == "include":
        return any(target in line for line in _git(work, "config", "--show-origin", "--list").splitlines())
    # Where git, run where the layout puts it to use (the project, the linked subdirectory, the bare
    # repository itself), runs its pre-commit hook from.
    where = {"linked-git-dir": work / "sub", "bare": work / written.split("/hooks/")[0]}.get(layout, work)
    hook = _git(where, "rev-parse", "--git-path", "hooks/pre-commit")
    return os.path.realpath(where / hook) == target


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    drawn=linked_protected_writes(),
    via=st.sampled_from(["edit", "redirection"]),
    mode=st.sampled_from(["acceptEdits", "bypassPermissions"]),
    below=st.booleans(),
    head=st.sampled_from(_HEADS),
)
@example(
    drawn=("link", ".mcp.json", "conf", True), via="edit", mode="acceptEdits", below=False, head=_HEADS[0]
)
@example(
    drawn=("link", ".claude/settings.json", "conf", False),
    via="edit",
    mode="acceptEdits",
    below=False,
    head=_HEADS[0],
)
# The link in a parent of the harness's directory (session 34's survivors of _linked_protection).
@example(
    drawn=("link", ".claude/settings.json", "conf", True),
    via="edit",
    mode="acceptEdits",
    below=True,
    head=_HEADS[0],
)
@example(
    drawn=("separate-git-dir", ".git/config", "meta", False),
    via="redirection",
    mode="bypassPermissions",
    below=False,
    head=_HEADS[0],
)
@example(
    drawn=("include", ".git/config", "gitcfg", True),
    via="edit",
    mode="acceptEdits",
    below=False,
    head=_HEADS[0],
)
# The red team's (session 33): ``sub/.git -> ../meta``, meta a repository kept outside any .git.
@example(
    drawn=("linked-git-dir", ".git/config", "meta", False),
    via="redirection",
    mode="bypassPermissions",
    below=False,
    head=_HEADS[0],
)
# A bare repository whose HEAD git reads though it is not spelled ``ref: refs/`` (session 35).
@example(
    drawn=("bare", ".git/config", "meta", False),
    via="redirection",
    mode="bypassPermissions",
    below=False,
    head=_HEADS[3],
)
def test_a_protected_file_reached_by_another_name_asks(
    new_harness: Callable[[], Any],
    drawn: tuple[str, str, str, bool],
    via: str,
    mode: str,
    below: bool,
    head: str,
) -> None:
    """PERM-15: a write reaching a protected file by a name without a protected segment still asks.

    Composed: the protected name is a link to an ordinary directory or file (dangling or not), or
    git's directory, hooks path or an included configuration file is not spelled ``.git``
    (``--separate-git-dir``, ``core.hooksPath``, ``include.path``, a link named ``.git`` in a
    subdirectory to a repository elsewhere, a bare repository, its HEAD in each spelling git reads); the harness works in the project or
    in a directory below it (the link is then in a parent). Judged by the filesystem and
    git (the draw counts only when ``realpath`` or git says the written name is the protected file).
    """
    if via == "redirection" and mode == "acceptEdits":
        return  # acceptEdits never auto-allows shell commands anyway
    layout, name, into, exists = drawn
    work = fresh_dir()
    written = _lay_out(work, layout, name, into, exists, head)
    assume(_reaches(work, layout, name, written))
    here = work / "below" if below else work
    here.mkdir(exist_ok=True)
    tool, call = (
        (edit_tool(), ("Edit", {"file_path": str(work / written)}))
        if via == "edit"
        else (shell_tool(), ("Bash", {"command": f"echo pwned >> {work / written}"}))
    )
    run = run_calls(new_harness(), [tool], [call], mode=mode, host=host_answering("deny"), cwd=here)
    assert_asked_not_run(run, f"{via} of {written} reaches the protected {name} ({layout})")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    link=st.sampled_from(["key", "deep/key"]),
    to_directory=st.booleans(),
    read=st.sampled_from(["data/key.txt", "data/sub/key.txt"]),
)
@example(link="key", to_directory=False, read="data/key.txt")
def test_a_link_inside_a_denied_tree_denies_the_file_it_names(
    new_harness: Callable[[], Any], link: str, to_directory: bool, read: str
) -> None:
    """PERM-11: ``Read(./secret/**)`` with ``secret/key -> ../data/key.txt``: reading ``data/key.txt`` is denied.

    Composed: the link sits at any depth of the denied tree and names the read file or a directory
    above it; judged by the filesystem (``realpath`` of the link, or of the read file's name below
    it, is the read file).
    """
    work = fresh_dir()
    (work / read).parent.mkdir(parents=True)
    (work / read).write_text("TOPSECRET\n", encoding="utf-8")
    (work / "secret" / link).parent.mkdir(parents=True)
    pointed = work / (os.path.dirname(read) if to_directory else read)
    (work / "secret" / link).symlink_to(os.path.relpath(pointed, (work / "secret" / link).parent))
    below = os.path.basename(read) if to_directory else ""
    assert os.path.realpath(os.path.join(work / "secret" / link, below)) == os.path.realpath(work / read)
    run = run_calls(
        new_harness(),
        [read_tool()],
        [("Read", {"file_path": str(work / read)})],
        rules=[RuleSpec("Read(./secret/**)", "deny")],
        cwd=work,
    )
    assert run.ran() == 0, (
        f"{read} is secret/{link}{'/' + below if below else ''}, yet was read: {run.describe()}"
    )
