"""The suite's Hypothesis profiles, registered whenever the plugin configures a run.

Registered in a hook (never at import), before Hypothesis's own plugin reads ``--hypothesis-profile``,
so ``pytest --toolharness-conformance --hypothesis-profile=toolharness-ci`` works from any directory.

- ``toolharness``: what the suite runs under when nobody chose a profile. Hypothesis's defaults less
  the ``explain`` phase (which reruns every failing example many times to say which parts of it matter,
  minutes for a slow harness) and the deadline (a harness is judged on what it does, not how fast).
  Shrinking stays: a failure comes with its minimal example.
- ``toolharness-ci``: derandomised, so a CI run or a mutant run finds the same examples every time; no
  example database, so nothing an earlier run saved is replayed. Loaded by default when ``CI`` is set.
- ``toolharness-mutants``: as ``toolharness-ci`` but without shrinking: a mutation run only needs to
  know that a requirement fails.
- ``toolharness-explore``: random (pair it with ``--hypothesis-seed=N``), no shrinking, to measure how
  reliably a defect is found.

None changes ``max_examples``: each test's ``@settings`` decides how hard it looks. Whatever the
profile, a suite run draws no constants from the project's own source (:func:`drop_local_constants`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "drop_local_constants",
    "has_database",
    "load_suite_profile",
    "register_profiles",
    "restore_profile",
]

DEFAULT_PROFILE = "toolharness"
PROFILES = ("toolharness", "toolharness-ci", "toolharness-mutants", "toolharness-explore")
_CI_VALUES = ("1", "true", "yes")


def register_profiles() -> None:
    """Register the four profiles (idempotent: registering a name again replaces it)."""
    from hypothesis import HealthCheck, Phase, settings

    no_explain = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]
    # Parented on Hypothesis's "default" explicitly: a profile's parent is otherwise the one in force,
    # which under CI=1 is Hypothesis's "ci" (no database), and "toolharness" would silently lose its own.
    base = settings.get_profile("default")
    settings.register_profile(
        "toolharness",
        parent=base,
        deadline=None,
        phases=no_explain,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        "toolharness-ci",
        parent=base,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        phases=no_explain,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        "toolharness-mutants",
        parent=settings.get_profile("toolharness-ci"),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    settings.register_profile(
        "toolharness-explore",
        parent=base,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


def load_suite_profile() -> str | None:
    """When the suite runs and no profile was chosen, load ours; return the profile it replaced.

    ``toolharness-ci`` when ``CI`` is set (as CI services do), ``toolharness`` otherwise. A profile the
    user loaded (``--hypothesis-profile``, or ``settings.load_profile`` in a conftest) is kept, and
    None returned. Hypothesis's profile is process-wide: restore the returned one at the end of the
    run (:func:`restore_profile`), for whatever else runs in this process.
    """
    from hypothesis import settings

    current = settings.get_current_profile_name()
    if current not in ("default", "ci"):
        return None
    ci = os.environ.get("CI", "").lower() in _CI_VALUES
    settings.load_profile("toolharness-ci" if ci else DEFAULT_PROFILE)
    return current


def restore_profile(name: str | None) -> None:
    """Load profile ``name`` again (nothing when None)."""
    if name is not None:
        from hypothesis import settings

        settings.load_profile(name)


def has_database() -> bool:
    """Whether the Hypothesis profile in force saves failing examples (False if Hypothesis is not loaded)."""
    if "hypothesis" not in sys.modules:
        return False
    from hypothesis import settings

    current = settings.default
    return current is not None and current.database is not None


def drop_local_constants() -> Callable[[], None]:
    """Make the suite's draws independent of which local modules are imported; return the undo.

    Hypothesis mixes literals it finds in "local" modules (anything imported from outside
    site-packages, test files aside) into about one draw in twenty, and rescans whenever
    ``sys.modules`` grows. A derandomised property then draws differently after an earlier test
    imported a module lazily, in an editable install than in an installed one, and after an edit to
    any literal of the project: a baselined finding, or a mutant's kill, came and went with the test
    order. Only Hypothesis's fixed constants stay. Nothing happens on a Hypothesis without local
    constants (checked by ``tests/test_draw_determinism.py``).
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - Hypothesis is a dependency
        return _nothing_to_undo
    scan: Callable[[], object] | None = getattr(providers, "_get_local_constants", None)
    local = getattr(providers, "_local_constants", None)
    if scan is None or local is None or getattr(scan, "_toolharness_dropped", False):
        return _nothing_to_undo
    none_found = type(local)()

    def no_local_constants() -> object:
        return none_found

    no_local_constants._toolharness_dropped = True  # type: ignore[attr-defined]
    providers._get_local_constants = no_local_constants  # type: ignore[assignment]
    # The allowed constants of each kind are cached with the local ones mixed in.
    providers.CONSTANTS_CACHE.cache.clear()

    def undo() -> None:
        providers._get_local_constants = scan  # type: ignore[assignment]
        providers.CONSTANTS_CACHE.cache.clear()

    return undo


def _nothing_to_undo() -> None:
    return None
