"""What the engine reads off a program's words, judged by the program itself (PERM-16, PERM-17).

Each test draws spellings the program's own option grammar accepts (a value attached or as the
next word, long options and their abbreviations, other options before and after), runs the real
program on them in a scratch directory, and compares what it did with the engine's reading:

- tar's ``-I``/``--use-compress-program`` and ``--to-command``: every command tar ran is one
  ``program_scripts`` reads, and it reads nothing else;
- sed's script (an operand, ``-e``, ``--expression``): the engine says it runs a command exactly when
  sed's own parse of it (``sed --debug``) holds an ``e`` command or an ``s///e``;
- git's ``-c``: an ``alias.z=!CMD`` git ran is read as that command; an ``ext::`` transport switched
  on by ``-c protocol.ext.allow=always`` (git runs the URL's command) makes the line unread;
- git's display options (``--no-pager``, ``-P``, ``-c`` of a plain key), dropped so that an allow
  rule on the subcommand matches: the form left is the command git dispatched (``GIT_TRACE``);
- make's makefile named by a descriptor (``-f /dev/stdin``): found when make read its makefile there.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._program_model import (
    makefile_from_descriptor,
    unread_program,
    without_git_display_options,
)
from reference_impl.permissions._programs import program_scripts

_MARK = "ran"


def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="readings-"))


def _quiet_git_env(home: Path) -> dict[str, str]:
    """git with no configuration of the machine or the user (only what the line says)."""
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
    }


@st.composite
def _option(draw: st.DrawFn, short: str, long: str, value: str) -> list[str]:
    """``short VALUE``, ``shortVALUE``, ``--long=VALUE``, ``--long VALUE``, the long name maybe abbreviated."""
    spellings = ["long=", "long "] + (["short", "short "] if short else [])
    how = draw(st.sampled_from(spellings))
    if how.startswith("short"):
        return [short, value] if how == "short " else [short + value]
    name = "--" + long[: draw(st.integers(min_value=min(len(long), 5), max_value=len(long)))]
    return [f"{name}={value}"] if how == "long=" else [name, value]


# --- tar -------------------------------------------------------------------------------------------

_COMPRESSOR = "./rec"  # tar splits -I's value into words itself: one word, no shell


@st.composite
def _tar_lines(draw: st.DrawFn) -> tuple[list[str], str]:
    """tar's arguments running a command through ``--to-command`` or ``-I``, and that command."""
    kind = draw(st.sampled_from(["to-command", "compress", "decompress"]))
    if kind == "to-command":
        command = f"touch {_MARK}"
        groups = [["-x"], ["-f", "a.tar"], draw(_option("", "to-command", command))]
    else:
        command = _COMPRESSOR
        mode, archive = (["-c"], "out.tar") if kind == "compress" else (["-x"], "z.tar")
        groups = [mode, ["-f", archive], draw(_option("-I", "use-compress-program", command))]
    ordered = draw(st.permutations(groups))
    operands = ["f"] if kind == "compress" else []
    return [word for group in ordered for word in group] + operands, command


@pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar is the judge")
@settings(max_examples=30, deadline=None)
@given(line=_tar_lines())
@example(line=(["-x", "-f", "a.tar", "--to-command", f"touch {_MARK}"], f"touch {_MARK}"))
@example(line=(["-c", "-f", "out.tar", "-I", _COMPRESSOR, "f"], _COMPRESSOR))
@example(line=(["-f", "out.tar", "-c", "-I", _COMPRESSOR, "f"], _COMPRESSOR))
def test_tar_runs_the_commands_the_engine_reads(line: tuple[list[str], str]) -> None:
    """PERM-17: a command tar starts (``--to-command``, ``-I``) is read as it is; nothing else is read."""
    args, command = line
    work = _scratch()
    (work / "f").write_text("data\n")
    subprocess.run(["tar", "-cf", "a.tar", "f"], cwd=work, check=True)
    subprocess.run(["tar", "-cf", "z.tar", "f"], cwd=work, check=True)
    rec = work / "rec"
    rec.write_text(f"#!/bin/sh\ntouch {_MARK}\nexec cat\n")
    rec.chmod(0o755)
    subprocess.run(["tar", *args], cwd=work, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    ran = (work / _MARK).exists()
    scripts, _ = program_scripts("tar", args)
    assert set(scripts) <= {command}, (
        f"tar {shlex.join(args)}: the engine reads {scripts}, tar runs {command!r}"
    )
    if ran:
        assert command in scripts, f"tar {shlex.join(args)} ran {command!r}; the engine read {scripts}"


# --- sed -------------------------------------------------------------------------------------------

_ADDRESSES = ("", "", "1", "$", "2~3", "0~4", "/a/", "/a/I", "\\,a,", "\\%b%M")
_SECOND = ("", "", ",3", ",+2", ",~2", ",$", ",/c/")
_PLAIN = (
    *"pd=lnNPDhHgGxzF",
    "q",
    "Q5",
    "l 3",
    "y/ab/cd/",
    "s/a/b/",
    "s,a,b,g",
    "s/a/b/2p",
    "s/x/y/w /dev/null",
    "b end",
    "t end",
    "T",
)
_TO_LINE_END = ("a text", "i text", "c text", "r /dev/null", "R /dev/null", "w /dev/null", "# a note")
_RUNNING = (f"e touch {_MARK}", "e", f"s/a/touch {_MARK}/e", f"s|a|touch {_MARK}|ge", "s/a/b/pe")


@st.composite
def _sed_commands(draw: st.DrawFn, depth: int = 0) -> str:
    """One to four commands of sed's grammar, each with an address, maybe negated, maybe a block."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        address = draw(st.sampled_from(_ADDRESSES))
        if address:
            address += draw(st.sampled_from(_SECOND)) + draw(st.sampled_from(("", " ")))
            address += draw(st.sampled_from(("", "", "!", "! ")))
        kind = draw(st.sampled_from(["plain", "plain", "to-line-end", "running", "block"]))
        if kind == "block" and depth < 1:
            parts.append(f"{address}{{{draw(_sed_commands(depth + 1))}\n}}")
        elif kind == "to-line-end":
            parts.append(address + draw(st.sampled_from(_TO_LINE_END)) + "\n")
        elif kind == "running":
            parts.append(address + draw(st.sampled_from(_RUNNING)) + "\n")
        else:
            parts.append(address + draw(st.sampled_from(_PLAIN)))
    text = ""
    for part in parts:
        if text and not text.endswith("\n"):
            text += draw(st.sampled_from([";", "\n", " ; "]))
        text += part
    return text


# sed's options as sed --help and GNU getopt spell them: values as the next word or attached, long
# names abbreviated, short options bundled, -i's suffix only attached (session 33's red team: the
# value of ``-l`` was taken as the script).
_SED_OPTIONS = (
    ["-n"], ["-s"], ["-E"], ["-u"], ["-z"], ["--null"], ["--sep"], ["--debug"],
    ["-l", "5"], ["-l5"], ["--line-length=5"], ["--line-len", "5"], ["--l", "5"], ["-nl", "5"], ["-snl", "3"],
    ["-i"], ["-i.bak"], ["--in-place=.b"], ["--in-pl"],
)  # fmt: skip


@st.composite
def _sed_lines(draw: st.DrawFn) -> list[str]:
    """sed's arguments: options (before and after the operand: getopt permutes), and the script as its
    operand or in ``-e`` pieces (whole lines each)."""
    script = draw(_sed_commands()).rstrip("\n") + "\n:end"
    spelled = st.lists(st.sampled_from(_SED_OPTIONS), max_size=2)
    options = [word for option in draw(spelled) for word in option]
    after = [word for option in draw(spelled) for word in option]
    if draw(st.booleans()):
        return [*options, script, *after]
    lines = script.split("\n")
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(lines) - 1)), max_size=2)))
    pieces = ["\n".join(lines[a:b]) for a, b in zip([0, *cuts], [*cuts, len(lines)], strict=True)]
    args = list(options)
    for piece in pieces:
        args += draw(_option("-e", "expression", piece))
    return [*args, *after]


_E_COMMAND = re.compile(r"(?:\S+ )?e(?: |$)")
_S_FLAGS = re.compile(r"(?:\S+ )?s/(?:[^/\\]|\\.)*/(?:[^/\\]|\\.)*/([^/\s]*)")


def _sed_runs_a_command(args: list[str]) -> bool | None:
    """Whether sed's own parse of the script (``--debug``) holds ``e`` or ``s///e``; None if sed refuses it."""
    done = subprocess.run(
        ["sed", "--debug", *args, os.devnull], capture_output=True, text=True, timeout=30, check=False
    )
    if "SED PROGRAM:\n" not in done.stdout:
        return None  # refused before it ran (``-i`` on /dev/null fails after parsing: its parse counts)
    program = done.stdout.split("SED PROGRAM:\n", 1)[1].split("\nINPUT:", 1)[0]
    for line in (line.strip() for line in program.splitlines()):
        flags = _S_FLAGS.match(line)
        if _E_COMMAND.match(line) or (flags is not None and "e" in flags.group(1)):
            return True
    return False


@pytest.mark.skipif(shutil.which("sed") is None, reason="GNU sed is the judge")
@settings(max_examples=60, deadline=None)
@given(args=_sed_lines())
@example(args=["-n", "-e", "p\n:end"])
@example(args=["-n", "-e", f"1e touch {_MARK}\n:end"])
@example(args=["p;s/a/b/g\n:end"])
@example(args=["-l", "5", f"1e touch {_MARK}\n:end"])
@example(args=["-nl", "5", "p\n:end"])
def test_sed_script_runs_a_command_as_sed_reads_it(args: list[str]) -> None:
    """PERM-16/17: the engine says a sed script runs a command exactly when sed's parse of it has one."""
    runs = _sed_runs_a_command(args)
    if runs is None:
        return  # sed refuses the script: it runs nothing, and any reading is safe
    _, why = program_scripts("sed", [*args, "f"])
    if runs:
        assert why is not None, f"sed {shlex.join(args)} runs a command; the engine read nothing"
    else:
        assert why is None, f"sed {shlex.join(args)} runs no command; the engine says: {why}"


# --- git -------------------------------------------------------------------------------------------

_GIT_GLOBALS = (["-C", "."], ["--no-pager"], ["-P"], ["-c", "color.ui=never"])


@st.composite
def _git_setting_lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    """``git [globals] -c KEY=VALUE [globals] TRIGGER``: an alias running a command, or the ext transport."""
    kind = draw(st.sampled_from(["alias", "ext"]))
    setting = f"alias.z=!touch {_MARK}" if kind == "alias" else "protocol.ext.allow=always"
    given_as = [["-c", setting], [f"-c{setting}"]][draw(st.integers(0, 1))]
    before = draw(st.lists(st.sampled_from(_GIT_GLOBALS), max_size=2))
    after = draw(st.lists(st.sampled_from(_GIT_GLOBALS), max_size=1))
    trigger = ["z"] if kind == "alias" else ["ls-remote", f"ext::sh -c touch% {_MARK}"]
    return kind, [*(w for g in before for w in g), *given_as, *(w for g in after for w in g), *trigger]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is the judge")
@settings(max_examples=30, deadline=None)
@given(line=_git_setting_lines())
@example(line=("alias", ["-c", f"alias.z=!touch {_MARK}", "z"]))
@example(line=("ext", ["-c", "protocol.ext.allow=always", "ls-remote", f"ext::sh -c touch% {_MARK}"]))
def test_git_setting_that_runs_a_command_is_read_or_unread(line: tuple[str, list[str]]) -> None:
    """PERM-17: what ``git -c`` makes git run is read (an alias's command) or makes the line unread (``ext::``)."""
    kind, args = line
    work = _scratch()
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=_quiet_git_env(work))
    subprocess.run(
        ["git", *args], cwd=work, env=_quiet_git_env(work), capture_output=True, timeout=30, check=False
    )
    if not (work / _MARK).exists():
        return  # git ran nothing: any reading is safe
    if kind == "alias":
        scripts, _ = program_scripts("git", args)
        assert scripts == [f"touch {_MARK}"], (
            f"git {shlex.join(args)} ran the alias; the engine read {scripts}"
        )
    else:
        assert unread_program("git", args) is not None, (
            f"git {shlex.join(args)} ran the ext:: command, read as none"
        )


