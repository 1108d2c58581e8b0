"""Files a program writes under names its line does not show: names it derives (PERM-15).

A program may write a file whose name is none of its words: a backup (``cp -b -S rc f .bash``
writes ``.bashrc``), a compressor's output (``gzip -S rc .bash``, ``gzip -d .envrc.gz``), a
splitter's pieces (``csplit -f .bash -b 'rc%.0d'``), an in-place editor's backup (``sed -irc``),
a typescript (``script .bashrc``), a copied tree's or an archive's contents (``cp -r src/. .``,
``tar xf t.tar``, ``python3 -m tarfile -e t.tar``), a patch's files, a server's names (``wget -r``). Each is read by the program's own rule for the name, with
its options read by its grammar (mined from ``--help``, ``program_grammar.json``):

* an exact name (a string) when the rule and every word it uses are known;
* a :class:`NameFamily` when the program numbers its outputs (``split``: prefix, letters, suffix);
* a :class:`CopiedTree` or :class:`ArchiveMembers` when the names are on disk before the line
  runs (the judge lists them);
* ``None`` when the names can't be computed (an option the grammar does not know, a name from
  the environment the line changes, a header's stored name): the write is asked about.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from reference_impl.permissions._git_own_files import configuration_change, new_repository_writes
from reference_impl.permissions._git_tree_writes import GIT_TREE_MOVERS
from reference_impl.permissions._program_grammar import option_grammar
from reference_impl.permissions._project_hooks import (
    PIP_DESTINATIONS,
    pip_command,
    pip_local_finders,
    pip_option_values,
)

__all__ = [
    "ArchiveMembers",
    "CopiedTree",
    "Derived",
    "GitTreeMove",
    "NameFamily",
    "PatchedFiles",
    "derived_names",
]

Argv = Sequence[str | None]


@dataclass(frozen=True, slots=True)
class NameFamily:
    """The files named ``head`` + a run of ``alphabet`` characters (at least ``shortest``) + ``tail``."""

    head: str
    alphabet: str
    shortest: int
    tail: str

    def example(self) -> str:
        """One member: its directory is every member's."""
        return self.head + self.alphabet[:1] * max(self.shortest, 1) + self.tail

    def holds(self, path: str) -> bool:
        """Whether ``path`` (spelled in the head's directory) is one of the family."""
        if not (path.startswith(self.head) and path.endswith(self.tail)):
            return False
        middle = path[len(self.head) : len(path) - len(self.tail)]
        return (
            len(path) >= len(self.head) + len(self.tail)
            and len(middle) >= self.shortest
            and all(c in self.alphabet for c in middle)
        )


@dataclass(frozen=True, slots=True)
class CopiedTree:
    """Every file under ``source`` (as on disk before the line runs) written under ``destination``.

    Both readings are judged: the contents straight under ``destination`` (``cp -r src/. dst``, a
    new ``dst``) and under ``destination/<source's name>`` (an existing ``dst``).
    """

    source: str
    destination: str


@dataclass(frozen=True, slots=True)
class ArchiveMembers:
    """The members of the archive ``archive`` (as on disk before the line runs), extracted under ``destination``."""

    archive: str
    destination: str


@dataclass(frozen=True, slots=True)
class PatchedFiles:
    """The files a diff names (``---``/``+++``/``diff --git``/``rename to`` lines), patched under ``directory``.

    The diff is the file ``diff`` (as on disk before the line runs) or the here-document ``text``;
    ``strip`` leading components are removed from each name (None: any number may be).
    """

    diff: str | None
    text: str | None
    strip: int | None
    directory: str


_GIT_PLACE = re.compile(
    r"\bGIT_(?:DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT|CEILING)"
)


@dataclass(frozen=True, slots=True)
class GitTreeMove:
    """The working-tree files ``git args`` writes from repository content (``git checkout b``), and its configuration, asked of git."""

    args: tuple[str | None, ...]
    environment_moved: bool = False
    tree: bool = True
    """False: only what git writes into its own configuration (``git remote add``), not the working tree."""


Derived = str | NameFamily | CopiedTree | ArchiveMembers | PatchedFiles | GitTreeMove | None


