"""Deferred-tool change notices (mechanism B): DELTA-1, DELTA-2, DELTA-3, DELTA-4.

The state machines connect and disconnect MCP tools, add and remove built-in tools, pin deferred
tools with ``always_load`` (and undo it), change the pool several ways at once (tools added,
removed and renamed in one turn), and ask for a notice. MCP names include case twins
(``mcp__GH__issues`` beside ``mcp__gh__issues``): distinct tools to every notice. The suite folds the notices the
harness returned itself (added, then removed) and checks each new notice against that fold and the
pool. Which tools are deferred is the harness's own answer (``is_deferred``), so these tests judge
the notices only, not the classification (DEFER-1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from conformance._strategies_conversation import (
    FactoryHolder,
    builtin,
    builtin_names,
    builtin_specs,
    mcp,
    mcp_specs,
    twin_mcp_pairs,
)
from conformance._strategies_execution import pick_sorted
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import Notice, ToolSpec


class _Factory(FactoryHolder):
    """The factory holder of this module's machines."""


class NoticeMachine(RuleBasedStateMachine):
    """A pool that changes between notices; ``CHECK`` names the requirement a subclass checks."""

    CHECK: ClassVar[str] = ""
    RECORDS: ClassVar[bool] = False  # whether notice records from outside join the transcript

    def __init__(self) -> None:
        super().__init__()
        self.harness = _Factory.new()
        self.builtin: dict[str, ToolSpec] = {}
        self.mcp: dict[str, ToolSpec] = {}
        self.announced: list[str] = []  # the fold of the harness's notices, in order
        self.withdrawn: set[str] = set()  # names a notice removed and none re-added since
        self.last_pool: frozenset[tuple[str, bool]] | None = None
        self.gone: dict[str, ToolSpec] = {}  # removed specs, to re-add later (DELTA-4)
        self.history: list[str] = []

    # -- the pool ------------------------------------------------------------------------------

    def _specs(self) -> tuple[list[ToolSpec], list[ToolSpec]]:
        return list(self.builtin.values()), list(self.mcp.values())

    def _pool_state(self) -> frozenset[tuple[str, bool]]:
        return frozenset(
            (s.name, self.harness.is_deferred(s)) for s in [*self.builtin.values(), *self.mcp.values()]
        )

    def _deferred(self) -> set[str]:
        return {name for name, deferred in self._pool_state() if deferred}

    def _names(self) -> set[str]:
        return set(self.builtin) | set(self.mcp)

    @initialize(builtins=builtin_specs(max_size=3), mcps=mcp_specs(max_size=4, case_twins=True))
    def start(self, builtins: list[ToolSpec], mcps: list[ToolSpec]) -> None:
        self.builtin = {s.name: s for s in builtins}
        self.mcp = {s.name: s for s in mcps if s.name not in self.builtin}
        self.history.append(f"start builtin={sorted(self.builtin)} mcp={sorted(self.mcp)}")

    @rule(pair=twin_mcp_pairs, always=st.booleans())
    def add_mcp_tool(self, pair: tuple[str, str], always: bool) -> None:
        spec = mcp(pair[0], pair[1], always_load=always)
        if spec.name in self.builtin:
            return  # the built-in tool of that name wins; keep the model simple
        self.mcp[spec.name] = spec
        self.gone.pop(spec.name, None)
        self.history.append(f"add {spec.name} always_load={always}")

    @rule(name=builtin_names, defer=st.booleans())
    def add_builtin_tool(self, name: str, defer: bool) -> None:
        self.builtin[name] = builtin(name, should_defer=defer)
        self.mcp.pop(name, None)
        self.gone.pop(name, None)
        self.history.append(f"add builtin {name} should_defer={defer}")

    @precondition(lambda self: bool(self.builtin or self.mcp))
    @rule(data=st.data())
    def remove_tool(self, data: st.DataObject) -> None:
        name = pick_sorted(data, self._names(), "remove")
        self.gone[name] = self.builtin.pop(name) if name in self.builtin else self.mcp.pop(name)
        self.history.append(f"remove {name}")

    @precondition(lambda self: bool(self.builtin or self.mcp))
    @rule(
        data=st.data(),
        added=st.lists(twin_mcp_pairs, min_size=1, max_size=3, unique=True),
        renamed_to=twin_mcp_pairs,
    )
    def reshape_pool(
        self, data: st.DataObject, added: list[tuple[str, str]], renamed_to: tuple[str, str]
    ) -> None:
        """Several changes in one turn: tools removed, a tool renamed (its server's new name), tools added."""
        removed = data.draw(
            st.lists(st.sampled_from(sorted(self._names())), min_size=1, max_size=2, unique=True),
            label="removed",
        )
        for name in removed:
            self.gone[name] = self.builtin.pop(name) if name in self.builtin else self.mcp.pop(name)
        changes = [f"remove {name}" for name in removed]
        renamed = next((self.gone[n] for n in removed if self.gone[n].is_mcp), None)
        if renamed is not None:
            spec = mcp(renamed_to[0], renamed_to[1], always_load=renamed.always_load)
            added_specs = [spec, *(mcp(server, tool) for server, tool in added)]
        else:
            added_specs = [mcp(server, tool) for server, tool in added]
        for spec in added_specs:
            if spec.name not in self.builtin:
                self.mcp[spec.name] = spec
                self.gone.pop(spec.name, None)
                changes.append(f"add {spec.name}")
        self.history.append("reshape: " + ", ".join(changes))

    @precondition(lambda self: bool(self.gone))
    @rule(data=st.data())
    def re_add_removed_tool(self, data: st.DataObject) -> None:
        name = pick_sorted(data, self.gone, "re-add")
        spec = self.gone.pop(name)
        (self.mcp if spec.is_mcp else self.builtin)[name] = spec
        self.history.append(f"re-add {name}")

    @precondition(lambda self: bool(self.builtin or self.mcp))
    @rule(data=st.data())
    def toggle_always_load(self, data: st.DataObject) -> None:
        name = pick_sorted(data, self._names(), "toggle")
        table = self.builtin if name in self.builtin else self.mcp
        table[name] = dataclasses.replace(table[name], always_load=not table[name].always_load)
        self.history.append(f"{name} always_load={table[name].always_load}")

    @precondition(lambda self: self.RECORDS)
    @rule(data=st.data(), fresh=twin_mcp_pairs)
    def record_notice_from_outside(self, data: st.DataObject, fresh: tuple[str, str]) -> None:
        """A notice record the harness did not compute (a resumed transcript's), conflicts included.

        Its names come from the pool, the removed tools, the announced set and a name never seen;
        some are both added and removed in the one record (listed in either order), and a record
        may be empty on either side.
        """
        names = sorted(self._names() | set(self.gone) | set(self.announced) | {mcp(*fresh).name})
        pick = st.lists(st.sampled_from(names), max_size=3, unique=True)
        both = data.draw(pick, label="added and removed")
        added = data.draw(
            st.permutations([*both, *(n for n in data.draw(pick, label="added") if n not in both)])
        )
        removed = data.draw(
            st.permutations([*both, *(n for n in data.draw(pick, label="removed") if n not in both)])
        )
        record = Notice(added=tuple(added), removed=tuple(removed))
        self.harness.record_notice(record)
        self._fold(record)
        self.history.append(f"record {record}")

    # -- notices -------------------------------------------------------------------------------

    def _fold(self, notice: Notice) -> None:
        for name in notice.added:
            if name in self.announced:
                self.announced.remove(name)
            self.announced.append(name)
            self.withdrawn.discard(name)
        for name in notice.removed:
            if name in self.announced:
                self.announced.remove(name)
            self.withdrawn.add(name)

    def _where(self, notice: Notice | None) -> str:
        steps = "\n  ".join(self.history[-8:])
        return (
            f"\nnotice: {notice}\nannounced (fold of earlier notices): {sorted(self.announced)}\n"
            f"deferred in pool: {sorted(self._deferred())}\npool: {sorted(self._names())}\nlast steps:\n  {steps}"
        )

    @rule()
    def notice(self) -> None:
        builtins, mcps = self._specs()
        pool_now = self._pool_state()
        deferred = self._deferred()
        announced = set(self.announced)
        withdrawn = set(self.withdrawn)
        notice = self.harness.notice(builtins, mcps)
        self.history.append(f"notice() -> {notice}")
        self.check(notice, deferred, announced, withdrawn, pool_now)
        if notice is not None:
            self._fold(notice)
        again = self.harness.notice(builtins, mcps)
        if self.CHECK == "DELTA-3":
            assert again is None, (
                f"DELTA-3: a second notice right after the first must be None, got {again}"
                + (self._where(notice))
            )
        if again is not None:
            self._fold(again)
        self.last_pool = pool_now

    def check(
        self,
        notice: Notice | None,
        deferred: set[str],
        announced: set[str],
        withdrawn: set[str],
        pool_now: frozenset[tuple[str, bool]],
    ) -> None:
        """The subclass's requirement, judged on one notice."""
        added = set(notice.added) if notice else set()
        removed = set(notice.removed) if notice else set()
        if self.CHECK == "DELTA-1":
            expected_added = deferred - announced
            expected_removed = announced - self._names()
            assert (added, removed) == (expected_added, expected_removed), (
                "DELTA-1: the notice must be computed against the fold of the earlier notices: expected "
                f"added={sorted(expected_added)} removed={sorted(expected_removed)}, got added={sorted(added)} "
                f"removed={sorted(removed)}" + self._where(notice)
            )
        elif self.CHECK == "DELTA-3":
            if notice is not None:
                assert notice.added or notice.removed, (
                    "DELTA-3: a notice must announce a change" + self._where(notice)
                )
            if pool_now == self.last_pool:
                assert notice is None, (
                    "DELTA-3: nothing changed in the pool since the last notice, so no notice is due"
                    + self._where(notice)
                )
        elif self.CHECK == "DELTA-4":
            back = (withdrawn & deferred) - announced
            assert back <= added, (
                f"DELTA-4: {sorted(back - added)} were withdrawn by an earlier notice and are back (deferred); "
                "they must be announced again" + self._where(notice)
            )


