"""Code bash evaluates at run time although the command line shows no command (PERM-16, PERM-17).

Bash evaluates array subscripts wherever it evaluates a variable name or arithmetic: in
``printf -v``, ``read``, ``test -v``, ``let``, ``declare``, ``$((x))`` on a variable holding
``a[$(rm y)]``, ``${a[i]}``, ``${x:n}``; it expands ``${!x}`` and ``${x@P}`` again; it runs the
values of ``BASH_ENV``, ``PROMPT_COMMAND``, ``PS4`` and exported functions. The walk can't know
what those run, so each becomes an opaque part beside the command: every deny rule may apply to
it, and no allow rule does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from reference_impl.permissions._builtin_options import builtin_commands
from reference_impl.permissions._descriptors import STDIN, descriptor_of
from reference_impl.permissions._program_model import makefile_from_descriptor
from reference_impl.permissions._programs import program_scripts

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["MAY_HIDE_CODE", "data_run_as_code", "hidden_code", "mark_evaluated_code"]


class _WalkRecorder(Protocol):
    """What this module needs of the bash reader's walk: a node's text, and recording what it finds."""

    def text(self, node: tree_sitter.Node) -> str: ...
    def problem(self, message: str) -> None: ...
    def opaque(self, node: tree_sitter.Node, why: str) -> None: ...


_NAME_BUILTINS = frozenset({"let", "printf", "read", "mapfile", "readarray", "wait", "getopts", "test", "["})
# (``_NAME_OPTIONS`` below says which of their words are names.)
"""Builtins (as simple commands) that take variable names or arithmetic: bash evaluates an array
subscript in one, ``printf -v 'a[$(rm x)]'``, so a quoted string becomes a command. (``declare``,
``export``, ``unset`` and the like are their own constructs in the grammar: see :func:`mark_evaluated_code`.)"""

_CODE_VARIABLES = re.compile(
    r"^(BASH_ENV|ENV|PROMPT_COMMAND|PS[0-4]|SHELLOPTS|BASHOPTS|BASH_FUNC_[^=]*|BASH_CMDS|BASH_ALIASES|"
    # Commands other programs run from their environment, and code they load from it.
    r"GIT_SSH_COMMAND|GIT_SSH|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|"
    r"GIT_PROXY_COMMAND|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_[0-9]+|GIT_CONFIG_VALUE_[0-9]+|"
    r"SSH_ASKPASS|SUDO_ASKPASS|PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|FCEDIT|BROWSER|LESSOPEN|"
    r"LESSCLOSE|TAR_OPTIONS|RSYNC_RSH|LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES|PERL5OPT|NODE_OPTIONS|"
    # Where programs search for the code they load: makefiles, @INC, node's and ruby's module paths.
    r"RUBYOPT|MAKEFILES|MAKEFLAGS|PERL5LIB|PERLLIB|PERL5DB|PERL_USE_UNSAFE_INC|NODE_PATH|RUBYLIB)"
    r"(\[[^\]]*\])?\+?="
)
"""Variables whose value bash itself runs or expands as code (start-up files, prompts, functions),
or that change what a command name runs (``BASH_CMDS``, the hash table; ``BASH_ALIASES``); and the
variables other programs take a command from (``GIT_SSH_COMMAND``, ``PAGER``, ``EDITOR``,
``LESSOPEN``, ...) or code to load (``LD_PRELOAD``, ``NODE_OPTIONS``, ``PERL5OPT``, ...), or where they
search for it (``MAKEFILES``, ``PERL5LIB``, ``NODE_PATH``: ``env MAKEFILES=x.mk make``)."""

# What may hide code that only bash's own evaluation reveals; a cheap test before walking the tree.
MAY_HIDE_CODE = re.compile(
    r"\$(?![\w(\[@*#?$!'\"-])|\(\(|\$\[|\[\[|\[|declare|typeset|local|readonly|export|unset|HISTCMD|OPTIND|RANDOM|SECONDS|"
    r"BASH_ENV|ENV|PROMPT_COMMAND|PS[0-4]|SHELLOPTS|BASHOPTS|BASH_FUNC_|BASH_CMDS|BASH_ALIASES|"
    r"GIT_|ASKPASS|PAGER|EDITOR|VISUAL|FCEDIT|BROWSER|LESS|TAR_OPTIONS|RSYNC_RSH|LD_|DYLD_|PERL5OPT|"
    r"NODE_OPTIONS|RUBYOPT|MAKEFILES|MAKEFLAGS|PERL5LIB|PERLLIB|PERL5DB|PERL_USE_UNSAFE_INC|NODE_PATH|RUBYLIB"
)
_IDENTIFIER = re.compile(r"[A-Za-z_]")

_LITERAL_DOLLAR = re.compile(r"(?<![\\$])\$(?=[,}])")
"""A ``$`` the parser keeps literal at the end of a brace expansion's alternative (``{$,}``, ``{a,b$}``):
brace expansion, which comes before every other expansion, puts it before what follows the braces,
a ``{`` or ``[`` among them (``{$,}{x@P}`` is ``${x@P}``, ``{a$,}[i]`` is ``a$[i]``)."""
_BRACE_OPENING = re.compile(r"(?<!\$)\{")

BASH_INTEGER_VARIABLES = frozenset({"HISTCMD", "OPTIND", "RANDOM", "SECONDS", "SRANDOM"})
"""Bash's own variables that evaluate a value written to them as arithmetic (so an array subscript in
it runs commands: ``for RANDOM in 'a[$(rm x)]'``): found by asking bash about each of its variables
(``tests/test_shell.py`` asks it again)."""
_INTEGER_WRITE = re.compile(r"(?<![\w${#!])(" + "|".join(sorted(BASH_INTEGER_VARIABLES)) + r")(?!\w)")


def _evaluates_values(arithmetic: str) -> bool:
    """Whether arithmetic text evaluates a value (a name, ``$1``, ``$0``, ``$x``): not only numbers."""
    return _IDENTIFIER.search(arithmetic) is not None or "$" in arithmetic


# ``${NAME:offset:length}``: a variable, an array element, or a special or positional parameter
# (``${0:x}``, ``${@:x}``, ``${10:1:x}``): bash evaluates offset and length as arithmetic.
_SUBSTRING = re.compile(r"^\$\{#?([A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?|[0-9]+|[-@*#?$!]):[^-=?+]")
_ARITHMETIC_TESTS = re.compile(r"\s-(v|R|eq|ne|lt|le|gt|ge)\s")
_SUBSCRIPT_EVALUATION = ": bash evaluates names and arithmetic there, and an array subscript can run commands"


def hidden_code(
    argv: tuple[str | None, ...], raw: tuple[str, ...], assignments: tuple[str, ...]
) -> str | None:
    """Why bash may run code hidden in one simple command's words (a subscript, a code variable)."""
    words = [*assignments, *(w if w is not None else r for w, r in zip(argv, raw, strict=True))]
    if any(_CODE_VARIABLES.match(word) for word in words):
        return "a variable whose value bash runs as code is set"
    # ``$!``, ``$$``, ``$?``, ``$#`` are numbers whatever the line did: never an option or a name.
    numeric = [
        w if w is not None or not _NUMERIC_PARAMETER.fullmatch(r) else "0"
        for w, r in zip(argv, raw, strict=True)
    ]
    names = _unwrapped(numeric)
    name = names[0] if names else None
    args = names[1:]
    if name in _DECLARATION_BUILTINS and len(names) < len(argv):
        # ``builtin declare 'a[$(rm x)]=1'``: the grammar reads a declaration behind a wrapper as a
        # plain command, so its names and values are not walked as a declaration's: any subscript,
        # run-time word or attribute option may evaluate code.
        if any(a is None or "[" in a or "$" in a or "`" in a or a.startswith(("-", "+")) for a in args):
            return f"{name}{_SUBSCRIPT_EVALUATION}"
        return None
    if name in ("set", "shopt"):
        return _reading_option(name, args)
    if name not in _NAME_BUILTINS:
        return None
    if name == "let":
        return (
            f"let{_SUBSCRIPT_EVALUATION}" if any(a is None or _IDENTIFIER.search(a) for a in args) else None
        )
    names_set = _variable_names(name, args)
    if any(a is None or "[" in a for a in names_set):
        return f"{name}{_SUBSCRIPT_EVALUATION}"
    if name not in ("test", "[") and any(a is not None and _CODE_VARIABLES.match(a + "=") for a in names_set):
        # ``printf -v PROMPT_COMMAND %s 'rm x'``, ``read PS4``: a code variable set by an argument.
        return f"{name} sets a variable whose value bash runs as code"
    return None


_NUMERIC_PARAMETER = re.compile(r'"?\$(\{[!$?#]\}|[!$?#])"?')


def _unwrapped(argv: Sequence[str | None]) -> list[str | None]:
    """``argv`` without the ``builtin`` and ``command`` wrappers before it (and ``command``'s ``-p``, ``--``)."""
    names = list(argv)
    while names and names[0] in ("builtin", "command"):
        wrapper = names.pop(0)
        while names and (names[0] == "--" or (wrapper == "command" and names[0] == "-p")):
            names.pop(0)
    return names


_DECLARATION_BUILTINS = frozenset({"declare", "typeset", "local", "export", "readonly", "unset"})

# The options of ``set`` and ``shopt`` that leave how bash reads and runs the rest of the line as the
# walk reads it. Anything else may change it, so it is unread: history expansion (``set -H`` with
# ``set -o history``: ``!!`` brings back an earlier line's text unquoted), ``set -k`` (an assignment
# anywhere among the words enters the environment), ``set -P`` (``cd`` through links), posix mode,
# ``shopt -s expand_aliases``/``extglob``/``-u interactive_comments`` (the text parses otherwise).
_SET_LETTERS = frozenset("abefhmnuvxBCET")
_SET_NAMES = frozenset(
    {
        "allexport", "braceexpand", "errexit", "errtrace", "functrace", "hashall", "monitor",
        "noclobber", "noexec", "noglob", "notify", "nounset", "pipefail", "verbose", "xtrace",
    }
)  # fmt: skip
_SHOPT_NAMES = frozenset(
    {"dotglob", "failglob", "globstar", "nocaseglob", "nocasematch", "nullglob", "inherit_errexit"}
)


def _reading_option(name: str, args: Sequence[str | None]) -> str | None:
    """Why ``set args`` or ``shopt args`` may change how bash reads the rest of the line, or None."""
    why = f"{name} sets an option that changes how bash reads or runs the lines after it"
    if name == "shopt":
        options = [a for a in args if a is None or a.startswith("-")]
        named = [a for a in args if a is not None and not a.startswith("-")]
        if any(a is None or a.strip("-") not in ("s", "u", "q", "p", "o") for a in options):
            return why
        if any(a == "-o" for a in options):
            return None if all(n in _SET_NAMES for n in named) else why
        changes = any(a in ("-s", "-u") for a in options)
        return why if changes and any(n not in _SHOPT_NAMES for n in named) else None
    i = 0
    while i < len(args):
        word = args[i]
        if word is None:
            return why
        if word == "--" or word[:1] not in ("-", "+") or word in ("-", "+"):
            return None  # the rest are positional parameters
        if word in ("-o", "+o"):
            value = args[i + 1] if i + 1 < len(args) else None
            if value is not None and value not in _SET_NAMES and i + 1 < len(args):
                return why
            i += 2
            continue
        if any(letter not in _SET_LETTERS for letter in word[1:].replace("o", "")):
            return why
        if "o" in word[1:]:
            # ``set -eo pipefail``: the option cluster's ``o`` takes the next word as a name.
            value = args[i + 1] if i + 1 < len(args) else None
            if value is None or value not in _SET_NAMES:
                return why
            i += 2
            continue
        i += 1
    return None


def names_set_by(argv: Sequence[str | None]) -> list[str | None]:
    """The variables a builtin sets (``read NAME``, ``printf -v NAME``, ``mapfile NAME``); none for other commands."""
    names = _unwrapped(argv)
    name = names[0] if names else None
    if name not in _NAME_BUILTINS or name in ("let", "test", "["):
        return []
    return _variable_names(name, names[1:])


_ASSIGNING_DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})


