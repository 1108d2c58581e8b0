"""Which programs the permission engine can read, and with which options (PERM-17: fail closed by principle).

Under a deny or ask rule a command is allowed without asking only when every program it runs, and
every way those programs run others, is modelled here or in the modules beside it (wrappers, shells,
``find -exec``, the command options of :mod:`~reference_impl.permissions._programs`). A program is
*read* when:

* it is in :data:`PLAIN_PROGRAMS`: its documentation gives it no way to start another program
  whatever its options (``ls``, ``cat``, ``grep``...), or
* it has a model here: its options that start programs are known (``rg --pre``, ``wget --use-askpass``,
  an abbreviation of one counts as the option), and for programs with subcommands (``git``, ``npm``,
  ``cargo``, ``go``...) the subcommand is one the model knows. Running the project's own code
  (``make``, ``npm test``, ``pytest``, ``python3 script.py``) is read: that code is on disk before the
  line runs; a file the *same line* writes is not (:func:`~reference_impl.permissions._line_writes.unread_by_writes`).

Anything else is *unread*: :func:`unread_program` says why (the program is not modelled, an option or
subcommand is not, an interpreter runs inline code or code from its input). The engine asks about an
unread command under a deny or ask rule, unless an allow rule whose pattern starts with that program's
name covers the command: the user's explicit trust of that form. Keyword screens of inline code are not
used: an interpreter's own decoding (escapes, ``chr``, base64) walks around any screen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reference_impl.permissions._descriptors import descriptor_of
from reference_impl.permissions._program_grammar import screened_alias, started_by_options, value_positions

__all__ = [
    "INLINE_CODE",
    "OPTION_STARTS_PROGRAM",
    "PLAIN_PROGRAMS",
    "is_interpreter",
    "is_modelled",
    "is_plain_git_key",
    "makefile_from_descriptor",
    "running_form",
    "unread_program",
    "without_git_display_options",
]

Words = Sequence[str | None]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


PLAIN_PROGRAMS = _names(
    # Files and directories.
    "ls dir vdir cat tac head tail wc cp mv rm rmdir mkdir touch ln link unlink chmod chown chgrp stat file "
    "du df tree realpath readlink basename dirname pwd cd pushd popd dirs mktemp truncate shred sync "
    "tee dd csplit md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum "
    "base32 base64 basenc od xxd hexdump strings cmp diff comm join paste cut tr fold fmt nl pr "
    "expand unexpand uniq shuf column rev look tsort numfmt "
    # Searching text (not ripgrep: its --pre runs a program).
    "grep egrep fgrep zgrep zcat bzcat xzcat zstdcat gzip gunzip bzip2 bunzip2 xz unxz lzma zstd unzstd "
    "unzip jq "
    # Shell builtins and small utilities that start nothing.
    "echo printf true false : test [ [[ source . sleep seq yes date cal id whoami who w groups users uname hostname "
    "arch nproc uptime free ps pgrep pstree kill pkill killall tty stty locale getconf printenv "
    "which type help umask ulimit wait jobs shift exit return break continue set shopt "
    "unset export declare typeset local readonly read mapfile readarray getopts let "
    "journalctl lsof netstat ss ping host dig nslookup lscpu lsblk lsusb lspci vmstat iostat "
    "bc expr factor"
)
"""Programs (and builtins) that start no other program, whatever their options."""

# Programs with options that start a program: short option letters and long option names (an
# unambiguous abbreviation of a long name is that option, as GNU getopt reads it).
_SCREENED: dict[str, tuple[str, tuple[str, ...]]] = {
    "rg": ("", ("pre", "pre-glob", "search-zip")),
    # Options naming a startup or configuration file, which holds such options or commands
    # (``wget --config`` with ``use_askpass``, ``curl -K``, ``less --lesskey-src`` with ``LESSOPEN``),
    # or loading code (``curl --engine`` dlopens a shared object).
    "wget": ("e", ("execute", "use-askpass", "config")),
    "curl": ("K", ("config", "engine")),
    "zip": ("T", ("unzip-command", "test")),
    "rsync": ("e", ("rsh", "rsync-path", "config")),
    "scp": ("SFoD", ()),
    "sftp": ("SFoDb", ()),  # ``-b batchfile``: its ``!command`` lines run in a local shell
    "man": ("PHplC", ("pager", "html", "preprocessor", "local-file", "config-file")),
    "sort": ("", ("compress-program",)),
    "split": ("", ("filter",)),
    "tar": (
        "IF",
        (
            "to-command",
            "use-compress-program",
            "info-script",
            "new-volume-script",
            "checkpoint-action",
            "rsh-command",
            "rmt-command",
        ),
    ),
    "sed": ("f", ("file",)),
    "awk": ("f", ("file", "exec", "load", "include")),
    "gawk": ("fEil", ("file", "exec", "load", "include")),
    "mawk": ("f", ()),
    "nawk": ("f", ()),
    "find": ("", ()),
    "make": ("E", ("eval",)),
    "install": ("", ("strip-program",)),
    "patch": ("", ()),
    "less": ("k", ("lesskey-file", "lesskey-src", "lesskey-content")),
    "xdg-open": ("", ()),
}

# Subcommands a program runs and the model knows (an unknown one may be an alias or a plug-in program).
_GIT_READ = _names(
    "status log diff show branch add commit checkout switch restore fetch pull push clone init merge "
    "rebase stash tag remote rev-parse ls-files ls-tree ls-remote blame grep describe reset clean mv rm "
    "cherry-pick revert config worktree submodule bisect apply am format-patch shortlog reflog gc fsck "
    "cat-file rev-list notes archive show-ref symbolic-ref merge-base name-rev count-objects version "
    "help whatchanged range-diff cherry for-each-ref update-index update-ref hash-object write-tree "
    "read-tree diff-tree diff-index diff-files check-ignore check-attr mktree var sparse-checkout "
    "restore maintenance verify-commit verify-tag difftool"
)
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": _GIT_READ,
    "npm": _names(
        "test t tst ci install i isntall add run run-script rum urn start stop restart ls list ll la view "
        "info show v outdated audit version pack uninstall remove rm r un unlink update up upgrade prune "
        "dedupe ddp why explain root prefix help whoami ping doctor fund cache search s find owner "
        "login logout publish deprecate dist-tag query sbom"
    ),
    "cargo": _names(
        "build b check c test t run r fmt clippy doc d bench clean update add remove rm new init tree "
        "metadata search fetch package publish version help vendor locate-project generate-lockfile"
    ),
    "go": _names("build test run vet fmt mod get install version list clean doc help work tool"),
    "pip": _names("install uninstall list show freeze download wheel check search index inspect help"),
    "uv": _names("sync lock add remove pip venv tree build publish version help"),
    "poetry": _names("install add remove update lock show check build version env"),
    "yarn": frozenset(),  # every name but the ones below is a package.json script or command
    "pnpm": frozenset(),
    "systemctl": _names(
        "status is-active is-enabled is-failed list-units list-unit-files list-timers show cat start stop "
        "restart reload enable disable daemon-reload --version"
    ),
    "docker": _names("ps images pull push build logs inspect version info login logout tag rmi stop buildx"),
}
_ALIASES = {"pip3": "pip", "gmake": "make", "ginstall": "install"}
# yarn/pnpm: ``yarn NAME`` runs the project's script NAME; these run a package or a command instead.
_RUNS_ANYTHING = {
    "yarn": frozenset({"exec", "dlx", "node", "create"}),
    "pnpm": frozenset({"exec", "dlx", "create", "x"}),
}
# Options that change what runs: a command, a shell for the scripts, a configuration key.
_SUBCOMMAND_SCREENS: dict[str, tuple[str, tuple[str, ...]]] = {
    "npm": ("c", ("script-shell", "call", "node-options", "userconfig", "globalconfig", "shell")),
    "yarn": ("", ("script-shell",)),
    "pnpm": ("c", ("script-shell", "shell-emulator")),
    "cargo": ("Z", ("config",)),
    "go": ("", ("exec", "toolexec", "overlay", "modfile")),
    "git": (
        "",
        # ``clone --config``: a key set in the new repository before it fetches (core.sshCommand).
        (
            "upload-pack",
            "receive-pack",
            "exec",
            "extcmd",
            "exec-path",
            "template",
            "tool",
            "config-env",
            "config",
        ),
    ),
    # ``--config DIR``: the CLI's configuration moved to DIR, with its plug-ins (DIR/cli-plugins, run
    # by ``info`` and ``--help`` for their metadata), contexts (an ssh:// one starts ssh) and
    # credential helpers: a directory of the project's, whose programs the engine does not read.
    "docker": ("", ("config",)),
}

_INTERPRETER_NAMES = re.compile(
    r"(python|pypy|perl|ruby|node|nodejs|deno|bun|php|lua|luajit|tclsh|wish|expect|guile|racket|Rscript|R|"
    r"julia|osascript|pwsh|gnuplot|jshell|groovy|irb|scala|sqlite3|psql|mysql|gdb|lldb|vim|vi|nvim|emacs|ed|ex)"
    r"[0-9.]*"
)
# node's own test reporters (doc/api/test.md, "Test reporters"): a name among them loads no module.
_NODE_OWN_REPORTERS = frozenset(("--test-reporter", r) for r in ("spec", "tap", "dot", "junit", "lcov"))
# Per interpreter family: the options giving inline code, and those naming a module or library to run.
_INLINE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "python": (("-c",), ("-m",)),
    "pypy": (("-c",), ("-m",)),
    "perl": (("-e", "-E"), ("-M", "-m")),
    "ruby": (("-e",), ("-r",)),
    "node": (("-e", "--eval", "-p", "--print"), ("-r", "--require", "--import", "--loader")),
    "nodejs": (("-e", "--eval", "-p", "--print"), ("-r", "--require", "--import", "--loader")),
    "php": (("-r", "-B", "-R", "-E"), ()),
    "lua": (("-e",), ("-l",)),
    "luajit": (("-e",), ("-l", "-j")),
}
# Options whose value is the rest of their word (perlrun, ``python3 --help``, ``ruby --help``): no letter
# after one of them is an option of its own.
_ATTACHED_VALUES = {"perl": "IMmx", "python": "WX", "pypy": "WX", "ruby": "Ir"}
_PYTHON_MODULES = _names(
    "pytest pip venv json.tool http.server unittest mypy black ruff isort flake8 pylint coverage build "
    "twine tox nox doctest py_compile compileall ensurepip site sysconfig platform tabnanny pydoc"
)
_HELP = frozenset({"-V", "--version", "-h", "--help", "-v"})


def is_interpreter(name: str) -> bool:
    """Whether ``name`` runs programs in a language of its own (inline, from a file or its input)."""
    return _INTERPRETER_NAMES.fullmatch(name) is not None


def _family(name: str) -> str:
    return re.sub(r"[0-9.]+$", "", name)


def _option_hits(word: str, short: str, long: tuple[str, ...], single_dash: bool = False) -> bool:
    """Whether ``word`` is (or abbreviates) one of the long options, or a short cluster holding one of the letters."""
    if single_dash and word.startswith("-") and not word.startswith("--"):
        word = "-" + word  # go's flags: ``-exec`` is a long option
    if word.startswith("--") and len(word) > 2:
        given = word[2:].partition("=")[0]
        return any(name.startswith(given) or given.startswith(name) for name in long)
    if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
        return any(letter in short for letter in word[1:])
    return False


# An option of a program the engine does not model that moves where it reads its configuration or
# plug-ins from (``--kubeconfig``, ``--config-dir``, ``--userconfig``, ``--plugin-dir``, ``--settings``).
_RELOCATING = re.compile(r"--?[\w-]*(config|plugin|settings|rcfile)[\w-]*(=.*)?", re.IGNORECASE | re.DOTALL)


INLINE_CODE = "runs inline code"
"""How an unread interpreter's reason names code given on its command line (``-c``, ``-e``)."""