@dataclass(frozen=True, slots=True)
class _Line:
    """A program's words read by its grammar: each option's values by name, and the operands."""

    options: Mapping[str, tuple[str, ...]]
    operands: tuple[str, ...]

    def has(self, *names: str) -> bool:
        return any(name in self.options for name in names)

    def last(self, *names: str) -> str | None:
        values = [v for name in names for v in self.options.get(name, ())]
        return values[-1] if values else None


_Grammar = tuple[Mapping[str, str], frozenset[str], frozenset[str]]


def _grammar(program: str, fallback: str = "") -> _Grammar | None:
    """The program's mined grammar, with a getopt string's letters (``"dkfS:"``) it does not give."""
    mined = option_grammar(program)
    if not fallback:
        return mined
    # ``--help`` may leave letters out (xz's and zstd's levels ``-9``, ``-19``): the getopt string adds them.
    names = {f"-{letter}": f"-{letter}" for letter in fallback.replace(":", "")}
    values = frozenset(f"-{m}" for m in re.findall(r"(\w):", fallback))
    if mined is None:
        return names, values, frozenset()
    return {**names, **mined[0]}, mined[1] | (values - set(mined[0])), mined[2]


def _read(args: Argv, grammar: _Grammar | None) -> _Line | None:
    """``args`` read as getopt_long reads them (options anywhere, ``--``, bundles, unique prefixes).

    None when a word is only known at run time or an option is not in the grammar: its names
    can't be computed.
    """
    if grammar is None or any(word is None for word in args):
        return None
    names, values, optional = grammar
    options: dict[str, tuple[str, ...]] = {}
    operands: list[str] = []
    words = [w for w in args if w is not None]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            operands.extend(words[index:])
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word.startswith("--"):
            given, eq, value = word.partition("=")
            hits = {
                n for spelled, n in names.items() if spelled.startswith("--") and spelled.startswith(given)
            }
            name = names.get(given) or (next(iter(hits)) if len(hits) == 1 else None)
            if name is None:
                return None
            if not eq and name in values:
                if index >= len(words):
                    return None
                value, index = words[index], index + 1
            options[name] = (*options.get(name, ()), value)
            continue
        letters = word[1:]
        for position, letter in enumerate(letters):
            name = names.get(f"-{letter}")
            if name is None:
                return None
            rest = letters[position + 1 :]
            if name in values or name in optional:
                if not rest and name in values:
                    if index >= len(words):
                        return None
                    rest, index = words[index], index + 1
                options[name] = (*options.get(name, ()), rest)
                break
            options[name] = (*options.get(name, ()), "")
    return _Line(options, tuple(operands))


# The coreutils backup convention (cp, mv, ln, install: the programs whose grammar has both
# ``--backup`` and ``--suffix``): ``-b``/``--backup[=CONTROL]`` backs the destination up as
# ``DEST`` + suffix (``-S``/``--suffix``, else $SIMPLE_BACKUP_SUFFIX, else ``~``), or as
# ``DEST.~N~`` when numbered ($VERSION_CONTROL or CONTROL: ``t``, ``numbered``, ``nil``, ``existing``).


def _backup_suffix(
    line: _Line, assignments: Sequence[str], line_source: str, environment: Mapping[str, str]
) -> str | None:
    """The simple backup suffix: ``-S``, the part's ``SIMPLE_BACKUP_SUFFIX=``, the harness's, ``~``.

    None when another part of the line may set the variable (``export``, ``env``, ``declare``).
    """
    given = line.last("-S", "--suffix")
    if given is not None:
        return given
    for assignment in reversed(assignments):
        name, _, value = assignment.partition("=")
        if name == "SIMPLE_BACKUP_SUFFIX":
            return value
    if "SIMPLE_BACKUP_SUFFIX" in line_source:
        return None
    return environment.get("SIMPLE_BACKUP_SUFFIX") or "~"


