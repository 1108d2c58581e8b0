"""Make's own language, as far as the permission engine evaluates it: a Makefile's recipes as make runs them (PERM-17).

Variables (``=``, ``:=``, ``::=``, ``?=``, ``+=``, ``export``/``override``), the command line's and the
environment's, make's built-in ones, the automatic variables of each rule, and the functions that only
compute text from their arguments. Anything else a recipe refers to is not evaluated: the recipes are
then not read (None), and the rules module asks.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Sequence

__all__ = ["ASSIGNMENT", "DOLLAR", "expand", "expanded_recipes", "expanded_targets"]

ASSIGNMENT = re.compile(r"^(?:(?:export|override)[ \t]+)*([A-Za-z_][\w.-]*)[ \t]*([:+?!]*=)[ \t]*(.*)$")
_RULE = re.compile(r"^([^\t#=:][^=:]*?)[ \t]*::?(?!=)[ \t]*([^=;]*?)(?:;(.*))?$")
_REFERENCE = re.compile(r"\$(?:\(([^()$]*)\)|\{([^{}$]*)\}|([^({]))")
# What GNU make's built-in rules define (``make -p``), for recipes that use them without a definition.
_BUILTIN_VARIABLES = {
    "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "FC": "f77", "AR": "ar", "AS": "as", "LD": "ld",
    "RM": "rm -f", "MAKE": "make", "SHELL": "/bin/sh", "LEX": "lex", "YACC": "yacc", "M2C": "m2c",
    "PC": "pc", "CO": "co", "GET": "get", "TEX": "tex", "MAKEINFO": "makeinfo", "CTANGLE": "ctangle",
}  # fmt: skip
_EXPANSION_DEPTH = 8
_IMMEDIATE = (":=", "::=")  # simply expanded: make expands the value where the assignment stands
DOLLAR = "\x01"  # make's ``$$`` while the references around it are expanded


def _pattern(pattern: str, word: str) -> str | None:
    """The stem ``word`` gives the ``%`` of ``pattern`` (None: no match)."""
    before, percent, after = pattern.partition("%")
    if not percent:
        return "" if word == pattern else None
    if len(word) >= len(before) + len(after) and word.startswith(before) and word.endswith(after):
        return word[len(before) : len(word) - len(after)]
    return None


def _suffixed(word: str) -> tuple[str, str]:
    """``word`` split before its last ``.`` as make splits it: ``.c`` is all suffix (not as posixpath's splitext)."""
    dot = word.rfind(".")
    return (word[:dot], word[dot:]) if dot >= 0 and "/" not in word[dot:] else (word, "")


def _patsubst(args: list[str]) -> str | None:
    if len(args) != 3:
        return None
    pattern, replacement, words = args
    out = []
    for word in words.split():
        stem = _pattern(pattern, word)
        out.append(word if stem is None else replacement.replace("%", stem, 1))
    return " ".join(out)


# How many arguments make splits each function's text into (the rest take one: their text, commas and all).
_ARGUMENT_COUNTS = {"subst": 3, "patsubst": 3, "addprefix": 2, "addsuffix": 2, "filter": 2, "filter-out": 2}

# Make's functions that only compute text from their arguments (and ``wildcard``, from file names):
# evaluated, so a recipe that uses them is read as make runs it. Any other function is not.
_FUNCTIONS: dict[str, Callable[[list[str]], str | None]] = {
    "subst": lambda a: a[2].replace(a[0], a[1]) if len(a) == 3 else None,
    "patsubst": _patsubst,
    "strip": lambda a: " ".join(",".join(a).split()),
    "sort": lambda a: " ".join(sorted(set(",".join(a).split()))),
    "words": lambda a: str(len(",".join(a).split())),
    "firstword": lambda a: (",".join(a).split() or [""])[0],
    "lastword": lambda a: (",".join(a).split() or [""])[-1],
    "notdir": lambda a: " ".join(posixpath.basename(w) for w in ",".join(a).split()),
    "dir": lambda a: " ".join(posixpath.dirname(w) + "/" if "/" in w else "./" for w in ",".join(a).split()),
    "basename": lambda a: " ".join(_suffixed(w)[0] for w in ",".join(a).split()),
    "suffix": lambda a: " ".join(_suffixed(w)[1] for w in ",".join(a).split() if _suffixed(w)[1]),
    "addprefix": lambda a: " ".join(a[0] + w for w in a[1].split()) if len(a) == 2 else None,
    "addsuffix": lambda a: " ".join(w + a[0] for w in a[1].split()) if len(a) == 2 else None,
    "filter": lambda a: " ".join(w for w in a[1].split() if any(_pattern(p, w) is not None for p in a[0].split())) if len(a) == 2 else None,
    "filter-out": lambda a: " ".join(w for w in a[1].split() if all(_pattern(p, w) is None for p in a[0].split())) if len(a) == 2 else None,
    "wildcard": lambda a: None,  # set per Makefile's directory: see _expanded_recipes
}  # fmt: skip


def _variables(
    texts: Sequence[str], assigned: Sequence[str], environment: Sequence[str]
) -> dict[str, str] | None:
    """Make's variables once it has read ``texts`` (see :func:`expanded_recipes`); None where one can't be known."""
    variables: dict[str, str] = {}
    for word in environment:
        match = ASSIGNMENT.match(word)
        if match is not None:
            variables[match.group(1)] = match.group(3)
    # The command line's ``NAME:=value`` is expanded before make reads a Makefile: with the environment only.
    line_values: list[tuple[str, str]] = []
    for word in assigned:
        match = ASSIGNMENT.match(word)
        if match is not None:
            name, operator, value = match.groups()
            if operator in _IMMEDIATE:
                value = expand(value, dict(variables), {}, 0)
                if value is None:
                    return None
            line_values.append((name, value))
    # They are in force while make reads the Makefiles: an assignment there to one of them is ignored.
    variables.update(line_values)
    line_names = {name for name, _ in line_values}
    overridden: set[str] = set()
    simple: set[str] = set()  # simply expanded (``:=``): their value is the text at their definition
    for text in texts:
        for line in text.splitlines():
            match = ASSIGNMENT.match(line) if not line.startswith("\t") else None
            if match is None:
                continue
            name, operator, value = match.groups()
            if operator == "!=":
                return None
            if re.match(r"(?:export[ \t]+)*override[ \t]", line):
                overridden.add(name)
            elif name in overridden or name in line_names:
                continue  # a plain assignment can't change a variable set with ``override`` or on the line
            if operator == "?=" and name in variables:
                continue
            if operator in _IMMEDIATE or (operator == "+=" and name in simple):
                # Expanded where it stands, with the variables defined so far (``A := $(B)`` before a
                # later ``B = ...`` keeps B's earlier value); ``+=`` to such a variable appends so too.
                expanded = expand(value, variables, {}, 0)
                if expanded is None:
                    return None
                value = expanded
            if operator in _IMMEDIATE:
                simple.add(name)
            elif operator != "+=":
                simple.discard(name)
            variables[name] = (
                f"{variables[name]} {value}" if operator == "+=" and name in variables else value
            )
    for name, value in line_values:
        if name in overridden:
            return None  # ``override`` beats the command line, as it sets and appends in order: refused
        variables[name] = value
    return variables


def expanded_recipes(
    texts: Sequence[str], assigned: Sequence[str], environment: Sequence[str] = ()
) -> list[str] | None:
    """The recipe lines of ``texts`` with make's variables expanded; None where one can't be.

    Variables from the Makefiles (``=``, ``:=``, ``::=``, ``?=``, ``+=``; ``export``/``override``;
    a ``:=`` one holds its value as it was where it was defined), the command line's ``NAME=value``
    (they win, while the Makefiles are read too), the environment (``environment``'s ``NAME=value``
    words, the line's: a Makefile's own assignment wins over them, ``?=`` does not, ``+=`` appends)
    and make's built-in ones; ``$@``, ``$<``, ``$^``... from the rule the recipe belongs to. A
    reference to anything else (a function such as ``$(call)`` or ``$(eval)``, a ``!=`` shell
    assignment, a variable nobody defines) can name any program: the recipes are then not read as
    make runs them (None: asked).
    """
    variables = _variables(texts, assigned, environment)
    if variables is None:
        return None
    recipes: list[str] = []
    for text in texts:
        automatic: dict[str, str] = {}
        for line in text.splitlines():
            if line.startswith("\t"):
                expanded = expand(line.lstrip("\t").lstrip("@-+ "), variables, automatic, 0)
                if expanded is None:
                    return None
                recipes.append(expanded.replace(DOLLAR, "$"))
                continue
            rule = _RULE.match(line) if not ASSIGNMENT.match(line) else None
            if rule is not None:
                heads = [expand(rule.group(i), variables, {}, 0) for i in (1, 2)]
                if heads[0] is None or heads[1] is None:
                    return None
                targets, prerequisites = heads[0].split(), heads[1].split()
                first = prerequisites[0] if prerequisites else ""
                automatic = {
                    "@": targets[0] if targets else "", "<": first, "^": " ".join(prerequisites),
                    "+": " ".join(prerequisites), "?": " ".join(prerequisites), "*": "", "|": "", "%": "",
                }  # fmt: skip
                if rule.group(3):
                    expanded = expand(rule.group(3).strip(), variables, automatic, 0)
                    if expanded is None:
                        return None
                    recipes.append(expanded.replace(DOLLAR, "$"))
    return recipes


def expand(text: str, variables: dict[str, str], automatic: dict[str, str], depth: int) -> str | None:
    """``text`` with every reference expanded, innermost first (``$$`` kept as :data:`DOLLAR`); None if one can't be."""
    if depth > _EXPANSION_DEPTH:
        return None
    text = text.replace("$$", DOLLAR)
    failed = False

    def value(match: re.Match[str]) -> str:
        nonlocal failed
        name = match.group(1) if match.group(1) is not None else match.group(2) or match.group(3)
        if name in automatic or (name[:1] in automatic and name[1:] in ("D", "F")):
            return automatic.get(name, automatic.get(name[:1], ""))
        function, space, arguments = name.partition(" ")
        if function in _FUNCTIONS and space:  # ``$(basename )``: a call with an empty argument
            # As make reads a call: the blanks after the name end it, the function's last argument takes
            # any commas left (``$(basename a.c ,b.c)`` is one argument), and no other blank is trimmed
            # (``$(subst a, b,xax)`` puts in " b").
            count = _ARGUMENT_COUNTS.get(function, 1)
            result = _FUNCTIONS[function](arguments.lstrip(" \t").split(",", count - 1))
            if result is not None:
                return result
        if name in variables or name in os.environ or name in _BUILTIN_VARIABLES:
            raw = variables.get(name, os.environ.get(name, _BUILTIN_VARIABLES.get(name, "")))
            inner = expand(raw, variables, automatic, depth + 1)
            if inner is not None:
                return inner
        failed = True
        return ""

    for _ in range(_EXPANSION_DEPTH):
        expanded = _REFERENCE.sub(value, text)
        if expanded == text:
            break
        text = expanded
    return None if failed or "$" in text else text


def expanded_targets(
    texts: Sequence[str], assigned: Sequence[str], environment: Sequence[str] = ()
) -> list[tuple[str, str]] | None:
    """Every rule's targets in ``texts`` (explicit and ``%`` patterns), each with its prerequisites' text.

    As make names them, its variables expanded; None when one can't be.
    """
    variables = _variables(texts, assigned, environment)
    if variables is None:
        return None
    rules: list[tuple[str, str]] = []
    for text in texts:
        for line in text.splitlines():
            rule = _RULE.match(line) if not line.startswith("\t") and not ASSIGNMENT.match(line) else None
            if rule is None:
                continue
            targets, prerequisites = (expand(rule.group(i), variables, {}, 0) for i in (1, 2))
            if targets is None or prerequisites is None:
                return None
            rules += [(target, prerequisites.strip()) for target in targets.split()]
    return rules
