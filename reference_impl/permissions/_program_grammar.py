"""Deny and ask rules judged on what a program makes of its arguments, not on their spelling (PERM-17, SBX-7).

``Bash(rm -rf:*)`` names an effect: remove recursively, by force. ``rm -fr d``, ``rm -r -f d``,
``rm --recursive --force d``, ``rm --rec --for d`` and ``rm d -rf`` have it too; ``git -C . push``
and ``git --git-dir=x push`` are ``git push``; ``npm rum deploy`` is ``npm run deploy``. A rule is
therefore also read the way the program reads its command line (:func:`grammar_match`):

- options are a *set*: short bundles split (``-fr`` is ``-f -r``), each spelling mapped to one name
  (``-R`` and ``--recursive`` are ``-r``; an unambiguous prefix of a long option is that option, as
  GNU getopt and git's parse-options read it), ``--opt=v`` and ``--opt v`` alike, options anywhere
  before ``--`` (GNU permutes them);
- a program with subcommands has its global options skipped and its subcommand's aliases and
  abbreviations resolved (``git``, ``npm``);
- the rule's options must all be among the command's, and its other words must begin the command's
  other words (a ``:*`` or trailing `` *`` rule) or equal them;
- a word the program reads as the same value is the same word (:func:`_same_operand`): a path
  operand lexically normalised (``//``, ``/.``, ``/tmp/..`` are ``/``), chmod's mode by the
  permission bits it leaves (``0777``, ``a+rwx``, ``ugo=rwx``, ``u=rwx,g=rwx,o=rwx`` are ``777``),
  a ``git push`` refspec with or without its ``+``; a glob operand may expand to the rule's word
  (a *possible* match);
- what a program's documentation says an operand form or another option also does is that option too
  (:data:`_IMPLIED`): ``git push origin +main`` and ``git push --mirror`` force, as ``--force`` does.

The facts come from the programs themselves, not from a list typed in here: ``program_grammar.json``
beside this module is mined from their ``--help`` output, git's usage and ``git help -a``, and npm's
own command table (:mod:`~reference_impl.permissions._grammar_mining` mines it again). Where the
grammar is not known (a program not in the catalogue, an option whose value-taking is unknown, a
word only known at run time, a git subcommand that may be an alias), every reading the words allow is
tried: a rule met in all of them matches for certain, in some of them *possibly* (the engine asks).
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "GRAMMAR_FILE",
    "RuleShape",
    "Started",
    "grammar_match",
    "option_grammar",
    "options_given",
    "rule_shape",
    "screened_alias",
    "started_by_options",
    "value_positions",
]

GRAMMAR_FILE = Path(__file__).with_name("program_grammar.json")

Words = Sequence[str | None]
Verdict = Literal["certain", "possible"]

_READING_LIMIT = 32  # readings of one command; past it, a match is only possible


@dataclass(frozen=True, slots=True)
class _Options:
    """One program's (or subcommand's) options: every spelling to its name, and which take a value."""

    names: Mapping[str, str]
    values: frozenset[str]
    optional: frozenset[str]
    known: bool
    commands: frozenset[str] = frozenset()
    """Options whose argument is a command to run (or code to load)."""
    helpers: Mapping[str, str] | None = None
    """Options that make the program start another one by default (``tar -z``: gzip)."""

    def resolve(self, spelling: str) -> str | None:
        """The option's name: exact, or the one long option this is an unambiguous prefix of."""
        found = self.names.get(spelling)
        if found is not None or not spelling.startswith("--") or len(spelling) < 4:
            return found
        hits = {
            name for long, name in self.names.items() if long.startswith(spelling) and long.startswith("--")
        }
        return next(iter(hits)) if len(hits) == 1 else None


_UNKNOWN = _Options({}, frozenset(), frozenset(), False)


def _options(entry: Mapping[str, Any] | None) -> _Options:
    if not entry:
        return _UNKNOWN
    return _Options(
        dict(entry.get("names", {})),
        frozenset(entry.get("values", ())),
        frozenset(entry.get("optional", ())),
        True,
        frozenset(entry.get("commands", ())),
        dict(entry.get("helpers", {})),
    )