def _bind() -> Any:
    @pytest.fixture(autouse=True)
    def bind_factory(self: Any, new_harness: Callable[[], Any]) -> None:
        _Factory.factory = new_harness

    return bind_factory


@settings(max_examples=40, stateful_step_count=20, deadline=None)
class FoldMachine(NoticeMachine):
    CHECK = "DELTA-1"


@settings(max_examples=25, stateful_step_count=20, deadline=None)
class RecordFoldMachine(NoticeMachine):
    CHECK = "DELTA-1"
    RECORDS = True


@settings(max_examples=40, stateful_step_count=20, deadline=None)
class IdempotenceMachine(NoticeMachine):
    CHECK = "DELTA-3"


@settings(max_examples=40, stateful_step_count=20, deadline=None)
class ReannounceMachine(NoticeMachine):
    CHECK = "DELTA-4"


@requires("notices", "classification")
@pytest.mark.requirement("DELTA-1", "MUST")
class TestNoticeFold(FoldMachine.TestCase):  # type: ignore[valid-type,misc]
    """DELTA-1: each notice is computed against the fold (added, then removed) of the earlier notices."""

    bind_factory = _bind()


@requires("notices", "classification", "notice_records")
@pytest.mark.requirement("DELTA-1", "MUST")
class TestNoticeFoldWithRecords(RecordFoldMachine.TestCase):  # type: ignore[valid-type,misc]
    """DELTA-1: notice records from outside (a tool both added and removed in one record) fold added, then removed."""

    bind_factory = _bind()


