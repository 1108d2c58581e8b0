"""A catalogue of programs that run other programs, mined from the machine's own documentation (PERM-17).

Nobody types the list in: :func:`mine_catalogue` reads the manual pages of the installed programs
(``/usr/share/man/man1`` and ``man8``, troff source) and, for programs without one, their
``--help`` (run in a throwaway bubblewrap sandbox), and keeps

- **options that take a command** (``tar --to-command=COMMAND``, ``man -P pager``, ``find -exec``):
  the option's argument is named like a command (``COMMAND``, ``prog``, ``shell``, ``filter``,
  ``pager``...), or its description says it runs, executes or invokes a command, shell or program;
- **options that take a script file** (``bash --rcfile file``, ``sqlite3 -init file``): the argument
  names a file and the description says the file's commands are read or executed;
- **configuration keys that hold a command** (``git -c core.sshCommand=...``): a ``.PP`` key
  paragraph of a page (``git-config(1)``) whose description says it runs a command or that its
  value is a shell command;
- **wrappers** (``timeout DURATION COMMAND [ARG]...``, ``taskset mask command argument...``): the
  synopsis puts a command and its arguments after the program's own operands, whose values are
  filled from the operand's name.

The mined catalogue is committed (``program_catalogue.json`` beside this module, so a run draws the
same entries on every machine); ``python -m pytest_toolharness._strategies.program_catalogue``
mines it again. Entries are *claims* read from prose: the bash oracle, which runs the catalogued
programs for real, says whether an entry really runs what it is given. Mining asks it
(:func:`confirm_entries`): each entry is tried with every :data:`ESCAPES` prefix of the command and
every :data:`TAILS` operand list, and the first form the oracle saw run is kept as ``confirmed``
(generators draw confirmed entries more often, and still try the others).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from pytest_toolharness._strategies.bash_oracle import BashSandbox, bash_sandbox, bash_sandbox_problem

__all__ = [
    "CATALOGUE_FILE",
    "ESCAPES",
    "GIT_TRIGGERS",
    "TAILS",
    "CatalogueEntry",
    "confirm_entries",
    "load_catalogue",
    "mine_builtin_help",
    "mine_catalogue",
    "mine_help_text",
    "mine_manual_page",
    "option_blocks",
    "troff_text",
]

CATALOGUE_FILE = Path(__file__).with_name("program_catalogue.json")
MAN_DIRS = ("/usr/share/man/man1", "/usr/share/man/man8")
BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin", "/sbin")

# What a program's own command language puts before a shell command (a shell string needs nothing):
# vi's and git's ``!``, gdb's ``shell``, sqlite3's ``.shell``.
ESCAPES = ("", "!", "shell ", ".shell ")
# Operands that bring a program to the point of running the option's command.
TAILS = (
    "",
    " /etc/hostname",
    " /etc/hostname /etc/hostname /etc/hostname",
    " -cf /dev/null /etc/hostname",
    " -c 1 </etc/hostname",  # ``mapfile -C CMD``: a callback every line read
)
# Subcommands that bring git to the point of running a configured command.
GIT_TRIGGERS = (
    "status",
    "diff --no-index /etc/hostname /etc/passwd",
    "fetch ssh://h/x",
    "ls-remote ssh://h/x",
    "log -1",
)

EntryKind = Literal[
    "option-command",
    "option-script",
    "config-command",
    "wrapper",
    "environment-command",
    "option-load",
    "option-config",
]


@dataclass(frozen=True, order=True)
class CatalogueEntry:
    """One way ``program`` runs something it is given.

    ``option`` and ``joiner`` (``"="`` or ``" "``) spell the option for the option kinds;
    ``operands`` are the values put between the program (and its options) and the command of a
    wrapper. ``program`` may carry a subcommand (``git rebase``, documented by ``git-rebase(1)``). ``source`` names the page (or ``--help``) and ``evidence`` the text it was read from.
    """

    program: str
    kind: EntryKind
    option: str = ""
    joiner: str = " "
    operands: tuple[str, ...] = ()
    source: str = ""
    evidence: str = ""
    confirmed: tuple[str, str] | None = None  # (escape, tail) with which the oracle saw it run a command

    @property
    def key(self) -> str:
        """A configuration key's name with its placeholders filled (``alias.*`` -> ``alias.z``)."""
        key = self.option.replace("<name>", "z").replace("<token>", "z").replace("<format>", "tgz")
        return key.replace("<task>", "gc").replace("*", "z")

    def escape_for(self, escape: str) -> str:
        """The prefix a command given to this entry takes (git's aliases always ``!``)."""
        return "!" if self.kind == "config-command" and self.key.startswith("alias.") else escape

    def command_line(
        self,
        command: str,
        quoted_value: str,
        tail: str,
        *,
        in_repository: bool = False,
        clone_option: str = "",
    ) -> str:
        """A line in which this entry is given a command.

        ``command`` for a wrapper (as words), ``quoted_value`` for an option or a key (one shell
        word); ``tail`` ends the line (for git, the subcommand that triggers the key). A key is set
        with ``-c``, or ``in_repository`` written to a new repository's configuration first, or with
        ``clone_option`` (``-c``, ``-c `` ``--config ``, ``--config=``: git-clone's help pairs ``-c,
        --config``) in the repository ``git clone`` makes before it fetches.
        """
        program = self.program.split(" ")[0]
        if self.kind == "wrapper":
            return f"{self.program}{''.join(' ' + o for o in self.operands)} {command}"
        if self.kind == "option-script":
            return f"echo {quoted_value} > o; {self.program} {self.option}{self.joiner}o{tail}"
        if self.kind == "environment-command":
            return f"{self.option}={quoted_value} {self.program}{tail}"
        if self.kind in ("option-load", "option-config"):
            # What a loaded object or a configuration file holds is the program's own format: the
            # line names the file (``o``); only the engine's refusal to read the option is checked.
            return f"{self.program} {self.option}{self.joiner}o{tail}"
        if self.kind == "config-command":
            trigger = "z" if self.key.startswith("alias.") else tail.strip() or "status"
            if in_repository:
                configure = f"{program} init -q r && cd r && {program} config {self.key} {quoted_value}"
                return f"{configure} && {program} {trigger}"
            if clone_option:
                return f"{program} clone -q {clone_option}{self.key}={quoted_value} ssh://h/x r"
            return f"{program} -c {self.key}={quoted_value} {trigger}"
        return f"{self.program} {self.option}{self.joiner}{quoted_value}{tail}"

    def probes(self) -> tuple[tuple[str, str], ...]:
        """The (escape, tail) forms mining tries."""
        if self.kind == "wrapper":
            return (("", ""),)
        if self.kind == "config-command":
            return tuple((self.escape_for(""), f" {trigger}") for trigger in GIT_TRIGGERS)
        if self.kind in ("option-load", "option-config"):
            return ()  # no shell command to give it: see :meth:`command_line`
        return tuple((escape, tail) for escape in ESCAPES for tail in TAILS)


