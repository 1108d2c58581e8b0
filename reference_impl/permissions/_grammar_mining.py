"""Mining ``program_grammar.json``: what each installed program makes of its options (PERM-17).

``python -m reference_impl.permissions._grammar_mining`` rewrites the catalogue
:mod:`~reference_impl.permissions._program_grammar` reads, from the machine's own programs:

- every program in ``/usr/bin`` and ``/bin`` whose ``--help`` (run in a throwaway bubblewrap sandbox
  with no network, twenty seconds at most) lists its options GNU-style (``-r, -R, --recursive``,
  ``-n, --lines=NUM``, ``--interactive[=WHEN]``): each spelling to one name, and which take a value;
- git: its global options from its usage line, its commands from ``git help -a``, and each
  command's options from ``git <command> -h``;
- npm: its commands and aliases from its own table (``lib/utils/cmd-list.js``) and its options'
  types from its configuration definitions.

It also rewrites ``program_starts.json`` (:mod:`~reference_impl.permissions._helper_mining`: the
programs each program may start with no option naming them, from its binary, its libraries, its
manual page or its script text), and ``project_hooks.json`` (:mod:`~reference_impl.permissions._project_hooks`): which
subcommands run code the project defines, from the tools' documentation on the machine: npm's
``scripts`` page (its lifecycle operation order, the files that make a default script) and the
command pages documenting ``ignore-scripts``; pip's usage lines taking a ``<local project path>``;
cargo's manual pages with Compilation Options, and its aliases from ``cargo --list``.

Nothing here runs when the harness does: the catalogue is committed, and
``tests/test_program_grammar.py`` checks it against the programs it names where they are installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from reference_impl.permissions._helper_mining import mine_starts
from reference_impl.permissions._program_grammar import GRAMMAR_FILE
from reference_impl.permissions._program_starts import STARTS_FILE
from reference_impl.permissions._project_hooks import HOOKS_FILE

__all__ = ["dumps", "help_options", "mine", "mine_project_hooks", "npm_lifecycle", "usage_options"]

_BIN_DIRS = ("/usr/bin", "/bin")
_NPM_ROOTS = ("/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm")
# "  -r, -R, --recursive   text", "      --interactive[=WHEN]  text", "  -n, --lines=[-]NUM  text"
# node pads its options to a column and, past it, leaves one space: ``--build-snapshot-config=... Generate``.
_OPTION_LINE = re.compile(
    r"^ {1,10}(-[^\s,]+(?:[ =]\S+)?(?:,\s+-[^\s,]+(?:[ =]\S+)?)*)(?:\s{2,}|$|(?<=\.\.\.) (?=[A-Z]))"
)
# An option argument named as something run: COMMAND, CMD, PROG, PROGRAM, <pager>, <command>, SHELL.
_COMMAND_ARGUMENT = re.compile(r"(?i)(command|cmd|prog|program|pager|shell|helper)")
# An argument named as a user or group is who runs a command, not the command (strace's ``-u USERNAME``:
# "run command as USERNAME").
_WHO_ARGUMENT = re.compile(r"(?i)(user(name)?|uid|gid|group)")
# A description saying the option's argument is run or loaded as code: a command, a script, or a
# module node loads (``-r``/``--import`` "module to preload", ``--loader`` "use the specified module
# as a custom loader", ``--test-reporter`` "the given reporter": a module, doc/api/test.md), or a
# V8 snapshot blob, whose main function node runs (``--snapshot-blob``), or builds one by running the
# builder script a configuration names (``--build-snapshot-config``: "Generate a snapshot blob").
_RUNS = re.compile(
    r"(?i)\b(run|execute|invoke)s?\b[^.]{0,40}\b(script|command|program|shell)\b|module to preload"
    r"|\bmodule as a\b[^.]{0,20}\b(loader|hooks?)\b|\busing the given reporter\b|\bsnapshot blob\b"
)
# "filter the archive through gzip", "pass output through 'pr' to paginate it" (diff -l).
_THROUGH = re.compile(r"\bthrough [`'\"]?([a-z][\w.-]*)")
_SPELLING = re.compile(r"^(--?[A-Za-z0-9?][\w-]*)(\[?=?)?(.*)$")


def _continued(lines: Sequence[str]) -> list[str]:
    """The lines that go on an option's description: indented deeper than an option line, no option."""
    found: list[str] = []
    for line in lines:
        if not line.startswith(" " * 12) or _OPTION_LINE.match(line) is not None:
            break
        found.append(line.strip())
    return found