@dataclass(frozen=True, slots=True)
class _Program:
    options: _Options
    subcommands: frozenset[str] = frozenset()
    aliases: Mapping[str, str] | None = None
    global_options: _Options | None = None
    sub_options: Mapping[str, _Options] | None = None
    options_anywhere: bool = False
    """npm: its configuration options may stand before or after the subcommand."""
    abbreviations: bool = False
    """npm: an unambiguous prefix of a command or alias is that command."""
    open_subcommands: bool = False
    """git: a name not among its commands may be an alias (or a typo help.autocorrect runs)."""


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, _Program]:
    data = json.loads(GRAMMAR_FILE.read_text(encoding="utf-8"))
    programs: dict[str, _Program] = {}
    for name, entry in data["programs"].items():
        subs = entry.get("subcommands")
        programs[name] = _Program(
            options=_options(entry.get("options")),
            subcommands=frozenset(subs or ()),
            aliases=entry.get("aliases"),
            global_options=_options(entry["global"]) if "global" in entry else None,
            sub_options={sub: _options(o) for sub, o in entry.get("sub_options", {}).items()},
            options_anywhere=bool(entry.get("options_anywhere")),
            abbreviations=bool(entry.get("abbreviations")),
            open_subcommands=bool(entry.get("open_subcommands")),
        )
    return programs


@dataclass(frozen=True, slots=True)
class _Reading:
    options: frozenset[str]
    operands: tuple[str | None, ...]


def _option_words(word: str, opts: _Options) -> list[tuple[str, bool | None, str | None]]:
    """The options one word holds: (name, takes the next word? (None: unknown), attached value)."""
    if word.startswith("--"):
        given, eq, value = word.partition("=")
        name = opts.resolve(given)
        if eq:
            return [(name or given, False, value)]
        if name is None:
            return [(given, None, None)]
        return [(name, name in opts.values, None)]
    found: list[tuple[str, bool | None, str | None]] = []
    letters = word[1:]
    for i, letter in enumerate(letters):
        spelling = "-" + letter
        name = opts.names.get(spelling)
        rest = letters[i + 1 :]
        if name is not None and name in opts.values:
            found.append((name, not rest, rest or None))
            return found
        if name is not None and name in opts.optional:
            found.append((name, False, rest or None))
            return found
        # An unknown letter last in its word may take the next word as its value.
        found.append((name or spelling, None if name is None and not rest else False, None))
    return found


def _readings(words: Words, opts: _Options, *, stop_at_operand: bool) -> Iterator[_Reading | None]:
    """Every reading of ``words`` as options and operands (None: too many to list)."""
    count = 0

    def walk(i: int, options: frozenset[str], operands: tuple[str | None, ...]) -> Iterator[_Reading | None]:
        nonlocal count
        while i < len(words):
            word = words[i]
            if stop_at_operand and operands:
                operands += tuple(words[i:])
                break
            if word is None or word == "-" or not word.startswith("-"):
                operands += (word,)
                i += 1
                continue
            if word == "--":
                operands += tuple(words[i + 1 :])
                break
            parts = _option_words(word, opts)
            for name, _, value in parts:
                options |= {name} if value is None else {name, f"{name}={value}"}
            name, takes, _ = parts[-1]
            following = words[i + 1] if i + 1 < len(words) else None
            if takes is None and following is not None and not following.startswith("-"):
                count += 1
                if count > _READING_LIMIT:
                    yield None
                    return
                yield from walk(i + 2, options | {f"{name}={following}"}, operands)  # it takes the next word
            elif takes and following is not None:
                options |= {f"{name}={following}"}
                i += 1
            i += 1
        yield _Reading(options, operands)

    yield from walk(0, frozenset(), ())


def _deref(program: _Program, word: str) -> str | None:
    """The subcommand ``word`` names (aliases and abbreviations resolved), or None when unknown."""
    aliases = program.aliases or {}
    if program.abbreviations and any(c.isupper() for c in word):
        word = "".join("-" + c.lower() if c.isupper() else c for c in word)
    if word in program.subcommands:
        return word
    if word in aliases:
        return aliases[word]
    if program.abbreviations:
        names = [n for n in (*program.subcommands, *aliases) if n.startswith(word)]
        targets = {aliases.get(n, n) for n in names}
        if len(targets) == 1 and names:
            return next(iter(targets))
    return None


