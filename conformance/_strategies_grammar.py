"""Commands that mean what a deny rule names, spelled the ways the program itself reads alike (PERM-17).

The truth is each program's own description of its command line, read live from the machine (never
from the harness under test): a GNU program's ``--help`` pairs short and long options
(``-r, -R, --recursive``) and says which take a value; git's usage line lists its global options,
which stand before the subcommand; npm's command table (``lib/utils/cmd-list.js``) has its
aliases. A drawn rule names options or a subcommand; the drawn command has that effect in another
spelling: bundled or separate flags in any order, long forms and their unambiguous prefixes, options
after the operand (GNU permutes them), global options before the subcommand, an alias.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache, lru_cache

from hypothesis import strategies as st

__all__ = ["SameMeaning", "flag_programs", "same_meaning_commands", "same_value_commands"]

# Programs whose --help is GNU-style on a Debian-like machine; only those installed are drawn.
_FLAG_CANDIDATES = ("rm", "cp", "mv", "ln", "chmod", "chown", "mkdir", "touch", "ls", "du", "sort", "uniq")
_OPTION_LINE = re.compile(r"^ {1,8}(-\w)((?:, -\w)*), (--[\w-]+)(\S*)\s")
_GIT_SUBCOMMANDS = ("push", "commit", "reset", "clean", "checkout", "rebase", "branch")
_GIT_VALUES = {"<path>": ".", "<name>=<value>": "color.ui=auto", "<name>": "ns"}


@dataclass(frozen=True)
class SameMeaning:
    """A rule's text (``Bash(...)``), a command with the effect it names, and the program."""

    rule: str
    command: str
    program: str


def _live(*argv: str) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=10, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


@dataclass(frozen=True)
class _FlagProgram:
    flags: tuple[tuple[tuple[str, ...], str], ...]
    """Its value-less flags that have a long form: ((short spellings), long) each."""
    longs: tuple[str, ...]
    """Every long option it has (an abbreviation must be a prefix of only one)."""


@cache
def flag_programs() -> dict[str, _FlagProgram]:
    """The installed GNU programs with at least two value-less flags that have a long form."""
    found: dict[str, _FlagProgram] = {}
    for program in _FLAG_CANDIDATES:
        if shutil.which(program) is None:
            continue
        text = _live(program, "--help")
        flags = []
        for line in text.splitlines():
            match = _OPTION_LINE.match(line)
            if match is None or match.group(4):  # "--lines=NUM": takes a value
                continue
            shorts = (match.group(1), *re.findall(r"-\w", match.group(2)))
            flags.append((shorts, match.group(3)))
        longs = tuple(sorted(set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text))))
        if len(flags) >= 2:
            found[program] = _FlagProgram(tuple(flags), longs)
    return found


def _prefixes(long: str, others: list[str]) -> list[str]:
    """``long`` and its prefixes that no other long option of the program starts with (exact wins)."""
    unique = [
        long[:n] for n in range(4, len(long)) if not any(o.startswith(long[:n]) for o in others if o != long)
    ]
    return [*unique, long]


@st.composite
def _flag_case(draw: st.DrawFn) -> SameMeaning:
    programs = flag_programs()
    program = draw(st.sampled_from(sorted(programs)))
    flags, longs = programs[program].flags, list(programs[program].longs)
    chosen = draw(st.lists(st.sampled_from(range(len(flags))), min_size=2, max_size=3, unique=True))
    rule_letters = "".join(draw(st.permutations([flags[i][0][0][1] for i in chosen])))
    rule = f"Bash({program} -{rule_letters}:*)"
    spelled: list[str] = []
    bundle: list[str] = []
    for i in draw(st.permutations(chosen)):
        shorts, long = flags[i]
        how = draw(st.sampled_from(["short", "bundle", "long", "prefix"]))
        if how == "bundle":
            bundle.append(draw(st.sampled_from(shorts))[1])
        elif how == "short":
            spelled.append(draw(st.sampled_from(shorts)))
        else:
            spelled.append(draw(st.sampled_from(_prefixes(long, longs))) if how == "prefix" else long)
    if bundle:
        spelled.insert(draw(st.integers(0, len(spelled))), "-" + "".join(bundle))
    operand = "victim-dir"
    where = draw(st.sampled_from(["before", "after", "dashdash"]))
    if where == "after":  # GNU getopt permutes: options after the operand still count
        words = [program, operand, *spelled]
    elif where == "dashdash":
        words = [program, *spelled, "--", operand]
    else:
        words = [program, *spelled, operand]
    return SameMeaning(rule, " ".join(words), program)


