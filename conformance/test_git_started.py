"""Deny rules on the programs git starts by its defaults, with real git and bash as the judges (PERM-17).

``git commit`` with no message starts the editor ``git var GIT_EDITOR`` names (``editor`` on Debian),
as do ``tag -a``, ``rebase -i``, ``notes add``, ``add -e``, ``config --edit``...; ``git log
--show-signature``, ``--format=%G?`` and ``verify-commit`` start gpg on a signed commit. No word of
the line names those programs. The line is drawn (a subcommand, flags from git's own ``-h``, a
message or none, a signature display or none), run by the bash oracle with git itself run for real
on a repository holding a signed commit; a deny rule is drawn on a program the run started, with
``Bash(git:*)`` allowed, and the harness, on the same repository, must not run the line unasked.
Without bash, bubblewrap or git these tests skip, naming what is missing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# A commit carrying an OpenPGP signature (not a valid one: git still starts gpg to check it).
_SIGNED = (
    f"tree {_EMPTY_TREE}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n"
    "gpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nsigned\n"
)
_SIGNED_SHA = hashlib.sha1(f"commit {len(_SIGNED)}\0{_SIGNED}".encode()).hexdigest()
_SIGNED_TAG = (
    f"object {_SIGNED_SHA}\\ntype commit\\ntag t9\\ntagger a <a@b> 0 +0000\\n\\nsigned\\n"
    "-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n"
)
_IDENTITY = "-c user.name=a -c user.email=a@b"
# (subcommand, its operands): ``s`` is the signed commit, ``b`` a branch at the first commit.
_SUBCOMMANDS = (
    ("commit", "--allow-empty"),
    ("commit", "--allow-empty --fixup=amend:HEAD"),
    ("commit", "--allow-empty --fixup reword:HEAD"),
    ("tag", "v9"),
    ("tag", "-v t9"),
    ("merge", "--allow-unrelated-histories s"),
    ("revert", "HEAD"),
    ("pull", "--allow-unrelated-histories . s"),
    ("pull", "--rebase=i . s"),
    ("pull", "-ri . s"),
    ("cherry-pick", "s"),
    ("rebase", "b"),
    ("notes", "add"),
    ("add", "."),
    ("config", "-f x.cfg"),
    ("stash", ""),
    ("log", "s"),
    ("show", "s"),
    ("verify-commit", "s"),
)
# A message in git's spellings, or none; ``-Sm`` signs with the key ``m`` and gives no message.
_MESSAGES = (
    "",
    "-m x",
    "-mx",
    "--message=x",
    "--mess x",
    "-F /dev/null",
    "--file=/dev/null",
    "--no-edit",
    "--no-ed",
    "-Sm",
)
_DISPLAYS = ("", "--show-signature", "--format=%G?", "--pretty=format:%GK", "--no-show-signature")
_GLOBALS = ("", "-c log.showSignature=true ", "--no-pager ", "-C . ")
_FLAG = re.compile(r"^ {1,8}(-\w)?(?:, )?(--[a-z][\w-]*)?(?=\s{2,}|$)")
_SHELLS = frozenset({"sh", "bash", "dash"})


@functools.cache
def _flags(sub: str) -> tuple[str, ...]:
    """The subcommand's value-less options, as ``git SUB -h`` lists them (``-e, --edit``)."""
    done = subprocess.run(
        ["git", sub, "-h"], capture_output=True, text=True, timeout=10, check=False,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"}, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    found: list[str] = []
    for line in (done.stdout + done.stderr).splitlines():
        match = _FLAG.match(line)
        if match is not None:
            found += [s for s in match.groups() if s and s not in ("--help", "-h", "--abort", "--quit")]
    return tuple(found)


def _setup() -> str:
    """The repository as a line of git alone: a commit, a branch ``b``, the signed commit as ``s``."""
    data = "".join(f"\\x{byte:02x}" for byte in _SIGNED.encode())
    return (
        f"git init -q && git {_IDENTITY} commit -q --allow-empty -m i && git branch b && "
        f"printf '{data}' > .c && git hash-object -t commit -w .c >/dev/null && "
        f"git update-ref refs/heads/s {_SIGNED_SHA} && rm -f .c && "
        # A tag t9 carrying an OpenPGP signature on the signed commit: ``tag -v`` starts gpg to check it.
        f"git update-ref refs/tags/t9 $(printf '{_SIGNED_TAG}' | git mktag)"
    )


def _repository(work: Path) -> None:
    env = {**os.environ, "HOME": str(work), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-c", _setup()], cwd=work, env=env, check=True, capture_output=True)


@st.composite
def _git_lines(draw: st.DrawFn) -> str:
    """``git [global] SUB [flags] [message] [display] operands``: what may open the editor or verify."""
    sub, operands = draw(st.sampled_from(_SUBCOMMANDS), label="subcommand")
    flags = draw(st.lists(st.sampled_from(_flags(sub) or ("--",)), max_size=2, unique=True), label="flags")
    # A long option abbreviated as git allows (an ambiguous prefix makes git refuse: git judges).
    flags = [
        f[: draw(st.integers(3, len(f)), label="prefix")] if f.startswith("--") and f != "--" else f
        for f in flags
    ]
    message = draw(st.sampled_from(_MESSAGES), label="message") if sub not in ("log", "show") else ""
    shorts = [f for f in flags if len(f) == 2 and f != "--"]
    if shorts and message[:2] in ("-m", "-F") and draw(st.booleans(), label="bundled"):
        # ``-aem x``: the short flags and the message's letter in one word, the value-taker last.
        flags = [f for f in flags if f not in shorts]
        message = "-" + "".join(f[1] for f in shorts) + message[1:]
    display = draw(st.sampled_from(_DISPLAYS), label="display") if sub in ("log", "show") else ""
    glob = draw(st.sampled_from(_GLOBALS), label="global")
    words = [w for w in (*flags, message, display, operands) if w and w != "--"]
    return f"git {glob}{_IDENTITY} {sub} {' '.join(words)}".replace("  ", " ")


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    line=_git_lines(), data=st.data(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"])
)
# The red team's (session 33): the default editor, and gpg checking a signature git displays.
@example(line=f"git {_IDENTITY} commit --allow-empty", data=None, mode="bypassPermissions")
@example(line=f"git {_IDENTITY} tag -a v9", data=None, mode="default")
# CI's draw (stop 52): for tag, --no-edit only undoes -e; the annotation is still asked for.
@example(line=f"git {_IDENTITY} tag -a --no-edit v9", data=None, mode="default")
@example(line=f"git {_IDENTITY} commit --allow-empty -Sm", data=None, mode="default")
# git resolves an unambiguous prefix: ``--edi`` is ``--edit``, and opens the editor despite the message.
@example(line=f"git {_IDENTITY} commit --allow-empty --edi -mx", data=None, mode="acceptEdits")
# A fixup's value as the next word: ``reword:`` asks for a new message in the editor.
@example(line=f"git {_IDENTITY} commit --allow-empty --fixup reword:HEAD", data=None, mode="default")
# An interactive rebase's todo list is edited whatever the merge message.
@example(line=f"git {_IDENTITY} pull --no-edit -ri . s", data=None, mode="default")
@example(line=f"git {_IDENTITY} log --show-signature s", data=None, mode="default")
@example(line=f"git -c log.showSignature=true {_IDENTITY} log s", data=None, mode="default")
def test_deny_on_a_program_git_starts_by_default_holds(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    line: str,
    data: st.DataObject | None,
    mode: str,
) -> None:
    """PERM-17: a deny rule on the editor or the signature program git starts with no word naming it is not outranked.

    A git line drawn from its subcommands that may edit or verify, flags from its own ``-h``, a
    message or none, a signature display or none, is run for real (git) by the bash oracle on a
    repository with a signed commit; a deny rule is drawn on a program that run started (``editor``,
    ``gpg``...), with ``Bash(git:*)`` allowed. The harness must not run the line unasked.
    """
    if shutil.which("git") is None:
        pytest.skip("the judge needs git")
    # TERM: git refuses its default editor on a dumb terminal; a user's terminal is not one.
    executed = bash_oracle.executed(f"export TERM=xterm; {_setup()}; {line}")
    started = sorted({os.path.basename(record[0]) for record in executed} - {"git", "rm"} - _SHELLS)
    if not started:
        return  # git started nothing of its own here: no deny rule to try
    helper = data.draw(st.sampled_from(started), label="helper") if data is not None else started[0]
    work = fresh_dir()
    _repository(work)
    rules = [RuleSpec(f"Bash({helper}:*)", "deny"), RuleSpec("Bash(git:*)", "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    assert run.ran() == 0, (
        f"Bash({helper}:*) deny ({mode}) let {line!r} run, and for real git started {started!r}"
    )
