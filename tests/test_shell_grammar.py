"""The composing generators: the program catalogue mined from manual pages, quoting, carriers, the hunt."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from pytest_toolharness import strategies as ths
from pytest_toolharness._strategies.program_catalogue import (
    CatalogueEntry,
    load_catalogue,
    mine_help_text,
    mine_manual_page,
)

TAR_PAGE = r""".TH TAR 1
.SH SYNOPSIS
.B tar
[\fIOPTION\fR...]
.SH OPTIONS
.TP
\fB\-\-to\-command\fR=\fICOMMAND\fR
Pipe extracted files to \fICOMMAND\fR.
.TP
\fB\-f\fR, \fB\-\-file\fR=\fIARCHIVE\fR
Use archive file or device \fIARCHIVE\fR.
.TP
\fB\-\-info\-script\fR=\fIFILE\fR
Read and execute commands from \fIFILE\fR at the end of each tape.
"""

TIMEOUT_PAGE = r""".TH TIMEOUT 1
.SH SYNOPSIS
.B timeout
[\fI\,OPTION\/\fR] \fI\,DURATION COMMAND \/\fR[\fI\,ARG\/\fR]...
.SH DESCRIPTION
Start COMMAND, and kill it if still running after DURATION.
"""

GIT_CONFIG_PAGE = r""".TH GIT-CONFIG 1
.SH VARIABLES
.PP
core\&.sshCommand
.RS 4
If this variable is set, git fetch will use the specified command instead of ssh\&.
.RE
.PP
core\&.bare
.RS 4
If true this repository is assumed to be bare\&.
.RE
"""


def test_options_taking_a_command_or_a_script_are_mined_and_others_are_not() -> None:
    entries = mine_manual_page("tar", TAR_PAGE, "tar.1")
    assert CatalogueEntry("tar", "option-command", "--to-command", "=", (), "tar.1") in [
        CatalogueEntry(e.program, e.kind, e.option, e.joiner, e.operands, e.source) for e in entries
    ]
    assert {(e.kind, e.option) for e in entries} == {
        ("option-command", "--to-command"),
        ("option-script", "--info-script"),
    }


def test_a_wrapper_is_mined_from_its_synopsis_with_its_operands_filled() -> None:
    [entry] = mine_manual_page("timeout", TIMEOUT_PAGE, "timeout.1")
    assert (entry.kind, entry.operands) == ("wrapper", ("1",))
    assert entry.command_line("rm -rf x", "'rm -rf x'", "") == "timeout 1 rm -rf x"


def test_configuration_keys_holding_a_command_are_mined() -> None:
    [entry] = mine_manual_page("git config", GIT_CONFIG_PAGE, "git-config.1")
    assert (entry.kind, entry.key) == ("config-command", "core.sshCommand")
    line = entry.command_line("", "'rm -rf x'", " ls-remote ssh://h/x")
    assert line == "git -c core.sshCommand='rm -rf x' ls-remote ssh://h/x"


def test_help_text_options_are_mined() -> None:
    text = "Usage: sorter [OPTION]... [FILE]...\n  --compress-program=PROG  compress temporaries with PROG\n  -r, --reverse  reverse\n"
    assert [(e.kind, e.option, e.joiner) for e in mine_help_text("sorter", text)] == [
        ("option-command", "--compress-program", "=")
    ]


def test_the_committed_catalogue_is_what_the_installed_pages_say() -> None:
    """One source for each fact: every entry read from a page still present is mined from it again."""
    checked = 0
    for entry in load_catalogue():
        if not entry.source.endswith(".gz") or not os.path.exists(entry.source):
            continue
        with gzip.open(entry.source, "rt", encoding="utf-8", errors="replace") as page:
            mined = mine_manual_page(entry.program, page.read(), entry.source)
        assert (entry.kind, entry.option) in {(e.kind, e.option) for e in mined}, entry
        checked += 1
        if checked >= 40:
            break
    if checked == 0:
        pytest.skip("none of the catalogue's manual pages is installed here")


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on PATH")
@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12), data=st.data())
def test_every_quoting_form_is_one_word_bash_reads_back_as_the_text(text: str, data: st.DataObject) -> None:
    quoted = data.draw(ths.shell_quotings(text))
    done = subprocess.run(
        ["bash", "-c", f"printf %s {quoted}"], capture_output=True, check=True, env={"LC_ALL": "C.UTF-8"}
    )
    assert done.stdout.decode("utf-8", "surrogateescape") == text, quoted


@pytest.fixture(scope="module")
def judge() -> ths.BashSandbox:
    sandbox = ths.bash_sandbox()
    if sandbox is None:
        pytest.skip(f"bash oracle unavailable: {ths.bash_sandbox_problem()}")
    return sandbox.running_for_real(ths.composed_real_programs())


@pytest.mark.parametrize("family", ths.CARRIER_FAMILIES)
def test_every_carrier_family_really_runs_the_target(judge: ths.BashSandbox, family: str) -> None:
    """No family is vacuous: within a few draws the oracle sees one of its lines run ``rm -rf x``."""
    try:
        find(
            ths.composed_commands(families=(family,), max_depth=1),
            lambda c: any(record[:3] == ("rm", "-rf", "x") for record in judge.executed(c.command)),
            settings=settings(
                max_examples=40,
                derandomize=True,
                database=None,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
            ),
        )
    except NoSuchExample:
        pytest.fail(f"no line of the {family} family ran rm -rf x in 40 draws")


def test_unknown_family_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown carrier families"):
        ths.composed_commands(families=("teleport",))


def test_the_hunt_finds_eight_mechanisms_in_the_frozen_engine(
    judge: ths.BashSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's bar: run against m_engine_531c59b within a CI budget, at least eight distinct mechanisms."""
    del judge
    import importlib

    from tests.mutants.hunt_mechanisms import hunt
    from tests.mutants.m_engine_531c59b import adapter

    # The mutant patches the harness's modules for good (it is meant for a process of its own): keep
    # the originals in monkeypatch's hands, so later tests in this process run today's engine.
    for module_name, name in (
        ("reference_impl.execution._pipeline", "decide_permission"),
        ("reference_impl.execution._asks", "decide_permission"),
        ("reference_impl.agent._loop", "is_tool_denied_as_whole"),
    ):
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, name, getattr(module, name))
        monkeypatch.setattr(module, f"__mutated_{name}", False, raising=False)
    findings, _ = hunt(adapter().new_harness, examples=200)
    assert len({finding.family for finding in findings}) >= 8, [f.command for f in findings]
    assert all(finding.ran for finding in findings)


def test_path_spellings_reach_the_protected_file_and_other_files(tmp_path) -> None:
    """The judge is the filesystem: links and ``/proc/self/root`` reach the file; ``elsewhere/..`` does not."""
    maze = ths.build_path_maze(tmp_path)
    root = str(maze.root)
    assert ths.same_file(maze, "hard")
    assert ths.same_file(maze, "sub/back/alias")
    assert ths.same_file(maze, f"/proc/self/root{root}/here/./{ths.MAZE_TARGET}")
    assert not ths.same_file(maze, f"elsewhere/../{ths.MAZE_TARGET}")  # physically the parent's parent
    reached = find(
        ths.path_spellings(root),
        lambda path: path.startswith("/proc/self/root") and "sub/back/" in path and ths.same_file(maze, path),
        settings=settings(max_examples=500, database=None, suppress_health_check=list(HealthCheck)),
    )
    assert reached.endswith(("secret.env", "alias", "hard"))
