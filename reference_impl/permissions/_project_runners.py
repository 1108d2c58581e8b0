"""Programs whose documented job is to run the project's own code: test runners, task runners, build tools (PERM-17).

``rspec`` runs the spec files, ``rake`` the Rakefile, ``gradle`` evaluates build.gradle, ``go test`` the
package's tests, ``ctest`` the commands CTestTestfile.cmake names: code the engine does not read. Under
a deny or ask rule that code could meet, the line asks (:data:`~reference_impl.permissions._module_search.NOT_READ`),
whatever allow rule names the tool. ``poetry run X``, ``uv run X``, ``npx X``, ``bundle exec X`` run ``X``:
judged as ``X`` would be (and as a script the project installs under that name, unread).

``project_runners.json`` beside this module holds, for each program, what its own documentation says it
runs and where it says so (``source``); ``only`` lists the subcommands that run project code (absent:
every use but ``--help``/``--version``), ``wraps`` the subcommands that run the command after them
(``""``: the program itself, ``npx X``), ``when`` the configuration files (here or above) without which
it runs none (``eslint.config.js``; ``when_text``: mypy's ``plugins =``). A versioned name (``gradle-8``, ``go1.22``) is its program.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["RUNNERS_FILE", "installed_script", "runner_name", "runner_reason", "wrapped_commands"]

RUNNERS_FILE = Path(__file__).with_name("project_runners.json")
# Only these print and exit for every runner: ``-v`` is ninja's verbose, ``help`` a task a Rakefile may define.
_ONLY_PRINTS = frozenset({"--help", "--version"})
_VERSION = re.compile(r"(?<=[A-Za-z])-?[0-9][0-9.]*$")
_MAX_CHARS = 262_144
"""How much of a configuration file the engine reads; a longer one is taken to name anything."""


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(RUNNERS_FILE.read_text(encoding="utf-8"))["runners"]
    return data


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    found: dict[str, str] = {}
    for name, entry in _catalogue().items():
        found[name] = name
        found.update(dict.fromkeys(entry.get("aliases", ()), name))
    return found


@lru_cache(maxsize=1024)
def runner_name(program: str) -> str | None:
    """The catalogue's program ``program`` (a basename) is, by name, alias or versioned name; None if none."""
    names = _names()
    return names.get(program) or names.get(_VERSION.sub("", program))


def _operands(words: Sequence[str]) -> list[str]:
    return [w for w in words if not w.startswith("-")]


def runner_reason(program: str, words: Sequence[str], cwd: str) -> str | None:
    """Why ``program`` with ``words`` runs the project's own code, unread (its documentation's words), or None."""
    name = runner_name(program)
    if name is None:
        return None
    entry = _catalogue()[name]
    if "when" in entry:
        found = _configuration(entry["when"], entry.get("when_text"), cwd)
        return None if found is None else f"{program} runs the project's own code: {entry['runs']} ({found})"
    operands = _operands(words)
    if "only" in entry:
        only: list[str] = entry["only"]
        # An option before the subcommand may take the next word as its value (``go -C dir test``,
        # ``mvn -f pom.xml test``): then any operand naming such a subcommand is taken to be it.
        first = operands[0] if operands else None
        sure = not words or words[0] == first
        if not (first in only or (not sure and any(w in only for w in operands))):
            return None
    elif words and all(w in _ONLY_PRINTS for w in words):
        return None  # it prints its usage or version and exits
    return f"{program} runs the project's own code: {entry['runs']}"


def _configuration(names: Sequence[str], pattern: str | None, cwd: str) -> str | None:
    """The first of ``names`` in ``cwd`` or above it (holding ``pattern``, when given), or why it can't be read."""
    directory = posixpath.abspath(cwd)
    while True:
        for name in names:
            path = posixpath.join(directory, name)
            if not posixpath.isfile(path):
                continue
            if pattern is None:
                return path
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(_MAX_CHARS + 1)
            except OSError:
                return f"{path} could not be read"
            if len(text) > _MAX_CHARS or re.search(pattern, text, re.MULTILINE):
                return path  # longer than the engine reads: what follows may name one
        if posixpath.dirname(directory) == directory:
            return None
        directory = posixpath.dirname(directory)


def wrapped_commands(program: str, words: Sequence[str]) -> Iterator[list[str]]:
    """The commands ``program words`` may run after a subcommand of its ``wraps`` (``uv run --with x pytest``).

    Its options' values are not known here: each suffix starting with an operand is one reading
    (``x pytest`` and ``pytest``), as a wrapper's unknown options are read elsewhere (fail closed).
    """
    name = runner_name(program)
    if name is None:
        return
    for lead in _catalogue()[name].get("wraps", ()):
        rest = list(words)
        if lead:
            operands = _operands(rest)
            if not operands or operands[0] != lead:
                continue
            rest = rest[rest.index(lead) + 1 :]
        for index, word in enumerate(rest):
            if word != "--" and not word.startswith("-"):
                yield rest[index:]


_SCRIPT_TABLES = re.compile(
    r"^\[(?:project\.scripts|project\.gui-scripts|tool\.poetry\.scripts)\]", re.MULTILINE
)


def installed_script(command: str, cwd: str) -> str | None:
    """Why ``command`` (run by ``poetry run``/``uv run``) may be a script the project installs, or None.

    pyproject.toml's ``[project.scripts]`` (``[tool.poetry.scripts]``) name programs the project's
    environment runs as its own code; a pyproject.toml the engine can't read fully may name any.
    """
    directory = posixpath.abspath(cwd)
    while True:
        path = posixpath.join(directory, "pyproject.toml")
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(_MAX_CHARS + 1)
        except FileNotFoundError:
            text = None
        except OSError:
            return f"{path} could not be read: {command} may be a script the project installs"
        if text is not None:
            if len(text) > _MAX_CHARS:
                return (
                    f"{path} is longer than the engine reads: {command} may be a script the project installs"
                )
            key = re.compile(rf"^[ \t]*[\"']?{re.escape(command)}[\"']?[ \t]*=", re.MULTILINE)
            if _SCRIPT_TABLES.search(text) and key.search(text):
                return f"{command} may be a script {path} installs (the project's own code)"
            return None
        if posixpath.dirname(directory) == directory:
            return None
        directory = posixpath.dirname(directory)
