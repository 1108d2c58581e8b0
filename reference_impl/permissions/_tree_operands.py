"""The directories whose contents a command may change beneath them (PERM-15).

``rm -rf .``, ``chmod -R a+w .``, ``find . -name '*.json' -delete``: the line names ``.``, not
``.git/hooks`` or ``.claude/settings.json``, yet it changes them. A program given a directory may
change what the directory holds unless the engine knows it changes only the entry the word names:

* a program whose own help documents an option that makes it change what it descends into
  (``--recursive``, ``--remove-files``, ``--delete``: mined into the grammar catalogue) changes
  beneath a directory only when the line gives one (``chmod -R``, ``rm -r``, ``gzip -r``, ``tar
  --remove-files``), in any spelling the program reads (``--rec``, ``-vR``);
* programs whose operands are files or entries (POSIX's ``touch``, ``mkdir``, ``ln``, ``truncate``,
  ...), and ``cp``, whose writes under a destination are the names its source holds (judged from
  that tree), never descend; ``mv`` moves its sources' whole trees; ``find`` descends from its
  starting points when it changes what it finds; git's own model says what it moves;
* every other program may (one the engine does not know, one run-time word of options, a runner
  of code the engine does not read): failing closed, each directory it is given.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from functools import lru_cache

from reference_impl.permissions._interpreter_options import interpreter_run
from reference_impl.permissions._line_writes import program_targets
from reference_impl.permissions._program_grammar import option_grammar, options_given, value_positions
from reference_impl.permissions._program_model import is_interpreter
from reference_impl.permissions._wrapped_commands import is_wrapper, unwrap

__all__ = ["ENTRY_PROGRAMS", "find_names", "tree_operands"]

Argv = Sequence[str | None]

ENTRY_PROGRAMS = frozenset(
    [
        "touch",
        "mkdir",
        "rmdir",
        "unlink",
        "mktemp",
        "truncate",
        "shred",
        "sync",
        "ln",
        "link",
        "tee",
        "dd",
        "mkfifo",
        "mknod",
        "install",
        "ginstall",
        "sed",
        "sort",
        "shuf",
        "uniq",
        "split",
        "csplit",
        "curl",
        "xxd",
    ]
)
"""Programs whose operands are files or directory entries, never trees: they change only what a word
names (``touch .`` sets a time on ``.``, ``mkdir -p .`` makes nothing, ``sed -i`` refuses a
directory); what they write under a name a word derives (``ln -s /x/.git .``) is judged by that name."""

# Programs judged elsewhere: git by its model of the working tree, cp by the tree it copies.
_MODELLED = frozenset({"git", "cp"})


# Words of an option's long name that say it descends, or removes what it reads (tar's ``--remove-files``).
_CHANGING_WORDS = ("recurs", "remove", "delete", "unlink")


@lru_cache(maxsize=512)
def _descending_options(program: str) -> frozenset[str] | None:
    """The names of the options the program's help names as descending or removing (None: not catalogued)."""
    grammar = option_grammar(program)
    if grammar is None:
        return None
    return frozenset(
        name
        for spelling, name in grammar[0].items()
        if any(word in spelling for word in _CHANGING_WORDS)
        and not spelling.startswith("--no-")
        and "limit" not in spelling
    )


_MOVES_THE_DESTINATION = frozenset({"-b", "--backup", "--exchange"})
"""mv's options by which an existing destination is moved itself: kept as a backup (``d~``) or swapped."""


def _operands(argv: Argv) -> list[str | None]:
    """The words of ``argv`` its program reads as operands: not options, nor their values (after ``--``: all)."""
    values = value_positions(argv)
    found: list[str | None] = []
    ended = False
    for index, word in enumerate(argv[1:], start=1):
        if ended or word is None:
            found.append(word)
        elif word == "--":
            ended = True
        elif index not in values and (word == "-" or not word.startswith("-")):
            found.append(word)
    return found


def _handed(args: Argv, run_at: int | None, head: str | None) -> Argv | None:
    """The words an interpreter hands the code it runs: after its script (``run_at``) or the word ``head`` ends."""
    if run_at is not None:
        return args[run_at + 1 :]
    for index in range(len(args) - 1, -1, -1):
        word = args[index]
        if head is not None and word is not None and word.endswith(head):
            return args[index + 1 :]
    return None


def tree_operands(argv: Argv, depth: int = 0) -> list[str]:
    """The words of ``argv`` naming paths whose contents (if each is a directory) its program may change."""
    if not argv or depth > 8:
        return []
    named = [t for t in program_targets(tuple(argv)) if isinstance(t, str)]
    if argv[0] is None:
        return named
    base, args = posixpath.basename(argv[0]), argv[1:]
    if base in ENTRY_PROGRAMS or base in _MODELLED:
        return []
    if is_wrapper(base):
        inner = unwrap(base, tuple(args))
        return tree_operands(inner, depth + 1) if inner else named
    if is_interpreter(base):
        # Its own options are read by its grammar (``perl -I.`` names a directory it reads); the words
        # it hands the script, module or inline code it runs are the code's to use as it likes.
        run = interpreter_run(base, args)
        if run is not None and run.kind in ("script", "module", "inline"):
            head = run.module if run.kind == "module" else (run.code[-1] if run.code else None)
            handed = _handed(args, run.at, head)
            if handed is not None:
                return [t for t in program_targets((None, *handed)) if isinstance(t, str)]
        return named
    if base == "find":
        # Its start points come first; they are among its targets only when it changes what it finds.
        starts = []
        for word in args:
            if word is None or word.startswith(("-", "(", "!")):
                break
            starts.append(word)
        return [word for word in (starts or ["."]) if word in named]
    if base == "mv":
        given = options_given([base, *args]) or {}
        operands = [w for w in _operands([base, *args]) if w is not None]
        if "-t" in given:
            return operands  # every operand is a source; the destination is the option's value
        if given.keys() & _MOVES_THE_DESTINATION:
            return operands  # the destination's own tree is renamed (a backup) or swapped too
        return operands[:-1]
    descending = _descending_options(base)
    if descending:
        read = options_given([base, *args])
        if read is not None and None not in args and not descending.intersection(read):
            return []
    return named


# find's primaries that only narrow what it acts on, or act, in a plain conjunction of tests.
_FIND_PLAIN = frozenset(
    {"-type", "-maxdepth", "-mindepth", "-delete", "-print", "-print0", "-depth", "-xdev", "-mount"}
)


def find_names(argv: Argv) -> tuple[str, ...] | None:
    """The ``-name``/``-iname`` patterns ``find`` acts only on (lower-cased for ``-iname``), or None.

    ``find . -name '*.pyc' -delete`` removes only what the pattern matches; any other test, an
    operator (``-o``, ``!``, parentheses) or a run-time word and it may act on anything: None.
    """
    if not argv or argv[0] is None or posixpath.basename(argv[0]) != "find":
        return None
    words = list(argv[1:])
    at = next((i for i, w in enumerate(words) if w is None or w.startswith(("-", "(", "!"))), len(words))
    names: list[str] = []
    index = at
    while index < len(words):
        word = words[index]
        value = words[index + 1] if index + 1 < len(words) else None
        if word in ("-name", "-iname") and value is not None:
            names.append(value.lower() if word == "-iname" else value)
            index += 2
        elif word in ("-type", "-maxdepth", "-mindepth") and value is not None:
            index += 2
        elif word in _FIND_PLAIN:
            index += 1
        else:
            return None
    return tuple(names) or None
