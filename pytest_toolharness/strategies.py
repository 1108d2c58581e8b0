"""Hypothesis strategies for testing LLM agent tool harnesses.

Import the module under a short name::

    from hypothesis import given, strategies as st
    from pytest_toolharness import strategies as ths

The strategies are functions that return a Hypothesis ``SearchStrategy``; nothing is built at
import time, and every value depends only on Hypothesis's own choices (no ``random``, no set order),
so failures shrink and replay. Beside them: the vocabulary constants they draw from, the bash oracle
that says what a command line really runs (``bash_sandbox``), ``cached_strategy`` for building a
strategy once, and the suite's Hypothesis profiles (``register_profiles``, ``load_suite_profile``,
``restore_profile``, ``drop_local_constants``).

Fuzz a permission engine with rules, modes and bypass attempts::

    @given(rules=st.lists(ths.permission_rules()), mode=ths.permission_modes(),
           attempt=ths.compound_commands("npm test"))
    def test_prefix_rule_never_allows_a_compound(rules, mode, attempt):
        engine = MyEngine([*rules, RuleSpec("Bash(npm test:*)", "allow")], mode=mode)
        assert engine.decide("Bash", {"command": attempt}) != "allow"

Check that a tool pool keeps its built-in prefix stable::

    @given(ths.tool_pools(min_builtin=1))
    def test_builtin_prefix(pool):
        builtin, mcp = pool
        ...

Check that a harness answers every tool_use, whatever goes wrong::

    @given(data=st.data())
    def test_every_tool_use_answered(data):
        builtin, mcp = data.draw(ths.tool_pools(min_builtin=1))
        batch = data.draw(ths.tool_use_batches(builtin + mcp))
        results = run_my_harness(batch.tool_uses, abort_after=batch.abort_after_starts)
        assert sorted(r["tool_use_id"] for r in results) == sorted(batch.ids)

The strategies produce the plain-data types of :mod:`pytest_toolharness.specs`
(``ToolSpec``, ``ToolBehavior``, ``RuleSpec``, ``HookSpec``) and Messages API dicts.
See ``docs/strategies.md`` for every strategy.
"""

from __future__ import annotations

from pytest_toolharness._profiles import (
    drop_local_constants,
    load_suite_profile,
    register_profiles,
    restore_profile,
)
from pytest_toolharness._strategies.bash_oracle import BashSandbox, bash_sandbox, bash_sandbox_problem
from pytest_toolharness._strategies.code_reach import CodeReach, code_reach
from pytest_toolharness._strategies.derived_names import (
    DerivedNameOption,
    derived_name_options,
    prepare_derived_work,
)
from pytest_toolharness._strategies.file_writers import WriterEntry, file_writers, written_paths
from pytest_toolharness._strategies.here_documents import HereDocument, here_documents
from pytest_toolharness._strategies.hooks import (
    ALSO_BY_EVENT,
    BROKEN_OUTCOMES,
    HOOK_EVENTS,
    HOOK_OUTCOMES,
    LIFECYCLE_OUTCOMES_BY_EVENT,
    NON_BLOCKING_EXIT_CODES,
    OUTCOMES_BY_EVENT,
    hook_matchers,
    hook_settings,
    hook_specs,
    hook_stacks,
    lifecycle_hook_specs,
)
from pytest_toolharness._strategies.instances import (
    INVALID_INSTANCE_KINDS,
    instances_of,
    invalid_instances_of,
)
from pytest_toolharness._strategies.line_joints import line_joints
from pytest_toolharness._strategies.messages import (
    ToolUseBatch,
    is_compact_boundary,
    message_histories,
    tool_use_batches,
    tool_use_blocks,
    tool_use_ids,
)
from pytest_toolharness._strategies.path_spellings import (
    MAZE_TARGET,
    PathMaze,
    bash_word_values,
    build_path_maze,
    expanded_spellings,
    path_spellings,
    same_file,
)
from pytest_toolharness._strategies.rules import (
    COMPOUND_OPERATORS,
    MALFORMED_RULE_KINDS,
    PERMISSION_MODES,
    RULE_KINDS,
    DeadShellRule,
    compound_commands,
    dead_shell_rules,
    malformed_rules,
    path_variants,
    permission_modes,
    permission_rules,
    rule_texts,
    settings_json,
    settings_sources,
    shell_commands,
)
from pytest_toolharness._strategies.schemas import (
    cached_strategy,
    descriptions,
    indices,
    json_schemas,
    json_values,
)
from pytest_toolharness._strategies.shell import (
    EvaluatedAttempt,
    ShellAttempt,
    command_name_spellings,
    evaluated_code_attempts,
    shell_attempts,
    shell_blanks,
    variable_name_contexts,
    wrapped_commands,
)
from pytest_toolharness._strategies.shell_grammar import (
    CARRIER_FAMILIES,
    ComposedCommand,
    catalogue_programs,
    composed_commands,
    composed_real_programs,
    shell_quotings,
    shell_redirections,
)
from pytest_toolharness._strategies.text import utf8_characters
from pytest_toolharness._strategies.token_ends import token_ends
from pytest_toolharness._strategies.tools import (
    BEHAVIOR_KINDS,
    BUILTIN_TOOL_NAMES,
    DEFAULT_BEHAVIOR_KINDS,
    TOOL_ROLES,
    builtin_tool_specs,
    mcp_server_names,
    mcp_tool_specs,
    tool_behaviors,
    tool_names,
    tool_pools,
    tool_specs,
)

