"""Ways a program runs code that its name and a rule on it don't show (PERM-17), with bash as the judge.

Three classes a red-team found through the permission engine (``/work/notes/s30/redteam``):

* a builtin that runs a command given in an option, in any spelling bash's getopt reads
  (``jobs -x nuke``, ``mapfile -tC nuke -c 1``, ``compgen -W '$(nuke)'``);
* a variable set for one command that the program takes a program from (``GREP=nuke zgrep``);
* an option that loads code or names a configuration file (``curl --engine x.so``, ``wget
  --config=f``, ``less --lesskey-src=f``, ``scp -D prog``).

The last test mines the machine's own documentation (man pages, bash's ``help``) for the next case:
every program the engine reads as plain or screened, given any documented option or variable of
these classes, must not be allowed by a rule naming only the program.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_toolharness._strategies.bash_oracle import bash_sandbox
from pytest_toolharness._strategies.program_catalogue import (
    CatalogueEntry,
    _bash_builtins,
    mine_builtin_help,
    mine_manual_page,
)
from reference_impl.permissions import PermissionContext, decide_permission, rules_from_strings
from reference_impl.permissions._builtin_options import BUILTIN_OPTION_STRINGS, builtin_options
from reference_impl.permissions._program_model import _SCREENED, PLAIN_PROGRAMS
from reference_impl.tools import PermissionTarget, build_tool


async def _call(_input: object, _context: object) -> None:
    return None


_BASH = build_tool(
    "Bash",
    "Bash",
    _call,
    input_json_schema={"type": "object"},
    is_shell=True,
    permission_target=lambda i: PermissionTarget("shell", str(i.get("command", ""))),
)


def _verdict(command: str, program: str, tmp_path: Path) -> str:
    """The engine's answer for ``command`` under ``Bash(nuke:*)`` deny and ``Bash(program:*)`` allow."""
    rules = (
        *rules_from_strings(["Bash(nuke:*)"], "deny", "userSettings"),
        *rules_from_strings([f"Bash({program}:*)"], "allow", "userSettings"),
    )
    context = PermissionContext(mode="default", rules=rules, cwd=tmp_path, project_root=tmp_path)
    return decide_permission(_BASH, {"command": command}, context).behavior


# -- builtins ---------------------------------------------------------------------------------


def _help_letters(name: str) -> tuple[set[str], set[str]]:
    """The flag letters and the value-taking letters ``help -s NAME`` of the machine's bash shows."""
    bash = shutil.which("bash")
    assert bash is not None
    synopsis = subprocess.run(
        [bash, "--norc", "-c", f"help -s {name}"], capture_output=True, text=True, check=True
    ).stdout
    valued = set(re.findall(r"\[-(\w) [^\]\s]+\]", synopsis)) | set(
        re.findall(r"\b-(\w) command\b", synopsis)
    )
    flags = {c for cluster in re.findall(r"\[-(\w+)\]", synopsis) for c in cluster}
    flags |= set(re.findall(r"\bor \w+ -(\w)\b", synopsis))  # ``jobs -x command``, ``fc -s``
    return flags - valued, valued - {"x"} if name == "jobs" else valued


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize("name", sorted(BUILTIN_OPTION_STRINGS))
def test_builtin_option_strings_are_bash_own(name: str) -> None:
    """The engine's getopt strings name every option ``help -s`` shows, taking a value where bash's does."""
    flags, valued = _help_letters(name)
    spec = BUILTIN_OPTION_STRINGS[name]
    spec_valued = {spec[i] for i in range(len(spec)) if spec[i + 1 : i + 2] == ":"}
    spec_flags = {c for c in spec if c != ":"} - spec_valued
    assert valued <= spec_valued, f"{name}: bash takes a value after {sorted(valued - spec_valued)}"
    assert flags <= spec_flags, f"{name}: bash's flags {sorted(flags - spec_flags)} are unknown"


def test_builtin_options_read_clusters_and_attached_values() -> None:
    assert builtin_options("mapfile", ["-tC", "nuke", "-c", "1", "a"]) == (
        [("t", None), ("C", "nuke"), ("c", "1")],
        4,
    )
    assert builtin_options("mapfile", ["-tCnuke", "--", "-x"]) == ([("t", None), ("C", "nuke")], 2)
    assert builtin_options("jobs", ["-lx", "nuke", "-rf"]) == ([("l", None), ("x", None)], 1)
    assert builtin_options("mapfile", [None]) is None