def _backups(
    line: _Line, assignments: Sequence[str], line_source: str, environment: Mapping[str, str]
) -> list[Derived]:
    """The backups ``line`` makes of its destinations (each possible one; None: the suffix is not known)."""
    if not line.has("-b", "--backup"):
        return []
    control = line.last("--backup") or ""
    if control in ("none", "off"):
        return []
    suffix = _backup_suffix(line, assignments, line_source, environment)
    directory = line.last("-t", "--target-directory")
    operands = line.operands
    if directory is not None:
        destinations = [posixpath.join(directory, posixpath.basename(s.rstrip("/"))) for s in operands]
    elif len(operands) >= 2:
        # The last operand is the destination, or a directory the sources go into.
        last = operands[-1]
        destinations = [
            last,
            *(posixpath.join(last, posixpath.basename(s.rstrip("/"))) for s in operands[:-1]),
        ]
    else:
        destinations = list(operands)  # ``ln -b -s a``: a link named like its target, here
    derived: list[Derived] = []
    for destination in destinations:
        derived.append(None if suffix is None else destination + suffix)
        derived.append(NameFamily(destination + ".~", "0123456789", 1, "~"))
    return derived


# Compressors (their grammar has ``--decompress`` and ``--stdout``): FILE becomes FILE + suffix;
# decompressed, FILE loses one of the suffixes the program knows (``.tgz`` becomes ``.tar``).
_COMPRESSED_SUFFIX = {
    "gzip": ".gz",
    "pigz": ".gz",
    "bzip2": ".bz2",
    "xz": ".xz",
    "lzma": ".lzma",
    "zstd": ".zst",
}
_COMPRESSED_SUFFIX |= {"lz4": ".lz4", "lzip": ".lz", "brotli": ".br", "compress": ".Z"}
_DECOMPRESSORS = {"gunzip": "gzip", "unpigz": "pigz", "bunzip2": "bzip2", "unxz": "xz", "unlzma": "lzma"}
_DECOMPRESSORS |= {"unzstd": "zstd", "unlz4": "lz4", "uncompress": "compress"}
_KNOWN_SUFFIXES = {
    ".gz": "",
    "-gz": "",
    ".z": "",
    "-z": "",
    "_z": "",
    ".Z": "",
    ".tgz": ".tar",
    ".taz": ".tar",
}
_KNOWN_SUFFIXES |= {
    ".bz2": "",
    ".bz": "",
    ".tbz2": ".tar",
    ".tbz": ".tar",
    ".xz": "",
    ".lzma": "",
    ".txz": ".tar",
}
_KNOWN_SUFFIXES |= {".tlz": ".tar", ".zst": "", ".tzst": ".tar", ".lz4": "", ".lz": "", ".br": ""}
# Flags their ``--help`` does not give the grammar for (getopt strings).
_COMPRESSOR_FLAGS = "dzkfctqvLlnNr123456789S:"


def _compressed(program: str, args: Argv) -> list[Derived]:
    """What a compressor writes beside its operands (nothing with ``-c``/``--stdout`` or ``-o``)."""
    family = _DECOMPRESSORS.get(program, program)
    line = _read(args, _grammar(program, _COMPRESSOR_FLAGS))
    if line is None:
        return [None]
    if line.has("-c", "--stdout", "-l", "--list", "-t", "--test", "-o"):
        return []
    if line.has("-r", "--recursive"):
        return [None]  # each file under a directory: not listed
    decompressing = program in _DECOMPRESSORS or line.has("-d", "--decompress", "--uncompress")
    suffix = line.last("-S", "--suffix")
    derived: list[Derived] = []
    for operand in line.operands:
        if operand == "-":
            continue
        if not decompressing:
            default = _COMPRESSED_SUFFIX.get(family)
            if suffix is None and default is None:
                derived.append(NameFamily(operand, "".join(map(chr, range(33, 127))), 1, ""))
            else:
                derived.append(operand + (suffix if suffix is not None else str(default)))
            continue
        if line.has("-N", "--name"):
            return [None]  # the name stored in the compressed file's header
        known = {**_KNOWN_SUFFIXES, **({suffix: ""} if suffix else {})}
        stripped = [
            operand[: -len(s)] + known[s] for s in known if operand.endswith(s) and len(operand) > len(s)
        ]
        derived.extend(stripped or [operand + ".out"])  # bzip2 names what it can't strip FILE.out
    return derived