OPTION_STARTS_PROGRAM = "may start a program the engine does not read"
"""How an unread program's reason ends when one of its options starts a program (``zip -TT CMD``)."""


def _screened(name: str, args: Words, short: str, long: tuple[str, ...], aliases: bool = True) -> str | None:
    # A run-time word its program reads as an option's value (``git commit -m "$(cat <<EOF ...)"``)
    # is data; anywhere else it may be an option.
    values = value_positions((name, *args))
    for index, word in enumerate(args, start=1):
        if word is None:
            if index in values:
                continue
            return f"{name} is given an option only known when it runs"
        if word == "--":
            break
        if _option_hits(word, short, long, single_dash=name == "go"):
            return f"{name}'s option {word.split('=', 1)[0]} {OPTION_STARTS_PROGRAM}"
    return _alias_screened(name, args, short, long) if aliases else None


def _alias_screened(name: str, args: Words, short: str, long: tuple[str, ...]) -> str | None:
    """Another spelling of a screened option, as the program's help pairs them (``-c, --config``)."""
    alias = screened_alias((name, *args), short, long)
    if alias is not None:
        return f"{name}'s option {alias.split('=', 1)[0]} {OPTION_STARTS_PROGRAM}"
    return None


def _interpreter(name: str, args: Words, stdin: str | None) -> str | None:
    family = _family(name)
    if family not in _INLINE:
        return f"{name} is an interpreter the engine does not read"
    inline, modules = _INLINE[family]
    if any(word in _HELP for word in args[:1]):
        return None  # it prints and exits
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word is None:
            return f"{name} is given code or options only known when it runs"
        if (family in ("python", "pypy") and word in ("-W", "-X", "--check-hash-based-pycs")) or (
            family in ("perl", "ruby") and word == "-I"
        ):
            skip = True  # an option whose value is the next word
            continue
        if descriptor_of(word) is not None:
            break  # its program is read from a descriptor: the command line's data, or unknown
        long_inline = [o for o in inline if o.startswith("--")]
        # A letter whose value is the rest of the word (``-Ivendor/lib``, ``-MHelper``) ends the cluster.
        cut = (
            re.match(rf"-[^{_ATTACHED_VALUES.get(family, '')}-]*.?", word)
            if not word.startswith("--")
            else None
        )
        cluster = cut.group() if cut is not None and family in _ATTACHED_VALUES else word
        if any(word == o or word.startswith(o + "=") for o in long_inline) or any(
            re.fullmatch(rf"-[A-Za-z]*{re.escape(o[1])}.*", cluster, re.DOTALL) for o in inline if len(o) == 2
        ):
            return f"{name} {INLINE_CODE} ({word[:12]}...): code of another language is not read"
        module = next((m for m in modules if word == m or (len(m) == 2 and word.startswith(m))), None)
        if module is not None:
            value = word[len(module) :].lstrip("=") or (args[i + 1] if i + 1 < len(args) else None)
            if family in ("python", "pypy") and value in _PYTHON_MODULES:
                return None
            return f"{name} runs the module {value!r}, which the engine does not read"
        if not word.startswith("-"):
            return None  # a script file of the project (a file this line writes is caught elsewhere)
    return f"{name} runs code read from its input ({'a here-document' if stdin is not None else 'stdin'})"


