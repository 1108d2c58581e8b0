"""Programs that write a file named by their own operands or options, mined from the machine's manual pages (PERM-15).

Nobody types the list in: :func:`mine_writers` reads the installed programs' manual pages
(``man1``, troff source) and keeps two kinds of claim:

- **options that name a file written** (``sort -o FILE``, ``curl --output <file>``, ``csplit
  --prefix=PREFIX``): the option's argument is named like a file or path, and its description says
  the program writes, outputs, saves, dumps or logs there;
- **operands that name a file written** (``tee FILE``, ``cp SOURCE DEST``, ``truncate FILE``,
  ``chmod MODE FILE``): the page's one-line summary says the program writes, copies, changes,
  creates or links files.

Claims read from prose are only claims: the filesystem judges. :func:`written_paths` runs a line in a
throwaway bubblewrap sandbox (a read-only root, no network, only a fresh working directory writable,
``HOME`` there) and reports the files it created or changed (content, mode or kind). Mining keeps
the first form of each claim (:data:`TAILS`: the operands that bring the program to the write) that
the filesystem saw write the file it named. The result is committed (``file_writers.json`` beside
this module); ``python -m pytest_toolharness._strategies.file_writers`` mines it again.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from hypothesis import strategies as st

from pytest_toolharness._strategies.program_catalogue import BIN_DIRS, option_blocks, troff_text

__all__ = [
    "WRITERS_FILE",
    "WriterEntry",
    "confirm_claims",
    "file_writers",
    "installed_pages",
    "load_writers",
    "mine_writers",
    "write_catalogue",
    "written_paths",
]

WRITERS_FILE = Path(__file__).with_name("file_writers.json")
MAN_DIR = "/usr/share/man/man1"

# Files the sandbox's working directory holds before each line: inputs a writer reads.
INPUTS = {"in.txt": "b\na\nb\n", "in.diff": "--- t\n+++ t\n@@ -0,0 +1 @@\n+x\n"}
# What follows the file a form names, so that the program gets to writing it.
TAILS = ("", " in.txt", " < in.txt", " in.txt in.txt", " -- in.txt", " file://$PWD/in.txt", " 1")
# Before the file an operand writer names: nothing, an input, a mode or a size.
LEADS = ("", "in.txt ", "+x ", "-s 0 ", "0644 ")

WriterKind = Literal["option", "operand"]

_FILE_ARGUMENT = re.compile(
    r"^(?:out)?(?:file|filename|path|output|dest|prefix|log|logfile|outfile)s?$", re.I
)
_WRITES = re.compile(r"\b(writ|output|sav|dump|log|stor|plac|put|copy|creat)\w*\b", re.I)
_SUMMARY_WRITES = re.compile(
    r"\b(writ|cop(y|ies)|mov|renam|creat|chang|updat|install|link|split|shrink|extend|sav|truncat|"
    r"modif|edit|patch|sort|timestamp)\w*",
    re.I,
)


@dataclass(frozen=True, order=True)
class WriterEntry:
    """One way ``program`` writes a file its line names.

    ``option`` (with ``joiner``: ``" "``, ``"="`` or ``""``) names the file for an option writer;
    ``lead`` comes before the file an operand writer names. ``tail`` ends the line (the form the
    filesystem saw write); ``source`` names the page and ``evidence`` the text the claim was read from.
    """

    program: str
    kind: WriterKind
    option: str = ""
    joiner: str = " "
    lead: str = ""
    tail: str = ""
    source: str = ""
    evidence: str = ""
    confirmed: bool = False

    def command_line(self, target: str, *, option: str | None = None, joiner: str | None = None) -> str:
        """The line writing ``target`` (a shell word), the option spelled as given (default: as documented)."""
        if self.kind == "operand":
            return f"{self.program} {self.lead}{target}{self.tail}"
        spelled = self.option if option is None else option
        joined = self.joiner if joiner is None else joiner
        return f"{self.program} {spelled}{joined}{target}{self.tail}"

    def spellings(self) -> tuple[tuple[str, str], ...]:
        """(option, joiner) spellings getopt reads alike: ``-o F``, ``-oF``; ``--out F``, ``--out=F``."""
        if self.kind == "operand":
            return (("", ""),)
        if self.option.startswith("--"):
            return ((self.option, " "), (self.option, "="))
        return ((self.option, " "), (self.option, ""))


def _page_entries(program: str, troff: str, source: str) -> Iterable[WriterEntry]:
    lines = troff.splitlines()
    for head, description in option_blocks(lines):
        if not _WRITES.search(description[:300]):
            continue
        for match in re.finditer(
            r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)(\[?=|\s)\s*[<\[]?([A-Za-z][\w|-]*)", head
        ):
            option, joiner, argument = match.groups()
            if not _FILE_ARGUMENT.match(argument) or option in ("-h", "--help"):
                continue
            evidence = f"{head} :: {description[:160]}"
            # Its aliases on the same line (``-o, --output=FILE``) take the same argument.
            for alias in dict.fromkeys((option, *re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", head))):
                spelled = "=" if "=" in joiner and alias.startswith("--") else " "
                yield WriterEntry(program, "option", alias, spelled, "", "", source, evidence)
    summary = re.search(r"^\.SH\s+\"?NAME\"?\s*$\n(.*?)$", troff, re.MULTILINE)
    if summary is not None and _SUMMARY_WRITES.search(troff_text(summary.group(1))):
        yield WriterEntry(program, "operand", source=source, evidence=troff_text(summary.group(1))[:160])


def installed_pages(
    man_dir: str = MAN_DIR, bin_dirs: Sequence[str] = BIN_DIRS
) -> Iterator[tuple[str, str, str]]:
    """(program, troff source, page path) of every manual page of an installed program, in name order."""
    installed = {name for directory in bin_dirs if os.path.isdir(directory) for name in os.listdir(directory)}
    for page in sorted(os.listdir(man_dir)):
        program = page.split(".")[0]
        if program not in installed:
            continue
        try:
            opener = gzip.open if page.endswith(".gz") else open
            with opener(os.path.join(man_dir, page), "rt", encoding="utf-8", errors="replace") as handle:
                yield program, handle.read(), os.path.join(man_dir, page)
        except OSError:
            continue


def write_catalogue(target: Path, generated_by: str, entries: Sequence[Any]) -> int:
    """Write the confirmed ``entries`` (dataclasses with ``confirmed``) to ``target``; report how many."""
    document = {
        "generated_by": generated_by,
        "entries": [asdict(entry) for entry in sorted(entries) if entry.confirmed],
    }
    target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(document['entries'])} of {len(entries)} claims confirmed -> {target}")
    return 0


def mine_claims(man_dir: str = MAN_DIR, bin_dirs: Sequence[str] = BIN_DIRS) -> tuple[WriterEntry, ...]:
    """Every claim the installed programs' manual pages make (unconfirmed)."""
    claims: dict[tuple[str, str, str], WriterEntry] = {}
    for program, troff, source in installed_pages(man_dir, bin_dirs):
        for entry in _page_entries(program, troff, source):
            claims.setdefault((entry.program, entry.kind, entry.option), entry)
    return tuple(claims.values())


