"""Deny rules on the programs an everyday program starts by itself, with bash as the judge (PERM-17).

``diff -l`` passes its output through ``pr``, ``file -z`` looks inside a compressed file through
``zstd`` or ``gzip``, ``zgrep`` is a script running ``gzip`` and ``sed``, ``man`` formats through
``groff``: no option on the line names those programs. The line is drawn (a reading program, flags
from its own ``--help``, files it reads, written by ``printf`` alone: text or compressed by the
machine's own compressors), run for real by the bash oracle, which records every program started;
a deny rule is then drawn on one of *those*, and the harness must not run the line unasked.
Without bash or bubblewrap these tests skip, naming what is missing.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import lzma
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_permissions import run_calls, shell_tool
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import RuleSpec

# Everyday programs that read the files they are given (the suite's own choice, not the harness's):
# their options are drawn from their own --help, live.
_READERS = ("diff", "cmp", "file", "cat", "head", "wc", "od", "sort", "uniq", "ls", "grep", "zcat",
            "zgrep", "zdiff", "xzcat", "bzcat", "zstdcat", "man", "tar")  # fmt: skip
_FLAG = re.compile(r"^ {1,8}(-\w)?(?:, )?(--[a-z][\w-]*)?(?=\s{2,}|$)")
_TEXT = b"x\ny\n"
_SHELLS = frozenset({"sh", "bash", "dash"})


def _live_help(program: str) -> str:
    try:
        done = subprocess.run(
            [program, "--help"], capture_output=True, text=True, timeout=10, check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


@functools.cache
def _flags(program: str) -> tuple[str, ...]:
    """The program's value-less options, as its own ``--help`` lists them (``-l, --paginate``)."""
    found: list[str] = []
    for line in _live_help(program).splitlines():
        match = _FLAG.match(line)
        if match is not None:
            found += [spelling for spelling in match.groups() if spelling and spelling != "--help"]
    return tuple(found)


def _compressed(argv: list[str]) -> bytes | None:
    if shutil.which(argv[0]) is None:
        return None
    done = subprocess.run(argv, input=_TEXT, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


@functools.cache
def _fixtures() -> dict[str, bytes]:
    """Files to read: text, and the same text compressed (by the standard library, else the machine's own programs)."""
    found = {
        "t.txt": _TEXT,
        "a.gz": gzip.compress(_TEXT),
        "a.xz": lzma.compress(_TEXT),
        "a.bz2": bz2.compress(_TEXT),
    }
    for name, argv in (("a.zst", ["zstd", "-qc"]), ("a.lz4", ["lz4", "-qc"]), ("a.lz", ["lzip", "-c"])):
        data = _compressed(argv)
        if data is not None:
            found[name] = data
    return found


def _written(name: str) -> str:
    """Bash's builtin ``printf`` writing the fixture ``name`` (no program runs)."""
    return "printf '" + "".join(f"\\x{byte:02x}" for byte in _fixtures()[name]) + f"' > {name}"


@st.composite
def _reading_lines(draw: st.DrawFn) -> tuple[str, str]:
    """(line, program): files written by printf, then an everyday program reading them with drawn flags."""
    installed = [p for p in _READERS if shutil.which(p) is not None]
    program = draw(st.sampled_from(installed), label="program")
    flags = draw(
        st.lists(st.sampled_from(_flags(program) or ("--",)), max_size=2, unique=True), label="flags"
    )
    if program == "man":
        operands = [draw(st.sampled_from(["ls", "cat", "1 printf"]), label="page")]
    else:
        names = sorted(_fixtures())
        operands = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2), label="files")
    files = sorted({o for o in operands if o in _fixtures()})
    setup = "".join(f"{_written(name)}; " for name in files)
    if program == "tar":
        flags, operands = ["-tf"], ["a.tgz"]
        setup = "printf '" + "".join(f"\\x{b:02x}" for b in gzip.compress(b"\0" * 1024)) + "' > a.tgz; "
    return f"{setup}{' '.join([program, *flags, *operands])}", program


# libmagic reads gzip, xz and bzip2 itself and starts zstd (and lz4, lzip...) by name.
_ZSTD = "a.zst" if "a.zst" in _fixtures() else "a.gz"


