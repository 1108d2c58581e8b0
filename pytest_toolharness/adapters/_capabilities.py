"""The capability table: every optional feature of a harness that some conformance tests need.

:data:`CAPABILITIES` is the one list of capability names. Each :class:`Capability` has a description
and either a ``protocol`` (the methods a harness of that capability has, from
:mod:`~pytest_toolharness.adapters._contract`) or ``feature_of``: the capability whose method it is a
feature of (``hooks`` is a feature of ``execute()``), or neither: ``permissions`` is data the scenarios carry (rules and a mode),
which a harness without a permission engine never gets.

An adapter declares what its harnesses can do in ``capabilities``, a ``frozenset`` of names. The suite
validates the declaration when it loads the adapter (unknown names, a feature without the capability
it belongs to) and, at the setup of every test, that the harness has each method of each declared
capability (:func:`check_harness`): a declaration the harness does not honour fails closed, naming the
capability and the missing method.

A test declares what it needs with ``@requires("command_hooks")``; when the adapter does not declare a
capability, the test is skipped and the report shows the requirement as "not checked", naming the
capability. Unknown names are errors on both sides, so a typo can never silently skip a test forever.

Beside its capabilities an adapter may declare ``profiles``, the requirement profiles it claims (a
``frozenset`` of ``"core"`` and ``"claude-code"``; :func:`adapter_profiles`, default ``core`` alone), and
``not_applicable``, a mapping of requirement ID to the reason the requirement can't apply to its harness
(:func:`adapter_not_applicable`), which the report shows and the strict level accepts for a requirement
that was not checked.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pytest

from pytest_toolharness._requirements import CORE_PROFILE, PROFILES, REQUIRES_MARKER
from pytest_toolharness.adapters._contract import (
    AgentLoopCapability,
    CacheKeyCapability,
    ClassificationCapability,
    ConversationCapability,
    ExecutionCapability,
    NoticeRecordsCapability,
    NoticesCapability,
    PoolCapability,
    SandboxCapability,
    SchemasCapability,
    SearchCapability,
    TranscriptCapability,
    WireCapability,
)

__all__ = [
    "CAPABILITIES",
    "REQUIRES_MARKER",
    "Capability",
    "CapabilityError",
    "adapter_capabilities",
    "adapter_not_applicable",
    "adapter_profiles",
    "check_harness",
    "missing_capabilities",
    "missing_methods",
    "requires",
]


class CapabilityError(TypeError):
    """A harness lacks a method of a capability its adapter declares."""


@functools.cache
def _protocol_methods(protocol: type) -> tuple[str, ...]:
    # Cached: the suite checks every fresh harness against its capabilities' methods.
    names: dict[str, None] = {}
    for klass in reversed(protocol.__mro__):
        if klass.__module__ in ("typing", "builtins"):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") and callable(value):
                names[name] = None
    return tuple(names)


@dataclass(frozen=True, slots=True)
class Capability:
    """One capability: its name, what an adapter promises by declaring it, and how.

    ``protocol`` is the typed protocol whose methods make up the capability (None for a feature of
    another capability's method); ``feature_of`` names that capability. ``includes`` names the
    capabilities whose protocols this one's extends: declaring it declares them too.
    """

    name: str
    description: str
    protocol: type | None = None
    feature_of: str | None = None
    includes: tuple[str, ...] = ()

    @property
    def methods(self) -> tuple[str, ...]:
        """The protocol's method names, base protocols' first, in declaration order (empty for a feature)."""
        return () if self.protocol is None else _protocol_methods(self.protocol)


def _table(*capabilities: Capability) -> Mapping[str, Capability]:
    return MappingProxyType({capability.name: capability for capability in capabilities})


CAPABILITIES: Mapping[str, Capability] = _table(
    Capability("pool", "the tools the model sees, in wire order, after whole-tool denies", PoolCapability),
    Capability("classification", "which tools are deferred", ClassificationCapability),
    Capability("schemas", "the tools array on the wire, within one session", SchemasCapability),
    Capability("cache_key", "the prompt-cache break detection key", CacheKeyCapability),
    Capability("search", "the ToolSearch tool (select: and keywords)", SearchCapability),
    Capability("notices", "deferred-tools change notices", NoticesCapability),
    Capability(
        "notice_records",
        "notice records read into the transcript (a resumed session's)",
        NoticeRecordsCapability,
    ),
    Capability(
        "transcript",
        "a session's tools and messages, and the request sent for them (any harness with a multi-turn history)",
        TranscriptCapability,
    ),
    Capability(
        "conversation",
        "a session's transcript, its requests, compaction and resume",
        ConversationCapability,
        includes=("transcript",),
    ),
    Capability(
        "execution", "one assistant turn's tool_use blocks through the whole pipeline", ExecutionCapability
    ),
    Capability(
        "permissions",
        "permission rules (allow / ask / deny, the scenario's and the pool's deny_rules) and modes; without "
        "it the suite puts no rule and no mode in a scenario, and the harness runs every call it can",
    ),
    Capability(
        "hooks", "in-process PreToolUse / PostToolUse / PermissionRequest hooks", feature_of="execution"
    ),
    Capability(
        "command_hooks",
        "hooks run as subprocesses with the JSON stdin/stdout protocol",
        feature_of="execution",
    ),
    Capability("host_callback", "asking the host (user) when a decision is ask", feature_of="execution"),
    Capability(
        "host_interrupt",
        "a deny from the host, or from a PermissionRequest hook, that also interrupts the batch",
        feature_of="execution",
    ),
    Capability(
        "settings_files",
        "the scenario's settings files from several sources: rules, defaultMode, additionalDirectories, "
        "blockWritesOutsideWorkingDirectories, denyInsteadOfPrompting",
        feature_of="execution",
    ),
    Capability("abort", "aborting a batch of tool calls", feature_of="execution"),
    Capability(
        "streamed_tool_uses",
        "tool_use blocks that stream in while earlier calls of the batch run (streamed_after_end)",
        feature_of="execution",
    ),
    Capability("timeouts", "per-call timeouts", feature_of="execution"),
    Capability(
        "result_persistence",
        "persisting oversized tool results to files, which the tests of what persistence does need (RESULT-2..4); "
        "RESULT-1, whether a harness persists at all, runs without it",
        feature_of="execution",
    ),
    Capability(
        "wire", "run a wire scenario against the harness as a process, recording its requests", WireCapability
    ),
    Capability(
        "agent_loop",
        "the harness's own agent loop against a scripted model, with its lifecycle hooks",
        AgentLoopCapability,
    ),
    Capability(
        "hook_sources",
        "http hooks, async command hooks and plugin hooks (hooks/hooks.json) besides settings command hooks",
        feature_of="execution",
    ),
    Capability(
        "hook_if",
        "a hook handler's `if` (HookSpec.if_rule, permission-rule syntax): the hook runs only for the calls "
        "that rule matches",
        feature_of="execution",
    ),
    Capability(
        "hook_on_failure",
        'a hook handler\'s `onFailure` (HookSpec.on_failure): with "block", a hook that fails (an exit status '
        "other than 0 and 2, a crash, a timeout, an http error) blocks the call as an exit code 2 would",
        feature_of="execution",
    ),
    Capability(
        "settings_hooks",
        "the `hooks` of the scenario's settings files (settings_files), with `disableAllHooks` from any source "
        "and a managed `allowManagedHooksOnly` deciding which files' hooks run",
        feature_of="execution",
    ),
    Capability(
        "sandbox",
        "the shell sandbox: Bash in a session whose settings turn the sandbox on (bubblewrap on Linux)",
        SandboxCapability,
    ),
    Capability(
        "reasoning",
        "the model's reasoning delivered with its tool calls on the harness's API, for the harness to send back "
        "(Messages thinking blocks, Responses reasoning items, Gemini thought signatures); Chat Completions "
        "delivers none",
        feature_of="agent_loop",
    ),
    Capability(
        "non_object_input",
        "tool_use inputs that are not a JSON object (a list or a string, as a replayed or hand-edited transcript "
        "may hold); the Messages API delivers every input as an object, so a harness fed through it never gets one",
        feature_of="execution",
    ),
)
"""Every capability by name, in documentation order."""


def _check_names(names: Iterable[object], where: str) -> tuple[str, ...]:
    checked: list[str] = []
    unknown: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: capability names are strings, got {name!r}")
        (checked if name in CAPABILITIES else unknown).append(name)
    if unknown:
        raise ValueError(
            f"{where}: unknown capability name(s) {', '.join(repr(u) for u in unknown)}; "
            f"known: {', '.join(CAPABILITIES)}"
        )
    return tuple(checked)


def requires(*capabilities: str) -> pytest.MarkDecorator:
    """Mark a test as needing these adapter capabilities (``@requires("hooks", "abort")``)."""
    if not capabilities:
        raise ValueError("requires() needs at least one capability name")
    mark: pytest.MarkDecorator = getattr(pytest.mark, REQUIRES_MARKER)
    return mark(*_check_names(capabilities, "requires()"))


def adapter_capabilities(adapter: object, description: str) -> frozenset[str]:
    """The adapter's declared capabilities, validated: a ``frozenset`` of known names.

    A feature (``hooks``) declared without the capability it belongs to (``execution``) is an error. A
    capability that includes others (``conversation`` includes ``transcript``) brings them along.
    """
    capabilities = getattr(adapter, "capabilities", None)
    if not isinstance(capabilities, frozenset):
        raise TypeError(
            f"adapter {description} must have a 'capabilities' attribute that is a frozenset of "
            f"capability names, got {type(capabilities).__name__}"
        )
    names = _check_names(sorted(capabilities), f"adapter {description}")
    orphans = [
        f"{name!r} without {feature_of!r} (it is a feature of that capability's method)"
        for name in names
        if (feature_of := CAPABILITIES[name].feature_of) is not None and feature_of not in names
    ]
    if orphans:
        raise ValueError(f"adapter {description} declares {'; '.join(orphans)}")
    return frozenset(names).union(*(CAPABILITIES[name].includes for name in names))


def adapter_profiles(adapter: object, description: str) -> frozenset[str]:
    """The profiles the adapter claims: its ``profiles`` attribute (a ``frozenset``), default ``{"core"}``."""
    profiles = getattr(adapter, "profiles", None)
    if profiles is None:
        return frozenset({CORE_PROFILE})
    if not isinstance(profiles, frozenset) or not all(isinstance(p, str) for p in profiles):
        raise TypeError(
            f"adapter {description}: 'profiles' must be a frozenset of profile names "
            f"({', '.join(PROFILES)}), got {profiles!r}"
        )
    unknown = sorted(profiles - set(PROFILES))
    if unknown:
        raise ValueError(
            f"adapter {description}: unknown profile(s) {', '.join(repr(u) for u in unknown)}; "
            f"known: {', '.join(PROFILES)}"
        )
    if not profiles:
        raise ValueError(f"adapter {description}: 'profiles' is empty; claim at least {CORE_PROFILE!r}")
    return profiles


def adapter_not_applicable(adapter: object, description: str) -> dict[str, str]:
    """The requirements the adapter declares not applicable, ID -> reason (its ``not_applicable``)."""
    declared = getattr(adapter, "not_applicable", None)
    if declared is None:
        return {}
    if not isinstance(declared, Mapping):
        raise TypeError(
            f"adapter {description}: 'not_applicable' must map requirement IDs to reasons, got {declared!r}"
        )
    checked: dict[str, str] = {}
    for requirement_id, reason in declared.items():
        if not isinstance(requirement_id, str) or not isinstance(reason, str) or not reason.strip():
            raise ValueError(
                f"adapter {description}: not_applicable[{requirement_id!r}] needs a non-empty reason"
            )
        checked[requirement_id] = reason.strip()
    return checked


def missing_methods(harness: object, capabilities: Iterable[str]) -> list[tuple[str, str]]:
    """``(capability, method)`` for each method of these capabilities that ``harness`` lacks.

    In table order; a method counts as present when the attribute is callable.
    """
    wanted = set(_check_names(capabilities, "missing_methods()"))
    # An included capability's methods are the including one's too (``conversation`` has ``transcript``'s):
    # each missing method is named once, under the capability the adapter declared.
    covered = {included for name in wanted for included in CAPABILITIES[name].includes}
    return [
        (name, method)
        for name, capability in CAPABILITIES.items()
        if name in wanted and name not in covered
        for method in capability.methods
        if not callable(getattr(harness, method, None))
    ]


def check_harness(harness: object, capabilities: Iterable[str], adapter: str = "the adapter") -> None:
    """Raise :class:`CapabilityError` if ``harness`` lacks a method of one of these capabilities.

    The suite calls it at the setup of every test with the adapter's declared capabilities; an adapter's
    own tests can call it too.
    """
    missing = missing_methods(harness, capabilities)
    if missing:
        lacks = "; ".join(f"capability {name!r} needs {method}()" for name, method in missing)
        raise CapabilityError(
            f"{adapter} declares capabilities its harness ({type(harness).__name__}) does not implement: "
            f"{lacks}. Implement the method or remove the capability from 'capabilities'"
        )


def missing_capabilities(item: pytest.Item, available: frozenset[str]) -> list[str]:
    """The capabilities ``item`` declares (via the marker) that are not in ``available``, in order."""
    needed: list[str] = []
    for mark in item.iter_markers(REQUIRES_MARKER):
        needed.extend(_check_names(mark.args, f"{item.nodeid}: @{REQUIRES_MARKER}"))
    return [name for name in dict.fromkeys(needed) if name not in available]