@requires("notices", "classification")
@pytest.mark.requirement("DELTA-3", "MUST")
class TestNoticeIdempotent(IdempotenceMachine.TestCase):  # type: ignore[valid-type,misc]
    """DELTA-3: no notice when the pool did not change; a notice repeated at once gives None; never empty."""

    bind_factory = _bind()


@requires("notices", "classification")
@pytest.mark.requirement("DELTA-4", "SHOULD")
class TestNoticeReannounce(ReannounceMachine.TestCase):  # type: ignore[valid-type,misc]
    """DELTA-4: a deferred tool withdrawn by a notice and later back in the pool is announced again."""

    bind_factory = _bind()


@requires("notices", "classification")
@pytest.mark.requirement("DELTA-2", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    first_builtin=builtin_specs(max_size=3),
    first_mcp=mcp_specs(max_size=4, case_twins=True),
    second_builtin=builtin_specs(max_size=3),
    second_mcp=mcp_specs(max_size=4, case_twins=True),
    data=st.data(),
)
def test_added_and_removed_against_announced_and_pool(
    new_harness: Callable[[], Any],
    first_builtin: list[ToolSpec],
    first_mcp: list[ToolSpec],
    second_builtin: list[ToolSpec],
    second_mcp: list[ToolSpec],
    data: st.DataObject,
) -> None:
    """DELTA-2 property.

    DELTA-2: added = deferred pool tools not announced; removed = announced tools no longer in the pool. The
    first notice of a session announces every deferred tool and removes nothing. The second pool keeps some of
    the first pool's tools, some of them flipped to ``always_load`` (still in the pool, no longer deferred:
    not removed). Names that differ only in letter case are different tools.
    """
    harness = new_harness()
    first_mcp = [s for s in first_mcp if s.name not in {b.name for b in first_builtin}]
    first = [*first_builtin, *first_mcp]
    kept = (
        data.draw(st.lists(st.sampled_from(first), unique_by=lambda s: s.name), label="kept") if first else []
    )
    if kept:
        pinned = data.draw(st.lists(st.sampled_from(kept), unique_by=lambda s: s.name), label="pinned")
        kept = [dataclasses.replace(s, always_load=True) if s in pinned else s for s in kept]
    new_names = {s.name for s in kept}
    pool2_builtin = [s for s in kept if not s.is_mcp] + [s for s in second_builtin if s.name not in new_names]
    names2 = {s.name for s in pool2_builtin}
    pool2_mcp = [s for s in kept if s.is_mcp] + [s for s in second_mcp if s.name not in names2 | new_names]

    first_deferred = {s.name for s in [*first_builtin, *first_mcp] if harness.is_deferred(s)}
    notice = harness.notice(first_builtin, first_mcp)
    got = (set(notice.added), set(notice.removed)) if notice else (set(), set())
    assert got == (first_deferred, set()), (
        f"DELTA-2: the first notice must add every deferred tool {sorted(first_deferred)} and remove nothing; "
        f"got {notice}"
    )
    if notice is not None:
        assert len(notice.added) == len(set(notice.added)), f"DELTA-2: a notice repeats a name: {notice}"

    second_deferred = {s.name for s in [*pool2_builtin, *pool2_mcp] if harness.is_deferred(s)}
    pool2_names = {s.name for s in [*pool2_builtin, *pool2_mcp]}
    expected = (second_deferred - first_deferred, first_deferred - pool2_names)
    notice = harness.notice(pool2_builtin, pool2_mcp)
    got = (set(notice.added), set(notice.removed)) if notice else (set(), set())
    assert got == expected, (
        f"DELTA-2: announced {sorted(first_deferred)}, pool now {sorted(pool2_names)} (deferred "
        f"{sorted(second_deferred)}): expected added={sorted(expected[0])} removed={sorted(expected[1])}, "
        f"got {notice}"
    )