def _split_pieces(line: _Line) -> list[Derived]:
    """``split [IN [PREFIX]]``: PREFIX (``x``) + letters, digits or hex (``-a`` of them at least) + ``--additional-suffix``."""
    prefix = line.operands[1] if len(line.operands) > 1 else "x"
    if line.has("-d", "--numeric-suffixes"):
        alphabet = "0123456789"
    elif line.has("-x", "--hex-suffixes"):
        alphabet = "0123456789abcdef"
    else:
        alphabet = "abcdefghijklmnopqrstuvwxyz"
    length = line.last("-a", "--suffix-length") or "1"
    shortest = int(length) if length.isdigit() else 1
    return [NameFamily(prefix, alphabet, shortest, line.last("--additional-suffix") or "")]


_CONVERSION = re.compile(r"%[-+ #0']*\d*(?:\.\d*)?[diouxX]")


def _csplit_pieces(line: _Line) -> list[Derived]:
    """``csplit``: ``-f`` PREFIX (``xx``) + ``-b`` FORMAT (``%02d``) printed with each piece's number.

    A conversion may print nothing (``%.0d`` of 0), so the number's run may be empty.
    """
    prefix = line.last("-f", "--prefix") or "xx"
    form = line.last("-b", "--suffix-format")
    if form is None:
        return [NameFamily(prefix, "0123456789", 1, "")]
    conversions = list(_CONVERSION.finditer(form))
    if len(conversions) != 1 or "%" in form.replace("%%", "")[: conversions[0].start()]:
        return [None]
    match = conversions[0]
    before, after = form[: match.start()].replace("%%", "%"), form[match.end() :].replace("%%", "%")
    if "%" in after:
        return [None]
    return [NameFamily(prefix + before, "0123456789abcdefABCDEF+- ", 0, after)]


def _in_place_backups(files: Sequence[str], suffix: str) -> list[Derived]:
    """``sed -i``/``perl -i`` backups: FILE + SUFFIX, or SUFFIX with each ``*`` the file's name.

    With a ``*`` the name may be beside the file or where the suffix says (both are judged).
    """
    derived: list[Derived] = []
    for file in files:
        if "*" not in suffix:
            derived.append(file + suffix)
            continue
        named = suffix.replace("*", posixpath.basename(file))
        derived.extend([named, posixpath.join(posixpath.dirname(file), named)])
    return derived


def _sed_backups(line: _Line) -> list[Derived]:
    suffix = line.last("-i", "--in-place")
    if not suffix:
        return []
    script_given = line.has("-e", "--expression", "-f", "--file")
    return _in_place_backups(line.operands[0 if script_given else 1 :], suffix)


_PERL_VALUES = frozenset("eEIMmlCdDxF0")


def _perl_backups(args: Argv) -> list[Derived]:
    """``perl -i[EXT]``: its files are the operands after the program (``-e`` code, else the first operand)."""
    suffix: str | None = None
    coded = False
    switches = True  # until the first operand or ``--``: later words are operands, dashed or not
    operands: list[str] = []
    words = list(args)
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word is None:
            return [None] if suffix is not None else []
        if not switches or word == "--" or not word.startswith("-") or word == "-":
            if not switches or word != "--":
                operands.append(word)
            switches = False
            continue
        for position, letter in enumerate(word[1:], start=1):
            rest = word[position + 1 :]
            if letter == "i":
                suffix = rest
                break
            if letter in _PERL_VALUES:
                coded = coded or letter in "eE"
                if not rest and letter in "eEIM":
                    index += 1
                break
    if not suffix:
        return []
    return _in_place_backups(operands if coded else operands[1:], suffix)


def _typescript(line: _Line) -> list[Derived]:
    """``script [FILE]``: FILE (``typescript``), and its ``-O``/``-I``/``-B``/``-T`` logs (named words)."""
    return [line.operands[0] if line.operands else "typescript"]