def _program_readings(program: _Program | None, args: Words) -> Iterator[tuple[_Reading | None, bool]]:
    """The readings of a program's arguments, the subcommand canonical; with whether each is sure of it."""
    if program is None:
        for reading in _readings(args, _UNKNOWN, stop_at_operand=False):
            yield reading, True
        return
    if program.global_options is None:
        for reading in _readings(args, program.options, stop_at_operand=False):
            yield reading, True
        return
    anywhere = program.options_anywhere
    for outer in _readings(args, program.global_options, stop_at_operand=not anywhere):
        if outer is None or not outer.operands or outer.operands[0] is None:
            yield outer, True
            continue
        sub = _deref(program, outer.operands[0])
        sure = sub is not None or not program.open_subcommands
        name = sub or outer.operands[0]
        opts = (program.sub_options or {}).get(name, _UNKNOWN)
        if anywhere:
            yield _Reading(outer.options, (name, *outer.operands[1:])), sure
            continue
        for inner in _readings(outer.operands[1:], opts, stop_at_operand=False):
            if inner is None:
                yield None, sure
            else:
                yield _Reading(outer.options | inner.options, (name, *inner.operands)), sure


@dataclass(frozen=True, slots=True)
class RuleShape:
    """A rule's content read as a command: its program, options and other words, and how it ends."""

    head: str
    options: frozenset[str]
    operands: tuple[str, ...]
    prefix: bool


def rule_shape(content: str) -> RuleShape | None:
    """The shape of ``Bash(content)``; None for a pattern this reading does not apply to.

    Only ``prefix:*``, ``words *`` and exact rules with a fixed program and plain words qualify; a
    rule with other wildcards is matched as written only.
    """
    prefix = False
    if (content.endswith(":*") and not content.endswith("\\:*")) or (
        content.endswith(" *") and not content.endswith("\\ *")
    ):
        content, prefix = content[:-2], True
    if "*" in content or "\\" in content or any(q in content for q in "'\"`$()<>|;&"):
        return None
    words = content.split()
    if len(words) < 2:
        return None  # the program alone: matching as written says it all
    head, args = words[0], words[1:]
    readings = [r for r, _ in _program_readings(_catalogue().get(head), args) if r is not None]
    if not readings:
        return None
    # The rule as its writer meant it: the reading with the fewest options taking a value.
    reading = max(readings, key=lambda r: len(r.operands))
    operands = tuple(w for w in reading.operands if w is not None)
    return RuleShape(head, reading.options, operands, prefix)


def option_grammar(program: str) -> tuple[Mapping[str, str], frozenset[str], frozenset[str]] | None:
    """A catalogued program's own options (None when the program or its options are not mined).

    Each spelling's name, those taking a value, those taking one only attached (``node --inspect[=port]``).
    """
    found = _catalogue().get(program)
    if found is None or not found.options.known:
        return None
    return found.options.names, found.options.values, found.options.optional


# What a subcommand's documentation says an operand form or another option does too, as the option it
# names: git-push(1), "+<src>:<dst>": "By having the optional leading +, you can tell Git to update the
# <dst> ref even if it is not allowed by default ... This is the same as --force, but for that
# refspec"; "--mirror": "locally updated refs will be force updated on the remote end".
# (subcommand, option or "+operand") -> the option it implies.
_IMPLIED: Mapping[str, Mapping[tuple[str, str], str]] = {
    "git": {("push", "+operand"): "--force", ("push", "--mirror"): "--force"},
}


def _with_implied(head: str, reading: _Reading) -> _Reading:
    """The reading with the options its operands' forms or its other options imply (:data:`_IMPLIED`)."""
    implied = _IMPLIED.get(head)
    if not implied or not reading.operands or reading.operands[0] is None:
        return reading
    sub = reading.operands[0]
    opts = (_catalogue()[head].sub_options or {}).get(sub, _UNKNOWN)
    added: set[str] = set()
    for (command, form), option in implied.items():
        if command != sub:
            continue
        name = opts.resolve(option) or option
        if form == "+operand":
            if any(w is not None and w.startswith("+") for w in reading.operands[1:]):
                added.add(name)
        elif (opts.resolve(form) or form) in reading.options:
            added.add(name)
    return reading if not added else _Reading(reading.options | added, reading.operands)