def variables_assigned(argv: Sequence[str | None]) -> list[str | None]:
    """Every variable a simple command assigns for the rest of the line (``None``: only known at run time).

    Bash assigns a name alike whichever builtin sets it: ``read PATH``, ``mapfile PATH``, ``printf -v
    PATH``, ``getopts o PATH``, ``wait -p PATH`` (:func:`names_set_by`) as ``export PATH=...`` and
    the other declarations of ``NAME=value`` (a word only known at run time may be one).
    """
    names = _unwrapped(argv)
    if names and names[0] in _ASSIGNING_DECLARATIONS:
        return [
            None if word is None else re.split(r"[+=\[]", word, maxsplit=1)[0]
            for word in names[1:]
            if word is None or ("=" in word and not word.startswith(("-", "+")))
        ]
    return names_set_by(argv)


# Per builtin: the options that take a value, and the options whose value is a variable name.
_NAME_OPTIONS: dict[str, tuple[str, str]] = {
    "printf": ("", "v"),
    "read": ("dinNptu", "a"),
    "mapfile": ("dnOsuCc", ""),
    "readarray": ("dnOsuCc", ""),
    "wait": ("", "p"),
    "getopts": ("", ""),
    "test": ("", "vR"),
    "[": ("", "vR"),
}


def _variable_names(name: str, args: Sequence[str | None]) -> list[str | None]:
    """The words of ``name args`` that bash reads as variable names (where a subscript is evaluated)."""
    valued, naming = _NAME_OPTIONS[name]
    found: list[str | None] = []
    operands: list[str | None] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word is None and naming and not operands and name not in ("test", "["):
            # A word only known at run time where options may still come (``printf -v"$x"``,
            # ``printf "$f" y``): it may be the naming option with its value attached.
            found.append(None)
            i += 1
            continue
        if word is None or not word.startswith("-") or word == "-" or name in ("test", "["):
            if name in ("test", "[") and word is not None and len(word) == 2 and word[1:] in naming:
                found.append(args[i + 1] if i + 1 < len(args) else "")
                i += 2
                continue
            operands.append(word)
            i += 1
            continue
        if word == "--":
            operands.extend(args[i + 1 :])
            break
        # An option cluster as bash's getopt reads it (``wait -np NAME``, ``read -ra NAME``): letters
        # until one that takes a value, which is the rest of the word or else the next word.
        step = 1
        for at, letter in enumerate(word[1:], start=2):
            if letter in naming or letter in valued:
                value = word[at:] if len(word) > at else (args[i + 1] if i + 1 < len(args) else "")
                if letter in naming:
                    found.append(value)
                step = 1 if len(word) > at else 2
                break
        i += step
    if name in ("read", "mapfile", "readarray"):
        found.extend(operands)  # every operand is a variable name
    elif name == "getopts":
        found.extend(operands[1:2])  # ``getopts optstring name [args]``
    return found