@lru_cache(maxsize=1)
def _git_global_options() -> tuple[str, ...]:
    """Git's global options as its usage line lists them, each with a value where it takes one."""
    usage = _live("git", "--help").split("\n\n", 1)[0]
    options: list[str] = []
    for group in re.findall(r"\[([^\[\]]+)\]", usage):
        for alternative in (a.strip() for a in group.split("|")):
            match = re.fullmatch(r"(--?[\w-]+)(?:([ =])(<[^>]+>(?:=<[^>]+>)?))?", alternative)
            if match is None or match.group(1) in ("-h", "--help", "-v", "--version", "--html-path",
                                                   "--man-path", "--info-path"):  # fmt: skip
                continue  # these print and exit before any subcommand
            name, joint, value = match.groups()
            options.append(name if value is None else f"{name}{joint}{_GIT_VALUES.get(value, 'x')}")
    return tuple(options)


@st.composite
def _git_case(draw: st.DrawFn) -> SameMeaning:
    sub = draw(st.sampled_from(_GIT_SUBCOMMANDS))
    options = draw(st.lists(st.sampled_from(_git_global_options()), min_size=1, max_size=3))
    return SameMeaning(f"Bash(git {sub}:*)", " ".join(["git", *options, sub, "origin"]), "git")


@lru_cache(maxsize=1)
def _npm_aliases() -> dict[str, str]:
    for root in ("/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm"):
        table = f"{root}/lib/utils/cmd-list.js"
        if os.path.exists(table) and shutil.which("node"):
            script = "console.log(JSON.stringify(require(process.argv[1]).aliases))"
            text = _live("node", "-e", script, table)
            try:
                return dict(json.loads(text))
            except ValueError:
                return {}
    return {}


