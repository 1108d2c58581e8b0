"""Options that make a program derive the name of a file it writes, mined from the manual pages (PERM-15).

A program may write a file no word of its line names: ``cp -b -S rc f .bash`` backs ``.bash`` up
as ``.bashrc``, ``gzip -S rc .bash`` compresses it to ``.bashrc``, ``csplit -f .bash -b 'rc%.0d'``
numbers its pieces from ``.bashrc``. Nobody types the list in: :func:`mine_claims` reads the
installed programs' manual pages for options whose argument is a suffix, a prefix or a name format
(``-S, --suffix=SUFFIX``, ``-S .suf``, ``-f, --prefix=PREFIX``, ``-b, --suffix-format=FORMAT``) and
whose description speaks of the names written (a backup, a target file, a file name, instead of a
default). Each claim is tried in the forms of :data:`FORMS` (a backup of an existing file, a file
compressed in place, a patch's backup, pieces numbered from a prefix) in a bubblewrap sandbox
(:func:`~pytest_toolharness._strategies.file_writers.written_paths`); the first form in which the
filesystem saw ``.bash`` + ``rc`` become ``.bashrc`` is kept. The result is committed
(``derived_names.json``); ``python -m pytest_toolharness._strategies.derived_names`` mines it again.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from hypothesis import strategies as st

from pytest_toolharness._strategies.file_writers import (
    MAN_DIR,
    confirm_claims,
    installed_pages,
    write_catalogue,
    written_paths,
)
from pytest_toolharness._strategies.program_catalogue import BIN_DIRS, option_blocks

__all__ = [
    "DERIVED_FILE",
    "DerivedNameOption",
    "derived_name_options",
    "load_derived",
    "mine_claims",
    "prepare_derived_work",
]

DERIVED_FILE = Path(__file__).with_name("derived_names.json")

OptionPart = Literal["tail", "head"]
"""What the option's value is of the name written: its end (a suffix, a format), or its start (a prefix)."""

# The forms a claim is tried in: ``{option}`` is the option and its value, ``{head}`` the file the
# program starts from (it exists), ``{tail}`` what completes the name when the option gives the head.
FORMS: dict[OptionPart, tuple[str, ...]] = {
    "tail": (
        "{program} -b {option} in.txt {head}",  # a backup of the destination (cp, mv, ln, install)
        "{program} {option} {head}",  # a file compressed beside itself (gzip, xz, lzma)
        "{program} -b {option} {head} in.diff",  # a patch's backup of the file it patches
        "{program} -f {head} {option} in.txt 2",  # pieces named by a format (csplit -b)
        "{program} -t UTF-8 {option} {head}",  # a file converted beside itself (man-recode)
    ),
    "head": ("{program} {option} -b '{tail}%.0d' in.txt 2",),  # pieces numbered from a prefix (csplit -f)
}
_ARGUMENT = re.compile(
    r"(?<![\w-])(--?[A-Za-z][\w-]*)(\[?=|\s+)[<\[]?(SUFFIX|PREFIX|FORMAT|\.suf|suffix|prefix)\b"
)
_NAMES_WRITTEN = re.compile(r"backup|target file|file ?names?|instead of|output file", re.I)
PROBE_HEAD, PROBE_TAIL = ".bash", "rc"


@dataclass(frozen=True, order=True)
class DerivedNameOption:
    """One option by which ``program`` derives a name it writes, and the form the filesystem confirmed.

    ``aliases`` are the option's other spellings on the same manual line (``-S`` and ``--suffix``);
    ``part`` says whether its value ends or starts the name; ``form`` is the line (see :data:`FORMS`).
    """

    program: str
    option: str
    aliases: tuple[str, ...]
    part: OptionPart
    form: str = ""
    source: str = ""
    evidence: str = ""
    confirmed: bool = False

    def value(self, head: str, tail: str) -> str:
        """The option's value that makes the program write ``head`` + ``tail``."""
        if self.part == "head":
            return head
        return f"{tail}%.0d" if "-f {head}" in self.form else tail

    def spellings(self) -> tuple[tuple[str, str], ...]:
        """(option, joiner) spellings getopt reads alike: ``-S rc``, ``-Src``, ``--suffix rc``, ``--suffix=rc``."""
        found: list[tuple[str, str]] = []
        for spelled in (self.option, *self.aliases):
            found.extend([(spelled, " "), (spelled, "=" if spelled.startswith("--") else "")])
        return tuple(found)

    def command_line(self, head: str, tail: str, *, option: str | None = None, joiner: str = " ") -> str:
        """The line that writes ``head`` + ``tail``, the option spelled as given."""
        value = self.value(head, tail)
        spelled = f"{option or self.option}{joiner}{_quoted(value)}"
        return self.form.format(program=self.program, option=spelled, head=head, tail=tail)