def _integer_writes(line: str, declaration: str, names: set[str]) -> str | None:
    """A write elsewhere on the line to a variable given the integer attribute, or None.

    Bash evaluates every value written to an integer variable as arithmetic, whatever wrote it (an
    assignment, even of a quoted string, ``read``, ``printf -v``, a ``for`` loop): an array
    subscript in it runs commands (``declare -i n; n='a[$(rm x)]'``). Only a decimal literal is data.
    """
    rest = line.replace(declaration, " ", 1)
    for name in names:
        for found in re.finditer(rf"(?<![\w$]){re.escape(name)}(?!\w)", rest):
            literal = re.match(r"\+?=[0-9]*(?=[\s;&|)]|$)", rest[found.end() :])
            if literal is None:
                return f"{name} has the integer attribute, and a value written to it is arithmetic"
    return None


_ARRAY_MAKERS = re.compile(
    r"\w\+?=\(|\w\[|\b(?:mapfile|readarray)\b|\b(?:declare|typeset|local|readonly|export|read)\s+(?:[-+]\w+\s+)*[-+]\w*[aA]"
)
"""What on a line may make a variable an array: ``x=(...)``, a subscript, ``mapfile``, ``declare -a``, ``read -a``."""
_CODE_IN_COMPOUND = re.compile(r"[$`\[]|[<>]\(")


