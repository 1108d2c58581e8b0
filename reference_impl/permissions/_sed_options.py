"""Where a sed command line's script comes from, read as GNU sed reads its options (PERM-17).

sed(1): "If no -e, --expression, -f, or --file option is given, then the first non-option argument is
taken as the sed script to interpret." Which words are options, and which option takes the next word
as its value, is sed's own grammar (``program_grammar.json``, mined from ``sed --help``): ``-l N``,
``--line-length=N`` take a value (``sed -l 5 'e CMD' f`` runs ``e CMD``, not ``5``), ``-i[SUFFIX]``
and ``--in-place[=SUFFIX]`` only an attached one, short options bundle (``-nl 5``, ``-ne SCRIPT``),
and a long option may be any unambiguous prefix of its name (``--line-len 5``, ``--e=SCRIPT``), as
GNU getopt_long reads it. getopt also permutes: options may follow operands (``sed f -e SCRIPT``),
unless ``POSIXLY_CORRECT`` is set, when the first operand ends them. Both readings are taken (the
environment the line runs in is not known here).

An option the grammar does not list (``-b``, a letter sed refuses) or a word only known when it runs
may change which word is the script: unknown, and the caller fails closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.permissions._program_grammar import option_grammar

__all__ = ["SedLine", "sed_line"]

_EXITS = ("--help", "--version")  # dropped from the mined names; sed prints and exits


@dataclass(frozen=True, slots=True)
class SedLine:
    """A sed command line's scripts as sed reads them."""

    scripts: tuple[str, ...] = ()
    """Every text that may be sed's script: ``-e`` values, or the first operand (under either reading)."""
    from_file: bool = False
    """A ``-f``/``--file`` option: the script is a file's text."""
    unknown: str | None = None
    """Why which words are the script is not known here, or None."""
    exits: bool = False
    """``--help``/``--version``: sed prints and runs no script."""


def _long(given: str, names: Sequence[str]) -> str | None:
    """The long option ``given`` names: itself, or the one it is an unambiguous prefix of (getopt_long)."""
    if given in names:
        return given
    hits = {name for name in names if name.startswith(given)}
    return hits.pop() if len(hits) == 1 else None


def _read(args: Sequence[str | None], *, permute: bool) -> SedLine:
    grammar = option_grammar("sed")
    if grammar is None:
        return SedLine(unknown="sed's options are not in the mined grammar")
    names, values, optional = grammar
    longs = [n for n in names if n.startswith("--")] + list(_EXITS)
    expressions: list[str] = []
    operands: list[str] = []
    from_file = False
    i = 0
    while i < len(args):
        word = args[i]
        following = args[i + 1] if i + 1 < len(args) else None
        i += 1
        if word is None:
            return SedLine(unknown="a word of sed's line is only known when it runs")
        if word == "--" or (operands and not permute):
            rest = args[i:] if word == "--" else args[i - 1 :]  # after ``--``, or from the operand on
            if None in rest:
                return SedLine(unknown="a word of sed's line is only known when it runs")
            operands += [w for w in rest if w is not None]
            break
        if word == "-" or not word.startswith("-"):
            operands.append(word)
            continue
        found: list[tuple[str, str | None]] = []  # (option name, its value)
        if word.startswith("--"):
            given, eq, attached = word.partition("=")
            spelled = _long(given, longs)
            if spelled is None:
                return SedLine(unknown=f"sed's option {given} is not one its grammar reads unambiguously")
            if spelled in _EXITS:
                return SedLine(exits=True)
            name = names[spelled]
            if name in values and not eq:
                if following is None and i < len(args):
                    return SedLine(unknown="a word of sed's line is only known when it runs")
                found.append((name, following))
                i += 1
            else:
                found.append((name, attached if eq else None))
        else:
            for at, letter in enumerate(word[1:], start=2):
                name_or_none = names.get("-" + letter)
                if name_or_none is None:
                    return SedLine(unknown=f"sed's option -{letter} is not one its grammar lists")
                rest = word[at:]
                if name_or_none in values:
                    if not rest and following is None and i < len(args):
                        return SedLine(unknown="a word of sed's line is only known when it runs")
                    found.append((name_or_none, rest or following))
                    i += 0 if rest else 1
                    break
                if name_or_none in optional:
                    found.append((name_or_none, rest or None))
                    break
                found.append((name_or_none, None))
        for name, value in found:
            if name == "-e" and value is not None:
                expressions.append(value)
            elif name == "-f":
                from_file = True
    if expressions or from_file:
        return SedLine(tuple(expressions), from_file)
    return SedLine(tuple(operands[:1]))


def sed_line(args: Sequence[str | None]) -> SedLine:
    """The scripts of ``sed ARGS`` under GNU getopt's permuting reading and POSIXLY_CORRECT's, together."""
    readings = [_read(args, permute=True), _read(args, permute=False)]
    unknown = next((r.unknown for r in readings if r.unknown is not None), None)
    if unknown is not None:
        return SedLine(unknown=unknown)
    if all(r.exits for r in readings):
        return SedLine(exits=True)
    scripts = tuple(dict.fromkeys(s for r in readings for s in r.scripts))
    return SedLine(scripts, any(r.from_file for r in readings))
