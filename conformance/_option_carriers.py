"""Lines whose program takes its script or loads code through options spelled its own way (PERM-17).

Drawn for :mod:`conformance.test_project_files`, from the programs' own ``--help``, read live:

- **sed**: the script running the denied program (GNU sed's ``e`` command) given as the first operand
  after any of sed's options in every spelling its help and GNU getopt take: a value as the next word
  or attached (``-l 5``, ``-l5``, ``--line-length=5``, ``--line-length 5``), a long option abbreviated
  (``--line-len 5``), short options bundled (``-nl 5``), ``-i[SUFFIX]``, options after the operand
  (getopt permutes them); or given by ``-e``/``--expression`` or a ``-f``/``--file`` script file;
- **node**: every option ``node --help`` describes as taking a module (its description wrapped over
  several lines read whole: ``--loader, --experimental-loader=...`` "use the specified module as a
  custom loader"), each of its spellings, its value attached by ``=`` or the next word, naming a
  file of the project that runs the denied program.

The real sed and node running the line are the judge (a drawn line that runs nothing is discarded).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from functools import cache

from hypothesis import strategies as st

__all__ = ["git_setting_commands", "node_loading_option", "sed_script_options"]

# sed options not drawn: printing instead of running, a mode that refuses ``e`` (``--posix``,
# ``--sandbox``), and the script's own options (drawn as the script's form).
_SED_NOT_DRAWN = re.compile(r"--(help|version|posix|sandbox|expression|file)$")


@cache
def _help(*argv: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


@cache
def _help_entries(program: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(spellings as the help writes them, the whole description) of each option ``program --help`` lists."""
    entries: list[tuple[list[str], list[str]]] = []
    for line in _help(program, "--help").splitlines():
        head = re.match(r"^ {1,8}(-\S.*?)(?: {2,}(.*))?$", line)
        if head is not None:
            entries.append((re.split(r",\s+", head.group(1)), [head.group(2) or ""]))
        elif entries and line.startswith(" " * 9) and line.strip():
            entries[-1][1].append(line.strip())
        elif not line.strip() and entries:
            entries[-1][1].append("")
    return tuple((tuple(s), " ".join(d).strip()) for s, d in entries)


def _longs(program: str) -> list[str]:
    return [re.split(r"[=\[ ]", s, maxsplit=1)[0] for spellings, _ in _help_entries(program) for s in spellings
            if s.startswith("--")]  # fmt: skip


def _abbreviations(long: str, longs: list[str]) -> list[str]:
    """``long`` and its prefixes that no other long option shares (GNU getopt_long reads them as it)."""
    return [
        long[:n] for n in range(3, len(long) + 1) if [o for o in longs if o.startswith(long[:n])] == [long]
    ]


def _sed_options_by_entry() -> list[list[list[str]]]:
    """Each sed option its help lists, as the words of every spelling (value ``5``, suffix ``.bak``)."""
    longs = _longs("sed")
    found: list[list[list[str]]] = []
    for spellings, _ in _help_entries("sed"):
        if any(_SED_NOT_DRAWN.match(re.split(r"[=\[ ]", s, maxsplit=1)[0]) for s in spellings):
            continue
        entry: list[list[str]] = []
        for spelling in spellings:
            name = re.split(r"[=\[ ]", spelling, maxsplit=1)[0]
            value = spelling[len(name) :]
            if name.startswith("--"):
                for long in _abbreviations(name, longs):
                    if value.startswith("["):  # --in-place[=SUFFIX]: only attached
                        entry += [[long], [f"{long}=.bak"]]
                    elif value:
                        entry += [[f"{long}=5"], [long, "5"]]
                    else:
                        entry.append([long])
            elif value.startswith("["):  # -i[SUFFIX]
                entry += [[name], [f"{name}.bak"]]
            elif value:
                entry += [[name, "5"], [f"{name}5"]]
            else:
                entry.append([name])
        found.append(entry)
    return found


@st.composite
def _sed_option(draw: st.DrawFn) -> list[str]:
    """One of sed's options in one of its spellings; half the time one taking a value (``-l N``, ``-i``)."""
    entries = _sed_options_by_entry()
    valued = [e for e in entries if any(len(s) == 2 or "=" in s[0] for s in e)]
    use_valued: bool = draw(st.booleans())
    pool = valued if valued and use_valued else entries
    entry = draw(st.sampled_from(pool))
    return draw(st.sampled_from(entry))


@st.composite
def _sed_options(draw: st.DrawFn) -> list[str]:
    """Zero to three of sed's options; short flags maybe bundled with a last short option taking a value."""
    chosen = draw(st.lists(_sed_option(), max_size=3))
    flags = [o[0] for o in chosen if len(o) == 1 and re.fullmatch(r"-\w", o[0])]
    valued = [o for o in chosen if len(o) == 2 and re.fullmatch(r"-\w", o[0])]
    if flags and valued and draw(st.booleans()):
        chosen = [o for o in chosen if o[0] not in flags and o is not valued[0]]
        chosen.append(["-" + "".join(f[1] for f in flags) + valued[0][0][1], valued[0][1]])
    return [word for option in chosen for word in option]