_CHMOD_MODE = re.compile(r"[ugoa]*(?:[-+=](?:[rwxXst]*|[ugo]))+")
_WHO_BITS = {"u": 0o700, "g": 0o070, "o": 0o007}
_PERM_BITS = {"r": 0o444, "w": 0o222, "x": 0o111}


def _chmod_bits(mode: str, *, umask: bool = True) -> tuple[int, int] | None:
    """The permission bits (rwx for u, g, o) a chmod mode leaves whatever they were: (known mask, values).

    Octal (any leading zeros) sets them all. A symbolic clause with no ``ugoa`` is filtered by the
    umask, ``X`` depends on the file, copying (``g=u``) on what it had: those bits stay unknown.
    Special bits (setuid, setgid, sticky) are not compared. ``umask=False``: the most the mode may
    grant, as under ``umask 0`` (the line may set it; a clause with no ``ugoa`` is one for all) on a
    directory (``X`` is ``x``).
    """
    if re.fullmatch(r"[0-7]{1,5}", mode):
        return 0o777, int(mode, 8) & 0o777
    known, value = 0, 0
    for clause in mode.split(","):
        if not _CHMOD_MODE.fullmatch(clause):
            return None
        who = re.match(r"[ugoa]*", clause)
        letters = who.group(0) if who else ""
        if not letters and umask:
            return None  # the umask decides
        mask = 0o777 if "a" in letters or not letters else sum(_WHO_BITS[c] for c in set(letters))
        for op, perms in re.findall(r"([-+=])([rwxXst]*|[ugo])", clause[len(letters) :]):
            perms = perms if umask else perms.replace("X", "x")
            if perms in _WHO_BITS or "X" in perms:
                known &= ~mask
                continue
            bits = sum(_PERM_BITS[c] for c in set(perms) if c in _PERM_BITS) & mask
            if op == "=":
                known, value = known | mask, (value & ~mask) | bits
            elif op == "+":
                known, value = known | bits, value | bits
            else:
                known, value = known | bits, value & ~bits
    return known, value


def _same_operand(head: str, position: int, want: str, got: str) -> bool | None:
    """Whether the program reads ``got`` (the command's word) as the rule's ``want``; None: it may, as a glob.

    ``position`` counts the operands, a subcommand first.
    """
    if got == want:
        return True
    if head == "chmod" and position == 0:
        rule, command = _chmod_bits(want), _chmod_bits(got)
        if rule is not None and command is not None and rule[0] == 0o777 and command[0] == 0o777:
            return rule[1] == command[1]
        unmasked = _chmod_bits(got, umask=False)
        if rule is not None and rule[0] == 0o777 and unmasked is not None and unmasked == rule:
            return None  # ``+rwx``: the rule's mode under a umask the line may have cleared
    if head == "git" and position >= 2 and got.startswith("+") and got[1:] == want:
        return True  # a refspec forced or not names the same refs (the force is read as --force)
    if want.startswith("/") and got.startswith("/") and _lexical(got) == _lexical(want):
        return True
    if any(c in got for c in "*?[") and fnmatch.fnmatchcase(want, got):
        return None  # bash may expand the glob to the rule's word
    return False


def _lexical(path: str) -> str:
    """A path with ``.``, ``..`` and repeated slashes resolved as text (``//`` is ``/`` on Linux)."""
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/")


def _meets(shape: RuleShape, reading: _Reading) -> bool | None:
    """Whether a reading has the rule's effect; None when a run-time word decides."""
    reading = _with_implied(shape.head, reading)
    if not shape.options <= reading.options:
        return False
    have = reading.operands
    if len(have) < len(shape.operands) or (not shape.prefix and len(have) != len(shape.operands)):
        return False
    unknown = False
    for position, (want, got) in enumerate(zip(shape.operands, have, strict=False)):
        same = None if got is None else _same_operand(shape.head, position, want, got)
        if same is None:
            unknown = True
        elif not same:
            return False
    return None if unknown else True