def _recursive_copies(program: str, line: _Line) -> list[Derived]:
    """Trees copied or moved by ``cp -r``, ``mv``, ``rsync -r``: their files land under the destination."""
    if program == "cp" and not line.has("-R", "-r", "-a", "--recursive", "--archive"):
        return []
    directory = line.last("-t", "--target-directory")
    sources = line.operands if directory is not None else line.operands[:-1]
    destination = directory if directory is not None else line.operands[-1] if line.operands else None
    if destination is None:
        return []
    return [None if ":" in source else CopiedTree(source, destination) for source in sources]


def _tar_words(args: Argv, grammar: _Grammar | None) -> list[str | None]:
    """The words of tar with an old-style first word (``xfC a.tar dir``) spelled as options, each taking its value in turn."""
    if not args or args[0] is None or args[0].startswith("-") or grammar is None:
        return list(args)
    words: list[str | None] = []
    rest = list(args[1:])
    for letter in args[0]:
        words.append(f"-{letter}")
        if grammar[0].get(f"-{letter}") in grammar[1] and rest:
            words.append(rest.pop(0))
    return [*words, *rest]


def _tar_extraction(line: _Line) -> list[Derived]:
    """``tar -x``: the archive's members under ``-C``; renaming options leave the names unknown."""
    if not line.has("-x"):
        return []
    if line.has("-O", "--to-command"):
        return []  # to standard output, or to a command (a run of its own)
    renaming = ("--transform", "--strip-components", "-P", "--backup", "--suffix", "-T", "-F", "-M", "-K")
    renaming_too = ("--one-top-level", "-N", "-L", "-V")
    archive = line.last("-f")
    if line.has(*renaming, *renaming_too) or archive is None or archive == "-" or ":" in archive:
        return [None]
    return [ArchiveMembers(archive, line.last("-C") or ".")]


_UNZIP_FLAGS = "oqnjCLXaU"
# rsync's everyday flags (its ``--help`` gives the grammar no options): any other option is unread.
_RSYNC_FLAGS = "avzrlptgoDhPHAXcnuiqSWxLkKOJmyIbR"


def _unzip_extraction(args: Argv) -> list[Derived]:
    """``unzip [-oqn] ARCHIVE [MEMBERS...] [-d DIR]``: the archive's members under DIR."""
    line = _read(args, _grammar("unzip", _UNZIP_FLAGS + "d:x:"))
    if line is None or not line.operands or line.has("-j"):
        return [None]
    return [ArchiveMembers(line.operands[0], line.last("-d") or ".")]


_PATCH_OPTIONS = "p:i:o:r:d:D:F:bcelnuNREfstTZ"


def _patch_files(args: Argv, stdin: str | None) -> list[Derived]:
    """``patch [-pN] [-d DIR] [-i DIFF] [FILE [DIFF]]``: the files its diff names, DIFF and they under DIR (backups by prefix unread)."""
    line = _read(args, _grammar("patch", _PATCH_OPTIONS))
    if line is None:
        return [None]  # ``-z``, ``-B``, ``-Y``, ``-V`` name backups by rules of their own: unread
    strip = line.last("-p")
    level = int(strip) if strip is not None and strip.isdigit() else None if strip is not None else 0
    directory = line.last("-d") or "."
    diff = line.last("-i") or (line.operands[1] if len(line.operands) > 1 else None)
    if diff is not None:
        diff = posixpath.join(directory, diff)  # patch moves to ``-d`` before it reads its input
    if diff is None and stdin is None:
        return [None]  # a diff on its standard input: not read
    # ``patch FILE``: the diff's changes go to FILE, a named word (the diff may name others: judged too).
    return [PatchedFiles(diff, None if diff is not None else stdin, level, directory)]


def _git_apply_files(args: Argv, stdin: str | None) -> list[Derived]:
    """``git apply``/``git am`` with their diffs: the files named, stripped of ``-pN`` (1) components."""
    strip: int | None = 1
    diffs: list[str] = []
    directory = "."
    for word in args:
        if word is None:
            return [None]
        if word.startswith("-p"):
            strip = int(word[2:]) if word[2:].isdigit() else None
        elif word.startswith("--directory="):
            directory = word.partition("=")[2]
        elif word.startswith("-"):
            continue
        else:
            diffs.append(word)
    if not diffs:
        return [None] if stdin is None else [PatchedFiles(None, stdin, strip, directory)]
    return [PatchedFiles(diff, None, strip, directory) for diff in diffs]