def _brace_made_expansion(walk: _WalkRecorder, word: tree_sitter.Node) -> str | None:
    """Why brace expansion may make an expansion of the argument holding ``word`` that the line does not show."""
    argument = word
    while argument.parent is not None and argument.parent.type == "concatenation":
        argument = argument.parent
    whole = walk.text(argument)
    if _LITERAL_DOLLAR.search(whole) and _BRACE_OPENING.search(whole):
        return (
            "brace expansion may join a $ bash keeps literal to what follows it: an expansion the "
            "line does not show ({$,}{x@P} is ${x@P})"
        )
    return None


def _compound_value(builtin: str, flags: str, value: str, line: str) -> str | None:
    """Why a declaration's ``value`` may be read again as an array's ``(...)`` with code in it, or None.

    ``declare -a x='($(rm y))'`` runs ``rm``: given an array (made by ``-a``/``-A``, or earlier,
    for ``declare``, ``typeset`` and ``local``), bash reads a value that is ``(...)`` once its quotes
    are gone as a compound assignment, expanding what it holds, subscripts included. A value only known
    at run time may be one.
    """
    arrays = "a" in flags or "A" in flags
    if not arrays and builtin not in ("declare", "typeset", "local"):
        return None  # ``export x='(...)'``: data, even for an array
    why = f"{builtin} reads a value in parentheses again as an array's elements, expanding them"
    unquoted = value.replace("'", "").replace('"', "").replace("\\", "")
    if unquoted.strip().startswith("(") and _CODE_IN_COMPOUND.search(unquoted):
        return why
    if ("$" in value or "`" in value) and (arrays or _ARRAY_MAKERS.search(line.replace(value, " "))):
        return f"{why} (a value only known at run time may be one)"
    return None


