"""Permission settings read from settings files of several sources: PERM-4, PERM-5, PERM-9, PERM-15.

The scenario's ``settings`` are Claude Code settings files (``SettingsSpec(source, content)``), as a
harness loads them from disk, beside files of other sources that say nothing about the key under
test, in any order. What is observed is the same as for the scenario's own rules and mode: whether
the call started, whether the host was asked, the recorded decision.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_permissions import (
    Run,
    edit_tool,
    host_answering,
    plain_tool,
    read_tool,
    run_calls,
)
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import SETTINGS_PRECEDENCE, SettingsSpec, ToolSpec

FILE_SOURCES: tuple[str, ...] = tuple(SETTINGS_PRECEDENCE)
"""Every settings file, lowest precedence first: user, project, local, ``--settings``, managed."""
OUTSIDE = ("/definitely-outside-the-suite/notes.txt", "../../outside-the-suite/notes.txt")
# Relative to the working directory (run_calls's <run>/work): a sibling directory.
EXTRA_DIR = "../extra"


def quiet_files() -> st.SearchStrategy[list[SettingsSpec]]:
    """Up to two settings files that say nothing about the key under test (an empty file, an unrelated rule)."""
    content = st.sampled_from([{}, {"permissions": {}}, {"permissions": {"allow": ["Unrelated"]}}])
    return st.lists(
        st.builds(SettingsSpec, source=st.sampled_from(FILE_SOURCES), content=content), max_size=2
    )


@st.composite
def flag_everywhere(draw: st.DrawFn, key: str) -> tuple[bool, list[SettingsSpec]]:
    """(whether any file sets ``key`` true, 1-4 files of distinct sources setting it true or false).

    Each value is drawn on its own, so a managed ``true`` meets a local or a project ``false``, and
    every file may say ``false``; the files come in a drawn order.
    """
    sources = draw(st.lists(st.sampled_from(FILE_SOURCES), min_size=1, max_size=4, unique=True))
    values = [draw(st.booleans()) for _ in sources]
    files = [
        SettingsSpec(source, {"permissions": {key: value}})
        for source, value in zip(sources, values, strict=True)
    ]
    return any(values), files


def ran_unasked(run: Run) -> bool:
    return run.ran() == 1 and not run.asked


# --------------------------------------------------------------------------------------------
# PERM-15: blockWritesOutsideWorkingDirectories and denyInsteadOfPrompting.


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    where=st.sampled_from(["outside", "inside", "extra"]),
    kind=st.sampled_from(["edit", "read"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_block_writes_outside_working_directories(
    new_harness: Callable[[], Any], data: st.DataObject, where: str, kind: str, mode: str
) -> None:
    """PERM-15: with ``blockWritesOutsideWorkingDirectories`` true in any source, edits outside the working directories are denied.

    The key is written true or false in 1-4 files of distinct sources at once, in any order: true
    from any source wins (a repository's or the user's ``false`` can't take back the
    administrator's ``true``). Set, in every mode, an edit outside is never run and nobody is asked;
    an edit inside (the working directory or an ``additionalDirectories`` entry) and any read are
    decided as without it; every file saying false is as if none said anything.
    """
    blocked, flagged = data.draw(flag_everywhere("blockWritesOutsideWorkingDirectories"), label="flag")
    extra = {"additionalDirectories": [EXTRA_DIR]}
    if data.draw(st.booleans(), label="additional directory in a flag's file"):
        index = data.draw(st.integers(0, len(flagged) - 1))
        chosen = flagged[index]
        flagged[index] = SettingsSpec(
            chosen.source, {"permissions": {**chosen.content["permissions"], **extra}}
        )
    else:
        flagged.append(SettingsSpec(data.draw(st.sampled_from(FILE_SOURCES)), {"permissions": extra}))
    files = data.draw(st.permutations([*flagged, *data.draw(quiet_files())]), label="settings")
    path = {
        "outside": data.draw(st.sampled_from(OUTSIDE), label="outside path"),
        "inside": data.draw(st.sampled_from(["notes.txt", "./src/app.py", "a/../b.md"]), label="inside path"),
        "extra": f"{EXTRA_DIR}/notes.txt",
    }[where]
    tool = edit_tool() if kind == "edit" else read_tool()
    name = tool.name
    host = host_answering("allow")
    run = run_calls(
        new_harness(), [tool], [(name, {"file_path": path})], mode=mode, host=host, settings=files
    )
    why = f"{kind} of {path!r} in {mode} with {files} (blocked: {blocked}): {run.describe()}"
    if blocked and kind == "edit" and where == "outside":
        assert (run.ran(), run.asked) == (0, []), f"must be denied without asking: {why}"
        assert run.decision().get("behavior", "deny") == "deny", why
        return
    inside = where != "outside"
    unasked = mode == "bypassPermissions" or (inside and (kind == "read" or mode == "acceptEdits"))
    if unasked:
        assert ran_unasked(run), f"must run without asking: {why}"
    else:
        assert (run.ran(), len(run.asked)) == (1, 1), f"must be asked (the host allows): {why}"


DENY_INSTEAD_CASES = ("undecided", "ask_rule", "allow_rule", "deny_rule", "read_inside")


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-15", "MUST")
@settings(max_examples=30, deadline=None)
@given(data=st.data(), case=st.sampled_from(DENY_INSTEAD_CASES))
def test_deny_instead_of_prompting(new_harness: Callable[[], Any], data: st.DataObject, case: str) -> None:
    """PERM-15: with ``denyInsteadOfPrompting`` true in any source, a call that would ask is denied unasked.

    The key is written true or false in 1-4 files of distinct sources at once, in any order: true
    from any source wins. Set, calls allowed without asking still run, denied ones stay denied;
    every file saying false, a call that would ask is asked.
    """
    deny_instead, files = data.draw(flag_everywhere("denyInsteadOfPrompting"), label="flag")
    rule = {"ask_rule": "ask", "allow_rule": "allow", "deny_rule": "deny"}.get(case)
    if rule is not None:
        files.append(
            SettingsSpec(data.draw(st.sampled_from(FILE_SOURCES)), {"permissions": {rule: ["Deploy"]}})
        )
    files = data.draw(st.permutations([*files, *data.draw(quiet_files())]), label="settings")
    tool: ToolSpec = read_tool() if case == "read_inside" else plain_tool("Deploy")
    tool_input = {"file_path": "notes.txt"} if case == "read_inside" else {"x": "prod"}
    run = run_calls(
        new_harness(), [tool], [(tool.name, tool_input)], host=host_answering("allow"), settings=files
    )
    why = f"{case} with {files} (denyInsteadOfPrompting: {deny_instead}): {run.describe()}"
    if case in ("allow_rule", "read_inside"):
        assert ran_unasked(run), f"must still run without asking: {why}"
    elif case == "deny_rule" or deny_instead:
        assert (run.ran(), run.asked) == (0, []), f"must be denied without asking: {why}"
        assert run.decision().get("behavior", "deny") == "deny", why
    else:
        assert (run.ran(), len(run.asked)) == (1, 1), f"must be asked (the host allows): {why}"


# --------------------------------------------------------------------------------------------
# PERM-9, PERM-7, PERM-5: the mode a settings file sets (defaultMode), and the working directories
# its additionalDirectories add.

CALLS = ("plain", "edit_inside", "edit_extra", "read_ask_rule")
SETTINGS_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")


def expected(mode: str, call: str) -> str:
    """``ran`` (without asking), ``asked`` (the host allows, so it runs) or ``denied`` (neither)."""
    if call == "read_ask_rule":  # a content-level ask rule on a read-only tool: asked in every mode
        return "denied" if mode == "dontAsk" else "asked"
    if mode == "bypassPermissions":
        return "ran"
    if mode in ("plan", "dontAsk"):
        return "denied"
    if mode == "acceptEdits" and call != "plain":
        return "ran"
    return "asked"


@st.composite
def modes_in_files(draw: st.DrawFn, mode: str | None) -> list[SettingsSpec]:
    """``defaultMode`` in 1-4 files of distinct sources: ``mode`` in the highest-precedence one, others below.

    Each lower file sets a mode other than ``mode``, so the file that wins is told by what the
    session does. The files come unordered (the caller permutes them). None: no file sets one.
    """
    if mode is None:
        return []
    sources = draw(st.lists(st.sampled_from(FILE_SOURCES), min_size=1, max_size=4, unique=True))
    top = max(sources, key=FILE_SOURCES.index)
    others = [m for m in SETTINGS_MODES if m != mode]
    return [
        SettingsSpec(
            source, {"permissions": {"defaultMode": mode if source == top else draw(st.sampled_from(others))}}
        )
        for source in sources
    ]


@st.composite
def with_keys(draw: st.DrawFn, files: list[SettingsSpec], keys: dict[str, Any]) -> list[SettingsSpec]:
    """``files`` with each of ``keys`` added to a drawn one of them or in a file of its own (drawn source)."""
    files = list(files)
    for key, value in keys.items():
        index = draw(st.integers(0, len(files))) if files else 0
        if index == len(files):
            files.append(SettingsSpec(draw(st.sampled_from(FILE_SOURCES)), {"permissions": {key: value}}))
        else:
            permissions = {**files[index].content.get("permissions", {}), key: value}
            files[index] = SettingsSpec(
                files[index].source, {**files[index].content, "permissions": permissions}
            )
    return files


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    mode=st.sampled_from(SETTINGS_MODES),
    call=st.sampled_from(CALLS),
    given_at_start=st.booleans(),
)
def test_modes_and_directories_from_settings_files(
    new_harness: Callable[[], Any], data: st.DataObject, mode: str, call: str, given_at_start: bool
) -> None:
    """PERM-9 (with PERM-5, PERM-7): the mode of the highest-precedence file's ``defaultMode`` acts as that mode.

    ``defaultMode`` is written in 1-4 files of distinct sources at once (user, project, local,
    ``--settings``, managed), a different mode in each, loaded in any order: the documented rule is
    that the highest-precedence file that sets it wins, whatever the order. Plan denies what is not
    read-only and still asks about a read-only call, acceptEdits allows edits inside the working
    directories (``additionalDirectories`` from settings included, relative to the working
    directory) and nothing else, dontAsk denies every ask, bypassPermissions still asks on a
    content-level ask rule. A mode given when the session starts wins over every file's.
    """
    start_mode = "default"
    if given_at_start and mode != "default":
        start_mode = mode
        in_files = data.draw(st.sampled_from([None, *SETTINGS_MODES]), label="files' mode")
    else:
        in_files = mode
    files = data.draw(modes_in_files(in_files), label="mode files")
    keys = {"additionalDirectories": [EXTRA_DIR], "ask": ["Read(./notes.txt)"]}
    files = data.draw(with_keys(files, keys), label="other keys")
    files = data.draw(st.permutations([*files, *data.draw(quiet_files())]), label="settings")
    tool, tool_input = {
        "plain": (plain_tool("Deploy"), {"x": "prod"}),
        "edit_inside": (edit_tool(), {"file_path": "src/app.py"}),
        "edit_extra": (edit_tool(), {"file_path": f"{EXTRA_DIR}/notes.txt"}),
        "read_ask_rule": (read_tool(), {"file_path": "notes.txt"}),
    }[call]
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, tool_input)],
        mode=start_mode,
        host=host_answering("allow"),
        settings=files,
    )
    want = expected(mode, call)
    why = f"{call} in {mode} (started as {start_mode}, files {files}): expected {want}: {run.describe()}"
    got = "denied" if run.ran() == 0 and not run.asked else "ran" if ran_unasked(run) else "asked"
    if got == "asked":
        assert (run.ran(), len(run.asked)) == (1, 1), why
    assert got == want, why


# PERM-5: modes that settings can switch off. ``disableBypassPermissionsMode: "disable"`` and
# ``disableAutoMode: "disable"``, in any file, make that mode fall back to ``default``, whether it
# comes from a ``defaultMode`` or is given when the session starts.

DISABLING = {"bypassPermissions": "disableBypassPermissionsMode", "auto": "disableAutoMode"}
# A call each mode lets through unasked and ``default`` asks about (the host allows): any call in
# bypassPermissions, an edit inside the working directory in auto (with no classifier, others ask).
TELLING_CALL = {"bypassPermissions": "plain", "auto": "edit_inside"}

DisabledCase = tuple[str, bool, list[SettingsSpec]]


@st.composite
def disabled_modes(draw: st.DrawFn) -> DisabledCase:
    """(bypassPermissions or auto, given at the start or not, the files).

    From the files, the mode is the highest-precedence ``defaultMode`` among 1-4 files; given at
    the start, the files set any mode or none. Each disabling key (either, both or none) sits in
    1-3 files: in a file of its own or in one that sets ``defaultMode``; the files in any order.
    """
    mode = draw(st.sampled_from(sorted(DISABLING)))
    at_start = draw(st.booleans())
    in_files = draw(st.sampled_from([None, *SETTINGS_MODES, "auto"])) if at_start else mode
    files = draw(modes_in_files(in_files))
    for key in draw(st.lists(st.sampled_from(sorted(DISABLING.values())), max_size=2, unique=True)):
        for _ in range(draw(st.integers(1, 3))):
            files = draw(with_keys(files, {key: "disable"}))
    return mode, at_start, draw(st.permutations([*files, *draw(quiet_files())]))


def _file(source: str, **permissions: Any) -> SettingsSpec:
    return SettingsSpec(source, {"permissions": permissions})


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-5", "MUST")
@pytest.mark.requirement("PERM-9", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(case=disabled_modes())
@example(case=("bypassPermissions", True, [_file("userSettings", disableBypassPermissionsMode="disable")]))
@example(
    case=(
        "bypassPermissions",
        False,
        [
            _file("policySettings", disableBypassPermissionsMode="disable"),
            _file("localSettings", defaultMode="bypassPermissions"),
        ],
    )
)
@example(
    case=(
        "auto",
        False,
        [_file("projectSettings", defaultMode="auto"), _file("userSettings", disableAutoMode="disable")],
    )
)
@example(case=("auto", True, [_file("flagSettings", disableBypassPermissionsMode="disable")]))
def test_a_disabled_mode_falls_back_to_default(new_harness: Callable[[], Any], case: DisabledCase) -> None:
    """PERM-5 (PERM-9): ``disableBypassPermissionsMode`` / ``disableAutoMode`` in any file switch that mode off.

    The mode comes from the highest-precedence ``defaultMode`` (among 1-4 files, each with another
    mode below it) or is given when the session starts; the disabling keys, either, both or none,
    sit in any 1-3 files of any source, the file of the ``defaultMode`` or another, in any order.
    The documented rule (``context_from_settings``): when any file disables the mode, it falls back
    to ``default``, from a file or from the start alike; the key for the other mode changes nothing.
    A call the mode lets through unasked (any call in bypassPermissions, an edit inside the working
    directory in auto) is then asked about.
    """
    mode, at_start, files = case
    disabled = any(DISABLING[mode] in spec.content.get("permissions", {}) for spec in files)
    call = TELLING_CALL[mode]
    tool, tool_input = (
        (plain_tool("Deploy"), {"x": "prod"})
        if call == "plain"
        else (edit_tool(), {"file_path": "src/app.py"})
    )
    host = host_answering("allow")
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, tool_input)],
        mode=mode if at_start else "default",
        host=host,
        settings=files,
    )
    why = f"{mode} ({'at the start' if at_start else 'from the files'}), files {files}: {run.describe()}"
    if disabled:
        assert (run.ran(), len(run.asked)) == (1, 1), (
            f"{mode} is disabled, yet the call was not asked about: {why}"
        )
    else:
        assert ran_unasked(run), f"{mode} is not disabled, yet the call did not run unasked: {why}"


# --------------------------------------------------------------------------------------------
# PERM-4: settings only managed settings may set. Claude Code's documentation lists keys honoured
# only from managed (policy) settings; one of them, allowManagedPermissionRulesOnly, discards every
# rule not written in managed settings. Written anywhere else it must be ignored: a cloned
# repository's .claude/settings.json could otherwise throw the user's deny rules away.

MANAGED_ONLY_KEYS = (
    "allowManagedPermissionRulesOnly",
    "allowManagedHooksOnly",
    "allowManagedMcpServersOnly",
    "strictKnownMarketplaces",
    "blockedMarketplaces",
    "channelsEnabled",
)
NOT_MANAGED = ("userSettings", "projectSettings", "localSettings")
JSON_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.booleans(), st.none(), st.integers(-2, 2), st.sampled_from(["true", "", "disable"]), st.just([])
)


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    lock_source=st.sampled_from(NOT_MANAGED),
    keys=st.lists(st.sampled_from(MANAGED_ONLY_KEYS), min_size=1, max_size=3, unique=True),
    rule_source=st.sampled_from(NOT_MANAGED),
    behavior=st.sampled_from(["deny", "ask"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
def test_managed_only_keys_from_other_sources_drop_no_rule(
    new_harness: Callable[[], Any],
    data: st.DataObject,
    lock_source: str,
    keys: list[str],
    rule_source: str,
    behavior: str,
    mode: str,
) -> None:
    """PERM-4: a managed-only key (``allowManagedPermissionRulesOnly`` ...) set outside managed settings is ignored.

    Whatever value it has and whichever non-managed source writes it, a deny (or ask) rule of any
    non-managed source still denies (asks), in every mode; with the lock in managed settings, a
    managed deny rule still denies and a non-managed allow rule no longer allows unasked.
    """
    locks: dict[str, Any] = {key: data.draw(JSON_VALUES, label=key) for key in keys}
    locks["allowManagedPermissionRulesOnly"] = data.draw(st.sampled_from([True, "true", 1]), label="lock")
    guard = SettingsSpec(rule_source, {"permissions": {behavior: ["Deploy"]}})
    lock = SettingsSpec(lock_source, locks)
    files = data.draw(st.permutations([guard, lock, *data.draw(quiet_files())]), label="settings")
    tool = plain_tool("Deploy")
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"x": "prod"})],
        mode=mode,
        host=host_answering("allow"),
        settings=files,
    )
    why = f"{behavior} rule in {rule_source}, {locks} in {lock_source}, {mode}: {run.describe()}"
    if behavior == "deny":
        assert (run.ran(), run.asked) == (0, []), f"the deny rule must still deny: {why}"
    else:
        assert len(run.asked) == 1, f"the ask rule must still ask: {why}"

    # The same lock in managed settings is honoured: only managed rules apply.
    # The source's name as a harness reads it from its own configuration (decoded at run time, so
    # not the interned literal: a harness must compare it by value).
    policy = json.loads('"policySettings"')
    managed = [
        SettingsSpec(policy, {"allowManagedPermissionRulesOnly": True, "permissions": {"deny": ["Deploy"]}}),
        SettingsSpec(rule_source, {"permissions": {"allow": ["Deploy", "Other"]}}),
    ]
    other = plain_tool("Other")
    run = run_calls(
        new_harness(),
        [tool, other],
        [(tool.name, {"x": "prod"}), (other.name, {"x": "a"})],
        host=host_answering("allow"),
        settings=data.draw(st.permutations(managed), label="managed"),
    )
    why = f"managed lock and deny, allow in {rule_source}: {run.describe()}"
    assert run.ran("toolu_1") == 0, f"the managed deny rule must deny: {why}"
    assert run.ran("toolu_2") == 1, f"the host allowed the other call: {why}"
    assert len(run.asked) == 1, f"the non-managed allow rule must not apply: {why}"


# --------------------------------------------------------------------------------------------
# PERM-4: one rule text written by several sources, with several behaviours.

SHARED_TEXTS = ("Deploy", "Deploy(*)")
"""Rule texts that match the ``Deploy`` call; each example writes one of them in several places."""

_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


@st.composite
def same_rule_everywhere(draw: st.DrawFn) -> tuple[str, list[SettingsSpec], list[tuple[str, str]]]:
    """(text, settings files, where it is written): one rule text in 2..4 (source, list) places.

    A source may write it in two lists of one file; the files come in a drawn order, with quiet
    files among them, so the strictest entry can be anywhere, in any source.
    """
    text = draw(st.sampled_from(SHARED_TEXTS))
    places = draw(
        st.lists(
            st.tuples(st.sampled_from(FILE_SOURCES), st.sampled_from(["allow", "ask", "deny"])),
            min_size=2,
            max_size=4,
            unique=True,
        ).filter(lambda p: len({behavior for _, behavior in p}) > 1)
    )
    by_source: dict[str, dict[str, list[str]]] = {}
    for source, behavior in places:
        by_source.setdefault(source, {})[behavior] = [text]
    files = [SettingsSpec(source, {"permissions": lists}) for source, lists in by_source.items()]
    return text, draw(st.permutations([*files, *draw(quiet_files())])), places


@requires("execution", "permissions", "host_callback", "settings_files")
@pytest.mark.requirement("PERM-4", "MUST")
@settings(max_examples=30, deadline=None)
@given(case=same_rule_everywhere(), host_allows=st.booleans())
def test_the_same_rule_text_in_several_sources_keeps_every_behaviour(
    new_harness: Callable[[], Any],
    case: tuple[str, list[SettingsSpec], list[tuple[str, str]]],
    host_allows: bool,
) -> None:
    """PERM-4 property: the same rule text written as allow, ask and deny by several sources resolves to the strictest.

    However the sources are ordered and whichever of them writes the strict entry, a deny anywhere
    denies (nobody asked), else an ask anywhere asks; merging the sources' rules by their text
    (one behaviour kept per text) loses that.
    """
    text, files, places = case
    strictest = max((behavior for _, behavior in places), key=_STRICTNESS.__getitem__)
    host = host_answering("allow" if host_allows else "deny")
    run = run_calls(
        new_harness(), [plain_tool("Deploy")], [("Deploy", {"x": "prod"})], host=host, settings=files
    )
    why = f"{text!r} written as {places}, files {files}: expected {strictest}; {run.describe()}"
    if strictest == "deny":
        assert (run.ran(), run.asked) == (0, []), why
    else:
        assert len(run.asked) == 1, why
        assert run.ran() == (1 if host_allows else 0), why