def grammar_match(shape: RuleShape, argv: Words) -> Verdict | None:
    """Whether the command ``argv`` (its program by name, no path) has the effect the rule names."""
    if not argv or argv[0] != shape.head:
        return None
    met = missed = False
    for reading, sure in _program_readings(_catalogue().get(shape.head), argv[1:]):
        if reading is None:
            return "possible"
        verdict = _meets(shape, reading)
        if verdict is True and sure:
            met = True
        elif verdict is False and sure:
            missed = True
        else:
            met = missed = True
    if met and not missed:
        return "certain"
    return "possible" if met else None


# GNU tar's old option style: a first argument without its dash is a cluster of options whose
# values follow in order (``tar cIf CMD out.tar``), as its manual describes.
_DASHLESS_FIRST = frozenset({"tar"})


@dataclass(frozen=True, slots=True)
class Started:
    """What a command's options make its program start: commands given as values, helper programs."""

    commands: tuple[tuple[str, str | None], ...] = ()
    """(option, its value or None when it is the next word or missing)."""
    helpers: tuple[str, ...] = ()


def _scan(
    words: Words, opts: _Options, *, stop_at_operand: bool = False
) -> tuple[list[tuple[str, str | None]], list[str], int]:
    """Command-taking options and helpers among ``words`` (up to ``--``), and where the operands start."""
    commands: list[tuple[str, str | None]] = []
    helpers: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word is None or word == "--":
            break
        if not word.startswith("-") or word == "-":
            if stop_at_operand:
                break
            i += 1
            continue
        following = words[i + 1] if i + 1 < len(words) else None
        for name, takes, value in _option_words(word, opts):
            if name in opts.commands:
                commands.append((name, value if value is not None else following if takes else value))
            helper = (opts.helpers or {}).get(name)
            if helper is not None:
                helpers.append(helper)
        takes_next = _option_words(word, opts)[-1][1]
        i += 2 if takes_next else 1
    return commands, helpers, i


def started_by_options(argv: Words) -> Started:
    """The commands and helper programs ``argv``'s options start, as its program's own help says.

    ``tar --to-command=CMD``, ``tar cIf CMD a.tar``, ``git grep -O'CMD'``, ``node --import=URL``,
    ``sort --compress-program=P``; ``tar czf`` starts gzip. Known from the mined catalogue only.
    """
    if not argv or argv[0] is None:
        return Started()
    program = _catalogue().get(argv[0])
    if program is None:
        return Started()
    args = _dashed(argv[0], program, list(argv[1:]))
    found = _own_options(program, args)
    if found is None:
        return Started()
    opts, at = found
    commands, helpers, _ = _scan(args[at:], opts)
    return Started(tuple(commands), tuple(helpers))


def _dashed(name: str, program: _Program, args: list[str | None]) -> list[str | None]:
    """``args`` with tar's dashless first cluster spelled with dashes, each value after its letter."""
    if name in _DASHLESS_FIRST and args and args[0] is not None and args[0][:1].isalpha():
        cluster, rest, values = args[0], args[1:], []
        for letter in cluster:
            option = program.options.names.get("-" + letter, "-" + letter)
            if option in program.options.values and rest:
                values.append(rest.pop(0))
        # Put each value after its letter, as the dashed spelling would have it.
        spelled: list[str | None] = []
        for letter in cluster:
            spelled.append("-" + letter)
            option = program.options.names.get("-" + letter, "-" + letter)
            if option in program.options.values and values:
                spelled.append(values.pop(0))
        return [*spelled, *rest]
    return args