def _subcommand(name: str, args: Words) -> str | None:
    known = _SUBCOMMANDS[name]
    short, long = _SUBCOMMAND_SCREENS.get(name, ("", ()))
    why = _screened(name, args, short, long, aliases=False)  # the aliases last: a reason of its own first
    if why is not None:
        return why
    words = [w for w in args if w is not None]
    index = 0
    while index < len(words) and words[index].startswith("-"):
        # git's global options with a value: -C dir, -c key=value, --git-dir dir.
        takes = words[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--prefix")
        if name == "git" and words[index].startswith("-c"):
            setting = words[index][2:] or (words[index + 1] if index + 1 < len(words) else "")
            key = setting.split("=", 1)[0]
            if _GIT_RUNNING_KEYS.match(setting) and not _GIT_PLAIN_KEYS.fullmatch(key):
                return f"git -c {setting.split('=', 1)[0]}: a setting that runs a command or renames one"
        index += 2 if takes else 1
    sub = words[index] if index < len(words) else None
    if sub is None:
        return _alias_screened(name, args, short, long)
    if name in _RUNS_ANYTHING:
        return (
            f"{name} {sub} runs a package or command the engine does not read"
            if sub in _RUNS_ANYTHING[name]
            else _alias_screened(name, args, short, long)
        )
    if sub not in known:
        return f"{name} {sub} is a subcommand the engine does not read (it may be an alias or a plug-in)"
    if name == "git" and sub == "config":
        return _git_config(words[index + 1 :]) or _alias_screened(name, args, short, long)
    if name == "git" and sub in ("clone", "ls-remote", "archive"):
        # ``git clone -u CMD``: the upload-pack program (``archive --exec``) runs locally.
        rest = words[index + 1 :]
        if any(
            w.startswith("-") and not w.startswith("--") and "u" in w[1:] for w in rest if sub != "archive"
        ):
            return f"git {sub} -u runs an upload-pack command the engine does not read"
    return _alias_screened(name, args, short, long)


# ``git -c KEY=...`` keys that run a command, rename a subcommand, load more settings or allow a
# transport that runs one (``ext::``).
_GIT_RUNNING_KEYS = re.compile(r"(core|alias|include|includeif|protocol|uploadpack|receive)\.", re.IGNORECASE)


_GIT_READ_ONLY_CONFIG = frozenset(
    {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--name-only", "--get-urlmatch"}
)
# Keys whose value git only stores or displays (everything else might be run, or rename a command).
_GIT_PLAIN_KEYS = re.compile(
    r"(user\.(name|email|signingkey)|init\.defaultbranch|color\..*|pull\.(rebase|ff)|push\.(default|autosetupremote)|"
    r"fetch\.prune|merge\.ff|rebase\.autostash|branch\..*\.(remote|merge|rebase)|remote\..*\.(url|fetch|pushurl)|"
    r"advice\..*|log\..*|status\..*|commit\.(verbose|gpgsign)|tag\.gpgsign|safe\.directory|http\..*|"
    r"credential\.username|format\..*|column\..*|help\.autocorrect|"
    r"core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|precomposeunicode|eol|whitespace|abbrev|"
    r"longpaths|symlinks|untrackedcache|commentchar|compression|logallrefupdates|checkstat|trustctime|"
    r"repositoryformatversion|bare|sharedrepository|sparsecheckout|splitindex|preloadindex|autocrlf)|"
    r"extensions\..*|gc\..*|maintenance\.(auto|repo)|index\..*|pack\..*|protocol\.version|"
    r"submodule\..*\.(url|active|path|branch|shallow)|lfs\.(url|repositoryformatversion|locksverify)|"
    r"remote\..*\.(tagopt|prune|mirror|skipdefaultupdate|promisor|partialclonefilter)|"
    r"credential\..*\.username|checkout\.defaultremote|feature\..*|rerere\.enabled|diff\.(renames|algorithm|"
    r"colormoved|noprefix|mnemonicprefix|submodule|statgraphwidth|context|indentheuristic)|"
    r"merge\.(conflictstyle|renames|stat|log)|fetch\.(parallel|writecommitgraph|recursesubmodules)|"
    r"branch\.(autosetupmerge|autosetuprebase|sort)|tag\.sort|grep\.(linenumber|patterntype)|i18n\..*)",
    re.IGNORECASE,
)


def is_plain_git_key(key: str) -> bool:
    """Whether git only stores or displays ``key``'s value (anything else may be run or rename a command)."""
    return _GIT_PLAIN_KEYS.fullmatch(key) is not None


def _git_config(args: list[str]) -> str | None:
    """``git config``: reading is fine; writing a key the model does not know as plain data is unread."""
    if any(word in _GIT_READ_ONLY_CONFIG for word in args):
        return None
    operands = [word for word in args if not word.startswith("-")]
    if len(operands) <= 1:
        return None  # a read
    if is_plain_git_key(operands[0]):
        return None
    return f"git config writes {operands[0]!r}, a setting git may run as a command or an alias"


_PROJECT_RUNNERS = frozenset(
    [
        "pytest",
        "py.test",
        "tox",
        "nox",
        "mypy",
        "ruff",
        "black",
        "flake8",
        "eslint",
        "prettier",
        "tsc",
        "jest",
        "vitest",
    ]
)


def is_modelled(name: str) -> bool:
    """Whether the engine models program ``name`` (a basename): what its options run is known."""
    name = _ALIASES.get(name, name)
    return (
        name in PLAIN_PROGRAMS
        or name in _SUBCOMMANDS
        or name in _SCREENED
        or name in _PROJECT_RUNNERS
        or is_interpreter(name)
    )


def makefile_from_descriptor(args: Words) -> str | None:
    """The ``-f``/``--file``/``--makefile`` value of make that names a descriptor (``-f -``, ``-f /dev/stdin``)."""
    for i, word in enumerate(args):
        if word is None or not word.startswith("-") or (word.startswith("--") and "=" not in word):
            if word in ("--file", "--makefile") and i + 1 < len(args):
                value = args[i + 1]
                if value is not None and descriptor_of(value) is not None:
                    return value
            continue
        if word.startswith(("--file=", "--makefile=")):
            value = word.partition("=")[2]
        elif not word.startswith("--") and "f" in word[1:]:
            rest = word[word.index("f", 1) + 1 :]
            value = rest or (args[i + 1] if i + 1 < len(args) else None) or ""
        else:
            continue
        if value is not None and descriptor_of(value) is not None:
            return value
    return None


def unread_program(name: str, args: Words, stdin: str | None = None) -> str | None:
    """Why the engine can't read what program ``name`` (a basename) runs with ``args``, or None when it can."""
    name = _ALIASES.get(name, name)
    # An option the program's own help says takes a command (or code to load), in any spelling its
    # grammar reads: ``tar cIf CMD``, ``git grep -O'CMD'``, ``node --import=URL``.
    started = started_by_options((name, *args))
    loads = [c for c in started.commands if not (name in ("node", "nodejs") and c in _NODE_OWN_REPORTERS)]
    if loads:
        return f"{name}'s option {loads[0][0]} {OPTION_STARTS_PROGRAM}"
    if name in PLAIN_PROGRAMS:
        return None
    if name in _SUBCOMMANDS:
        return _subcommand(name, args)
    if name in _SCREENED:
        short, long = _SCREENED[name]
        why = _screened(name, args, short, long)
        if why is None and name == "make":
            makefile = makefile_from_descriptor(args)
            if makefile is not None:
                return f"make reads its makefile from {makefile!r}, a descriptor: what it runs is not read"
            # ``make CC='rm -rf x'``: a variable given on the command line is run by the recipes.
            assignment = next((w for w in args if w is not None and "=" in w and not w.startswith("-")), None)
            if assignment is not None:
                return (
                    f"make is given the variable {assignment.split('=', 1)[0]!r}, which its recipes may run"
                )
        return why
    if is_interpreter(name):
        return _interpreter(name, args, stdin)
    if name == "run-parts":
        # Its operand is a directory of programs, each run: the directory is the program run.
        folder = next((w for w in args if w is not None and not w.startswith("-")), None)
        if folder is not None:
            return f"run-parts runs every program in {folder!r}, which the engine does not read"
    if name in _PROJECT_RUNNERS:
        return None  # test runners and linters of the project: its own code
    relocating = next((w for w in args if w is not None and _RELOCATING.match(w)), None)
    if relocating is not None:
        # ``kubectl --kubeconfig=k``: an exec credential plugin of k runs; an allow rule on the program
        # trusts it with its own configuration, not with one the line names (it must name the option).
        option = relocating.split("=", 1)[0]
        return f"{name}'s option {option} takes its configuration (and the programs it names) from elsewhere"
    return f"{name} is not a program the permission engine models, so what it may run is not known"


def running_form(argv: Sequence[str]) -> tuple[str, ...]:
    """The leading words of an unread command that make it unread: what an allow rule must name to vouch.

    The shortest prefix the engine finds unread for the same reason as the whole command:
    ``git -c help.autocorrect=1 psuh o`` -> ``git -c help.autocorrect=1 psuh`` (the unknown subcommand),
    ``python3 -c CODE`` -> ``python3 -c``, ``zip a.zip f -T -TT C`` -> ``zip a.zip f -T``, a program
    not modelled at all -> its name. The whole command when no prefix is unread alone (fail closed).
    """
    if not argv:
        return ()
    name, args = argv[0].rsplit("/", 1)[-1], list(argv[1:])
    why = unread_program(name, args)
    if why is not None:
        for end in range(len(args) + 1):
            if unread_program(name, args[:end]) == why:
                return tuple(argv[: end + 1])
    return tuple(argv)


def without_git_display_options(argv: Words) -> list[str | None] | None:
    """``git -c core.quotepath=off --no-pager status`` as ``git status``: None when there is none to drop.

    Only options that change how git shows or stores data (``--no-pager``, ``-c`` of a plain key)
    are dropped, so that an allow rule written for the subcommand (``Bash(git status:*)``) matches.
    """
    kept: list[str | None] = [argv[0]]
    index, dropped = 1, False
    while index < len(argv) and argv[index] in ("-c", "--no-pager", "-P"):
        setting = argv[index + 1] if argv[index] == "-c" and index + 1 < len(argv) else None
        if argv[index] == "-c" and (
            setting is None or not _GIT_PLAIN_KEYS.fullmatch(setting.split("=", 1)[0])
        ):
            return None
        index += 2 if argv[index] == "-c" else 1
        dropped = True
    return [*kept, *argv[index:]] if dropped else None