def help_options(text: str) -> dict[str, Any]:
    """The options a GNU-style help text lists: ``names`` (spelling -> name), ``values``, ``optional``.

    Also ``commands``: the options whose argument is named as a command (``--to-command=COMMAND``,
    ``-O, --open-files-in-pager[=<pager>]``, ``--use-compress-program=PROG``), and ``helpers``: the
    options said to filter through a program (``-z, --gzip ... filter the archive through gzip``).
    """
    names: dict[str, str] = {}
    values: set[str] = set()
    optional: set[str] = set()
    commands: set[str] = set()
    helpers: dict[str, str] = {}
    lines = text.splitlines()
    for at, line in enumerate(lines):
        found = _OPTION_LINE.match(line)
        if found is None:
            continue
        spellings: list[tuple[str, str, str]] = []
        for token in re.split(r",\s+", found.group(1)):
            word, _, argument = token.partition(" ")
            parsed = _SPELLING.match(word)
            if parsed is None:
                break
            spellings.append((parsed.group(1), parsed.group(2) or "", parsed.group(3) or argument))
        if not spellings:
            continue
        name = spellings[0][0]
        for spelling, _, _ in spellings:
            names.setdefault(spelling, name)
        if any(mark.startswith("[") for _, mark, _ in spellings):
            optional.add(name)
        elif any(argument.strip("[]=") for _, _, argument in spellings):
            values.add(name)
        described = " ".join([line[found.end() :], *_continued(lines[at + 1 :])])
        if any(_COMMAND_ARGUMENT.fullmatch(argument.strip("[]=<> ")) for _, _, argument in spellings) or (
            _RUNS.search(described)
            and (name in values or name in optional)
            and not any(_WHO_ARGUMENT.fullmatch(argument.strip("[]=<> ")) for _, _, argument in spellings)
        ):
            commands.add(name)
        through = _THROUGH.search(described)
        # ``filter the archive through lzip``: the helper runs whether or not it is installed here (a
        # user's machine may have it, or a program of that name on PATH); another "through WORD" is
        # a helper only when WORD is a program here.
        if through is not None and (
            re.search(r"\bfilter\b", described) or shutil.which(through.group(1)) is not None
        ):
            helpers[name] = through.group(1)
    for noise in ("--help", "--version"):
        names.pop(noise, None)
    found_options: dict[str, Any] = {
        "names": dict(sorted(names.items())),
        "values": sorted(values),
        "optional": sorted(optional),
    }
    if commands:
        found_options["commands"] = sorted(commands)
    if helpers:
        found_options["helpers"] = dict(sorted(helpers.items()))
    return found_options


def usage_options(usage: str) -> dict[str, Any]:
    """The options of a synopsis such as git's: ``[-C <path>] [--git-dir=<path>] [--exec-path[=<path>]]``."""
    names: dict[str, str] = {}
    values: set[str] = set()
    optional: set[str] = set()
    for group in re.findall(r"\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]", usage):
        for alternative in group.split("|"):
            alternative = alternative.strip()
            parsed = _SPELLING.match(alternative)
            if parsed is None:
                continue
            spelling, mark, rest = parsed.group(1), parsed.group(2) or "", parsed.group(3).strip()
            names[spelling] = spelling
            if mark.startswith("["):
                optional.add(spelling)
            elif rest:
                values.add(spelling)
    for noise in ("--help", "--version"):
        names.pop(noise, None)
    return {"names": dict(sorted(names.items())), "values": sorted(values), "optional": sorted(optional)}


def _run(argv: list[str], sandboxed: bool = True) -> str:
    if sandboxed and shutil.which("bwrap"):
        argv = [
            "bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc",
            "--unshare-all", "--die-with-parent", "--chdir", "/tmp", "--", *argv,
        ]  # fmt: skip
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, errors="replace", timeout=20, stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C", "HOME": "/tmp", "TERM": "dumb"},
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def _programs() -> list[str]:
    seen: dict[str, None] = {}
    for folder in _BIN_DIRS:
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in entries:
            path = os.path.join(folder, name)
            if os.access(path, os.X_OK) and not os.path.isdir(path) and re.fullmatch(r"[\w.+-]+", name):
                seen.setdefault(name, None)
    return list(seen)


def _mine_help(names: Iterable[str]) -> dict[str, Any]:
    def one(name: str) -> tuple[str, dict[str, Any]]:
        return name, help_options(_run([name, "--help"]))

    found: dict[str, Any] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, options in pool.map(one, names):
            # A help text that pairs at least one short and one long spelling is GNU-style.
            pairs = [s for s, n in options["names"].items() if s != n]
            if options["names"] and pairs:
                found[name] = {"options": options}
    return found