@lru_cache(maxsize=1)
def _npm_flags() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The options of npm that take no word of their own, from its config definitions; and its shorthands.

    Its boolean options and the shorthands of one or carrying their value (``-s`` is ``--loglevel
    silent``, whole in itself), but not those that print and exit (``--usage``, ``--version``) or
    reach outside the working directory (``--global``).
    """
    for root in ("/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm"):
        table = f"{root}/node_modules/@npmcli/config/lib/definitions/index.js"
        if not (os.path.exists(table) and shutil.which("node")):
            continue
        script = (
            "const d = require(process.argv[1]); const flags = Object.entries(d.definitions)"
            ".filter(([, v]) => [].concat(v.type).length === 1 && v.type === Boolean).map(([k]) => k);"
            "console.log(JSON.stringify({flags, shorthands: d.shorthands}))"
        )
        try:
            data = json.loads(_live("node", "-e", script, table))
        except ValueError:
            return (), ()
        quits = {"--usage", "--version", "--global"}
        whole = {f"--{k}" for k in data["flags"]}
        shorthands = [
            f"-{k}" if len(k) == 1 else f"--{k}"
            for k, v in data["shorthands"].items()
            if v[0] not in quits and (len(v) > 1 or v[0] in whole)
        ]
        longs = {f"--{k}" for k in data["flags"] if f"--{k}" not in quits}
        return tuple(sorted(longs | set(shorthands))), tuple(sorted(shorthands))
    return (), ()


@st.composite
def _npm_case(draw: st.DrawFn) -> SameMeaning:
    aliases = _npm_aliases()
    # Commands that do nothing outside the working directory, whatever a broken harness lets run.
    command = draw(st.sampled_from(sorted({"run", "test", "uninstall", "ls"} & set(aliases.values()))))
    names = sorted({command, *(a for a, c in aliases.items() if c == command)})
    written, spelled = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    # npm's own options, before the command or between it and its operand (npm reads both alike):
    # long ones or shorthands, single letters bundled as npm's option parser expands them (``-sd``).
    every, shorthands = _npm_flags()
    flags = (
        st.lists(st.sampled_from(every) | st.sampled_from(shorthands), max_size=2)
        if shorthands
        else st.just([])
    )
    before, between = draw(flags), draw(flags)
    letters = [f for f in between if re.fullmatch(r"-\w", f)]
    if len(letters) == 2 and draw(st.booleans()):
        between = [f for f in between if f not in letters] + ["-" + "".join(f[1] for f in letters)]
    # The rule names the command alone, or the command and its operand (``Bash(npm run deploy:*)``).
    named = draw(st.sampled_from([written, f"{written} x"]))
    return SameMeaning(f"Bash(npm {named}:*)", " ".join(["npm", *before, spelled, *between, "x"]), "npm")


def same_meaning_commands() -> st.SearchStrategy[SameMeaning]:
    """A rule naming options or a subcommand, and a command with that effect spelled otherwise."""
    cases: list[st.SearchStrategy[SameMeaning]] = []
    if flag_programs():
        cases.append(_flag_case())
    if shutil.which("git") and _git_global_options():
        cases.append(_git_case())
    if shutil.which("npm") and _npm_aliases():
        cases.append(_npm_case())
    if not cases:
        return st.nothing()
    return st.one_of(cases)


# chmod's modes, octal and symbolic, by the permission bits each leaves whatever the file had.
_CHMOD_WHO = ("a", "ugo", "u", "g", "o", "ug", "go", "uo")


@lru_cache(maxsize=512)
def _chmod_result(mode: str) -> int | None:
    """The permission bits real chmod leaves with ``mode``, the same from a file with none and one with all.

    None when they differ (the mode keeps some of what was there) or chmod refuses the mode.
    """
    results = set()
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "f")
        for start in (0o000, 0o777):
            with open(target, "w", encoding="utf-8"):
                pass
            os.chmod(target, start)
            done = subprocess.run(["chmod", mode, target], capture_output=True, timeout=10, check=False)
            if done.returncode != 0:
                return None
            results.add(stat.S_IMODE(os.stat(target).st_mode) & 0o777)
    return results.pop() if len(results) == 1 else None


@st.composite
def _chmod_mode(draw: st.DrawFn, bits: int) -> str:
    """A spelling of a chmod mode that leaves ``bits``: octal with leading zeros, or symbolic clauses."""
    how = draw(st.sampled_from(["octal", "equals", "clauses", "plus"]))
    if how == "octal":
        return "0" * draw(st.integers(0, 2)) + format(bits, "o")
    each = {c: (bits >> shift) & 7 for c, shift in (("u", 6), ("g", 3), ("o", 0))}

    def perms(value: int) -> str:
        return "".join(letter for letter, bit in (("r", 4), ("w", 2), ("x", 1)) if value & bit)

    if how == "equals" and len(set(each.values())) == 1:
        return f"{draw(st.sampled_from(['a', 'ugo']))}={perms(each['u'])}"
    if how == "plus" and bits == 0o777:
        return f"{draw(st.sampled_from(['a', 'ugo']))}+rwx"
    clauses = [f"{who}={perms(value)}" for who, value in each.items()]
    return ",".join(draw(st.permutations(clauses)))


@st.composite
def _chmod_case(draw: st.DrawFn) -> SameMeaning:
    bits = draw(st.sampled_from([0o777, 0o666, 0o755, 0o700, 0o644]))
    written, spelled = draw(_chmod_mode(bits)), draw(_chmod_mode(bits))
    # The truth is real chmod: both spellings leave the same bits whatever the file had.
    assert _chmod_result(written) == _chmod_result(spelled) == bits, (written, spelled)
    recursive = draw(st.sampled_from(["", "-R ", "--recursive "]))
    return SameMeaning(f"Bash(chmod {written}:*)", f"chmod {recursive}{spelled} victim-file", "chmod")


@st.composite
def _path_case(draw: st.DrawFn) -> SameMeaning:
    """A path operand spelled with repeated slashes, ``.`` and ``..``: the same file (the kernel's lookup)."""
    folder = tempfile.gettempdir()
    program, options = draw(
        st.sampled_from([("rm", "-rf"), ("rm", "-r -f"), ("chmod", "-R 700"), ("ls", "-l")])
    )
    name = f"{folder}/victim-dir"
    spellings = [
        f"{folder}//victim-dir",
        f"{folder}/./victim-dir",
        f"{folder}/victim-dir/",
        f"{folder}/x/../victim-dir",
    ]
    spelled = draw(st.sampled_from(spellings))
    assert os.path.normpath(spelled.replace("/x/../", "/")) == name
    return SameMeaning(f"Bash({program} {options} {name}:*)", f"{program} {options} {spelled}", program)


@st.composite
def _force_push_case(draw: st.DrawFn) -> SameMeaning:
    """``git push --force`` by git-push(1)'s own words: a ``+`` refspec forces that ref, ``--mirror`` force-updates."""
    before = draw(st.sampled_from(["", "-c color.ui=never ", "--no-pager ", "-C . "]))
    forced = draw(
        st.sampled_from(
            [
                "-f origin main",
                "origin +main",
                "origin +HEAD:refs/heads/main",
                "origin main +refs/tags/v1:refs/tags/v1",
                "--mirror origin",
                "origin main --force",
            ]
        )
    )
    rule = draw(st.sampled_from(["git push --force", "git push -f"]))
    return SameMeaning(f"Bash({rule}:*)", f"git {before}push {forced}", "git")


def same_value_commands() -> st.SearchStrategy[SameMeaning]:
    """A rule naming a value or an effect, and a command whose words the program reads as that value or effect.

    chmod's mode spelled otherwise (leading zeros, ``a=``, ``ugo=``, ``u=..,g=..,o=..``, ``a+rwx``),
    each checked against real chmod; a path operand spelled otherwise; a force push by a ``+``
    refspec or ``--mirror`` (git-push(1)).
    """
    cases: list[st.SearchStrategy[SameMeaning]] = [_path_case()]
    if shutil.which("chmod"):
        cases.append(_chmod_case())
    if shutil.which("git"):
        cases.append(_force_push_case())
    return st.one_of(cases)
