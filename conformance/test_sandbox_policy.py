"""The sandbox's policy composed from every source at once (SBX-1).

``test_sandbox_files.py`` grants and denies one way at a time. Here each example spreads every way at
once over four directories outside the working directory: each gets a different write grant
(``sandbox.filesystem.allowWrite``, absolute or relative; an ``Edit(//dir/**)`` allow rule;
``permissions.additionalDirectories``, absolute or relative; none), a read denial
(``sandbox.filesystem.denyRead``, a ``Read(//dir/**)`` deny rule, none) and perhaps a ``denyWrite``
of a file in it or of the directory itself, so every pair of sources meets in one policy. A harness that lets one source shadow another (an
``if``/``elif`` over the settings, a rule list replaced instead of merged) writes or reads where the
combination says it must not, or fails to where it must.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance._sandbox_runs import allowing_host, layout, run, skip_without
from conformance._sandbox_runs import settings as sandbox_settings
from pytest_toolharness.adapters import requires

pytestmark = [requires("sandbox"), skip_without("bwrap", "socat")]

DIRECTORIES = ("a", "b", "c", "d")
"""The directories outside the working directory that each example grants and denies."""

GRANTS = (
    "allowWrite",
    "allowWrite relative",
    "Edit rule",
    "additionalDirectories",
    "additional relative",
    None,
)
"""Every way to make a directory writable for the sandbox, and none."""

READ_DENIALS = ("denyRead", "Read rule", None)
"""Every way to hide a directory from the sandbox, and none."""


@dataclass(frozen=True)
class Policy:
    """How each directory is granted and denied: (grant, read denial, denyWrite) per directory.

    ``managed`` says, per directory, whether its denials are written in the managed settings rather
    than the project's: two files carrying the same list keys, which must be joined, not replaced.
    """

    grants: tuple[str | None, ...]
    read_denials: tuple[str | None, ...]
    deny_write: tuple[bool, ...]
    managed: tuple[bool, ...] = (False, False, False, False)
    whole: tuple[bool, ...] = (False, False, False, False)
    """Per directory, whether its ``denyWrite`` names the directory itself rather than a file in it."""

    def rows(self) -> list[tuple[str, str | None, str | None, bool]]:
        return list(zip(DIRECTORIES, self.grants, self.read_denials, self.deny_write, strict=True))

    def settings_for(self, outside: Path, work: Path) -> dict[str, Any]:
        """The project's settings object of this policy, ``outside``'s directories by absolute or relative path."""
        return self._settings(outside, work, managed=False)

    def managed_for(self, outside: Path, work: Path) -> dict[str, Any]:
        """The managed settings of this policy (the denials of the directories placed there)."""
        return self._settings(outside, work, managed=True) if any(self.managed) else {}

    def _settings(self, outside: Path, work: Path, *, managed: bool) -> dict[str, Any]:
        filesystem: dict[str, list[str]] = {"allowWrite": [], "denyRead": [], "denyWrite": []}
        permissions: dict[str, list[str]] = {"allow": [], "deny": [], "additionalDirectories": []}
        for (name, grant, denial, deny_write), there, whole in zip(
            self.rows(), self.managed, self.whole, strict=True
        ):
            path = outside / name
            relative = os.path.relpath(path, work)
            if not managed and grant == "allowWrite":
                filesystem["allowWrite"].append(str(path))
            elif not managed and grant == "allowWrite relative":
                filesystem["allowWrite"].append(relative)
            elif not managed and grant == "Edit rule":
                permissions["allow"].append(f"Edit(/{path}/**)")
            elif not managed and grant == "additionalDirectories":
                permissions["additionalDirectories"].append(str(path))
            elif not managed and grant == "additional relative":
                permissions["additionalDirectories"].append(relative)
            if there != managed:
                continue
            if denial == "denyRead":
                filesystem["denyRead"].append(str(path))
            elif denial == "Read rule":
                permissions["deny"].append(f"Read(/{path}/**)")
            if deny_write:
                filesystem["denyWrite"].append(str(path if whole else path / "kept.txt"))
        return sandbox_settings(
            sandbox={"filesystem": {k: v for k, v in filesystem.items() if v}},
            **{k: v for k, v in permissions.items() if v},
        )


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    """A :class:`Policy` where the four directories get four *different* grants and read denials.

    Drawing a permutation, not four independent choices, puts at least three grant sources and two
    read-denial sources into every policy, so every pair of sources meets within a few examples.
    """
    grants = tuple(draw(st.permutations(GRANTS))[: len(DIRECTORIES)])
    denials = draw(st.permutations(READ_DENIALS))
    read_denials = tuple(denials[i % len(denials)] for i in range(len(DIRECTORIES)))
    deny_write = tuple(draw(st.lists(st.booleans(), min_size=len(DIRECTORIES), max_size=len(DIRECTORIES))))
    managed = tuple(draw(st.lists(st.booleans(), min_size=len(DIRECTORIES), max_size=len(DIRECTORIES))))
    whole = tuple(draw(st.lists(st.booleans(), min_size=len(DIRECTORIES), max_size=len(DIRECTORIES))))
    return Policy(grants, read_denials, deny_write, managed, whole)


_MIXED = Policy(
    ("allowWrite", "additionalDirectories", "Edit rule", None),
    ("denyRead", None, "Read rule", None),
    (False, True, True, False),
)
# The same list keys in the project's and the managed settings at once: both lists count.
_SPLIT = Policy(
    (None, "allowWrite", "Edit rule", "additionalDirectories"),
    ("denyRead", "denyRead", "Read rule", "Read rule"),
    (True, True, False, False),
    (True, False, True, False),
)

# A denyWrite of the granted directory itself, for each grant that makes it a writable root.
_WHOLE = Policy(
    ("allowWrite", "Edit rule", "additionalDirectories", "allowWrite relative"),
    (None, None, None, None),
    (True, True, True, False),
    whole=(True, True, True, True),
)


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(policy=policies())
@example(policy=_MIXED)
@example(policy=_SPLIT)
@example(policy=_WHOLE)
def test_every_source_of_the_policy_counts_beside_the_others(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, policy: Policy
) -> None:
    """SBX-1 property: with writes granted and reads denied by every source at once, each counts.

    The denials of each directory are written in the project's settings or the managed ones, so the
    same list keys (``denyRead``, ``denyWrite``, ``Read`` deny rules) come from two files at once.

    A sandboxed command writes a new file into each directory, appends to a ``denyWrite`` file in it,
    and reads a file from it. A new file lands, and the file is appended to, exactly where a grant (any
    source) reaches and no read denial hides the directory, unless ``denyWrite`` names the directory
    itself; a ``denyWrite`` file (or directory) stays unchanged even inside a granted directory; a file is read exactly where no read denial (any source) hides it.
    """
    place = layout(tmp_path_factory.mktemp("policy"))
    steps = []
    for name in DIRECTORIES:
        directory = place.outside / name
        directory.mkdir()
        (directory / "r.txt").write_text(f"content-of-{name}\n")
        (directory / "kept.txt").write_text("kept\n")
        steps.append(
            f"echo new > {directory}/w.txt 2>/dev/null; echo more >> {directory}/kept.txt 2>/dev/null; "
            f"cat {directory}/r.txt 2>/dev/null"
        )
    with_settings = policy.settings_for(place.outside, place.work)
    managed = policy.managed_for(place.outside, place.work)
    outcome = run(
        new_harness(),
        "; ".join(steps) + "; true",
        place.work,
        with_settings,
        host=allowing_host(),
        managed=managed,
    )
    assert outcome.ran, f"the command did not run under {with_settings}: {outcome.output}"
    for (name, grant, denial, deny_write), whole in zip(policy.rows(), policy.whole, strict=True):
        directory = place.outside / name
        where = (
            f"directory {name} (grant {grant}, read denial {denial}, denyWrite {deny_write},"
            f" {'the directory' if whole else 'a file'}), settings"
            f" {with_settings}, managed {managed}"
        )
        read = f"content-of-{name}" in outcome.output
        assert read == (denial is None), (
            f"read {'succeeded' if read else 'failed'}: {where}: {outcome.output}"
        )
        if denial is None:
            landed = (directory / "w.txt").exists()
            assert landed == (grant is not None and not (deny_write and whole)), (
                f"a new file {'landed' if landed else 'did not land'}: {where}"
            )
        kept = (directory / "kept.txt").read_text()
        if deny_write or grant is None:
            assert kept == "kept\n", f"the file was written to: {where}"
        elif denial is None:
            assert kept == "kept\nmore\n", f"a writable file was not written to: {where}"


@dataclass(frozen=True)
class Reach:
    """What a sandboxed command may do in one directory: add a new file, append to one, read one."""

    new_file: bool = False
    append: bool = False
    read: bool = True
    writes: bool = True
    """Whether the command tries to write there at all (not where an ``Edit`` deny rule may make a
    harness refuse the whole line before it runs)."""


# kind -> (its list: a ``sandbox.filesystem`` key or a rule behaviour, the entry with "{p}" for the
# directory's absolute path, what it lets a command do there)
PATH_KINDS: dict[str, tuple[str, str, Reach]] = {
    "allowWrite, //-absolute": ("allowWrite", "/{p}", Reach(new_file=True, append=True)),
    "Edit allow, one file": ("allow", "Edit(/{p}/kept.txt)", Reach(append=True)),
    "Edit allow, a glob of other files": ("allow", "Edit(/{p}/*.md)", Reach()),
    "Write allow, a file named '&...'": ("allow", "Write(/{p}/&notes.md)", Reach()),
    "Edit ask, the directory": ("ask", "Edit(/{p}/**)", Reach()),
    "Edit deny, the directory": ("deny", "Edit(/{p}/**)", Reach(writes=False)),
    "Read allow, the directory": ("allow", "Read(/{p}/**)", Reach()),
    "Read ask, the directory": ("ask", "Read(/{p}/**)", Reach()),
    "Read deny, a glob": ("deny", "Read(/{p}/*.txt)", Reach(read=False)),
    "denyRead, a //-absolute glob": ("denyRead", "/{p}/*.txt", Reach(read=False)),
}
"""Path entries beside the directory grants and denials of :class:`Policy`: a file, not the
directory, is granted; rules that grant or hide nothing (other behaviours, other files' globs); a
glob, not a directory, is hidden; ``//`` spells an absolute path in sandbox keys as in rules."""


@st.composite
def path_kinds(draw: st.DrawFn) -> tuple[tuple[str, bool], ...]:
    """Some of :data:`PATH_KINDS` in any order, each rule or ``denyRead`` in the project's or the managed settings."""
    kinds = draw(st.lists(st.sampled_from(sorted(PATH_KINDS)), min_size=1, max_size=5, unique=True))
    return tuple((kind, PATH_KINDS[kind][0] != "allowWrite" and draw(st.booleans())) for kind in kinds)


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=path_kinds())
@example(
    kinds=tuple(
        (kind, index % 2 == 1 and kind != "allowWrite, //-absolute") for index, kind in enumerate(PATH_KINDS)
    )
)
def test_path_rules_reach_exactly_what_they_name(
    new_harness: Callable[[], Any],
    tmp_path_factory: pytest.TempPathFactory,
    kinds: tuple[tuple[str, bool], ...],
) -> None:
    """SBX-1 property: each path entry widens writes or hides reads exactly as far as it names, no further.

    One directory outside the working directory per entry (:data:`PATH_KINDS`), in the project's or
    the managed settings. A command adds a new file to each, appends to an existing one and reads a
    third. The new file lands only under a directory grant (``allowWrite`` spelt ``//abs``); an
    ``Edit`` allow rule for one file lets that file be appended to and nothing else; a rule whose
    glob names other files (``*.md``, ``&notes.md``), an ask or deny ``Edit`` rule, and a ``Read``
    allow or ask rule grant no write and hide nothing; a ``Read`` deny glob and a ``denyRead`` glob
    hide the files they match.
    """
    place = layout(tmp_path_factory.mktemp("rules"))
    own: dict[str, list[str]] = {}
    managed: dict[str, list[str]] = {}
    steps = []
    for index, (kind, in_managed) in enumerate(kinds):
        directory = place.outside / f"d{index}"
        directory.mkdir()
        (directory / "r.txt").write_text(f"content-of-d{index}\n")
        (directory / "kept.txt").write_text("kept\n")
        key, entry, reach = PATH_KINDS[kind]
        (managed if in_managed else own).setdefault(key, []).append(entry.format(p=directory))
        if reach.writes:
            steps.append(
                f"echo new > {directory}/w.txt 2>/dev/null; echo more >> {directory}/kept.txt 2>/dev/null"
            )
        steps.append(f"cat {directory}/r.txt 2>/dev/null")

    def layer(lists: dict[str, list[str]]) -> dict[str, Any]:
        filesystem = {k: v for k, v in lists.items() if k in ("allowWrite", "denyRead")}
        rules = {k: v for k, v in lists.items() if k in ("allow", "deny", "ask")}
        return sandbox_settings(sandbox={"filesystem": filesystem} if filesystem else {}, **rules)

    with_settings = layer(own)
    managed_settings = layer(managed) if managed else {}
    outcome = run(
        new_harness(),
        "; ".join(steps) + "; true",
        place.work,
        with_settings,
        host=allowing_host(),
        managed=managed_settings,
    )
    assert outcome.ran, (
        f"the command did not run under {with_settings}, managed {managed_settings}: {outcome.output}"
    )
    for index, (kind, in_managed) in enumerate(kinds):
        directory = place.outside / f"d{index}"
        reach = PATH_KINDS[kind][2]
        where = f"d{index} ({kind}, {'managed' if in_managed else 'project'} settings): {outcome.output}"
        read = f"content-of-d{index}" in outcome.output
        assert read == reach.read, f"the read {'succeeded' if read else 'failed'}: {where}"
        landed = (directory / "w.txt").exists()
        assert landed == (reach.writes and reach.new_file), (
            f"a new file {'landed' if landed else 'did not land'}: {where}"
        )
        appended = (directory / "kept.txt").read_text() != "kept\n"
        assert appended == (reach.writes and reach.append), (
            f"the existing file {'was' if appended else 'was not'} appended to: {where}"
        )