def _mine_git() -> dict[str, Any] | None:
    if shutil.which("git") is None:
        return None
    usage = _run(["git", "--help"], sandboxed=False).split("\n\n", 1)[0]
    listing = _run(["git", "help", "-a"], sandboxed=False)
    commands = sorted({m.group(1) for m in re.finditer(r"^   ([a-z][\w-]*)\s", listing, re.MULTILINE)})
    sub_options = {}
    for command in commands:
        options = help_options(_run(["git", command, "-h"]))
        if options["names"]:
            sub_options[command] = options
    return {
        "global": usage_options(usage),
        "subcommands": commands,
        "sub_options": sub_options,
        "open_subcommands": True,
    }


_NPM_SCRIPT = """
const [root] = process.argv.slice(1);
const cmds = require(root + '/lib/utils/cmd-list.js');
const defs = require(root + '/node_modules/@npmcli/config/lib/definitions/index.js');
const flags = [], values = [];
for (const [key, d] of Object.entries(defs.definitions)) {
  const types = [].concat(d.type);
  (types.length === 1 && types[0] === Boolean ? flags : values).push(key);
}
console.log(JSON.stringify({commands: cmds.commands, aliases: cmds.aliases, flags, values,
  shorthands: defs.shorthands}));
"""


def _mine_npm() -> dict[str, Any] | None:
    root = next((r for r in _NPM_ROOTS if Path(r, "lib/utils/cmd-list.js").exists()), None)
    if root is None or shutil.which("node") is None:
        return None
    data = json.loads(_run(["node", "-e", _NPM_SCRIPT, root], sandboxed=False))
    names = {f"--{key}": f"--{key}" for key in (*data["flags"], *data["values"])}
    for short, expansion in data["shorthands"].items():
        # A shorthand that carries its value (``-s``: ``--loglevel silent``) takes no word of its own:
        # it is named with its value, as ``--loglevel=silent`` is read.
        name = expansion[0] if len(expansion) == 1 else f"{expansion[0]}={expansion[1]}"
        names.setdefault(f"-{short}" if len(short) == 1 else f"--{short}", name)
    return {
        "global": {
            "names": dict(sorted(names.items())),
            "values": sorted(f"--{key}" for key in data["values"]),
            "optional": [],
        },
        "subcommands": sorted(data["commands"]),
        "aliases": dict(sorted(data["aliases"].items())),
        "options_anywhere": True,
        "abbreviations": True,
    }


def mine() -> dict[str, Any]:
    """The catalogue as this machine's programs describe themselves."""
    programs = _mine_help(_programs())
    for name, miner in (("git", _mine_git), ("npm", _mine_npm)):
        entry = miner()
        if entry is not None:
            programs[name] = entry
    return {"mined_from": "python -m reference_impl.permissions._grammar_mining", "programs": programs}


def dumps(catalogue: dict[str, Any]) -> str:
    """The catalogue's bytes: sorted, compact, one program a line (a diff shows what changed)."""
    lines = [
        json.dumps(name) + ": " + json.dumps(entry, sort_keys=True, separators=(",", ":"))
        for name, entry in sorted(catalogue["programs"].items())
    ]
    head = json.dumps(catalogue["mined_from"])
    return '{"mined_from": ' + head + ', "programs": {\n' + ",\n".join(lines) + "\n}}\n"


_HEAD = re.compile(r"^#### \[`npm ([\w-]+)[^`]*`\]", re.MULTILINE)
_BULLET = re.compile(r"^\* `([^`]+)`\s*$", re.MULTILINE)
_DEFAULT = re.compile(
    r"If there is a `([^`]+)` file in the root of your package.*?default the `([\w-]+)` command to[^`]*`([^`]+)`",
    re.DOTALL,
)


def npm_lifecycle(scripts_page: str, command_pages: dict[str, str]) -> dict[str, Any]:
    """The lifecycle catalogue of npm from its ``scripts`` page and its commands' pages (name -> markdown).

    ``order``: each command's events as the "Life Cycle Operation Order" lists them, with the
    events of other commands its text says it runs (``npm restart``: ``stop`` and ``start``);
    ``runs_scripts``: the commands whose page documents ``ignore-scripts`` (``reifies`` is added
    from npm's source: those that change node_modules); ``runs_named_script``:
    those that option's text says run one particular script; ``defaults``: event -> (file, command)
    npm runs when the package has that file and no script of its own.
    """
    section = scripts_page.partition("### Life Cycle Operation Order")[2].partition("\n### ")[0]
    heads = list(_HEAD.finditer(section))
    order: dict[str, list[str]] = {}
    prose: dict[str, str] = {}
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(section)
        body = section[head.end() : end]
        command = head.group(1)
        order.setdefault(command, []).extend(_BULLET.findall(body))
        prose[command] = _BULLET.sub("", body)
    for command, text in prose.items():
        for named in re.findall(r"`([\w-]+)`", text):
            if named != command and named in order:
                order[command] += [e for e in order[named] if e not in order[command]]
    runs = sorted(name for name, page in command_pages.items() if "#### `ignore-scripts`" in page)
    ignore_text = next(
        (p.partition("#### `ignore-scripts`")[2].partition("\n####")[0] for p in command_pages.values()
         if "#### `ignore-scripts`" in p), "",
    )  # fmt: skip
    named_script = sorted(set(re.findall(r"`npm ([\w-]+)`", ignore_text)))
    defaults = {m.group(2): [m.group(1), m.group(3)] for m in _DEFAULT.finditer(scripts_page)}
    return {"order": order, "runs_scripts": runs, "runs_named_script": named_script, "defaults": defaults}