@requires("notices", "classification")
@pytest.mark.requirement("DELTA-4", "SHOULD")
@settings(max_examples=30, deadline=None)
@given(tools=mcp_specs(min_size=1, case_twins=True), builtins=builtin_specs(max_size=3), data=st.data())
def test_removed_and_readded_tool_is_announced_again(
    new_harness: Callable[[], Any], tools: list[ToolSpec], builtins: list[ToolSpec], data: st.DataObject
) -> None:
    """DELTA-4 property.

    DELTA-4: deferred tools announced, then withdrawn by a notice when their server disconnected, are in
    the added list of the notice after they come back.
    """
    harness = new_harness()
    tools = [
        dataclasses.replace(s, always_load=False) for s in tools if s.name not in {b.name for b in builtins}
    ]
    if not tools:
        return
    gone = data.draw(st.lists(st.sampled_from(tools), min_size=1, unique_by=lambda s: s.name), label="gone")
    stay = [s for s in tools if s not in gone]
    harness.notice(builtins, tools)
    withdrawn = harness.notice(builtins, stay)
    back = harness.notice(builtins, tools)
    names = sorted(s.name for s in gone)
    assert sorted(withdrawn.removed if withdrawn else ()) == names, (
        f"DELTA-4 (setup): disconnecting {names} should withdraw them, got {withdrawn}"
    )
    assert names == sorted(set(back.added if back else ()) & set(names)), (
        f"DELTA-4: {names} were withdrawn and are back in the pool; they must be announced again, got {back}"
    )