_DISPLAY = (["--no-pager"], ["-P"], ["-c", "core.quotepath=off"], ["-c", "color.ui=never"])
_SUBCOMMANDS = (["status"], ["log", "-1"], ["rm", "status"], ["diff", "log"], ["branch"], ["show", "status"])


@st.composite
def _git_display_lines(draw: st.DrawFn) -> tuple[list[str], bool]:
    """``git`` with display options (maybe ``-C .`` among them) before a subcommand; whether only display ones."""
    options = draw(st.lists(st.sampled_from(_DISPLAY), min_size=1, max_size=3))
    other = draw(st.booleans())
    if other:
        options.insert(draw(st.integers(0, len(options))), ["-C", "."])
    sub = draw(st.sampled_from(_SUBCOMMANDS))
    return ["git", *(w for o in options for w in o), *sub], not other


_TRACED = re.compile(r"trace: built-in: (.*)$", re.MULTILINE)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is the judge")
@settings(max_examples=30, deadline=None)
@given(line=_git_display_lines())
@example(line=(["git", "--no-pager", "rm", "status"], True))
@example(line=(["git", "-c", "core.quotepath=off", "status"], True))
def test_git_display_options_dropped_leave_the_command_git_runs(line: tuple[list[str], bool]) -> None:
    """PERM-16: the form without display options is the command git dispatches, and is made whenever they are all."""
    argv, display_only = line
    work = _scratch()
    env = {**_quiet_git_env(work), "GIT_TRACE": "1"}
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=_quiet_git_env(work))
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=30, check=False)
    traced = _TRACED.search(done.stderr)
    assert traced is not None, done.stderr
    dispatched = shlex.split(traced.group(1))
    form = without_git_display_options(tuple(argv))
    if display_only:
        assert form == dispatched, f"{shlex.join(argv)} read as {form}; git ran {dispatched}"
    elif form is not None:  # ``-C .`` is kept, with what follows it
        assert form[len(form) - len(dispatched) + 1 :] == dispatched[1:], f"{shlex.join(argv)} read as {form}"


