"""Programs that run a command given in one of their options, or in code of their own language.

``tar --to-command=CMD``, ``split --filter=CMD``, ``sort --compress-program=PROG``, ``git -c
alias.x='!CMD'`` (and the other settings git runs as commands), ``ssh -o ProxyCommand=CMD`` and
``make --eval`` run a shell command the line holds as data: it is judged as a script, like ``bash -c``
(PERM-16: a wrapper is a command too). ``awk``'s ``system("CMD")`` is such a script when its argument
is a plain string; an awk program that pipes to a command, or calls ``system`` on anything else, runs
something only known when it runs (awk's string escapes are its own to decode). So does a ``sed``
script with GNU sed's ``e`` command or flag. Interpreters' inline code is not screened here: it is
unread (:mod:`~reference_impl.permissions._program_model`), since an interpreter's own decoding walks
around any keyword screen.

:func:`program_scripts` gives the scripts, or why what runs can't be known; the permission walk
judges the scripts as nested command lines and treats the unknown as it treats ``eval "$x"``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from reference_impl.permissions._awk_options import awk_program
from reference_impl.permissions._git_started import GIT_SIGNATURE_PROGRAMS, git_started
from reference_impl.permissions._program_grammar import options_given, started_by_options
from reference_impl.permissions._program_starts import started_by_default
from reference_impl.permissions._sed_options import sed_line

__all__ = ["default_programs", "helper_commands", "possible_helpers", "program_scripts"]

Words = Sequence[str | None]

# Settings whose value git runs as a shell command (case-insensitive, ``*`` any subsection).
_GIT_COMMAND_SETTINGS = re.compile(
    r"core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|sequence\.editor|pager\..+|"
    r"diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|"
    r"gpg(\..+)?\.program|credential(\..+)?\.helper|uploadpack\.packobjectshook|interactive\.difffilter|"
    r"sendemail\.(smtpserver|tocmd|cccmd)|web\.browser|browser\..+\.cmd|man\..+\.cmd|difftool\..+\.cmd|"
    r"mergetool\..+\.cmd|remote\..+\.(uploadpack|receivepack)",
    re.IGNORECASE,
)

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# awk: ``system(`` with one plain double-quoted string, the only call whose command can be read.
_AWK_SYSTEM = re.compile(r'\bsystem\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)')


def _option_values(args: Words, short: str, long: str) -> tuple[list[str], bool]:
    """The values of ``-X VALUE``/``-XVALUE`` and ``--long=VALUE``/``--long VALUE``; whether one is unknown.

    A long option may be abbreviated (``--to-comm=CMD``), as GNU getopt reads it.
    """
    values: list[str] = []
    unknown = False
    for i, word in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else ""
        if word is None:
            continue
        if word == "--":
            break
        value: str | bool | None = False
        given, eq, attached = word[2:].partition("=") if word.startswith("--") else ("", "", "")
        if long and given and long.startswith(given):
            value = attached if eq else following
        elif short and word == short:
            value = following
        elif short and len(short) == 2 and word.startswith(short) and not word.startswith("--"):
            value = word[2:]
        if value is False:
            continue
        if value is None:
            unknown = True
        elif isinstance(value, str):
            values.append(value)
    return values, unknown


def _tar(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    unknown = False
    for short, long in (
        ("", "to-command"),
        ("-I", "use-compress-program"),
        ("-F", "info-script"),
        ("", "new-volume-script"),
    ):
        values, missing = _option_values(args, short, long)
        scripts += values
        unknown = unknown or missing
    actions, missing = _option_values(args, "", "checkpoint-action")
    unknown = unknown or missing
    scripts += [a.split("=", 1)[1] for a in actions if a.startswith("exec=")]
    return scripts, "tar runs a command only known at run time" if unknown else None


# Programs (and git subcommands) with one option whose value is a command: (short, long) spellings.
_COMMAND_OPTIONS = {"split": ("", "filter"), "sort": ("", "compress-program")}
_GIT_COMMAND_OPTIONS = {"rebase": ("-x", "exec"), "difftool": ("-x", "extcmd")}


def _command_option(what: str, args: Words, short: str, long: str) -> tuple[list[str], str | None]:
    values, unknown = _option_values(args, short, long)
    return values, f"{what} runs a command only known at run time" if unknown else None


def _joined(words: Words) -> str | None:
    """``words`` as one shell command line (None when one is only known at run time)."""
    if any(w is None for w in words):
        return None
    return " ".join(shlex.quote(str(w)) for w in words)


def _git_subcommand(name: str, args: Words) -> tuple[list[str], str | None]:
    """What a git subcommand runs: ``rebase -x``, ``bisect run``, ``submodule foreach``, filters, tools."""
    if name in _GIT_COMMAND_OPTIONS:
        return _command_option(f"git {name}", args, *_GIT_COMMAND_OPTIONS[name])
    if name in ("bisect", "submodule"):
        verb = "run" if name == "bisect" else "foreach"
        words = list(args)
        if verb in words:
            command = _joined(words[words.index(verb) + 1 :])
            return ([command], None) if command else ([], f"git {name} {verb} runs a command only known then")
    if name == "filter-branch":
        scripts: list[str] = []
        for i, word in enumerate(args):
            if word is not None and word.startswith("--") and word.endswith("-filter"):
                value = args[i + 1] if i + 1 < len(args) else ""
                if value is None:
                    return scripts, "git filter-branch runs a filter only known at run time"
                scripts.append(value)
        return scripts, None
    if name == "config" and any(w is None or str(w).lower().startswith("alias.") for w in args):
        # A command written into git's configuration runs when the alias is used, maybe on this line.
        return [], "git config writes an alias, a command git runs later"
    return [], None


def _git(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    for i, word in enumerate(args):
        if word is None:
            return scripts, "git is given a setting only known at run time"
        if not word.startswith("-"):
            if i == 0 or args[i - 1] not in ("-c", "-C", "--git-dir", "--work-tree", "--namespace"):
                more, why = _git_subcommand(word, args[i + 1 :])
                return scripts + more, why
            continue
        if word.startswith("--config-env"):
            return scripts, "git takes a setting from the environment"
        if word == "-c" or (word.startswith("-c") and len(word) > 2):
            setting = word[2:] if len(word) > 2 else (args[i + 1] if i + 1 < len(args) else "")
            if setting is None:
                return scripts, "git is given a setting only known at run time"
            key, _, value = setting.partition("=")
            if key.lower() == "core.hookspath":
                # Not a command: a directory whose hooks git runs (``/dev/null``, a common way to
                # turn them off, holds none); their text is not read here.
                if value not in ("/dev/null", ""):
                    return (
                        scripts,
                        f"git runs the hooks in {value} (core.hooksPath), which the engine does not read",
                    )
            elif key.lower().startswith("alias.") and value.startswith("!"):
                scripts.append(value[1:])
            elif _GIT_COMMAND_SETTINGS.fullmatch(key):
                scripts.append(value)
    return scripts, None


def _ssh(args: Words) -> tuple[list[str], str | None]:
    scripts: list[str] = []
    values, unknown = _option_values(args, "-o", "")
    for value in values:
        parts = re.split(r"\s*=\s*|\s+", value, maxsplit=1)
        key, command = parts[0], parts[1] if len(parts) > 1 else ""
        if key.lower() in ("proxycommand", "localcommand", "knownhostscommand", "remotecommand"):
            scripts.append(command)
    return scripts, "ssh is given an option only known at run time" if unknown else None


def _awk(args: Words) -> tuple[list[str], str | None]:
    found = awk_program(args)  # as mawk(1) and gawk(1) read their options
    if found is None:
        return [], "awk runs a program read from a file"
    if None in found:
        return [], "awk's program is only known at run time"
    programs = [program for program in found if program is not None]
    scripts: list[str] = []
    for program in programs:
        # awk has no eval: a command starts only through ``system``, a pipe or an indirect call
        # (``@f()``), all syntax; a string's escapes (``"\162m"``) are awk's to decode, so only a
        # plain string without a backslash is read as the command.
        calls = [m.group(1) for m in _AWK_SYSTEM.finditer(program)]
        rest = _AWK_SYSTEM.sub("", program)
        if "|" in rest or "system" in rest or "@" in rest or any("\\" in call for call in calls):
            return [], "the awk program runs a command the engine does not read"
        scripts += calls
    return scripts, None


_SED_SIMPLE = frozenset("=dDgGhHnNpPxzF")
_SED_NUMBERED = frozenset("qQlL")


class _SedScript:
    r"""GNU sed's script grammar, read as sed reads it (``compile.c``): addresses, ``!``, one command each.

    :meth:`runs` says whether the script runs a command: the ``e`` command (after any address, with
    any flags or delimiter: ``/x/I e CMD``, ``\,x, e CMD``) or ``s///e``. A script this reading
    can't follow to its end is not read (fail closed).
    """

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _blanks(self) -> None:
        while self._peek() in (" ", "\t"):
            self.at += 1

    def _delimited(self, delimiter: str) -> None:
        """Up to the next unescaped ``delimiter`` (a newline in the pattern is refused, as sed does)."""
        while True:
            c = self._peek()
            if not c or c == "\n":
                raise ValueError("unterminated")
            self.at += 1
            if c == "\\":
                self.at += 1
            elif c == delimiter:
                return

    def _address(self) -> bool:
        c = self._peek()
        if c.isdigit():
            while self._peek().isdigit() or self._peek() == "~":
                self.at += 1
            return True
        if c == "$":
            self.at += 1
            return True
        if c in ("/", "\\"):
            self.at += 1
            if c == "\\":
                c = self._peek()
                self.at += 1
            self._delimited(c)
            while self._peek() in ("I", "M"):
                self.at += 1
            return True
        return False

    def _rest_of_line(self) -> None:
        while self._peek() not in ("", "\n"):
            self.at += 1

    def runs(self) -> bool:
        text = self.text
        while True:
            while self._peek() in (" ", "\t", "\n", ";"):
                self.at += 1
            if not self._peek():
                return False
            if self._peek() == "#":
                self._rest_of_line()
                continue
            if self._address():
                self._blanks()
                if self._peek() == ",":
                    self.at += 1
                    self._blanks()
                    if self._peek() in ("+", "~"):
                        self.at += 1
                    if not self._address():
                        raise ValueError("second address")
            self._blanks()
            while self._peek() == "!":
                self.at += 1
                self._blanks()
            command = self._peek()
            self.at += 1
            if command == "e":
                return True
            if command in ("{", "}") or command in _SED_SIMPLE:
                continue
            if command in _SED_NUMBERED:
                self._blanks()
                while self._peek().isdigit():
                    self.at += 1
            elif command in ":btTv":
                while self._peek() not in ("", "\n", ";"):  # a label ends at ``;`` too (GNU)
                    self.at += 1
            elif command in "aicrRwW":
                self._rest_of_line()  # text or a file name: to the end of the line
            elif command in ("s", "y"):
                delimiter = self._peek()
                if not delimiter or delimiter in ("\n", "\\"):
                    raise ValueError("delimiter")
                self.at += 1
                self._delimited(delimiter)
                self._delimited(delimiter)
                if command == "s":
                    while self._peek() and self._peek() in "gpiImMe0123456789w":
                        if self._peek() == "e":
                            return True
                        if self._peek() == "w":
                            self._rest_of_line()
                            break
                        self.at += 1
            else:
                raise ValueError(f"command {command!r} at {self.at} of {text!r}")


def _sed_runs(script: str) -> str | None:
    """Why the sed ``script`` may run a command, or None when it reads to its end and runs none."""
    try:
        runs = _SedScript(script).runs()
    except (ValueError, IndexError):
        return "the sed script is not one the engine reads to its end"
    return "the sed script runs a command (GNU sed's e)" if runs else None


def _sed(args: Words) -> tuple[list[str], str | None]:
    line = sed_line(args)  # sed's script as sed's own option grammar finds it (``sed -l 5 SCRIPT``)
    if line.exits:
        return [], None
    if line.unknown is not None:
        return [], f"sed's script is not known here: {line.unknown}"
    if line.from_file:
        return [], "sed runs a script read from a file"
    for script in line.scripts:
        why = _sed_runs(script)
        if why is not None:
            return [], why
    return [], None


def program_scripts(name: str, args: Words, stdin: str | None = None) -> tuple[list[str], str | None]:
    """The shell commands program ``name`` runs from ``args``, and why more may run (or None).

    ``stdin`` is the text of its here-document or here-string, if it has one (unused by the programs
    read here; kept so every reader of a command's input has one signature).
    """
    if name == "tar":
        return _tar(args)
    if name in _COMMAND_OPTIONS:
        return _command_option(name, args, *_COMMAND_OPTIONS[name])
    if name == "git":
        return _git(args)
    if name == "ssh":
        return _ssh(args)
    if name == "make":
        values, unknown = _option_values(args, "-E", "eval")
        if values or unknown:
            return [], "make runs the recipes of a makefile given on its command line"
        return [], None
    if name in _AWKS:
        return _awk(args)
    if name == "sed":
        return _sed(args)
    return [], None


# Other names of a multi-call program (a symlink or a one-line script on Debian: ``zcat`` is
# ``exec gzip -cd "$@"``, ``xzcat`` -> ``xz``): the command as the real program reads it.
_OTHER_NAMES = {
    "zcat": ("gzip", "-cd"),
    "gunzip": ("gzip", "-d"),
    "zgrep": ("gzip", "-cdfq"),
    "bzcat": ("bzip2", "-dc"),
    "bunzip2": ("bzip2", "-d"),
    "xzcat": ("xz", "-dc"),
    "unxz": ("xz", "-d"),
    "lzcat": ("xz", "--format=lzma", "-dc"),
    "unlzma": ("xz", "--format=lzma", "-d"),
    "lzma": ("xz", "--format=lzma"),
    "zstdcat": ("zstd", "-dc"),
    "unzstd": ("zstd", "-d"),
}
# git settings and options that make it start gpg (gpg.program's default) to sign.
_GIT_SIGNING = re.compile(r"(commit|tag|push)\.gpgsign=(true|yes|on|1)$", re.IGNORECASE)
_GIT_SIGNING_COMMANDS = frozenset({"commit", "merge", "rebase", "cherry-pick", "revert", "am", "pull"})
_GIT_URL_SSH = re.compile(r"(ssh|git\+ssh|ssh\+git)://", re.IGNORECASE)


# git commands that may reach a remote (over ssh when its configured URL says so) or sign (when the
# user's configuration says so): what they start is decided by configuration the line doesn't show.
_GIT_REMOTE_COMMANDS = frozenset(
    {
        "push",
        "pull",
        "fetch",
        "clone",
        "ls-remote",
        "remote",
        "submodule",
        "archive",
        "send-pack",
        "fetch-pack",
    }
)
_GIT_SIGNING_BY_CONFIG = frozenset(
    {"commit", "tag", "merge", "rebase", "cherry-pick", "revert", "am", "pull"}
)


# An operand naming another host (``host:path``, ``user@host:path``, ``[::1]:path``; not rsync's
# ``host::module``), or a URL of a transport ssh carries.
_REMOTE = re.compile(r"(?:[^/:@\s]+@)?(?:\[[^\]/]+\]|[^/:\s]+):(?!:)|(?:scp|sftp|ssh)://", re.IGNORECASE)
# GNU tar's ``-a``: the compressor each archive suffix selects (tar's suffixes.c).
_TAR_SUFFIXES = {
    "gzip": (".gz", ".tgz", ".taz"),
    "compress": (".Z", ".taZ"),
    "bzip2": (".bz2", ".tbz", ".tbz2", ".tz2"),
    "lzip": (".lz",),
    "lzma": (".lzma", ".tlz"),
    "lzop": (".lzo",),
    "xz": (".xz", ".txz"),
    "zstd": (".zst", ".tzst"),
}
_MAINTENANCE_SCHEDULERS = {
    "crontab": "crontab",
    "systemd-timer": "systemctl",
    "launchctl": "launchctl",
    "schtasks": "schtasks",
}
# What ``man`` starts to show a page when ``-P`` names no pager (man(1): $MANPAGER, $PAGER, else pager).
_MAN_SHOWS = ["man", "pager", "less"]


# The programs whose default helpers default_programs reads from their own options and operands.
_HELPERS_READ_FROM_OPTIONS = frozenset({"scp", "sftp", "rsync", "install", "ginstall", "tar", "npm"})


def default_programs(name: str, args: Words) -> tuple[list[str], list[str]]:
    """The programs ``name`` starts because an option that would name another is absent: (certain, possible).

    Each option naming a program has a default its manual gives, started when the option is not
    there: scp's and sftp's ``-S`` (ssh, for another host), rsync's ``-e`` (ssh), install's
    ``--strip-program`` (strip, with ``-s``), tar's ``-I`` (the compressor ``-a`` picks by the
    archive's suffix, any when the name is unknown) and ``--rsh-command`` (rsh, for a remote archive),
    git maintenance's ``--scheduler`` (crontab, or systemd's systemctl), git's and npm's help viewer
    (``help.format``, npm's ``viewer``: man, which starts a pager), ``npm version``'s git (unless
    ``--no-git-tag-version``), man's ``-P`` (the pager). An option that names the program is read
    elsewhere (screened or run as a command).
    """
    words = [w for w in args if w is not None]
    operands = [w for w in words if not w.startswith("-")]
    named = any(w.startswith(("-S", "-e", "--rsh")) for w in words)  # scp/sftp -S, rsync -e
    if name in ("scp", "sftp") and not named and (name == "sftp" or any(_REMOTE.match(w) for w in operands)):
        return ["ssh"], []
    remote = any(_REMOTE.match(w) and not w.lower().startswith("rsync://") for w in operands)
    if name == "rsync" and not named and remote:
        return ["ssh"], []
    if name in ("install", "ginstall"):
        given = options_given(("install", *args)) or {}
        return (["strip"] if "-s" in given and "--strip-program" not in given else []), []
    if name == "tar":
        return _tar_defaults(args)
    if name == "git":
        return _git_defaults(words)
    if name == "npm":
        sub = operands[0] if operands else None
        if sub == "version" and not {"--no-git-tag-version", "--git-tag-version=false"} & set(words):
            return [], ["git"]
        if sub in ("help", "hlep") and len(operands) > 1:
            return [], _MAN_SHOWS
    if name == "man" and operands and not {"-P", "--pager", "-k", "-f", "-w", "-W"} & set(words):
        return [], _MAN_SHOWS[1:]
    return [], []


def _tar_defaults(args: Words) -> tuple[list[str], list[str]]:
    given = options_given(("tar", *args))
    if given is None:
        return [], []
    certain: list[str] = []
    possible: list[str] = []
    archives = given.get("-f", [])
    if "-a" in given and "-I" not in given and {"-c", "-r", "-u"} & set(given):
        for archive in archives or [None]:
            found = [p for p, suffixes in _TAR_SUFFIXES.items() if archive and archive.endswith(suffixes)]
            if archive is None:
                possible += list(_TAR_SUFFIXES)  # a name only known at run time: any compressor
            certain += found
    # ``-f host:archive``: a remote archive, reached through rsh (rmt on the other side).
    remote = any(a is None or (_REMOTE.match(a) and not a.startswith("/")) for a in archives)
    if remote and "--force-local" not in given and "--rsh-command" not in given:
        possible += ["rsh", "ssh"]
    return certain, possible


def _git_defaults(words: list[str]) -> tuple[list[str], list[str]]:
    operands = [w for w in words if not w.startswith("-")]
    if "maintenance" in operands:
        rest = operands[operands.index("maintenance") + 1 :]
        if rest[:1] in (["start"], ["stop"]):
            chosen = next((w.partition("=")[2] for w in words if w.startswith("--scheduler=")), "auto")
            if chosen in _MAINTENANCE_SCHEDULERS:
                return [_MAINTENANCE_SCHEDULERS[chosen]], []
            return [], ["crontab", "systemctl"]
    # ``git help log``, ``git log --help``: help.format (man by default) shows the page.
    if ("help" in operands[:1] and len(operands) > 1) or (operands and "--help" in words):
        return [], _MAN_SHOWS
    return [], []


def possible_helpers(name: str, args: Words) -> list[str]:
    """The programs ``name`` may start by default, depending on what the line does not show.

    git's transport (a remote's configured URL may be ``ssh://``) and signing (``commit.gpgsign``
    in the user's configuration); tar reading an archive detects its compression itself; and what
    the machine's own files show a program starts with no option naming it (``diff -l``'s ``pr``,
    ``file -z``'s decompressors, ``man``'s pager and ``groff``: :mod:`._program_starts`). A deny or
    ask rule on such a program *may* apply: the engine asks (deny is broad), and only a rule naming
    the helper is affected.
    """
    words = [w for w in args if w is not None]
    # What the machine's files show the program starts whatever its options (diff: pr, file: zstd),
    # except where default_programs reads the program's own options for the same helpers (scp
    # starts ssh only for a remote operand: ``scp a b`` copies locally).
    mined = () if name in _HELPERS_READ_FROM_OPTIONS else started_by_default(name)
    defaults = [*default_programs(name, args)[1], *mined]
    if name == "git":
        found = set(words) & (_GIT_REMOTE_COMMANDS | _GIT_SIGNING_BY_CONFIG)
        helpers = ["ssh"] if found & _GIT_REMOTE_COMMANDS else []
        # gpg.format (in configuration the line may not show) picks gpgsm or ssh-keygen instead of gpg.
        helpers += list(GIT_SIGNATURE_PROGRAMS) if found & _GIT_SIGNING_BY_CONFIG else []
        return defaults + helpers + git_started(*_git_line(words))
    if name in ("tar", "bsdtar") and words:
        cluster = "" if words[0].startswith("--") else words[0].lstrip("-")
        if (
            "x" in cluster
            or "t" in cluster
            or {"--extract", "--list", "--get", "--diff", "--compare"} & set(words)
        ):
            return [*defaults, "gzip", "bzip2", "xz", "zstd", "lzip", "lzop", "compress", "lzma"]
    return defaults


def _git_line(words: list[str]) -> tuple[str | None, list[str], list[str]]:
    """The subcommand of a git line, the words after it and its ``-c`` settings (global options skipped)."""
    settings: list[str] = []
    index = 0
    while index < len(words) and words[index].startswith("-"):
        word = words[index]
        takes = word in (
            "-c",
            "-C",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--config-env",
            "--super-prefix",
        )
        if word.startswith("-c") and word != "-c" and not word.startswith("--"):
            settings.append(word[2:])
        elif word == "-c" and index + 1 < len(words):
            settings.append(words[index + 1])
        index += 2 if takes else 1
    if index >= len(words):
        return None, [], settings
    return words[index], words[index + 1 :], settings


def helper_commands(name: str, args: Words) -> list[str]:
    """The programs ``name`` starts by default, with no option naming them, as commands a deny rule is tried on.

    A compression helper (``tar czf`` starts ``gzip``), the real program behind another name of a
    multi-call binary (``zcat`` is ``gzip -cd``), git's ssh transport (``git ls-remote ssh://h/x``)
    and its signing program (``git -c commit.gpgsign=true commit`` starts ``gpg``). "No option
    starts a program" is not "starts no program": a deny rule on the helper applies (PERM-17).
    """
    words = [w for w in args if w is not None]
    if name in _OTHER_NAMES:
        return [" ".join((*_OTHER_NAMES[name], *(shlex.quote(w) for w in words)))]
    defaults = default_programs(name, args)[0]  # ``scp f h:x`` starts ssh, ``install -s`` strip
    if name == "git":
        helpers = defaults
        if any(_GIT_URL_SSH.match(w) for w in words):
            helpers.append("ssh")
        signs = _GIT_SIGNING_COMMANDS.intersection(words) and (
            {"-S", "--gpg-sign"} & {w.split("=")[0] for w in words}
        )
        if any(_GIT_SIGNING.match(w) for w in words) or signs:
            helpers.append("gpg")
        return helpers
    # Options the program's own help says filter through another program (``tar -z``: gzip), in
    # every spelling its grammar reads (``tar czf``, ``--gunzip``, ``--gz``).
    return list(dict.fromkeys([*defaults, *started_by_options((name, *words)).helpers]))