# Programs that write files the line does not name, from content the engine does not read:
# extractors their members (PERM-15: unknown names are asked about).
_WRITES_NAMES_IT_READS = frozenset({"cpio", "pax", "7z", "7za", "7zr", "ar", "unrar", "unar", "bsdtar"})
_WRITES_NAMES_IT_READS |= frozenset({"jar", "rpm2cpio", "dpkg-deb", "unsquashfs", "busybox"})


def derived_names(
    program: str,
    args: Argv,
    assignments: Sequence[str] = (),
    line_source: str = "",
    environment: Mapping[str, str] | None = None,
    stdin: str | None = None,
) -> list[Derived]:
    """The files ``program`` writes under names none of its words is (see the module's docstring).

    ``assignments`` are the variables the line gives it (``SIMPLE_BACKUP_SUFFIX=rc cp -b``),
    ``line_source`` the whole line (which may set them elsewhere), ``environment`` the harness's
    own (the default: this process's), ``stdin`` a here-document's text. Numbered backups
    (``VERSION_CONTROL``) are always judged.
    """
    env = os.environ if environment is None else environment
    if program in _WRITES_NAMES_IT_READS:
        return [None]
    if program == "patch":
        return _patch_files(args, stdin)
    if program == "git":
        index, directory = 0, "."
        while index < len(args) and args[index] is not None and str(args[index]).startswith("-"):
            takes = args[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace")
            if args[index] == "-C" and index + 1 < len(args):
                moved = args[index + 1]
                if moved is None:
                    return [None]  # a directory only known when the line runs
                directory = posixpath.join(directory, moved)  # ``-C ""`` leaves it as it is (git(1))
            index += 2 if takes else 1
        # ``GIT_DIR=x git checkout b``, ``export GIT_WORK_TREE=..``: git works elsewhere.
        environment_moved = any(_GIT_PLACE.search(text) for text in (*assignments, line_source))
        # ``git init --template=T``: T's files copied into the git directory; ``git clone -c``: its configuration.
        made: list[Derived] = [
            None if template is None else CopiedTree(template, git_directory) if template else git_directory
            for template, git_directory in new_repository_writes(args, assignments, line_source)
        ]
        if index < len(args) and args[index] in GIT_TREE_MOVERS:
            return [GitTreeMove(tuple(args), environment_moved)]
        if configuration_change(args) is not None:
            return [*made, GitTreeMove(tuple(args), environment_moved, tree=False)]
        if made:
            return made
        if index >= len(args) or args[index] not in ("apply", "am"):
            return []
        found = _git_apply_files(args[index + 1 :], stdin)
        return [
            replace(
                f,
                diff=None if f.diff is None else posixpath.join(directory, f.diff),
                directory=posixpath.join(directory, f.directory),
            )
            if isinstance(f, PatchedFiles)
            else f
            for f in found
        ]
    grammar = option_grammar(program)
    names = grammar[0] if grammar is not None else {}
    derived: list[Derived] = []
    if program == "tar":
        line = _read(_tar_words(args, grammar), grammar)
        return [None] if line is None else _tar_extraction(line)
    if "--backup" in names.values() and "-S" in names.values():
        line = _read(args, grammar)
        if line is None:
            return [None]
        derived.extend(_backups(line, assignments, line_source, env))
        if program in ("cp", "mv"):
            derived.extend(_recursive_copies(program, line))
        return derived
    if program in _COMPRESSED_SUFFIX or program in _DECOMPRESSORS:
        return _compressed(program, args)
    if program == "rsync":
        line = _read(args, _grammar("rsync", _RSYNC_FLAGS))
        if line is None or line.has("-b", "-R"):
            return [None]  # backups beside the files, or the sources' whole paths recreated
        return _recursive_copies(program, line)
    if program == "unzip":
        return _unzip_extraction(args)
    if program in ("split", "csplit", "sed", "script"):
        line = _read(args, grammar)
        if line is None:
            return [None]
        reader = {
            "split": _split_pieces,
            "csplit": _csplit_pieces,
            "sed": _sed_backups,
            "script": _typescript,
        }
        return reader[program](line)
    if program == "perl":
        return _perl_backups(args)
    if program in _REMOTE_NAMES:
        return _remote_names(program, args)
    if re.fullmatch(r"pip[\d.]*", program):
        return _pip_installed(args)
    if re.fullmatch(r"python[\d.]*", program) and "-m" in args:
        return _python_module_cli(args[args.index("-m") + 1 :])
    return _unread_suffix(args, names)


def _python_module_cli(words: Argv) -> list[Derived]:
    """The standard library's command lines that derive names: ``-m gzip`` (as gzip), ``-m zipfile -e``, ``-m tarfile -e``."""
    if not words or words[0] is None:
        return [None]
    module, rest = words[0], list(words[1:])
    if module == "pip":
        return _pip_installed(rest)
    if module == "gzip":
        return _compressed("gzip", [w for w in rest if w not in ("--fast", "--best")])
    if module in ("zipfile", "tarfile") and any(w in ("-e", "--extract") for w in rest):
        at = next(i for i, w in enumerate(rest) if w in ("-e", "--extract"))
        operands = rest[at + 1 :]
        if len(operands) < 1 or any(w is None for w in operands):
            return [None]
        return [ArchiveMembers(str(operands[0]), str(operands[1]) if len(operands) > 1 else ".")]
    return []


def _pip_installed(args: Argv) -> list[Derived]:
    """``pip install --target T``: a local wheel's members under T; ``--prefix``/``--root``'s, or a local place's, unknown.

    A wheel runs no build code, but installing it writes its members (``.claude/settings.json``);
    with ``--prefix``/``--root`` its ``.data`` files land under the prefix by the install scheme (and
    a local ``-f`` place's wheels). A package from the index is not the project's: not judged.
    """
    if any(w is None for w in args):
        return [None]
    words = [str(w) for w in args]
    places = pip_option_values(words, PIP_DESTINATIONS)
    if pip_command(words) != "install" or not places:
        return []  # the interpreter's own site-packages
    wheels = [w for w in words if w.endswith(".whl") and "://" not in w]
    local: list[Derived] = [None] if pip_local_finders(words) else []
    if any(option != "--target" for option, _ in places):
        return [None] if wheels or local else []
    return [ArchiveMembers(wheel, places[-1][1]) for wheel in wheels]


# Downloaders name a file by its URL (a named word), except where the server or the pages it
# links to name them: ``wget -r``/``-m``/``-i LIST``/``--content-disposition``/``--trust-server-names``,
# ``wget -p``, ``curl -J``/``--remote-header-name``.
_REMOTE_NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "wget": (
        "rmip",
        ("--recursive", "--mirror", "--input-file", "--content-disposition", "--trust-server-names"),
    ),
    "curl": ("J", ("--remote-header-name",)),
}


