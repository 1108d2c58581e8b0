"""Shared helpers of the conformance suite (loaded only when the suite runs)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

# Profiles, registered at import (before pytest reads --hypothesis-profile when the suite's folder is
# on the command line). "toolharness-ci": derandomised, so a CI run or a mutant run finds the same
# examples every time; no example database, so nothing an earlier run saved is replayed.
# "toolharness-explore": random (pair it with --hypothesis-seed=N), no shrinking, to measure how
# reliably a defect is found. None changes max_examples: each test's @settings decides how hard it looks.
settings.register_profile(
    "toolharness-ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# "toolharness-mutants": as "toolharness-ci" but without shrinking: a mutation run only needs to know
# that a requirement fails, not the minimal example, and shrinking a slow scenario takes long.
settings.register_profile(
    "toolharness-mutants",
    parent=settings.get_profile("toolharness-ci"),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.register_profile(
    "toolharness-explore",
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)

# In CI (CI=true) without an explicitly chosen profile, the suite runs derandomised.
if os.environ.get("CI", "").lower() in ("1", "true", "yes") and settings.get_current_profile_name() in (
    "default",
    "ci",
):
    settings.load_profile("toolharness-ci")