def _declaration_evaluates(walk: _WalkRecorder, node: tree_sitter.Node, line: str = "") -> str | None:
    """Why ``declare``/``export``/``local``/``unset`` ... may evaluate code, or None.

    A subscripted or run-time name does, and so does a run-time value given to an integer (``-i``)
    or reference (``-n``) variable, and any later write to an integer variable but a number.
    """
    text = walk.text(node)
    builtin = text.split(None, 1)[0] if text.split() else "declare"
    dynamic = ("$", "`")
    if "[" in text:
        return f"{builtin}{_SUBSCRIPT_EVALUATION}"
    flags = "".join(
        walk.text(c)[1:] for c in node.named_children if c.type == "word" and walk.text(c).startswith("-")
    )
    if "n" in flags:
        # ``declare -n r=PS4; r='$(rm x)'``: assignments through a name reference set another
        # variable, which the walk can't follow.
        return (
            f"{builtin} -n makes a name reference: later assignments set a variable only known when it runs"
        )
    names: set[str] = set()
    for child in node.named_children:
        written = walk.text(child)
        if child.type == "variable_assignment":
            names.add(written.split("=", 1)[0].rstrip("+"))
            value = written.split("=", 1)[1] if "=" in written else ""
            compound = _compound_value(builtin, flags, value, line)
            if compound is not None:
                return compound
            # ``declare -i y=i``: a name in an integer's value is evaluated in turn, as arithmetic.
            if "i" in flags and (any(d in written for d in dynamic) or _IDENTIFIER.search(value)):
                return f"{builtin} -{flags}{_SUBSCRIPT_EVALUATION}"
        elif not written.startswith("-") and any(d in written for d in dynamic):
            return f"{builtin} of a name only known at run time{_SUBSCRIPT_EVALUATION}"
        elif not written.startswith(("-", "+")):
            names.add(written)
    if "i" in flags and builtin != "unset":
        return _integer_writes(line, text, names)
    return None


def mark_evaluated_code(walk: _WalkRecorder, root: tree_sitter.Node) -> None:
    """Make opaque what bash evaluates as code at run time although the text shows no command.

    Array subscripts and arithmetic on variables (``x='a[$(rm y)]'; echo $((x))``), indirect and
    prompt expansions (``${!x}``, ``${x@P}``), ``declare``/``export``/``unset`` of a subscripted
    name, assignments to variables bash runs (``BASH_ENV``, ``PROMPT_COMMAND``, ``PS4``, ...), a
    ``for`` loop over one of them.
    """
    line = walk.text(root)
    for written in _INTEGER_WRITE.finditer(line):
        if re.match(r"\+?=[0-9]*(?=[\s;&|)]|$)", line[written.end() :]):
            continue
        # ``for OPTIND in 'a[$(rm x)]'``, ``read RANDOM``, ``SECONDS=$1``: only a number is data.
        integer = (
            f"{written.group(1)} is one of bash's integer variables: a value written to it is arithmetic"
        )
        walk.problem(integer)
        walk.opaque(root, integer)
        break
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        why: str | None = None
        if kind in ("expansion", "subscript", "arithmetic_expansion", "c_style_for_statement"):
            text = walk.text(node)
            # ``${!}`` is ``$!``, the last background job's process id; ``${!x}`` is indirection.
            if kind == "expansion" and ((text.startswith("${!") and text != "${!}") or "@P" in text):
                why = "an indirect or prompt expansion (${!x}, ${x@P}) can run commands"
            elif kind == "c_style_for_statement":
                header = text.split(")", 1)[0]
                why = f"a C-style for loop{_SUBSCRIPT_EVALUATION}" if _evaluates_values(header[5:]) else None
            elif kind == "subscript":
                index = text.split("[", 1)[1] if "[" in text else ""
                if index.rstrip("]") not in ("@", "*") and _evaluates_values(index):
                    why = f"an array subscript{_SUBSCRIPT_EVALUATION}"
            elif kind == "arithmetic_expansion" and _evaluates_values(text[2:]):
                why = f"arithmetic expansion{_SUBSCRIPT_EVALUATION}"
            elif kind == "expansion" and _SUBSTRING.match(text) and _evaluates_values(text.split(":", 1)[1]):
                why = f"a substring expansion{_SUBSCRIPT_EVALUATION}"
        elif kind == "word" and "$" in walk.text(node):
            why = _brace_made_expansion(walk, node)
        elif kind == "compound_statement" and walk.text(node).startswith("(("):
            if _evaluates_values(walk.text(node)):
                why = f"an arithmetic command{_SUBSCRIPT_EVALUATION}"
        elif kind == "test_command" and _ARITHMETIC_TESTS.search(walk.text(node)):
            why = f"a [[ ]] test{_SUBSCRIPT_EVALUATION}"
        elif kind in ("declaration_command", "unset_command"):
            why = _declaration_evaluates(walk, node, line)
        elif kind == "for_statement":
            # A loop assigns its variable each word: ``for PS1 in '$(rm x)'; do export PS1; bash -i; done``.
            variable = node.child_by_field_name("variable")
            if variable is not None and _CODE_VARIABLES.match(walk.text(variable) + "="):
                why = "a for loop sets a variable whose value bash runs as code"
        if kind in ("variable_assignment", "declaration_command") and why is None:
            for child in node.named_children if kind == "declaration_command" else (node,):
                if child.type == "variable_assignment" and _CODE_VARIABLES.match(walk.text(child)):
                    why = "a variable whose value bash runs as code is set"
        if why is not None:
            walk.problem(why)
            walk.opaque(node, why)
        stack.extend(node.named_children)