def _mine_npm_hooks() -> dict[str, Any] | None:
    root = next((Path(r) for r in _NPM_ROOTS if Path(r, "docs/content/using-npm/scripts.md").exists()), None)
    if root is None or shutil.which("node") is None:
        return None
    pages = {
        page.stem.removeprefix("npm-"): page.read_text(encoding="utf-8")
        for page in sorted((root / "docs/content/commands").glob("npm-*.md"))
    }
    found = npm_lifecycle((root / "docs/content/using-npm/scripts.md").read_text(encoding="utf-8"), pages)
    table = json.loads(_run(["node", "-e", _NPM_SCRIPT, str(root)], sandboxed=False))
    # The commands that change node_modules end in reify-finish, which runs the package's
    # (pre|post)dependencies scripts: the scripts page says "after any operation that modifies it".
    found["reifies"] = sorted(
        source.stem
        for source in (root / "lib/commands").glob("*.js")
        if re.search(r"reify-finish|reifyFinish", source.read_text(encoding="utf-8"))
    )
    return {**found, "commands": sorted(table["commands"]), "aliases": dict(sorted(table["aliases"].items()))}


def _mine_pip_hooks() -> dict[str, Any]:
    listing = _run([sys.executable, "-m", "pip", "help"], sandboxed=False)
    commands = re.findall(
        r"^  ([a-z][\w-]*)\s{2,}", listing.partition("Commands:")[2].partition("\n\n")[0], re.M
    )
    builds = [
        c
        for c in commands
        if "<local project path>" in _run([sys.executable, "-m", "pip", c, "--help"], sandboxed=False)
    ]
    return {"commands": sorted(commands), "builds_local": sorted(builds)}


def _toolchain_output(argv: list[str]) -> str:
    """A Rust toolchain program's output, run in this environment (rustup's proxies need its HOME)."""
    if shutil.which(argv[0]) is None:
        return ""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout


def _mine_cargo_hooks() -> dict[str, Any]:
    sysroot = _toolchain_output(["rustc", "--print", "sysroot"]).strip()
    pages = sorted(Path(sysroot, "share/man/man1").glob("cargo-*.1")) if sysroot else []
    documented = [p.stem.removeprefix("cargo-") for p in pages]
    compiles = [
        p.stem.removeprefix("cargo-")
        for p in pages
        if '.SS "Compilation Options"' in p.read_text(errors="replace")
    ]
    listing = _toolchain_output(["cargo", "--list"])
    aliases = dict(re.findall(r"^    ([\w-]+)\s+alias: ([\w-]+)", listing, re.MULTILINE))
    return {"documented": documented, "compiles": compiles, "aliases": dict(sorted(aliases.items()))}


def mine_project_hooks() -> dict[str, Any]:
    """Which subcommands run code the project defines, from the tools' own documentation on this machine."""
    return {
        "mined_from": "python -m reference_impl.permissions._grammar_mining",
        "npm": _mine_npm_hooks(),
        "pip": _mine_pip_hooks(),
        "cargo": _mine_cargo_hooks(),
    }


def _program_paths() -> dict[str, str]:
    paths: dict[str, str] = {}
    for folder in _BIN_DIRS:
        for name in _programs():
            path = os.path.join(folder, name)
            if name not in paths and os.path.exists(path):
                paths[name] = path
    return paths


def main() -> int:
    catalogue = mine()
    GRAMMAR_FILE.write_text(dumps(catalogue), encoding="utf-8")
    starts = mine_starts(_program_paths(), lru_cache(maxsize=None)(lambda name: _run([name, "--help"])))
    STARTS_FILE.write_text(dumps(starts), encoding="utf-8")
    HOOKS_FILE.write_text(json.dumps(mine_project_hooks(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(catalogue['programs'])} programs written to {GRAMMAR_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