# Each builtin's running option in the spellings bash's getopt reads, and what brings it to run.
_BUILTIN_FORMS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("jobs", ("-x {c}", "-xr {c}", "-x -- {c}"), ""),
    (
        "mapfile",
        ("-C {c}", "-tC {c}", "-C{c}", "-tC{c}", "-d x -C {c}", "-tu0 -C {c}"),
        " -c 1 </etc/hostname",
    ),
    ("readarray", ("-tC {c}", "-n 3 -tC{c}"), " -c 1 </etc/hostname"),
    ("compgen", ("-C {c}", "-aC {c}", "-W '$({c})'", '-vW "\\$({c})"', "-W'$({c})'"), " x"),
)
_BUILTIN_CASES = [
    (name, form.format(c="nuke") + tail) for name, forms, tail in _BUILTIN_FORMS for form in forms
]


@pytest.fixture(scope="module")
def oracle():  # type: ignore[no-untyped-def]
    sandbox = bash_sandbox()
    if sandbox is None:
        pytest.skip("the bash oracle can't run here")
    return sandbox


@pytest.mark.parametrize(("name", "args"), _BUILTIN_CASES)
def test_a_builtin_running_a_command_is_not_allowed_by_its_rule(
    name: str, args: str, oracle: object, tmp_path: Path
) -> None:
    """``jobs -lx nuke``, ``mapfile -tCnuke -c 1``: bash runs nuke, and ``Bash(nuke:*)`` deny still holds."""
    command = f"{name} {args}"
    ran = [record for record in oracle.executed(command) if record[0] == "nuke"]  # type: ignore[attr-defined]
    assert ran, f"bash did not run nuke for {command!r}: the case is wrong"
    assert _verdict(command, name, tmp_path) == "deny", f"{command!r} runs nuke"


# -- variables and options --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("GREP=nuke zgrep hi notes.gz", "zgrep"),
        ("MANPAGER=nuke man ls", "man"),
        ("LESSOPEN='|nuke %s' less f", "less"),
        ("XZ_OPT=x GIT_PAGER=y A=nuke zcat f", "zcat"),
        ("curl -s --engine ./eng.so file:///etc/hostname", "curl"),
        ("curl -sK curl.conf file:///etc/hostname", "curl"),
        ("scp -D nuke f h:x", "scp"),
        ("sftp -b batch h", "sftp"),
        ("wget -q --config=dl.conf http://127.0.0.1:9/", "wget"),
        ("wget -q --conf dl.conf http://127.0.0.1:9/", "wget"),
        ("less --lesskey-src=keys.txt f.txt", "less"),
        ("less -kkeys f.txt", "less"),
        ("man -C man.conf ls", "man"),
        # Text it hands to a shell may make the denied name when it runs: no reading rules it out.
        ("sqlite3 :memory: '.shell $(printf nu)ke'", "sqlite3"),
        ("sqlite3 :memory: <<< '.system `printf nu`ke'", "sqlite3"),
        ("gdb -batch -ex 'shell ${x:-nuke}'", "gdb"),
        ('sqlite3 "$DB" .dump', "sqlite3"),
        ('tmux new -d "n${x}uke"', "tmux"),
    ],
)
def test_what_a_program_takes_a_program_from_is_not_vouched_for(
    command: str, program: str, tmp_path: Path
) -> None:
    """A rule naming the program alone does not vouch for a way it runs or loads what the line does not show."""
    assert _verdict(command, program, tmp_path) != "allow"


@pytest.mark.parametrize(
    "command", ["NODE_ENV=test zgrep hi f", "LANG=C LC_ALL=C zcat f", "TZ=UTC zgrep x f"]
)
def test_variables_only_read_as_data_are_stripped(command: str, tmp_path: Path) -> None:
    """(control) A variable programs only read as data leaves the program's rule in charge."""
    program = next(word for word in command.split() if "=" not in word)
    assert _verdict(command, program, tmp_path) == "allow"