def _remote_names(program: str, args: Argv) -> list[Derived]:
    """Whether the server or the pages fetched name the files written (unknown), else nothing more."""
    letters, words = _REMOTE_NAMES[program]
    for word in args:
        if word is None:
            return [None]
        if word.partition("=")[0] in words:
            return [None]
        if re.fullmatch(r"-[A-Za-z]+", word) and set(word[1:]) & set(letters):
            return [None]
    return []


def _unread_suffix(args: Argv, names: Mapping[str, str]) -> list[Derived]:
    """Any other program given a ``--suffix`` (or ``--*-suffix``) option, however spelled: names derived by a rule not read.

    The option's meaning is the same wherever documented (``man-recode --suffix=rc f``: ``frc``).
    """
    suffixed = {name for spelled, name in names.items() if re.fullmatch(r"--(?:[\w-]+-)?suffix", spelled)}
    for word in args:
        if word is None:
            continue
        given = word.partition("=")[0]
        if re.fullmatch(r"--(?:[\w-]+-)?suffix", given) or names.get(given) in suffixed:
            return [None]
        if (
            given.startswith("--")
            and len(given) > 3
            and any(re.fullmatch(r"--(?:[\w-]+-)?suffix", s) and s.startswith(given) for s in names)
        ):
            return [None]
    return []