def options_given(argv: Words) -> dict[str, list[str | None]] | None:
    """The options ``argv`` gives its program (or subcommand), each by its name, with the values given.

    Read in the program's own grammar: ``tar caf a.tar.zst f`` gives ``-c``, ``-a`` and ``-f`` (value
    ``a.tar.zst``); ``install --strip f d`` gives ``-s``. A value only known at run time is None.
    None when the program or its subcommand is not catalogued.
    """
    if not argv or argv[0] is None:
        return None
    program = _catalogue().get(argv[0])
    if program is None:
        return None
    args = _dashed(argv[0], program, list(argv[1:]))
    found = _own_options(program, args)
    if found is None:
        return None
    opts, at = found
    given: dict[str, list[str | None]] = {}
    words = args[at:]
    i = 0
    while i < len(words):
        word = words[i]
        if word is None or word == "--":
            break
        if not word.startswith("-") or word == "-":
            i += 1
            continue
        parts = _option_words(word, opts)
        following = words[i + 1] if i + 1 < len(words) else None
        for name, takes, value in parts:
            given.setdefault(name, []).append(following if takes else value)
        i += 2 if parts[-1][1] else 1
    return given


def _own_options(program: _Program, args: list[str | None]) -> tuple[_Options, int] | None:
    """The options that apply to ``args`` and where they start (None: an unknown or missing subcommand).

    The program's own, or its subcommand's after the global options.
    """
    if program.global_options is None:
        return program.options, 0
    _, _, at = _scan(args, program.global_options, stop_at_operand=True)
    word = args[at] if at < len(args) else None
    if word is None:
        return None
    opts = (program.sub_options or {}).get(_deref(program, word) or word)
    return None if opts is None else (opts, at + 1)


def screened_alias(argv: Words, letters: str, longs: Sequence[str]) -> str | None:
    """The word of ``argv`` that spells a screened option another way, as the program's own help names it.

    ``git clone -c`` is ``--config``, ``git difftool -t`` is ``--tool``, ``git rebase -x`` is ``--exec``:
    the help's ``-c, --config`` says both spellings are one option. The screened options are given
    as ``letters`` (short) and ``longs`` (long names, no dashes, an unambiguous prefix resolved); each
    table of the program (its own, its global options, the subcommand's) maps them to its names,
    and a word naming one of those names in any spelling (a bundle, ``--name=value``) is returned.
    None when none does, or the program is not catalogued.
    """
    if not argv or argv[0] is None:
        return None
    program = _catalogue().get(argv[0])
    if program is None:
        return None
    args = list(argv[1:])
    spans: list[tuple[_Options, list[str | None]]] = [(program.options, args)]
    if program.global_options is not None:
        _, _, at = _scan(args, program.global_options, stop_at_operand=True)
        spans = [(program.global_options, args[:at])]
        word = args[at] if at < len(args) else None
        opts = (program.sub_options or {}).get(_deref(program, word) or word) if word is not None else None
        if opts is not None:
            spans.append((opts, args[at + 1 :]))
    for opts, words in spans:
        screened = {opts.resolve(f"--{name}") for name in longs} | {opts.names.get(f"-{c}") for c in letters}
        screened.discard(None)
        i = 0
        while screened and i < len(words):
            word = words[i]
            if word is None or word == "--":
                break
            parts = _option_words(word, opts) if word.startswith("-") and word != "-" else []
            if any(name in screened for name, _, _ in parts):
                return word
            i += 2 if parts and parts[-1][1] else 1
    return None


def value_positions(argv: Words) -> frozenset[int]:
    """The indices in ``argv`` of words its program reads as the value of an option (``git commit -m MSG``).

    Only options the mined grammar says take a value, and never a command-taking one (its value is
    a program to run): a word there only known at run time is data, not an option. Empty when the
    program or its subcommand is not in the catalogue.
    """
    if not argv or argv[0] is None:
        return frozenset()
    program = _catalogue().get(argv[0])
    if program is None:
        return frozenset()
    found = _own_options(program, list(argv[1:]))
    if found is None:
        return frozenset()
    opts, at = found
    args, offset = list(argv[1 + at :]), 1 + at
    positions: set[int] = set()
    i = 0
    while i < len(args):
        word = args[i]
        if word is None or word == "--":
            break
        if not word.startswith("-") or word == "-":
            i += 1
            continue
        readings = _option_words(word, opts)
        name, takes_next, _value = readings[-1]
        if takes_next and name not in opts.commands and i + 1 < len(args):
            positions.add(offset + i + 1)
            i += 2
            continue
        i += 1
    return frozenset(positions)
