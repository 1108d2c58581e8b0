"""The shell sandbox (004 §9.4; SBX-1..6): Bash inside bubblewrap, its policy from settings and rules.

``_settings`` validates and merges the ``sandbox`` key of the settings files; ``_policy`` derives what a
sandboxed command may write, read and reach; ``_proxy`` is the network proxy outside the sandbox;
``_runner`` builds the bubblewrap command line and runs it; ``_shell`` is what the Bash tool uses: which
calls run sandboxed and what the permission engine hears about them. The flow runs one way:
``_shell`` -> ``_runner`` / ``_proxy`` -> ``_policy`` -> ``_settings``.
"""

from __future__ import annotations

from reference_impl.sandbox._policy import SandboxPolicy, derive_policy, host_allowed
from reference_impl.sandbox._proxy import DomainProxy, ProxyDecision
from reference_impl.sandbox._runner import (
    GLOB_MATCH_LIMIT,
    CommandResult,
    SandboxPatternError,
    expand_globs,
    sandbox_problem,
)
from reference_impl.sandbox._settings import (
    ACCEPTED_NOT_ENFORCED,
    MANAGED_ONLY,
    SANDBOX_KEYS,
    UNSUPPORTED,
    SandboxSettings,
    sandbox_settings,
)
from reference_impl.sandbox._shell import DISABLE_SANDBOX_KEY, SandboxedShell, SandboxPlan, ShellRunError

__all__ = [
    "ACCEPTED_NOT_ENFORCED",
    "DISABLE_SANDBOX_KEY",
    "GLOB_MATCH_LIMIT",
    "MANAGED_ONLY",
    "SANDBOX_KEYS",
    "UNSUPPORTED",
    "CommandResult",
    "DomainProxy",
    "ProxyDecision",
    "SandboxPatternError",
    "SandboxPlan",
    "SandboxPolicy",
    "SandboxSettings",
    "SandboxedShell",
    "ShellRunError",
    "derive_policy",
    "expand_globs",
    "host_allowed",
    "sandbox_problem",
    "sandbox_settings",
]