def sed_script_options(inner: str, data: st.DataObject) -> tuple[dict[str, str], str, str]:
    """(files, line, how) of a sed line whose script runs ``inner``, after options spelled sed's ways."""
    script = f"1e {inner}"
    files = {"in.txt": "a\n"}
    before = data.draw(_sed_options(), label="sed options before")
    after = data.draw(_sed_options(), label="sed options after the operand")
    form = data.draw(
        st.sampled_from(["operand", "operand", "operand", "-e", "--expression=", "--expr", "-f", "--file="]),
        label="script",
    )
    if form == "operand":
        words = [*before, script, *after, "in.txt"]
    elif form in ("-f", "--file="):
        files["s.sed"] = script + "\n"
        given = ["-f", "s.sed"] if form == "-f" else ["--file=s.sed"]
        words = [*before, *given, *after, "in.txt"]
    else:
        given = [f"--expression={script}"] if form.endswith("=") else [form, script]
        words = [*before, *given, *after, "in.txt"]
    return (
        files,
        "sed " + shlex.join(words),
        f"sed's script ({form}) after {shlex.join(before) or 'no options'}",
    )


@cache
def _node_module_options() -> tuple[str, ...]:
    """The options ``node --help`` says take a module: a value, and a description naming a module."""
    found: list[str] = []
    for spellings, description in _help_entries("node"):
        if re.search(r"\bmodule\b", description) and any(re.search(r"=|\s\S", s) for s in spellings):
            found += [re.split(r"[=\[ ]", s, maxsplit=1)[0] for s in spellings]
    return tuple(found)


def node_loading_option(inner: str, data: st.DataObject) -> tuple[dict[str, str], str, str]:
    """(files, line, how) of a node line whose option loads a project module that runs ``inner``."""
    options = _node_module_options()
    option = data.draw(st.sampled_from(options or ("--import",)), label="node option")
    name = data.draw(st.sampled_from(["m.cjs", "m.mjs", "m.js"]), label="module file")
    code = (
        f"import {{ execSync }} from 'child_process';\nexecSync({json.dumps(inner)});\n"
        if name.endswith(".mjs")
        else f"require('child_process').execSync({json.dumps(inner)});\n"
    )
    value = f"./{name}"
    spelled = (
        [f"{option}={value}"] if option.startswith("--") and data.draw(st.booleans()) else [option, value]
    )
    before = data.draw(st.sampled_from([[], ["--no-warnings"], ["--enable-source-maps"]]), label="before")
    words = ["node", *before, *spelled, "x.js"]
    files = {name: code, "x.js": "console.log(1);\n"}
    return files, shlex.join(words), f"node's {option} loading {name}"


# git's global options that print something and stop, or take over what git is (not drawn).
_GIT_NOT_DRAWN = re.compile(r"-v|--version|-h|--help|--(exec|html|man|info)-path|--super-prefix|--config-env")


@cache
def _git_global_options() -> tuple[tuple[str, str], ...]:
    """(option, what its value is: ``path``, ``name=value``, ``name`` or empty) from ``git --help``'s usage.

    The usage block before ``<command>``: ``[-C <path>] [-c <name>=<value>] [--namespace=<name>]...``.
    """
    usage = _help("git", "--help").split("<command>")[0]
    found = re.findall(r"(--?[\w-]+)(?:\[?[= ]<(\w+)>(=<\w+>)?\]?)?", usage)
    return tuple(
        (option, value + ("=value" if pair else ""))
        for option, value, pair in found
        if not _GIT_NOT_DRAWN.fullmatch(option)
    )


_GIT_VALUES = {"path": ".", "name": "ns", "name=value": "user.name=x"}


@st.composite
def _git_option(draw: st.DrawFn) -> list[str]:
    """One global option of git's, its value given as git takes it (the next word, or after ``=``)."""
    option, kind = draw(st.sampled_from(_git_global_options() or (("--no-pager", ""),)))
    if not kind:
        return [option]
    value = _GIT_VALUES.get(kind, "x")
    if option.startswith("--") and draw(st.booleans()):
        return [f"{option}={value}"]
    return [option, value]


def git_setting_commands(inner: str, data: st.DataObject) -> tuple[dict[str, str], str, str]:
    """(files, line, how) of a git line whose ``-c`` setting runs ``inner``, among global options drawn from git's usage.

    The setting: an alias running a shell command (``alias.x='!CMD'``, then ``x``), an external diff
    (``diff.external``, a script, then ``diff --no-index``), the ssh command (``core.sshCommand``, then
    ``ls-remote ssh://...``); 0-3 global options before it and 0-2 after it (``-C .``, ``-c
    user.name=x``, ``--namespace ns``, ``--no-pager``...). Real git is the judge.
    """
    files = {"a.txt": "a\n", "b.txt": "b\n", "ext.sh": f"#!/bin/sh\n{inner}\n"}
    kind = data.draw(st.sampled_from(["alias", "diff.external", "core.sshCommand"]), label="git setting")
    setting, command = {
        "alias": (f"alias.x=!{inner}", ["x"]),
        "diff.external": ("diff.external=./ext.sh", ["diff", "--no-index", "a.txt", "b.txt"]),
        "core.sshCommand": (f"core.sshCommand={inner}", ["ls-remote", "ssh://h/x"]),
    }[kind]
    before = [
        w for o in data.draw(st.lists(_git_option(), max_size=3), label="git options before") for w in o
    ]
    after = [w for o in data.draw(st.lists(_git_option(), max_size=2), label="git options after") for w in o]
    words = ["git", *before, "-c", setting, *after, *command]
    return files, shlex.join(words), f"git's -c {kind} after {shlex.join(before) or 'no options'}"