def _makefile_recipes(name: str, makefile: str, stdin: str | None) -> tuple[str | None, str | None]:
    """The recipes of a makefile read from a descriptor (``make -f - <<'E'``): shell lines make runs.

    Only a makefile with no expansion at all is read: ``$(shell ...)``, a variable in a recipe,
    ``include`` or a ``.SHELLFLAGS`` change could run anything.
    """
    if descriptor_of(makefile) != STDIN or stdin is None:
        return None, f"{name} reads its makefile from {makefile!r}, which the engine does not know"
    if (
        "$" in stdin
        or "`" in stdin
        or re.search(r"^\s*-?(include|SHELL|\.SHELLFLAGS|export|vpath)\b", stdin, re.M)
    ):
        return None, f"{name} reads a makefile from its input with expansions the engine does not read"
    recipes = [line.lstrip("\t").lstrip("@+-") for line in stdin.splitlines() if line.startswith("\t")]
    return "\n".join(recipes) or None, None


def data_run_as_code(
    name: str, args: tuple[str | None, ...], stdin: str | None
) -> tuple[str | None, str | None]:
    """The script a builtin runs that the command line holds as data, or why it is only known at run time.

    ``source``/``.`` of its input (``/dev/stdin`` with a here-document or here-string) runs that
    text; of a process substitution or a run-time name, something only known then. ``mapfile -C``,
    ``jobs -x``, ``compgen -C`` and the like run a command (:mod:`~reference_impl.permissions._builtin_options`). Programs that run a command given in an option or in
    their own code (:mod:`reference_impl.permissions._programs`) run those commands, or something
    only known then. ``(None, None)`` for anything else.
    """
    if name in ("make", "gmake"):
        makefile = makefile_from_descriptor(args)
        if makefile is not None:
            return _makefile_recipes(name, makefile, stdin)
    if name in ("source", "."):
        target = next((a for a in args if a is None or not a.startswith("-")), "")
        if target is None:
            return None, f"{name} runs a file only known at run time (a process substitution, a variable)"
        descriptor = descriptor_of(target)
        if descriptor == STDIN and stdin is not None:
            return stdin, None
        if descriptor is not None:
            return None, f"{name} runs what the descriptor {target!r} holds, which the engine does not know"
        return None, None
    # ``mapfile -tC CMD``, ``jobs -x CMD``, ``compgen -C CMD``: options read by bash's own getopt.
    commands, why = builtin_commands(name, args)
    if why is not None:
        return None, why
    if commands:
        return "\n".join(commands), None
    scripts, why = program_scripts(name, args, stdin)
    if why is not None:
        return None, why
    return ("\n".join(scripts), None) if scripts else (None, None)