def _quoted(word: str) -> str:
    return f"'{word}'" if re.search(r"[^\w.,/=+-]", word) else word


def _page_claims(program: str, troff: str, source: str) -> Iterable[DerivedNameOption]:
    for head, description in option_blocks(troff.splitlines()):
        match = _ARGUMENT.search(head)
        if match is None:
            continue
        option, _, argument = match.groups()
        named_by_option = "suffix" in option or "prefix" in option
        if not (_NAMES_WRITTEN.search(description[:300]) or named_by_option):
            continue
        aliases = tuple(
            alias
            for alias in dict.fromkeys(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", head))
            if alias != option and alias not in ("-h", "--help")
        )
        part: OptionPart = "head" if "prefix" in (option + argument).lower() else "tail"
        evidence = f"{head} :: {description[:160]}"
        yield DerivedNameOption(program, option, aliases, part, source=source, evidence=evidence)


def mine_claims(man_dir: str = MAN_DIR, bin_dirs: Sequence[str] = BIN_DIRS) -> tuple[DerivedNameOption, ...]:
    """Every claim the installed manual pages make (unconfirmed)."""
    claims: dict[tuple[str, str], DerivedNameOption] = {}
    for program, troff, source in installed_pages(man_dir, bin_dirs):
        for claim in _page_claims(program, troff, source):
            claims.setdefault((claim.program, claim.option), claim)
    return tuple(claims.values())


def prepare_derived_work(work: Path, head: str) -> None:
    """The working directory a form runs in: an input, a diff that patches any file, and ``head`` itself."""
    (work / "in.txt").write_text("b\na\nb\n", encoding="utf-8")
    (work / "in.diff").write_text("--- t\n+++ t\n@@ -0,0 +1 @@\n+x\n", encoding="utf-8")
    (work / head).parent.mkdir(parents=True, exist_ok=True)
    (work / head).write_text("a\n", encoding="utf-8")


def confirm(claim: DerivedNameOption, root: Path) -> DerivedNameOption:
    """``claim`` with the first form in which the filesystem saw it write ``.bash`` + ``rc``."""
    for form in FORMS[claim.part]:
        candidate = replace(claim, form=form)
        work = Path(tempfile.mkdtemp(dir=root))
        try:
            prepare_derived_work(work, PROBE_HEAD)
            line = candidate.command_line(PROBE_HEAD, PROBE_TAIL)
            written = written_paths(line, work, timeout=3.0)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if PROBE_HEAD + PROBE_TAIL in written:
            return replace(candidate, confirmed=True)
    return claim


def mine(man_dir: str = MAN_DIR) -> tuple[DerivedNameOption, ...]:
    """The claims of the installed manual pages, each confirmed (or not) by the filesystem."""
    return confirm_claims(mine_claims(man_dir), confirm, workers=4)


def load_derived(path: Path = DERIVED_FILE) -> tuple[DerivedNameOption, ...]:
    """The committed catalogue's confirmed options."""
    rows = json.loads(path.read_text(encoding="utf-8"))["entries"]
    return tuple(
        DerivedNameOption(**{**row, "aliases": tuple(row["aliases"])}) for row in rows if row["confirmed"]
    )


def derived_name_options() -> st.SearchStrategy[DerivedNameOption]:
    """A confirmed option of the committed catalogue: a program, the option by which it derives a name, its form."""
    return st.sampled_from(load_derived())


def main(argv: Sequence[str] = ()) -> int:
    """Mine the catalogue and write it to ``derived_names.json`` (or the path given)."""
    target = Path(argv[0]) if argv else DERIVED_FILE
    return write_catalogue(target, "python -m pytest_toolharness._strategies.derived_names", mine())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
