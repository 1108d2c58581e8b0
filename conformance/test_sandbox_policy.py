"""The sandbox's policy composed from every source at once (SBX-1).

``test_sandbox_files.py`` grants and denies one way at a time. Here each example spreads every way at
once over four directories outside the working directory: each gets a different write grant
(``sandbox.filesystem.allowWrite``, absolute or relative; an ``Edit(//dir/**)`` allow rule;
``permissions.additionalDirectories``, absolute or relative; none), a read denial
(``sandbox.filesystem.denyRead``, a ``Read(//dir/**)`` deny rule, none) and perhaps a ``denyWrite``,
so every pair of sources meets in one policy. A harness that lets one source shadow another (an
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
        for (name, grant, denial, deny_write), there in zip(self.rows(), self.managed, strict=True):
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
                filesystem["denyWrite"].append(str(path / "kept.txt"))
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
    return Policy(grants, read_denials, deny_write, managed)


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


@pytest.mark.requirement("SBX-1", "MUST")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(policy=policies())
@example(policy=_MIXED)
@example(policy=_SPLIT)
def test_every_source_of_the_policy_counts_beside_the_others(
    new_harness: Callable[[], Any], tmp_path_factory: pytest.TempPathFactory, policy: Policy
) -> None:
    """SBX-1 property: with writes granted and reads denied by every source at once, each counts.

    The denials of each directory are written in the project's settings or the managed ones, so the
    same list keys (``denyRead``, ``denyWrite``, ``Read`` deny rules) come from two files at once.

    A sandboxed command writes a new file into each directory, appends to a ``denyWrite`` file in it,
    and reads a file from it. A new file lands, and the file is appended to, exactly where a grant (any
    source) reaches and no read denial hides the directory; a ``denyWrite`` file stays unchanged even
    inside a granted directory; a file is read exactly where no read denial (any source) hides it.
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
    for name, grant, denial, deny_write in policy.rows():
        directory = place.outside / name
        where = (
            f"directory {name} (grant {grant}, read denial {denial}, denyWrite {deny_write}), settings"
            f" {with_settings}, managed {managed}"
        )
        read = f"content-of-{name}" in outcome.output
        assert read == (denial is None), (
            f"read {'succeeded' if read else 'failed'}: {where}: {outcome.output}"
        )
        if denial is None:
            landed = (directory / "w.txt").exists()
            assert landed == (grant is not None), (
                f"a new file {'landed' if landed else 'did not land'}: {where}"
            )
        kept = (directory / "kept.txt").read_text()
        if deny_write or grant is None:
            assert kept == "kept\n", f"the file was written to: {where}"
        elif denial is None:
            assert kept == "kept\nmore\n", f"a writable file was not written to: {where}"