@functools.cache
def _judge(oracle: ths.BashSandbox, program: str) -> ths.BashSandbox:
    return oracle.running_for_real([program])


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    case=_reading_lines(),
    data=st.data(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
# The red team's (session 32): diff -l runs /usr/bin/pr, file -z runs the decompressor by name.
@example(case=(f"{_written('t.txt')}; diff -l /dev/null t.txt", "diff"), data=None, mode="bypassPermissions")
@example(case=(f"{_written(_ZSTD)}; file -z {_ZSTD}", "file"), data=None, mode="bypassPermissions")
def test_deny_on_a_program_an_everyday_program_starts_holds(
    new_harness: Callable[[], Any],
    bash_oracle: ths.BashSandbox,
    case: tuple[str, str],
    data: st.DataObject | None,
    mode: str,
) -> None:
    """PERM-17: a deny rule on a program that another one starts with no option naming it is not outranked.

    An everyday reading program (``diff``, ``file``, ``zgrep``, ``man``...) with flags from its own
    help, on files the line writes (text, gzip, xz, bzip2, zstd, lz4), is run for real by the bash
    oracle; a deny rule is drawn on one of the programs the run started (``pr``, ``zstd``,
    ``groff``...), with an allow rule on the line's program. The harness must not run the line unasked.
    """
    line, program = case
    executed = _judge(bash_oracle, program).executed(line)
    # A shell it starts (a script's ``#!``, a ``system()``) is left out: what the shell runs is recorded
    # as started too, and that is what a rule names.
    started = sorted({os.path.basename(record[0]) for record in executed} - {program} - _SHELLS)
    if not started:
        return  # the program started nothing here: no deny rule to try
    helper = data.draw(st.sampled_from(started), label="helper") if data is not None else started[0]
    rules = [RuleSpec(f"Bash({helper}:*)", "deny"), RuleSpec(f"Bash({program}:*)", "allow")]
    run = run_calls(new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode)
    assert run.ran() == 0, (
        f"Bash({helper}:*) deny ({mode}) let {line!r} run, and for real {program} started {started!r}"
    )


# A configuration the line moves into the project, and what it makes the program start: docker's
# ``--config DIR`` runs DIR/cli-plugins/docker-* (``info`` and ``--help`` ask each for its metadata);
# ``kubectl --kubeconfig K`` runs K's exec credential plugin. Each file: (path, text, mode).
_PLUGIN = '#!/bin/sh\nwhoami\necho \'{"SchemaVersion":"0.1.0","Vendor":"x"}\'\n'
_KUBECONFIG = (
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n'
    "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: whoami,"
    " interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
)
_RELOCATED = {
    "docker": (
        ("--config=d", "--config d"),
        ("info", "--help", "version", "ps", "buildx ls", "images"),
        ("d/cli-plugins/docker-foo", _PLUGIN),
    ),
    "kubectl": (
        ("--kubeconfig=k", "--kubeconfig k"),
        ("get pods", "version", "cluster-info", "config view --raw=false", "api-resources"),
        ("k", _KUBECONFIG),
    ),
}


def _file_line(path: str, text: str) -> str:
    folder = os.path.dirname(path)
    made = f"mkdir -p {folder} && " if folder else ""
    data = "".join(f"\\x{byte:02x}" for byte in text.encode())
    return f"{made}printf '{data}' > {path} && chmod +x {path}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    program=st.sampled_from(sorted(_RELOCATED)),
    data=st.data(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_deny_on_a_program_a_relocated_configuration_starts_holds(
    new_harness: Callable[[], Any], bash_oracle: ths.BashSandbox, program: str, data: st.DataObject, mode: str
) -> None:
    """PERM-17: a global option moving a program's configuration into the project is code the engine does not read.

    ``docker --config d`` (d's CLI plug-ins), ``kubectl --kubeconfig k`` (k's exec plugin): the
    option's spelling and a subcommand are drawn, the program is run for real by the bash oracle
    on the project's files, and a deny rule on what it started (``whoami``, the plug-in's command),
    with the program allowed, must hold: the harness must not run the line unasked.
    """
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed: nothing to judge with")
    spellings, subcommands, (path, text) = _RELOCATED[program]
    option = data.draw(st.sampled_from(spellings), label="option")
    sub = data.draw(st.sampled_from(subcommands), label="subcommand")
    line = f"{program} {option} {sub}"
    judge = bash_oracle.running_for_real([program, "mkdir", "chmod"])
    executed = judge.executed(f"{_file_line(path, text)}; {line}", timeout=20)
    started = sorted(
        {os.path.basename(record[0]) for record in executed} - {program, "mkdir", "chmod"} - _SHELLS
    )
    if not started:
        return  # this subcommand started nothing of the configuration's here
    helper = data.draw(st.sampled_from(started), label="helper")
    work = fresh_dir()
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_text(text, encoding="utf-8")
    (work / path).chmod(0o755)
    rules = [RuleSpec(f"Bash({helper}:*)", "deny"), RuleSpec(f"Bash({program}:*)", "allow")]
    run = run_calls(
        new_harness(), [shell_tool()], [("Bash", {"command": line})], rules=rules, mode=mode, cwd=work
    )
    assert run.ran() == 0, (
        f"Bash({helper}:*) deny ({mode}) let {line!r} run, and for real {program} started {started!r}"
    )
