"""Collection: what the run collects, and how each requirement test is marked before any runs.

The suite is collected even from a virtualenv inside the project; each requirement test is tagged
with its IDs (JUnit properties too), deselected when out of scope, marked ``xfail(strict)`` when a
baseline entry names it, and marked ``skip`` when the adapter can't run it (a profile it does not
claim, a capability it lacks): decided here, from the adapter's declarations, not while a test runs.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from pytest_toolharness._baselines import mark_baselined
from pytest_toolharness._fixtures import NOT_RUN_PROPERTY, adapter_or_error
from pytest_toolharness._requirements import REQUIRES_MARKER, item_requirement_ids
from pytest_toolharness._run_state import RUN_STATE, RunState
from pytest_toolharness.adapters import adapter_capabilities, adapter_profiles, missing_capabilities

__all__ = ["SUITE_WARNING_FILTERS", "pytest_collection_modifyitems", "pytest_ignore_collect"]

SUITE_WARNING_FILTERS = ("default",)
"""The warning filters of every conformance-suite test, whatever the host project configures."""


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Collect the suite even when it is installed in a virtualenv inside the project.

    pytest skips virtualenvs and dot-directories (``.venv``) when it walks a directory, and it walks
    the project's directory on the way to the suite's: the directories between are let through, and
    anything else in an ignored directory on that way stays ignored.
    """
    state = config.stash.get(RUN_STATE, None)
    if state is None or state.suite_dir is None:
        return None
    suite = state.suite_dir
    path = collection_path.resolve()
    if path == suite or suite in path.parents:
        return None
    if path in suite.parents:
        return False
    root = config.rootpath.resolve()
    below_root = [d for d in reversed(suite.parents) if root in d.parents]
    gate = next((d for d in below_root if _skipped_by_default(config, d)), None)
    if gate is not None and gate in path.parents:
        return True
    return None


def _skipped_by_default(config: pytest.Config, directory: Path) -> bool:
    if (directory / "pyvenv.cfg").is_file():
        return True
    patterns = [str(p) for p in config.getini("norecursedirs")]
    return any(fnmatch.fnmatch(directory.name, p) for p in patterns if "/" not in p)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Tag requirement tests, record their IDs as JUnit properties, and deselect out-of-scope ones.

    A test a baseline entry names is marked xfail(strict); one the adapter can't run is marked skip,
    with the reason.
    """
    state = config.stash[RUN_STATE]
    in_scope = {r.id for r in state.report.in_scope}
    problems: list[str] = []
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        in_suite = state.suite_dir is not None and state.suite_dir in item.path.resolve().parents
        try:
            ids = item_requirement_ids(item, state.catalogue)
            missing_capabilities(item, frozenset())
        except (ValueError, TypeError) as exc:
            problems.append(str(exc))
            continue
        if in_suite and not ids:
            problems.append(f"{item.nodeid}: a conformance test needs @pytest.mark.requirement(id, level)")
        if in_suite or ids:
            item.add_marker("toolharness")
        if in_suite:
            # The suite's verdicts must not depend on the host project's warning filters (its
            # ``filterwarnings = error`` turns a dependency's DeprecationWarning into a failed
            # requirement): first of the item's marks, so the suite's own marks still win over it.
            item.add_marker(pytest.mark.filterwarnings(*SUITE_WARNING_FILTERS), append=False)
        for requirement_id in ids:
            if ("requirement", requirement_id) not in item.user_properties:
                item.user_properties.append(("requirement", requirement_id))
        mark_baselined(item, ids, state.report.baseline)
        if ids and not in_scope.intersection(ids):
            deselected.append(item)
        else:
            kept.append(item)
        state.seen_requirement_tests = state.seen_requirement_tests or bool(ids)
    if problems:
        raise pytest.UsageError("toolharness: invalid conformance tests:\n  " + "\n  ".join(problems))
    _skip_what_cannot_apply(config, state, kept)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def _skip_what_cannot_apply(config: pytest.Config, state: RunState, items: list[pytest.Item]) -> None:
    """Mark skip the tests whose profile the adapter does not claim or whose capabilities it lacks.

    The first are reported "not claimed"; the second can't apply to this kind of harness, and the
    verdict rests on the tests that can. A user property tells the report which. The adapter is
    built only when a test declares capabilities; if it can't be built, nothing is skipped and each
    test that asks for it fails with the reason.
    """
    needing = [item for item in items if item.get_closest_marker(REQUIRES_MARKER) is not None]
    if not needing:
        return
    adapter = adapter_or_error(config)[0]
    if adapter is None:
        return
    description = repr(getattr(adapter, "name", type(adapter).__name__))
    claimed = adapter_profiles(adapter, description)
    declared = adapter_capabilities(adapter, description)
    for item in needing:
        ids = [str(value) for key, value in item.user_properties if key == "requirement"]
        profiles = sorted({state.catalogue[i].profile for i in ids})
        if ids and not claimed.intersection(profiles):
            item.user_properties.append((NOT_RUN_PROPERTY, "profile"))
            reason = f"not claimed: profile {', '.join(profiles)} (the adapter claims {', '.join(sorted(claimed))})"
            item.add_marker(pytest.mark.skip(reason=reason))
            continue
        missing = missing_capabilities(item, declared)
        if missing:
            item.user_properties.append((NOT_RUN_PROPERTY, "capability"))
            item.add_marker(
                pytest.mark.skip(reason=f"not checked: adapter lacks capability {', '.join(missing)}")
            )