# --- make ------------------------------------------------------------------------------------------

_DESCRIPTORS = ("/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0")


@st.composite
def _make_lines(draw: st.DrawFn) -> tuple[list[str], str]:
    """make's arguments naming a descriptor as its makefile in any spelling, options around it."""
    name = draw(st.sampled_from(_DESCRIPTORS))
    how = draw(st.sampled_from(["-f ", "-f", "--file ", "--file=", "--makefile ", "--makefile="]))
    named = [how.strip(), name] if how.endswith(" ") else [how + name]
    groups = [named, *draw(st.lists(st.sampled_from([["-s"], ["-k"], ["-j1"], ["-C", "."]]), max_size=2))]
    return [w for g in draw(st.permutations(groups)) for w in g], name


@pytest.mark.skipif(shutil.which("make") is None, reason="make is the judge")
@settings(max_examples=25, deadline=None)
@given(line=_make_lines())
@example(line=(["--file", "/dev/stdin"], "/dev/stdin"))
@example(line=(["-k", "-s", "--makefile", "-"], "-"))
def test_make_makefile_from_a_descriptor_is_found(line: tuple[list[str], str]) -> None:
    """PERM-17: when make reads its makefile from a descriptor, the engine finds that name (and reads its recipes)."""
    args, name = line
    done = subprocess.run(
        ["make", *args],
        cwd=_scratch(),
        input=f"all:\n\t@echo {_MARK}\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if _MARK in done.stdout:
        assert makefile_from_descriptor(tuple(args)) == name, (
            f"make {shlex.join(args)} read its makefile from {name}"
        )