def _state(path: Path) -> tuple[int, int, bytes] | None:
    try:
        status = path.lstat()
    except OSError:
        return None
    content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
    return (status.st_mode, status.st_size, content)


def written_paths(line: str, work: Path, *, timeout: float = 10.0) -> set[str]:
    """The paths under ``work`` (relative) that ``line`` created, changed or removed, run for real in a sandbox.

    Bubblewrap: a read-only root, no network, a fresh ``/tmp``, ``work`` the only writable
    directory, bash's working directory and ``HOME``. Empty when bubblewrap can't run.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return set()
    before = {p: _state(p) for p in work.rglob("*")}
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/"]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", str(work), str(work)]
    argv += ["--chdir", str(work), "--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]
    argv += ["--setenv", "HOME", str(work), "--setenv", "PWD", str(work), "bash", "--norc", "-c", line]
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(argv, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    after = {p: _state(p) for p in work.rglob("*")}
    changed = {p for p, state in after.items() if before.get(p) != state} | (before.keys() - after.keys())
    return {str(p.relative_to(work)) for p in changed}


def _fresh_work(root: Path) -> Path:
    work = Path(tempfile.mkdtemp(dir=root))
    for name, text in INPUTS.items():
        (work / name).write_text(text, encoding="utf-8")
    return work


def confirm(entry: WriterEntry, root: Path) -> WriterEntry:
    """``entry`` with the first lead and tail in which the filesystem saw it write the file it named."""
    leads = LEADS if entry.kind == "operand" else ("",)
    for lead in leads:
        for tail in TAILS:
            candidate = replace(entry, lead=lead, tail=tail)
            work = _fresh_work(root)
            try:
                written = written_paths(candidate.command_line("out.w"), work, timeout=3.0)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            if "out.w" in written:
                return replace(candidate, confirmed=True)
    return entry


_Claim = TypeVar("_Claim")


def confirm_claims(
    claims: Sequence[_Claim], judge: Callable[[_Claim, Path], _Claim], *, workers: int = 8
) -> tuple[_Claim, ...]:
    """Each claim as ``judge`` returns it (confirmed or not), run beside the others under one scratch root."""
    root = Path(tempfile.mkdtemp(prefix="toolharness-claims-"))
    try:
        # Most runs wait on a timeout, not the CPU: several at once.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return tuple(pool.map(lambda claim: judge(claim, root), claims))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def mine_writers(man_dir: str = MAN_DIR) -> tuple[WriterEntry, ...]:
    """The claims of the installed manual pages, each confirmed (or not) by the filesystem."""
    return confirm_claims(mine_claims(man_dir), confirm)


def load_writers(path: Path = WRITERS_FILE) -> tuple[WriterEntry, ...]:
    """The committed catalogue's confirmed writers (see the module's docstring for how it is mined)."""
    rows = json.loads(path.read_text(encoding="utf-8"))["entries"]
    return tuple(WriterEntry(**row) for row in rows if row["confirmed"])


def file_writers() -> st.SearchStrategy[WriterEntry]:
    """A confirmed entry of the committed catalogue: a program and the form in which it writes a file it names."""
    return st.sampled_from(load_writers())


def main(argv: Sequence[str] = ()) -> int:
    """Mine the catalogue and write it to ``file_writers.json`` (or the path given)."""
    target = Path(argv[0]) if argv else WRITERS_FILE
    return write_catalogue(target, "python -m pytest_toolharness._strategies.file_writers", mine_writers())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