__all__ = [
    "ALSO_BY_EVENT",
    "BEHAVIOR_KINDS",
    "BROKEN_OUTCOMES",
    "BUILTIN_TOOL_NAMES",
    "CARRIER_FAMILIES",
    "COMPOUND_OPERATORS",
    "DEFAULT_BEHAVIOR_KINDS",
    "HOOK_EVENTS",
    "HOOK_OUTCOMES",
    "INVALID_INSTANCE_KINDS",
    "LIFECYCLE_OUTCOMES_BY_EVENT",
    "MALFORMED_RULE_KINDS",
    "MAZE_TARGET",
    "NON_BLOCKING_EXIT_CODES",
    "OUTCOMES_BY_EVENT",
    "PERMISSION_MODES",
    "RULE_KINDS",
    "TOOL_ROLES",
    "BashSandbox",
    "CodeReach",
    "ComposedCommand",
    "DeadShellRule",
    "DerivedNameOption",
    "EvaluatedAttempt",
    "HereDocument",
    "PathMaze",
    "ShellAttempt",
    "ToolUseBatch",
    "WriterEntry",
    "bash_sandbox",
    "bash_sandbox_problem",
    "bash_word_values",
    "build_path_maze",
    "builtin_tool_specs",
    "cached_strategy",
    "catalogue_programs",
    "code_reach",
    "command_name_spellings",
    "composed_commands",
    "composed_real_programs",
    "compound_commands",
    "dead_shell_rules",
    "derived_name_options",
    "descriptions",
    "drop_local_constants",
    "evaluated_code_attempts",
    "expanded_spellings",
    "file_writers",
    "here_documents",
    "hook_matchers",
    "hook_settings",
    "hook_specs",
    "hook_stacks",
    "indices",
    "instances_of",
    "invalid_instances_of",
    "is_compact_boundary",
    "json_schemas",
    "json_values",
    "lifecycle_hook_specs",
    "line_joints",
    "load_suite_profile",
    "malformed_rules",
    "mcp_server_names",
    "mcp_tool_specs",
    "message_histories",
    "path_spellings",
    "path_variants",
    "permission_modes",
    "permission_rules",
    "prepare_derived_work",
    "register_profiles",
    "restore_profile",
    "rule_texts",
    "same_file",
    "settings_json",
    "settings_sources",
    "shell_attempts",
    "shell_blanks",
    "shell_commands",
    "shell_quotings",
    "shell_redirections",
    "token_ends",
    "tool_behaviors",
    "tool_names",
    "tool_pools",
    "tool_specs",
    "tool_use_batches",
    "tool_use_blocks",
    "tool_use_ids",
    "utf8_characters",
    "variable_name_contexts",
    "wrapped_commands",
    "written_paths",
]