def _documented(program: str) -> list[CatalogueEntry]:
    entries: list[CatalogueEntry] = []
    for directory in ("/usr/share/man/man1", "/usr/share/man/man8"):
        for suffix in (".1.gz", ".8.gz", ".1", ".8"):
            page = os.path.join(directory, program + suffix)
            if os.path.exists(page):
                opener = gzip.open if page.endswith(".gz") else open
                with opener(page, "rt", encoding="utf-8", errors="replace") as handle:
                    entries.extend(mine_manual_page(program, handle.read(), page))
    return entries


_CLASSES = ("option-command", "option-script", "option-load", "option-config", "environment-command")
# Mined claims that are not a local program or code: what the option's text says it does instead.
_NOT_RUN_HERE = {
    ("curl", "--quote"): "commands sent to the FTP or SFTP server",
    ("curl", "--ftp-alternative-to-user"): "a command sent to the FTP server",
    ("less", "-a"): "a search option; the miner read 'the command' of a later paragraph",
    ("lsof", "-c"): "selects processes by the command they execute",
    ("make", "-W"): "marks a file as new (recipes are the project's own, read)",
    ("make", "--what-if"): "the same as -W",
    ("make", "--new-file"): "the same as -W",
    ("make", "--assume-new"): "the same as -W",
    ("tar", "--files-from"): "names of files to archive",
}


def test_every_documented_way_to_run_code_of_a_read_program_is_modelled(tmp_path: Path) -> None:
    """Every option or variable the machine's documentation says runs or loads code, or names a file of
    settings, makes a program the engine reads (plain, screened, a builtin) need more than its rule.

    Mined as the catalogue mines (:mod:`pytest_toolharness._strategies.program_catalogue`), so the
    next program, option or variable of these classes fails here until the model knows it.
    """
    programs = sorted(PLAIN_PROGRAMS | set(_SCREENED) | {"zgrep"})
    entries = [e for p in programs for e in _documented(p) if e.kind in _CLASSES]
    entries += [e for name, text in _bash_builtins().items() for e in mine_builtin_help(name, text)]
    assert len({e.program for e in entries}) >= 3, "too little documentation on this machine to judge"
    unmodelled = []
    for entry in entries:
        program = entry.program.split(" ")[0]
        if (program, entry.option) in _NOT_RUN_HERE:
            continue
        if entry.kind == "wrapper":
            lines = [f"{entry.program} nuke"]
        else:
            lines = [entry.command_line("nuke", "nuke", tail) for tail in ("", " f.txt")]
        lines = [re.sub(r"^echo nuke > o; ", "", line) for line in lines]
        for line in lines:
            if _verdict(line, program, tmp_path) == "allow":
                unmodelled.append(f"{line!r} ({entry.kind}: {entry.evidence[:80]})")
    assert not unmodelled, "allowed by a rule naming only the program:\n" + "\n".join(unmodelled)


def test_the_classes_found_stay_found() -> None:
    """(the miner) The documented cases the red-team found are mined from the machine's pages."""
    found = {(e.program, e.kind, e.option) for p in ("curl", "wget", "less", "zgrep") for e in _documented(p)}
    expected = {
        ("curl", "option-load", "--engine"),
        ("curl", "option-config", "--config"),
        ("wget", "option-config", "--config"),
        ("less", "option-config", "--lesskey-src"),
        ("zgrep", "environment-command", "GREP"),
    }
    installed = {program for program, _, _ in expected if _documented(program)}
    assert {e for e in expected if e[0] in installed} <= found
    builtins = {
        (e.program, e.kind, e.option) for n, t in _bash_builtins().items() for e in mine_builtin_help(n, t)
    }
    if builtins:
        assert {("mapfile", "option-command", "-C"), ("jobs -x", "wrapper", "")} <= builtins


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("sqlite3 :memory: 'select * from t'", "sqlite3"),
        ("tmux new -d make", "tmux"),
        ("sqlite3 db .dump", "sqlite3"),
    ],
)
def test_an_unread_programs_line_with_no_word_made_at_run_time_is_vouched_for(
    command: str, program: str, tmp_path: Path
) -> None:
    """(control) Its words name no denied program and bash makes none of them: the program's rule vouches."""
    assert _verdict(command, program, tmp_path) == "allow"