_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)|\\s[-+]?\d")  # a font, or a size (pod's ``\s-1FILE\s0``)
_STRING = re.compile(r"\\\*(?:\(..|\[[^\]]*\]|.)")
_GLYPHS = {"\\-": "-", "\\(em": "-", "\\(en": "-", "\\(aq": "'", "\\[aq]": "'", "\\e": "\\", "\\ ": " "}
_DROPPED = ("\\&", "\\|", "\\,", "\\/", "\\^", "\\%")


def troff_text(line: str) -> str:
    """A troff line as text: fonts, glyphs and zero-width escapes gone, a macro's name dropped."""
    text = _FONT.sub("", line)
    for escape, glyph in _GLYPHS.items():
        text = text.replace(escape, glyph)
    for escape in _DROPPED:
        text = text.replace(escape, "")
    text = _STRING.sub("", text)
    if text.startswith("."):
        text = text.partition(" ")[2]
    return text.replace('"', " ").strip()


# An option as documented: its spelling, how its argument is joined, the argument's name.
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)(?:(\[?=|\s)\s*[<\[]?([A-Za-z][\w|-]*))?")
_COMMAND_NAMES = re.compile(
    r"^(command|cmd|command-string|commandline|cmdline|prog|program|shell|filter|pager|editor|hook|"
    r"executable|exe|callback)s?$",
    re.IGNORECASE,
)
_FILE_NAMES = re.compile(r"^(file|filename|script|scriptname|script-file|rcfile|init-file)s?$", re.IGNORECASE)
_RUNS = re.compile(
    r"\b(execut\w*|evaluat\w*|runs?|run\s+\w+|invok\w*|spawn\w*|pipe\w*\s+(?:through|to)|filter\w*\s+\w+\s+through)\b"
    r"[^.]{0,60}?\b(command|shell|program|script)",
    re.IGNORECASE,
)
_READS_COMMANDS = re.compile(r"\b(read|execut|run|sourc|load)\w*\b[^.]{0,40}\bcommands?\b", re.IGNORECASE)
# Options that load code into the program (``curl --engine``, ``gawk -l``), and options naming a file
# of settings or start-up commands, which may hold options or commands that run a program (``wget
# --config`` with ``use_askpass``, ``curl -K``, ``less --lesskey-src`` with ``LESSOPEN``).
_LOADS_CODE = re.compile(
    r"\bcrypto(graphic)? engine\b|"
    r"\b(load\w*|dlopen\w*)\b[^.]{0,30}\b(engine|plug-?in|module|shared object|shared librar\w*|extension)",
    re.IGNORECASE,
)
_NAMES_CONFIGURATION = re.compile(
    r"\b(config(uration)?|startup|start-up|init(iali[sz]ation)?|rc|lesskey|batch|profile)\b[^.]{0,20}\bfile|"
    r"\bread\b[^.]{0,20}\b(arguments|options|settings|commands)\s+from\b",
    re.IGNORECASE,
)
_STARTS_BLOCK = (".TP", ".IP", ".SH", ".SS", ".PP", ".P", ".LP", ".HP")


def option_blocks(lines: Sequence[str]) -> Iterable[tuple[str, str]]:
    """(option line, description) for every tagged paragraph of a page.

    man's ``.TP`` / ``.IP tag`` paragraphs, and asciidoc's ``.PP`` / tag / ``.RS`` ... ``.RE``.
    """
    i = 0
    while i < len(lines):
        line = lines[i]
        if (
            line == ".PP"
            and i + 2 < len(lines)
            and lines[i + 2].startswith(".RS")
            and lines[i + 1].startswith("\\-")
        ):
            paragraph = []
            for following in lines[i + 3 : i + 40]:
                if following.startswith(".RE"):
                    break
                paragraph.append(troff_text(following))
            yield troff_text(lines[i + 1]), " ".join(part for part in paragraph if part)
            i += 3
            continue
        if line.startswith(".TP") or (line.startswith(".IP ") and len(line) > 4):
            head = line[4:] if line.startswith(".IP") else (lines[i + 1] if i + 1 < len(lines) else "")
            j = i + 1 if line.startswith(".IP") else i + 2
            body: list[str] = []
            while j < len(lines) and not lines[j].startswith(_STARTS_BLOCK):
                body.append(troff_text(lines[j]))
                j += 1
            yield troff_text(head), " ".join(part for part in body if part)
            i = j
        else:
            i += 1


def _entries_from_option(program: str, head: str, description: str, source: str) -> Iterable[CatalogueEntry]:
    runs = _RUNS.search(description[:400]) is not None
    for match in _OPTION.finditer(head):
        option, joiner, argument = match.groups()
        if not argument or option in ("-h", "--help"):
            continue
        evidence = f"{head} :: {description[:160]}".strip()
        spelled = "=" if joiner and "=" in joiner else " "
        if _COMMAND_NAMES.match(argument) or (runs and not _FILE_NAMES.match(argument)):
            kind: EntryKind = "option-command"
        elif _FILE_NAMES.match(argument) and _READS_COMMANDS.search(description[:300]):
            kind = "option-script"
        elif _LOADS_CODE.search(description[:300]):
            kind = "option-load"
        elif _NAMES_CONFIGURATION.search(description[:300]) and re.search(r"file|path|conf", argument, re.I):
            kind = "option-config"
        else:
            continue
        yield CatalogueEntry(program, kind, option, spelled, (), source, evidence)


# An operand before a wrapper's command, filled by what its name says it is.
_OPERAND_VALUES = (
    (re.compile(r"file|dir|lock|path", re.I), "/tmp/l"),
    (re.compile(r"root", re.I), "/"),
    (re.compile(r"user", re.I), "root"),
    (re.compile(r"arch", re.I), "x86_64"),
    (re.compile(r".", re.I), "1"),
)
_WRAPPER_SYNOPSIS = re.compile(
    r"^(?P<before>.*?)\b(?:COMMAND|command|PROGRAM|program|cmd|CMD|prog)\s*\[?\s*(?:ARG|arg|argument)",
)


def _wrapper_entry(program: str, synopsis: str, source: str) -> CatalogueEntry | None:
    for usage in re.split(rf"(?:^|\s)(?={re.escape(program)}\s)", synopsis):
        match = _WRAPPER_SYNOPSIS.match(usage.strip())
        if match is None or not match.group("before").startswith(program):
            continue
        before = match.group("before")[len(program) :]
        before = re.sub(r"\[[^\]]*\]", " ", before)  # optional parts are left out
        if "{" in before or "-" in before.replace("--", ""):
            continue  # a required option or a choice: not a plain wrapper
        operands = []
        for name in before.replace("--", " ").split():
            if not re.search(r"[A-Za-z]", name):
                continue  # "[", "...", "-"
            operands.append(next(value for pattern, value in _OPERAND_VALUES if pattern.search(name)))
        return CatalogueEntry(program, "wrapper", "", " ", tuple(operands), source, usage.strip()[:160])
    return None


_CONFIG_KEY = re.compile(r"^[a-z][\w-]*(?:\.[\w<>*-]+)+$")
_SHELL_COMMAND = re.compile(
    r"\bshell command\b|\bcommand (?:is|will be) (?:run|executed|invoked)|"
    r"\b(?:using|use) the (?:given|specified) (?:command|program)",
    re.IGNORECASE,
)


def _config_entries(program: str, lines: Sequence[str], source: str) -> Iterable[CatalogueEntry]:
    """Configuration keys (``.PP`` / key / ``.RS`` ... ``.RE``) whose value is a command that is run."""
    for i in range(len(lines) - 2):
        if lines[i] != ".PP" or not lines[i + 2].startswith(".RS"):
            continue
        key = troff_text(lines[i + 1])
        if not _CONFIG_KEY.match(key):
            continue
        body: list[str] = []
        for line in lines[i + 3 : i + 60]:
            if line.startswith(".RE"):
                break
            body.append(troff_text(line))
        description = " ".join(part for part in body if part)
        if _RUNS.search(description[:400]) or _SHELL_COMMAND.search(description[:1500]):
            yield CatalogueEntry(
                program, "config-command", key, "=", (), source, f"{key} :: {description[:160]}"
            )


# A variable a program takes a program, a command or its own options from, as its page says.
_NAMES_PROGRAM = re.compile(
    r"\b(editor|pager|preprocessor|postprocessor|askpass|browser|(shell |the )?command (to|that is|is) (run|use|execut)\w*|"
    r"(program|command) (to|that is|is) (run|use|invok|execut)\w*|uses it as the|options (which are )?passed)",
    re.IGNORECASE,
)
_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]+$")
_VARIABLE_IN_PROSE = re.compile(
    r"\bthe\s+([A-Z][A-Z0-9_]{2,})\s+environment variable\b([^.]{0,120})", re.IGNORECASE | re.DOTALL
)


def _environment_entries(program: str, troff: str, source: str) -> Iterable[CatalogueEntry]:
    """Variables a page says the program takes a program, a command or options from.

    The tagged paragraphs of its ENVIRONMENT section (``.IP LESSOPEN``, ``.TP`` ``PAGER``), and prose
    anywhere (zgrep(1): "If the GREP environment variable is set, zgrep uses it as the grep program").
    """
    section = re.search(r"^\.SH\s+\"?ENVIRONMENT[^\n]*$(.*?)(?=^\.SH|\Z)", troff, re.MULTILINE | re.DOTALL)
    if section is not None:
        for head, description in option_blocks(section.group(1).splitlines()):
            for name in re.split(r"[\s,]+", head):
                if _VARIABLE.match(name) and _NAMES_PROGRAM.search(description[:300]):
                    yield CatalogueEntry(
                        program,
                        "environment-command",
                        name,
                        "=",
                        (),
                        source,
                        f"{head} :: {description[:160]}",
                    )
    text = " ".join(troff_text(line) for line in troff.splitlines())
    for match in _VARIABLE_IN_PROSE.finditer(text):
        name, after = match.group(1), match.group(2)
        if _VARIABLE.match(name) and _NAMES_PROGRAM.search(after):
            yield CatalogueEntry(program, "environment-command", name, "=", (), source, match.group(0)[:160])


def mine_manual_page(program: str, troff: str, source: str = "") -> list[CatalogueEntry]:
    """The catalogue entries a manual page (troff source) documents for ``program``."""
    lines = troff.splitlines()
    entries: list[CatalogueEntry] = list(_config_entries(program, lines, source))
    entries.extend(_environment_entries(program, troff, source))
    for head, description in option_blocks(lines):
        entries.extend(_entries_from_option(program, head, description, source))
    synopsis = re.search(r"^\.SH\s+\"?SYNOPSIS\"?\s*$(.*?)^\.SH", troff, re.MULTILINE | re.DOTALL)
    if synopsis is not None:
        text = " ".join(
            troff_text(line) for line in synopsis.group(1).splitlines() if not line.startswith(".br")
        )
        wrapper = _wrapper_entry(program, re.sub(r"\s+", " ", text), source)
        if wrapper is not None:
            entries.append(wrapper)
    return entries


_HELP_OPTION = re.compile(
    r"^\s{1,8}((?:-\w|--[\w-]+)[^\s]*(?:[ ,]+(?:-\w|--[\w-]+)\S*)*(?: [A-Z<][\w<>-]*)?)\s{2,}(.+)$"
)


def mine_help_text(program: str, text: str) -> list[CatalogueEntry]:
    """The catalogue entries a program's ``--help`` output documents."""
    entries: list[CatalogueEntry] = []
    for line in text.splitlines():
        match = _HELP_OPTION.match(line)
        if match is not None:
            entries.extend(_entries_from_option(program, match.group(1), match.group(2), "--help"))
    usage = re.search(r"^(?:Usage|usage):\s*(.+)$", text, re.MULTILINE)
    if usage is not None:
        usage_line = usage.group(1).strip()
        if usage_line.startswith(program):
            wrapper = _wrapper_entry(program, usage_line, "--help")
            if wrapper is not None:
                entries.append(wrapper)
    return entries


_BUILTIN_OPTION_LINE = re.compile(r"^\s{4,}(-\w)(?: ([a-z][\w:-]*))?\t\s*(.+)$")
_BUILTIN_SYNOPSIS_OPTION = re.compile(r"\[(-\w) ([a-z][\w:-]*)\]")


def mine_builtin_help(name: str, text: str) -> list[CatalogueEntry]:
    """The catalogue entries bash's ``help NAME`` documents for a builtin.

    Its options (``-C callback  Evaluate CALLBACK...``, ``-f  Load builtin NAME from shared object``),
    the options its synopsis names by what they take (``compgen [-F function] [-C command]``), and a
    form that runs its operands (``jobs -x command [args]``: a wrapper, ``jobs -x``).
    """
    lines = text.splitlines()
    synopsis = lines[0].partition(": ")[2] if lines else ""
    entries: list[CatalogueEntry] = []
    for line in lines[1:]:
        match = _BUILTIN_OPTION_LINE.match(line)
        if match is not None:
            option, argument, description = match.groups()
            head = f"{option} {argument}" if argument else f"{option} FILENAME"
            if argument is None and not _LOADS_CODE.search(description):
                continue
            entries.extend(_entries_from_option(name, head, description, "help"))
    for option, argument in _BUILTIN_SYNOPSIS_OPTION.findall(synopsis):
        if _COMMAND_NAMES.match(argument) or argument == "function":  # ``compgen -F function``
            entries.append(CatalogueEntry(name, "option-command", option, " ", (), "help", synopsis[:160]))
    runs = re.search(rf"\b{re.escape(name)} (-\w) (?:command|COMMAND) \[(?:args|arg|ARG)", synopsis)
    if runs is not None:
        entries.append(
            CatalogueEntry(f"{name} {runs.group(1)}", "wrapper", "", " ", (), "help", synopsis[:160])
        )
    return entries


def _bash_builtins() -> dict[str, str]:
    """Every builtin of the machine's bash and its ``help`` text ({} without bash)."""
    bash = shutil.which("bash")
    if bash is None:
        return {}
    run = [bash, "--norc", "--noprofile", "-c"]
    try:
        names = subprocess.run([*run, "compgen -b"], capture_output=True, text=True, timeout=10, check=False)
        found = {}
        for name in names.stdout.split():
            done = subprocess.run(
                [*run, f"help -- {shlex.quote(name)}"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
            found[name] = done.stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return found


def _listing(directory: str) -> list[str]:
    """The names in ``directory``, sorted ([] when it can't be read)."""
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _installed(bin_dirs: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for directory in bin_dirs:
        for name in _listing(directory):
            found.setdefault(name, os.path.join(directory, name))
    return found


def _help_output(path: str) -> str:
    """``path --help`` in a throwaway sandbox (no network, read-only root, a fresh /tmp), or ""."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev"]
    argv += ["--proc", "/proc", "--tmpfs", "/tmp", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"]
    try:
        done = subprocess.run(
            [*argv, path, "--help"], capture_output=True, timeout=3, check=False, stdin=subprocess.DEVNULL
        )
    except (subprocess.TimeoutExpired, OSError):
        return ""
    return (done.stdout + done.stderr).decode("utf-8", "replace")[:20000]


def mine_catalogue(
    man_dirs: Sequence[str] = MAN_DIRS, bin_dirs: Sequence[str] = BIN_DIRS, *, run_help: bool = True
) -> tuple[CatalogueEntry, ...]:
    """Mine the catalogue from the installed programs' manual pages (and ``--help`` where none)."""
    installed = _installed(bin_dirs)
    entries: set[CatalogueEntry] = set()
    documented: set[str] = set()
    for directory in man_dirs:
        for page in _listing(directory):
            program = page.split(".")[0]
            if program not in installed and "-" in program and program.split("-")[0] in installed:
                program = program.replace("-", " ", 1)  # git-rebase(1) documents ``git rebase``
            if program.split(" ")[0] not in installed:
                continue
            path = os.path.join(directory, page)
            try:
                opener = gzip.open if page.endswith(".gz") else open
                with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
                    troff = handle.read()
            except OSError:
                continue
            documented.add(program)
            entries.update(mine_manual_page(program, troff, path))
    if run_help:
        for program, path in sorted(installed.items()):
            if program not in documented and os.access(path, os.X_OK):
                entries.update(mine_help_text(program, _help_output(path)))
    for name, text in _bash_builtins().items():
        entries.update(mine_builtin_help(name, text))
    # One entry per (program, kind, option): the first page that documents it.
    unique: dict[tuple[str, str, str], CatalogueEntry] = {}
    for entry in sorted(entries):
        unique.setdefault((entry.program, entry.kind, entry.option), entry)
    return tuple(unique.values())


def confirm_entries(entries: Sequence[CatalogueEntry], sandbox: BashSandbox) -> tuple[CatalogueEntry, ...]:
    """``entries``, each ``confirmed`` with the first probe in which ``sandbox`` saw it run a command.

    All probes of an entry run in one line, each in ``timeout`` and each running ``rm -rf x<k>``: the
    ``k`` in what the oracle saw says which probe worked.
    """
    sandbox = sandbox.running_for_real((*(e.program.split(" ")[0] for e in entries), "timeout"))
    confirmed = []
    for entry in entries:
        probes = entry.probes()
        lines = []
        for k, (escape, tail) in enumerate(probes):
            marker = f"rm -rf x{k}"
            line = entry.command_line(marker, shlex.quote(entry.escape_for(escape) + marker), tail)
            lines.append(f"timeout -s KILL 3 bash -c {shlex.quote(line)} </dev/null")
        try:
            ran = sandbox.executed("\n".join(lines), timeout=4.0 * len(lines) + 5)
        except RuntimeError:
            ran = []
        hits = {
            int(argument[1:])
            for record in ran
            if record[0] == "rm"
            for argument in record
            if re.fullmatch(r"x\d+", argument)
        }
        first = min(hits) if hits else None
        confirmed.append(replace(entry, confirmed=probes[first] if first is not None else None))
    return tuple(confirmed)


def load_catalogue(path: Path = CATALOGUE_FILE) -> tuple[CatalogueEntry, ...]:
    """The committed catalogue (see the module's docstring for how it is mined)."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    entries = []
    for row in rows["entries"]:
        confirmed = row.get("confirmed")
        fields = {
            **row,
            "operands": tuple(row["operands"]),
            "confirmed": tuple(confirmed) if confirmed else None,
        }
        entries.append(CatalogueEntry(**fields))
    return tuple(entries)


def main(argv: Sequence[str] = ()) -> int:
    """Mine the catalogue and write it to ``program_catalogue.json`` (or the path given)."""
    target = Path(argv[0]) if argv else CATALOGUE_FILE
    entries = mine_catalogue()
    sandbox = bash_sandbox()
    if sandbox is None:
        print(f"not confirmed by the oracle: {bash_sandbox_problem()}", file=sys.stderr)
    else:
        entries = confirm_entries(entries, sandbox)
    document = {
        "generated_by": "python -m pytest_toolharness._strategies.program_catalogue",
        "entries": [asdict(entry) for entry in entries],
    }
    target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    confirmed = sum(1 for entry in entries if entry.confirmed)
    print(
        f"{len(entries)} entries ({confirmed} confirmed) from {len({e.program for e in entries})} programs -> {target}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
