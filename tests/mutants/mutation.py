"""Automatic mutation testing of one ``reference_impl`` module with cosmic-ray, against its requirements only.

    pip install -e '.[mutation]'
    python tests/mutants/mutation.py reference_impl/request/_notices.py --jobs 2
    python tests/mutants/mutation.py reference_impl/execution/_results.py --report   # score so far
    python tests/mutants/mutation.py reference_impl/permissions/_engine.py --function _decide --lines 120-150

cosmic-ray finds the mutants (``cosmic-ray init``: every operator at every place) and keeps the
session database and its report; :mod:`tests.mutants._forked` runs them. For each module,
:data:`MODULE_REQUIREMENTS` names the requirement IDs whose tests exercise it, and
:data:`MODULE_UNIT_TESTS` the project's own test files that drive it (``--no-unit-tests`` leaves them
out). Those tests run once unmutated under coverage (they must pass, or nothing is scored), then each
mutant runs, in a
forked child of one warm process, only the tests that execute its lines (strict level, ``--exitfirst``,
the derandomised ``toolharness-mutants`` profile; the tests that killed earlier mutants first, the rest
fastest first; the unit tests after every conformance test, with the project's own pytest options): a
mutant is killed when one of them fails, and counted as killed *by unit tests only* when every
conformance test of it passed (the score line gives the conformance suite's own count too). A mutant
on lines none of them executes is recorded as survived, ``not reached``, without a run. Mutants inside
type annotations are skipped: with ``from __future__ import annotations`` they never run.

The work tree is never written: the mutated source reaches the child through an import hook. The
session database (``<out>/<module>.sqlite``), cosmic-ray's report (``<out>/<module>.txt``) and the
survivors' diffs (``<out>/<module>-survivors.md``) are written under ``--out`` (``build/mutation``);
the last line printed is ``<module>: K/N killed (P%), ...``.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
if __package__ in (None, ""):  # run as a script: make ``tests.mutants`` importable
    sys.path.insert(0, str(PROJECT_ROOT))

from tests.mutants._forked import (  # noqa: E402 - after the path fix above
    SUITE_OPTIONS,
    UNIT_TEST_OPTIONS,
    UNIT_TESTS,
    CoverageMap,
    MutantJob,
    MutantOutcome,
    coverage_map,
    coverage_maps,
    host_plugin_blocks,
    new_workdir,
    preload,
    run_mutants,
    run_of,
)
from tests.mutants._mutation_report import (  # noqa: E402
    NOT_REACHED,
    UNIT_KILL,
    markdown_table,
    score_session,
    write_survivors,
)
from tests.mutants._sample import SampleItem  # noqa: E402
from tests.mutants._selection import Selection, line_range  # noqa: E402
from tests.mutants._triage import TriageRule, enclosing_function  # noqa: E402

INCOMPETENT = "incompetent"

__all__ = [
    "INCOMPETENT",
    "MODULE_REQUIREMENTS",
    "MODULE_UNIT_TESTS",
    "NOT_REACHED",
    "OUT_OF_SCOPE",
    "SCORED_MODULES",
    "SCRIPT_MODULES",
    "main",
    "reach_lines",
    "suite_command",
]

# The modules docs/mutants.md scores (issue 14's list): the permission engine, the executor, results,
# notices, the request builder and ToolSearch.
SCORED_MODULES: tuple[str, ...] = (
    "reference_impl/request/_notices.py",
    "reference_impl/execution/_results.py",
    "reference_impl/request/_builder.py",
    "reference_impl/search/_toolsearch.py",
    "reference_impl/execution/_pipeline.py",
    "reference_impl/execution/_context.py",
    "reference_impl/execution/_input_checks.py",
    "reference_impl/execution/_asks.py",
    "reference_impl/permissions/_engine.py",
)

_PIPELINE_REQUIREMENTS = ("EXEC", "PAIR", "HOOK", "CONC", "PERM-8", "PERM-14")

# Which requirements' tests exercise each module (the conformance suite's own view of it). Every module of
# reference_impl is here or in OUT_OF_SCOPE (tests/test_mutation_runner.py compares both with the tree).
_PERMISSION_SHELL = ("PERM-11", "PERM-16", "PERM-17", "SBX-7")
_HOOKS = ("HOOK", "PERM-2", "PERM-3", "PERM-8")
_SANDBOX = ("SBX",)
MODULE_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    # Duplicate detection for pools, paths and the keyword index.
    "reference_impl/_repeats.py": ("PAIR-6", "CACHE-2", "DEFER-5", "PERM-11"),
    "reference_impl/_wire.py": ("SNAP", "CACHE"),
    # The loop: requests, streaming, execution, lifecycle hooks, notices, compaction.
    "reference_impl/agent/_loop.py": (
        "PAIR",
        "EXEC",
        "CONC-5",
        "HOOK-5",
        "HOOK-7",
        "DELTA",
        "DEFER-7",
        "CACHE",
    ),
    "reference_impl/agent/_compaction.py": ("DEFER-7", "CACHE-6"),
    "reference_impl/agent/_results.py": ("PAIR-7", "PAIR-8"),
    # MCP tools reach the pool (CACHE-2's MCP suffix) and results in MCP shapes (EXEC-5); every wire
    # test's tools are the suite's MCP server's, so its results (errors PAIR-3, drawn batches with
    # errors, images and empty answers PAIR-2, image results RESULT-2) cross this client too. Its
    # reading of readOnlyHint is what lets two read-only MCP calls run together (CONC-2's wire test).
    "reference_impl/agent/_mcp_client.py": ("CACHE-2", "EXEC-5", "PAIR-2", "PAIR-3", "RESULT-2", "CONC-2"),
    "reference_impl/request/_notices.py": ("DEFER-3", "DELTA"),
    # Every result goes through map_tool_output: errors (PAIR-3, EXEC-5) and ToolSearch's
    # tool_reference blocks (DEFER-4) too.
    "reference_impl/execution/_results.py": ("RESULT", "PAIR", "EXEC-5", "DEFER-4"),
    "reference_impl/request/_builder.py": (
        "DEFER-2",
        "DEFER-3",
        "DEFER-6",
        "DEFER-8",
        "DELTA",
        "CACHE",
        "PAIR-6",
    ),
    "reference_impl/request/_cache_keys.py": ("CACHE",),
    "reference_impl/request/_schemas.py": ("CACHE-3", "CACHE-4", "SNAP"),
    "reference_impl/request/_discovery.py": ("DEFER-7", "PAIR-1"),
    # Notices render here (DEFER-3, DELTA-2) and user turns merge with results first (PAIR-1).
    "reference_impl/request/_transcript.py": (
        "PAIR-1",
        "PAIR-7",
        "DEFER-3",
        "DEFER-7",
        "DELTA-2",
        "RESULT-4",
    ),
    "reference_impl/search/_toolsearch.py": ("DEFER-4", "DEFER-5", "DEFER-6"),
    "reference_impl/search/_index.py": ("DEFER-5",),
    "reference_impl/search/_postings.py": ("DEFER-5",),
    "reference_impl/search/_terms.py": ("DEFER-5",),
    # The optional rankers answer keyword queries in DEFER-5's place when configured.
    "reference_impl/search/_fielded.py": ("DEFER-5",),
    "reference_impl/search/_hybrid.py": ("DEFER-5",),
    "reference_impl/tools/_defer.py": ("DEFER-1", "DEFER-8"),
    "reference_impl/tools/_pool.py": ("CACHE-2", "PERM-10", "EXEC", "PAIR-6", "PAIR-7", "DEFER-4"),
    "reference_impl/tools/_names.py": (
        "EXEC-3",
        "EXEC-5",
        "CACHE-2",
        "PAIR-6",
        "PERM-10",
        "PERM-11",
        "PERM-12",
        "HOOK-1",
    ),
    # The tool model: conservative defaults (CONC-3), MCP tools' `_meta` (alwaysLoad: DEFER-1; searchHint:
    # DEFER-5; maxResultSizeChars and the default limit: RESULT-1), a validation's message (PAIR-3).
    "reference_impl/tools/_tool.py": ("CONC-3", "DEFER-1", "DEFER-5", "EXEC-1", "PAIR-3", "RESULT-1"),
    "reference_impl/execution/_scheduler.py": ("CONC", "PAIR"),
    # The pipeline runs the permission check, the hooks and the scheduler for every call; it also
    # settles an ask (PermissionRequest hooks, the host, headless: PERM-8) and turns an engine
    # that raises into a deny (PERM-14).
    # Its context, input checks and ask stage were one module with it until issue 30: the same tests.
    "reference_impl/execution/_pipeline.py": _PIPELINE_REQUIREMENTS,
    "reference_impl/execution/_context.py": _PIPELINE_REQUIREMENTS,
    "reference_impl/execution/_input_checks.py": _PIPELINE_REQUIREMENTS,
    "reference_impl/execution/_asks.py": _PIPELINE_REQUIREMENTS,
    # Hook decisions meet the rules in the engine (a hook's allow never beats a deny rule).
    "reference_impl/permissions/_engine.py": ("PERM", "HOOK"),
    # Split out of the engine (issue 30): the context it decides in, and the protected paths.
    "reference_impl/permissions/_context.py": ("PERM",),
    "reference_impl/permissions/_protected_paths.py": ("PERM",),
    "reference_impl/permissions/_decisions.py": ("PERM", "HOOK-2"),
    # The host's answers: asked or not (PERM-1, PERM-8), its rewrite (EXEC-2), its deny message in the
    # error (PAIR-3), its deny that interrupts the batch (CONC-5).
    "reference_impl/permissions/_host.py": ("PERM-1", "PERM-8", "EXEC-2", "PAIR-3", "CONC-5"),
    "reference_impl/permissions/_rule_syntax.py": ("PERM",),
    "reference_impl/permissions/_rules.py": ("PERM",),
    "reference_impl/permissions/_rule_matches.py": ("PERM",),
    "reference_impl/permissions/_rule_liveness.py": ("PERM-12",),
    # A shell deny rule's words read as bash reads them (PERM-17), or refused by name (PERM-12).
    "reference_impl/permissions/_rule_words.py": ("PERM-12", "PERM-17"),
    # What git's configuration and hooks on disk make git run (PERM-17), and no new false ask (PERM-16).
    "reference_impl/permissions/_repository_config.py": ("PERM-16", "PERM-17"),
    "reference_impl/permissions/_project_files.py": ("PERM-17",),
    "reference_impl/permissions/_project_hooks.py": ("PERM-17",),
    # The code a Python program resolves (PERM-17) and its startup files, guarded from writes (PERM-15).
    "reference_impl/permissions/_python_resolution.py": ("PERM-17", "PERM-15"),
    "reference_impl/permissions/_make_expansion.py": ("PERM-17",),
    # The files a program loads by its own search rules (node_modules, @INC, make's include path).
    "reference_impl/permissions/_module_search.py": ("PERM-17",),
    "reference_impl/permissions/_paths.py": ("PERM",),
    # Hosts of URLs and of domain rules (PERM-12 refuses one it can't read), also the sandbox's (SBX-3).
    "reference_impl/permissions/_url_hosts.py": ("PERM-11", "PERM-12", "SBX-3"),
    "reference_impl/permissions/_settings.py": ("PERM-4", "PERM-9", "PERM-12", "PERM-15"),
    "reference_impl/permissions/_source_keys.py": ("PERM-4", "PERM-12", "SBX"),
    # The shell reader and its helpers: what bash would run (PERM-11, -16, -17; the sandbox's exec check).
    "reference_impl/permissions/_bash_reader.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_bash_words.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_unread_substitutions.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_token_extents.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_wildcard_matching.py": ("PERM-11", "PERM-14"),
    "reference_impl/permissions/_interpreter_options.py": _PERMISSION_SHELL,
    # What interpreters' code runs and writes: literal targets, or built ones (PERM-17; PERM-15's writes).
    "reference_impl/permissions/_code_targets.py": (*_PERMISSION_SHELL, "PERM-15"),
    "reference_impl/permissions/_python_targets.py": (*_PERMISSION_SHELL, "PERM-15"),
    "reference_impl/permissions/_builtin_options.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_evaluated.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_program_model.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_programs.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_shell_forms.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_shell_rules.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_wrapped_commands.py": _PERMISSION_SHELL,
    # ShellPart.opaque also tells PERM-15's walk that a program only known at run time may be cd.
    "reference_impl/permissions/_shell_parts.py": (*_PERMISSION_SHELL, "PERM-15"),
    "reference_impl/permissions/_line_writes.py": (*_PERMISSION_SHELL, "PERM-15"),
    # The names a program derives for what it writes (backups, compressors, pieces, trees, archives).
    "reference_impl/permissions/_derived_names.py": ("PERM-15",),
    "reference_impl/permissions/_git_tree_writes.py": ("PERM-15",),
    "reference_impl/permissions/_descriptors.py": _PERMISSION_SHELL,
    # Rules read by each program's grammar: the static reading and the sandbox's exec check.
    "reference_impl/permissions/_program_grammar.py": _PERMISSION_SHELL,
    # Session 32's readings: awk's options, node's and perl's modules, make's remade makefiles, the
    # helpers programs start, the standard library's capabilities (PERM-17); git's own files and the
    # protected names, which the sandbox's policy protects too (PERM-15, SBX).
    "reference_impl/permissions/_awk_options.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_code_modules.py": (*_PERMISSION_SHELL, "PERM-15"),
    "reference_impl/permissions/_make_remaking.py": ("PERM-17",),
    "reference_impl/permissions/_program_starts.py": _PERMISSION_SHELL,
    # Session 33: git's editor, pager and signature programs, started by its defaults (PERM-17).
    "reference_impl/permissions/_git_started.py": ("PERM-17",),
    "reference_impl/permissions/_project_runners.py": ("PERM-17",),
    "reference_impl/permissions/_linked_protection.py": ("PERM-15",),
    "reference_impl/permissions/_tree_operands.py": ("PERM-15",),
    "reference_impl/permissions/_startup_sources.py": ("PERM-15",),
    "reference_impl/permissions/_sed_options.py": _PERMISSION_SHELL,
    "reference_impl/permissions/_stdlib_catalogue.py": ("PERM-17",),
    "reference_impl/permissions/_git_own_files.py": ("PERM-15",),
    "reference_impl/permissions/_protected_names.py": ("PERM-15", "SBX"),
    "reference_impl/hooks/_model.py": _HOOKS,
    "reference_impl/hooks/_runner.py": _HOOKS,
    "reference_impl/hooks/_command.py": _HOOKS,
    "reference_impl/hooks/_http.py": ("HOOK-8",),
    "reference_impl/hooks/_lifecycle.py": ("HOOK-5", "HOOK-7"),
    "reference_impl/hooks/_tool_events.py": (*_HOOKS, "EXEC-5"),
    "reference_impl/sandbox/_policy.py": _SANDBOX,
    # A malformed sandbox key is refused by name (PERM-12's property draws them).
    "reference_impl/sandbox/_settings.py": (*_SANDBOX, "PERM-12"),
    "reference_impl/sandbox/_runner.py": _SANDBOX,
    "reference_impl/sandbox/_shell.py": _SANDBOX,
    "reference_impl/sandbox/_proxy.py": ("SBX-3",),
    "reference_impl/sandbox/_exec_guard.py": ("SBX-7",),
    "reference_impl/sandbox/_exec_loader.py": ("SBX-7",),
    "reference_impl/sandbox/_exec_rules.py": ("SBX-7",),
    "reference_impl/sandbox/_exec_tracer.py": ("SBX-7",),
}

# The project's own test files that drive each module directly (tests/test_mutation_runner.py checks
# that each exists and imports its module). They run beside the conformance tests, and a mutant only
# they kill is reported as theirs: a kill of the project's tests, not of the conformance suite.
_EXEC_CHECK_TESTS = ("tests/test_sandbox_exec_check.py",)
_RULE_TESTS = ("tests/test_rules.py",)
_PIPELINE_TESTS = ("tests/test_execution.py",)
_SEARCH_INDEX_TESTS = ("tests/test_search_index.py",)
_LINE_WRITES_TESTS = ("tests/test_line_writes.py",)
MODULE_UNIT_TESTS: dict[str, tuple[str, ...]] = {
    "reference_impl/agent/_loop.py": ("tests/test_loop.py",),
    "reference_impl/agent/_mcp_client.py": ("tests/test_mcp_client.py",),
    "reference_impl/request/_notices.py": ("tests/test_notices.py",),
    "reference_impl/request/_builder.py": ("tests/test_request.py",),
    "reference_impl/request/_cache_keys.py": ("tests/test_cache.py",),
    "reference_impl/request/_schemas.py": ("tests/test_schema_cache.py",),
    "reference_impl/request/_discovery.py": ("tests/test_discovery.py",),
    "reference_impl/execution/_results.py": ("tests/test_results.py",),
    "reference_impl/execution/_scheduler.py": ("tests/test_executor.py",),
    "reference_impl/execution/_pipeline.py": _PIPELINE_TESTS,
    "reference_impl/execution/_context.py": _PIPELINE_TESTS,
    "reference_impl/execution/_input_checks.py": _PIPELINE_TESTS,
    "reference_impl/execution/_asks.py": _PIPELINE_TESTS,
    "reference_impl/search/_toolsearch.py": ("tests/test_toolsearch.py",),
    "reference_impl/search/_index.py": _SEARCH_INDEX_TESTS,
    "reference_impl/search/_postings.py": _SEARCH_INDEX_TESTS,
    "reference_impl/search/_terms.py": _SEARCH_INDEX_TESTS,
    "reference_impl/search/_fielded.py": ("tests/test_ranking.py",),
    "reference_impl/search/_hybrid.py": ("tests/test_embedding_ranking.py",),
    "reference_impl/tools/_tool.py": ("tests/test_tool.py",),
    "reference_impl/tools/_defer.py": ("tests/test_defer.py",),
    "reference_impl/tools/_names.py": ("tests/test_names_and_pool.py",),
    "reference_impl/tools/_pool.py": ("tests/test_names_and_pool.py",),
    "reference_impl/permissions/_engine.py": ("tests/test_permissions.py",),
    "reference_impl/permissions/_paths.py": ("tests/test_paths.py",),
    "reference_impl/permissions/_rule_syntax.py": _RULE_TESTS,
    "reference_impl/permissions/_rules.py": _RULE_TESTS,
    "reference_impl/permissions/_rule_matches.py": _RULE_TESTS,
    "reference_impl/permissions/_rule_liveness.py": ("tests/test_rule_liveness.py",),
    "reference_impl/permissions/_rule_words.py": ("tests/test_rule_words.py",),
    "reference_impl/permissions/_settings.py": ("tests/test_settings.py",),
    "reference_impl/permissions/_source_keys.py": ("tests/test_source_keys.py",),
    "reference_impl/permissions/_repository_config.py": ("tests/test_repository_config.py",),
    "reference_impl/permissions/_make_expansion.py": ("tests/test_make_expansion.py",),
    "reference_impl/permissions/_module_search.py": ("tests/test_module_search.py",),
    "reference_impl/permissions/_unread_substitutions.py": ("tests/test_unread_substitutions.py",),
    "reference_impl/permissions/_token_extents.py": (
        "tests/test_line_readings.py",
        "tests/test_token_extents.py",
    ),
    "reference_impl/permissions/_wildcard_matching.py": ("tests/test_wildcard_matching.py",),
    "reference_impl/permissions/_wrapped_commands.py": (
        "tests/test_env_split.py",
        "tests/test_wrapper_directories.py",
    ),
    "reference_impl/permissions/_bash_reader.py": (
        "tests/test_shell.py",
        "tests/test_split_words.py",
        "tests/test_here_documents.py",
        "tests/test_line_readings.py",
    ),
    "reference_impl/permissions/_bash_words.py": ("tests/test_bash_words.py",),
    "reference_impl/permissions/_awk_options.py": ("tests/test_code_targets.py",),
    "reference_impl/permissions/_code_modules.py": ("tests/test_code_targets.py",),
    "reference_impl/permissions/_make_remaking.py": ("tests/test_module_search.py",),
    "reference_impl/permissions/_program_starts.py": ("tests/test_program_starts.py",),
    "reference_impl/permissions/_git_started.py": ("tests/test_git_started.py",),
    "reference_impl/permissions/_project_runners.py": ("tests/test_project_runners.py",),
    "reference_impl/permissions/_project_files.py": ("tests/test_project_file_readings.py",),
    "reference_impl/permissions/_linked_protection.py": ("tests/test_linked_protection.py",),
    "reference_impl/permissions/_tree_operands.py": ("tests/test_tree_operands.py",),
    "reference_impl/permissions/_protected_paths.py": ("tests/test_protected_path_readings.py",),
    "reference_impl/permissions/_startup_sources.py": ("tests/test_startup_sources.py",),
    "reference_impl/permissions/_sed_options.py": ("tests/test_option_grammar_readings.py",),
    "reference_impl/permissions/_stdlib_catalogue.py": ("tests/test_stdlib_catalogue.py",),
    "reference_impl/permissions/_git_own_files.py": ("tests/test_git_own_writes.py",),
    "reference_impl/permissions/_protected_names.py": ("tests/test_protected_system_files.py",),
    "reference_impl/permissions/_interpreter_options.py": ("tests/test_interpreter_options.py",),
    "reference_impl/permissions/_program_grammar.py": ("tests/test_program_grammar.py",),
    "reference_impl/permissions/_programs.py": (
        "tests/test_helper_commands.py",
        "tests/test_program_readings.py",
    ),
    "reference_impl/permissions/_line_writes.py": (*_LINE_WRITES_TESTS, "tests/test_renamed_names.py"),
    "reference_impl/permissions/_derived_names.py": (
        "tests/test_derived_names.py",
        "tests/test_toolchain_named_code.py",
    ),
    "reference_impl/permissions/_git_tree_writes.py": ("tests/test_git_tree_writes.py",),
    "reference_impl/permissions/_project_hooks.py": (
        "tests/test_project_hooks.py",
        "tests/test_toolchain_named_code.py",
    ),
    "reference_impl/permissions/_python_resolution.py": ("tests/test_python_resolution.py",),
    "reference_impl/permissions/_code_targets.py": ("tests/test_code_targets.py",),
    "reference_impl/permissions/_python_targets.py": ("tests/test_code_targets.py",),
    "reference_impl/permissions/_builtin_options.py": ("tests/test_program_classes.py",),
    "reference_impl/permissions/_evaluated.py": (
        "tests/test_program_scripts.py",
        "tests/test_shell.py",
        "tests/test_evaluated_readings.py",
    ),
    "reference_impl/permissions/_program_model.py": (
        "tests/test_program_scripts.py",
        "tests/test_program_readings.py",
    ),
    "reference_impl/permissions/_shell_forms.py": ("tests/test_shell.py", "tests/test_env_split.py"),
    "reference_impl/permissions/_shell_rules.py": ("tests/test_shell.py", "tests/test_program_grammar.py"),
    "reference_impl/permissions/_descriptors.py": (*_LINE_WRITES_TESTS, "tests/test_descriptor_paths.py"),
    "reference_impl/hooks/_model.py": ("tests/test_hooks.py", "tests/test_hook_fields.py"),
    "reference_impl/hooks/_runner.py": ("tests/test_hooks.py", "tests/test_hook_fields.py"),
    "reference_impl/hooks/_command.py": ("tests/test_command_hooks.py", "tests/test_hook_fields.py"),
    "reference_impl/hooks/_tool_events.py": ("tests/test_hooks.py", "tests/test_hook_fields.py"),
    "reference_impl/hooks/_http.py": ("tests/test_command_hooks.py",),
    "reference_impl/sandbox/_settings.py": ("tests/test_sandbox_settings.py",),
    "reference_impl/sandbox/_policy.py": ("tests/test_sandbox_settings.py",),
    "reference_impl/sandbox/_proxy.py": ("tests/test_sandbox_proxy.py",),
    "reference_impl/sandbox/_runner.py": ("tests/test_sandbox_runner.py",),
    # The exec check's tests drive the shell's plan where seccomp is refused, and its record of guards.
    "reference_impl/sandbox/_shell.py": ("tests/test_sandbox_runner.py", *_EXEC_CHECK_TESTS),
    "reference_impl/sandbox/_exec_tracer.py": ("tests/test_exec_tracer.py",),
    "reference_impl/sandbox/_exec_guard.py": _EXEC_CHECK_TESTS,
    "reference_impl/sandbox/_exec_loader.py": _EXEC_CHECK_TESTS,
    "reference_impl/sandbox/_exec_rules.py": _EXEC_CHECK_TESTS,
}

_RE_EXPORTS = "a package's public names re-exported, no statement but imports and __all__"
# Modules no mutant of which can change what a requirement states, each with the reason.
OUT_OF_SCOPE: dict[str, str] = {
    "reference_impl/permissions/_helper_mining.py": (
        "mines program_starts.json offline (through _grammar_mining): never runs in the harness; "
        "tests/test_program_starts.py checks its decisions and the committed catalogue"
    ),
    "reference_impl/permissions/_grammar_mining.py": (
        "mines program_grammar.json offline (python -m ...): never runs in the harness; "
        "tests/test_program_grammar.py checks its output against the installed programs"
    ),
    "reference_impl/__init__.py": _RE_EXPORTS,
    "reference_impl/agent/__init__.py": _RE_EXPORTS,
    "reference_impl/execution/__init__.py": _RE_EXPORTS,
    "reference_impl/hooks/__init__.py": _RE_EXPORTS,
    "reference_impl/permissions/__init__.py": _RE_EXPORTS,
    "reference_impl/request/__init__.py": _RE_EXPORTS,
    "reference_impl/sandbox/__init__.py": _RE_EXPORTS,
    "reference_impl/search/__init__.py": _RE_EXPORTS,
    "reference_impl/tools/__init__.py": _RE_EXPORTS,
    "reference_impl/__main__.py": "CLI glue: calls agent._cli's main",
    "reference_impl/prewarm.py": "CLI glue: imports agent._prewarm for a fork server",
    "reference_impl/agent/_prewarm.py": "imports and builds pydantic models ahead of time: only speed changes",
    "reference_impl/agent/_cli.py": (
        "CLI glue: command-line arguments and settings files to the session's objects for the wire tests; "
        "what those objects decide is scored in the modules they come from"
    ),
}


# Modules the harness also runs as scripts of their own (``python -I -S FILE``: no import hook, no
# coverage reaches that process). A mutant is served as a copy of the script (the module's ``__file__``
# names it), and each of its mutants runs every test of the module's requirements: the script's lines
# run in the process the harness starts for it, which no coverage measures (an import-time constant
# the in-process import reached only under some tests was judged by those alone).
SCRIPT_MODULES: tuple[str, ...] = (
    "reference_impl/sandbox/_exec_tracer.py",
    "reference_impl/sandbox/_exec_loader.py",
)


# Reference configurations beside the default that take a module's other code paths, each with the
# module's requirements it can check: the listing mechanism of DEFER-3 (the default adapter sends
# delta notices, so the DELTA requirements are not checked against a listing).
_LISTING_ADAPTERS = (
    "pytest_toolharness.adapters.reference:listing_adapter",
    "pytest_toolharness.adapters.reference:claude_code_listing_adapter",
)
MODULE_ADAPTERS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "reference_impl/request/_notices.py": tuple((a, ("DEFER-3",)) for a in _LISTING_ADAPTERS),
    "reference_impl/request/_builder.py": tuple(
        (a, ("DEFER-2", "DEFER-3", "DEFER-6", "DEFER-8", "CACHE", "PAIR-6")) for a in _LISTING_ADAPTERS
    ),
}


def suite_command(requirements: tuple[str, ...]) -> str:
    """The pytest command cosmic-ray runs per mutant: the requirements' conformance tests, first failure stops."""
    selected = " ".join(f"--toolharness-requirement={rid}" for rid in requirements)
    return (
        f"{sys.executable} -m pytest --toolharness-conformance --toolharness-level=strict {selected} "
        "--hypothesis-profile=toolharness-mutants -p no:cacheprovider -x -q --no-header conformance"
    )


def _config(
    module: str, requirements: tuple[str, ...], timeout: float, unit_tests: tuple[str, ...] = ()
) -> str:
    # The test command is cosmic-ray's record of what a mutant runs; the forked runner runs it in-process.
    command = suite_command(requirements)
    if unit_tests:
        command += (
            f" && {sys.executable} -m pytest {' '.join(UNIT_TEST_OPTIONS)} -x -q {' '.join(unit_tests)}"
        )
    return (
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n\n"
        '[cosmic-ray.distributor]\nname = "local"\n'
    )


def _environment() -> dict[str, str]:
    """This run's environment: the project importable, no host pytest options, not CI's profile."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("CI", None)
    return env


def use_run_environment() -> None:
    """Make :func:`_environment` this process's own (the forked children inherit it)."""
    # Computed before the clear: ``update(_environment())`` would read the environment already
    # emptied, and the tests would run without PATH or HOME.
    environment = _environment()
    os.environ.clear()
    os.environ.update(environment)


def _cosmic_ray(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    executable = str(Path(sys.executable).parent / "cosmic-ray")
    return subprocess.run([executable, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _annotation_lines(source: str) -> set[int]:
    """Lines inside a type annotation: with ``from __future__ import annotations`` they never run."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        annotations: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            if annotation is not None:
                lines.update(range(annotation.lineno, (annotation.end_lineno or annotation.lineno) + 1))
    return lines


def reach_lines(tree: ast.Module, start: tuple[int, int], end: tuple[int, int]) -> range:
    """The lines coverage must have seen run for a mutation between ``start`` and ``end`` to matter.

    Coverage records statements, so a mutation is located in its innermost enclosing statement: a
    simple statement's lines; a compound one's header (``if``, ``for``, ``while``, ``with``: up to its
    body); for a function's parameters (a default, the ``*`` marker) its body, which runs only if the
    function is called. Outside every statement: the mutation's own lines.
    """
    found: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.end_lineno is None or node.end_col_offset is None:
            continue
        inside = (node.lineno, node.col_offset) <= start and end <= (node.end_lineno, node.end_col_offset)
        if inside and (found is None or (node.lineno, node.col_offset) >= (found.lineno, found.col_offset)):
            found = node
    if found is None:
        return range(start[0], end[0] + 1)
    if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
        # Not inside any statement of the body: in the signature or a decorator.
        return range(found.body[0].lineno, (found.body[-1].end_lineno or found.body[0].lineno) + 1)
    body = getattr(found, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return range(found.lineno, max(found.lineno, body[0].lineno - 1) + 1)
    return range(found.lineno, (found.end_lineno or found.lineno) + 1)


def _skip_equivalent(session: Path, module_file: Path) -> int:
    """Mark mutants in annotations as skipped: equivalent by construction (annotations are strings here)."""
    # cosmic-ray is installed for this script only (no stubs, not a project dependency).
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        WorkerOutcome,
        WorkResult,
    )

    source = module_file.read_text(encoding="utf-8")
    if "from __future__ import annotations" not in source:
        return 0
    inside = _annotation_lines(source)
    skipped = 0
    with use_db(str(session)) as db:
        for item in list(db.pending_work_items):
            if all(m.start_pos[0] in inside and m.end_pos[0] in inside for m in item.mutations):
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
                skipped += 1
    return skipped


def _init_session(
    module: str,
    requirements: tuple[str, ...],
    session: Path,
    config: Path,
    timeout: float,
    unit_tests: tuple[str, ...] = (),
) -> str:
    """``cosmic-ray init``: every mutant of ``module`` as a pending work item in ``session``; "" or the error."""
    config.write_text(_config(module, requirements, timeout, unit_tests), encoding="utf-8")
    session.unlink(missing_ok=True)
    done = _cosmic_ray("init", str(config), str(session), cwd=PROJECT_ROOT, env=_environment())
    return "" if done.returncode == 0 else done.stdout + done.stderr


def _jobs(
    session: Path,
    module: str,
    coverage: CoverageMap,
    selection: Selection | None = None,
    root: Path = PROJECT_ROOT,
) -> tuple[list[MutantJob], dict[str, str]]:
    """The pending mutants (of ``selection``) to run, and their diffs; those no test reaches are recorded here.

    Mutants outside ``selection`` stay pending: a later run or ``--resume`` takes them.
    """
    from cosmic_ray.plugins import get_operator  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    original = (root / module).read_text(encoding="utf-8")
    tree = ast.parse(original)
    jobs: list[MutantJob] = []
    diffs: dict[str, str] = {}
    selection = selection or Selection()
    with use_db(str(session)) as db:
        # A sample is drawn from every mutant of the selection, run or not: the same on every run; not from
        # those in annotations, never run or counted.
        annotations = {
            item.job_id
            for item, result in db.completed_work_items
            if result.worker_outcome == WorkerOutcome.SKIPPED
        }
        selected = [
            item
            for item in db.work_items
            if item.job_id not in annotations
            and selection.selects(
                item.mutations[0].start_pos[0], enclosing_function(tree, item.mutations[0].start_pos[0])
            )
        ]
        sampled = selection.sampled(
            module,
            original.splitlines(),
            (
                SampleItem(
                    item.job_id,
                    item.mutations[0].operator_name,
                    tuple(item.mutations[0].start_pos),
                    item.mutations[0].occurrence,
                )
                for item in selected
            ),
        )
        chosen = {item.job_id for item in selected if sampled is None or item.job_id in sampled}
        for item in list(db.pending_work_items):
            if item.job_id not in chosen:
                continue
            (mutation,) = item.mutations
            operator = get_operator(mutation.operator_name)(**(mutation.operator_args or {}))
            mutated, why = _mutant_source(original, operator, mutation.occurrence, module)
            if mutated is None:
                # No mutant: cosmic-ray made no change, or one that is no program (incompetent, never scored).
                result = (
                    WorkResult(
                        worker_outcome=WorkerOutcome.NORMAL,
                        test_outcome=TestOutcome.INCOMPETENT,
                        output=f"{INCOMPETENT}: {why}",
                    )
                    if why
                    else WorkResult(worker_outcome=WorkerOutcome.NO_TEST)
                )
                db.set_result(item.job_id, result)
                continue
            diff = "".join(
                difflib.unified_diff(
                    original.splitlines(keepends=True), mutated.splitlines(keepends=True), module, module, n=1
                )
            )
            reach = reach_lines(tree, tuple(mutation.start_pos), tuple(mutation.end_pos))
            # A script run as ``python -I -S FILE`` is measured by no coverage: any test of the
            # requirements may run it, whatever lines the in-process import reached.
            tests = (
                coverage.every_test()
                if module in SCRIPT_MODULES
                else coverage.tests_for(reach.start, reach.stop - 1)
            )
            if not tests:
                lines = f"{reach.start}-{reach.stop - 1}"
                db.set_result(
                    item.job_id,
                    WorkResult(
                        worker_outcome=WorkerOutcome.NORMAL,
                        test_outcome=TestOutcome.SURVIVED,
                        output=f"{NOT_REACHED}: no test of the module's requirements or unit tests executes line(s) {lines}",
                        diff=diff,
                    ),
                )
                continue
            diffs[item.job_id] = diff
            skipped = coverage.skipped.intersection(tests)
            jobs.append(MutantJob(job_id=item.job_id, source=mutated, tests=tests, skipped_before=skipped))
    return jobs, diffs


def _mutant_source(original: str, operator: object, occurrence: int, module: str) -> tuple[str | None, str]:
    """The mutated module's source, or None and why it is not a mutant ("" when cosmic-ray changed nothing)."""
    from cosmic_ray.mutating import mutate_code  # type: ignore[import-untyped,import-not-found,unused-ignore]

    try:
        mutated = mutate_code(original, operator, occurrence)
    except AttributeError as error:
        # cosmic-ray 8.7's exception replacer fails on ``except (A, b.C):``.
        return None, f"cosmic-ray's operator failed to make the mutant: {error!r}"
    if mutated is None:
        return None, ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # ``is`` with a literal: still a mutant
            compile(mutated, module, "exec", dont_inherit=True)
    except SyntaxError as error:
        # ``*,`` in a signature turned into ``**,``.
        return None, f"the mutated module does not compile: {error}"
    return str(mutated), ""


def _record(session: Path, diffs: dict[str, str]) -> Callable[[MutantOutcome], None]:
    from cosmic_ray.work_db import use_db  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from cosmic_ray.work_item import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        TestOutcome,
        WorkerOutcome,
        WorkResult,
    )

    counts: dict[str, int] = {}
    started = time.monotonic()

    def record(outcome: MutantOutcome) -> None:
        if outcome.verdict == "fault":
            result = WorkResult(
                worker_outcome=WorkerOutcome.EXCEPTION,
                test_outcome=TestOutcome.INCOMPETENT,
                output=f"runner fault (exit {outcome.exit_code}):\n{outcome.output}",
                diff=diffs[outcome.job_id],
            )
        else:
            result = WorkResult(
                worker_outcome=WorkerOutcome.NORMAL,
                test_outcome=TestOutcome.SURVIVED if outcome.verdict == "survived" else TestOutcome.KILLED,
                output=(
                    f"{UNIT_KILL}: {outcome.killer or outcome.verdict}\n" if outcome.by_unit_tests else ""
                )
                + ("timeout\n" if outcome.verdict == "timeout" else "")
                + f"{len(outcome.tests)} test(s), {outcome.seconds:.1f} s\n{outcome.output}",
                diff=diffs[outcome.job_id],
            )
        with use_db(str(session)) as db:
            db.set_result(outcome.job_id, result)
        counts[outcome.verdict] = counts.get(outcome.verdict, 0) + 1
        done = sum(counts.values())
        if done % 10 == 0 or done == len(diffs):
            summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
            print(f"  {done}/{len(diffs)} run ({summary}), {time.monotonic() - started:.0f} s", flush=True)

    return record


def _sample_size(text: str) -> int:
    """argparse's type for ``--sample``: a positive number of mutants."""
    try:
        size = int(text)
    except ValueError:
        size = 0
    if size < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a sample size (a number of mutants, at least 1)")
    return size


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "modules",
        nargs="*",
        default=list(SCORED_MODULES),
        help="modules of MODULE_REQUIREMENTS (default: SCORED_MODULES, the ones docs/mutants.md scores)",
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="mutants run at once, each in a forked child (default 2)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="the least seconds a mutant may run before it counts as killed (default 60; more for slow tests)",
    )
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "build" / "mutation", help="output folder")
    parser.add_argument("--requirement", action="append", help="override the module's requirement IDs")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep each module's session and run only its mutants not run yet",
    )
    parser.add_argument(
        "--rerun-survivors",
        action="store_true",
        help=(
            "keep each module's session but run its untriaged survivors (and runner faults) again, after a "
            "test got stronger; a module with unit tests also its survivors triaged unspecified"
        ),
    )
    parser.add_argument(
        "--no-unit-tests",
        action="store_true",
        help="run the conformance tests of the module's requirements only, not MODULE_UNIT_TESTS",
    )
    parser.add_argument(
        "--lines",
        type=line_range,
        action="append",
        default=[],
        metavar="A-B",
        help="only the mutants starting on lines A to B (repeatable; with --function: either); also for --report",
    )
    parser.add_argument(
        "--function",
        action="append",
        default=[],
        metavar="NAME",
        help="only the mutants inside function NAME (its innermost def; repeatable); also for --report",
    )
    parser.add_argument(
        "--sample",
        type=_sample_size,
        default=0,
        metavar="N",
        help=(
            "only a random sample of N mutants of each module (of --lines/--function when given), the same "
            "on every run; the score is an estimate, printed with its 95%% interval; also for --report"
        ),
    )
    parser.add_argument(
        "--markdown", action="store_true", help="with --report: also print docs/mutants.md's score table"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every module of MODULE_REQUIREMENTS (with --report: those without a session listed as not scored)",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="only score the modules' existing sessions (also while they run)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run cosmic-ray's mutants of each module through the forked runner and print each score."""
    parser = _parser()
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    if args.all:
        args.modules = sorted(MODULE_REQUIREMENTS)
    for module in args.modules:
        if not (PROJECT_ROOT / module).is_file():
            parser.error(f"no such module: {module!r} (a path from the project root)")
        if not (args.requirement or MODULE_REQUIREMENTS.get(module)):
            parser.error(
                f"no requirements known for {module!r}: pass --requirement ID or add it to MODULE_REQUIREMENTS"
            )
    selection = Selection(tuple(args.lines), tuple(args.function), args.sample)
    if (selection.lines or selection.functions) and len(args.modules) != 1:
        parser.error("--lines and --function select a part of one module: name exactly one")
    args.selection = selection
    if args.report:
        report_scores = []
        unscored: list[str] = []
        for module in args.modules:
            session = _session_path(out, module)
            if not session.exists():
                print(f"{module}: no session in {out}")
                unscored.append(module)
                continue
            print(_score(session, module, out, selection))
            report_scores.append(score_session(session, module, PROJECT_ROOT, selection=selection))
        if args.markdown:
            print("\n" + markdown_table(report_scores, MODULE_REQUIREMENTS))
            if unscored:
                print(f"\nNot scored yet ({len(unscored)}): " + ", ".join(f"`{m}`" for m in unscored))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    use_run_environment()
    preload()
    blocks = host_plugin_blocks(PROJECT_ROOT)
    options = (*SUITE_OPTIONS, *blocks)
    unit_options = (*UNIT_TEST_OPTIONS, *blocks)
    worst = 0
    scores: list[str] = []
    shared: dict[object, dict[Path, tuple[CoverageMap | None, str]]] = {}
    for module in args.modules:
        requirements = tuple(args.requirement or MODULE_REQUIREMENTS[module])
        code, line = _run_module(module, requirements, args, out, options, unit_options, shared)
        worst = max(worst, code)
        scores.append(line)
        print(line, flush=True)
    if len(scores) > 1:
        print("\n".join(["", "scores:", *scores]))
    return worst


def _forget_survivors(
    session: Path,
    module: str,
    root: Path = PROJECT_ROOT,
    selection: Selection | None = None,
    *,
    unspecified: bool = False,
    rules: list[TriageRule] | None = None,
) -> int:
    """Make the session's untriaged survivors (of ``selection``) and runner faults pending again; how many.

    Equivalent survivors stay: no test can change their verdict. Unspecified ones stay too, unless
    ``unspecified`` (the module's unit tests run now: they may hold what no requirement states).
    """
    score = score_session(session, module, root, rules, selection=selection)
    jobs = [*score.gap_jobs, *(score.unspecified_jobs if unspecified else ())]
    with sqlite3.connect(session) as db:
        removed = 0
        for job_id in jobs:
            removed += db.execute("DELETE FROM work_results WHERE job_id = ?", (job_id,)).rowcount
        removed += db.execute(
            "DELETE FROM work_results WHERE worker_outcome IN ('EXCEPTION', 'ABNORMAL')"
        ).rowcount
        return removed


def _session_path(out: Path, module: str) -> Path:
    return out / (module.replace("/", ".").removesuffix(".py") + ".sqlite")


def _check_runner(
    module: str, coverage: CoverageMap, workdir: Path, options: Sequence[str], unit_options: Sequence[str]
) -> str:
    """The unmutated source through the import hook must survive the fastest test of each run (each
    adapter's, the unit tests'): "" or what went wrong."""
    outcomes: list[MutantOutcome] = []
    fastest_of_run: dict[str, str] = {}
    for key in sorted(coverage.durations, key=lambda key: coverage.durations[key]):
        fastest_of_run.setdefault(run_of(key), key)
    fastest = list(fastest_of_run.values())
    run_mutants(
        module.replace("/", ".").removesuffix(".py"),
        PROJECT_ROOT / module,
        iter(
            [
                MutantJob(
                    "unmutated",
                    (PROJECT_ROOT / module).read_text(encoding="utf-8"),
                    fastest,
                    skipped_before=coverage.skipped & set(fastest),
                )
            ]
        ),
        parallel=1,
        timeout=lambda _job: 600.0,
        workdir=workdir,
        project_root=PROJECT_ROOT,
        on_outcome=outcomes.append,
        options=options,
        unit_options=unit_options,
        as_script=module in SCRIPT_MODULES,
    )
    (outcome,) = outcomes
    if outcome.verdict != "survived":
        return (
            f"the unmutated source through the runner's import hook was {outcome.verdict}:\n{outcome.output}"
        )
    return ""


def _run_module(
    module: str,
    requirements: tuple[str, ...],
    args: argparse.Namespace,
    out: Path,
    options: Sequence[str],
    unit_options: Sequence[str],
    shared: dict[object, dict[Path, tuple[CoverageMap | None, str]]] | None = None,
) -> tuple[int, str]:
    """Score one module: (exit code, the score line).

    ``shared`` keeps the conformance tests' coverage across the modules of one run: the first module of
    each set of requirements and adapters measures every module of ``args.modules`` that has the same.
    """
    session = _session_path(out, module)
    stem = session.stem
    started = time.monotonic()
    unit_tests = () if args.no_unit_tests else MODULE_UNIT_TESTS.get(module, ())
    if args.rerun_survivors and session.exists():
        _forget_survivors(session, module, selection=args.selection, unspecified=bool(unit_tests))
    elif not (args.resume and session.exists()):
        error = _init_session(module, requirements, session, out / f"{stem}.toml", args.timeout, unit_tests)
        if error:
            return 2, f"{module}: cosmic-ray init failed:\n{error}"
        _skip_equivalent(session, PROJECT_ROOT / module)
    workdir = new_workdir(out / "work", stem)
    runs = _runs(module, requirements)
    selections = [
        (adapter, [*(f"--toolharness-requirement={rid}" for rid in ids), "conformance"])
        for adapter, ids in runs
    ]
    coverage, why = _conformance_coverage(module, requirements, args, selections, workdir, options, shared)
    if coverage is None:
        return 2, f"{module}: nothing scored: {why}"
    if unit_tests:
        # Measured apart: unit tests that fail unmutated (a subprocess's timeout on a loaded machine)
        # leave the conformance suite's score to be taken alone, said so, rather than nothing scored.
        unit_coverage, why = coverage_map(
            PROJECT_ROOT / module,
            [(UNIT_TESTS, list(unit_tests))],
            workdir,
            PROJECT_ROOT,
            options,
            unit_options,
        )
        if unit_coverage is None:
            print(f"{module}: its unit tests are not counted: {why}", flush=True)
            unit_tests = ()
        else:
            coverage = coverage.merged(unit_coverage)
    fault = _check_runner(module, coverage, workdir, options, unit_options)
    if fault:
        return 2, f"{module}: nothing scored: {fault}"
    unit_count = sum(1 for key in coverage.durations if run_of(key) == UNIT_TESTS)
    print(
        f"{module}: {len(coverage.durations) - unit_count} tests of {' '.join(requirements)} "
        f"(adapters: {', '.join(a or 'default' for a, _ids in runs)}) and {unit_count} unit tests "
        f"({' '.join(unit_tests) or 'none'}) reach "
        f"{len(coverage.lines)} lines ({sum(coverage.durations.values()):.0f} s unmutated)",
        flush=True,
    )
    jobs, diffs = _jobs(session, module, coverage, args.selection)

    def timeout(job: MutantJob) -> float:
        # Slow tests get room: five times their unmutated time, never less than --timeout.
        return max(float(args.timeout), 5 * sum(coverage.durations.get(t, 0.0) for t in job.tests))

    run_mutants(
        stem,
        PROJECT_ROOT / module,
        iter(jobs),
        parallel=max(1, args.jobs),
        timeout=timeout,
        workdir=workdir,
        project_root=PROJECT_ROOT,
        on_outcome=_record(session, diffs),
        options=options,
        unit_options=unit_options,
        as_script=module in SCRIPT_MODULES,
    )
    shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.monotonic() - started
    return 0, (
        f"{_score(session, module, out, args.selection)}; requirements {' '.join(requirements)}; "
        f"unit tests {' '.join(unit_tests) or 'none'}; {seconds:.0f} s with {args.jobs} job(s)"
    )


def _runs(module: str, requirements: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    """The module's conformance runs: (adapter, requirement IDs), the default adapter's first."""
    return [("", requirements), *MODULE_ADAPTERS.get(module, ())]


def _conformance_coverage(
    module: str,
    requirements: tuple[str, ...],
    args: argparse.Namespace,
    selections: list[tuple[str, list[str]]],
    workdir: Path,
    options: Sequence[str],
    shared: dict[object, dict[Path, tuple[CoverageMap | None, str]]] | None,
) -> tuple[CoverageMap | None, str]:
    """The conformance tests' coverage of ``module``, measured with the run's other modules that share
    its runs (one pass of the permission suite serves the twenty modules of the shell reader)."""
    key = tuple(_runs(module, requirements))
    if shared is None:
        shared = {}
    if key not in shared:
        group = [
            PROJECT_ROOT / other
            for other in dict.fromkeys([module, *args.modules])
            if tuple(_runs(other, tuple(args.requirement or MODULE_REQUIREMENTS[other]))) == key
        ]
        maps, why = coverage_maps(group, selections, workdir, PROJECT_ROOT, options)
        shared[key] = maps if maps is not None else {f: (None, why) for f in group}
    return shared[key][PROJECT_ROOT / module]


def _score(session: Path, module: str, out: Path, selection: Selection | None = None) -> str:
    """Write cosmic-ray's report and the triaged survivors of ``session`` (of ``selection``); its score line."""
    report = subprocess.run(
        [str(Path(sys.executable).parent / "cr-report"), "--show-diff", str(session)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    (out / f"{session.stem}.txt").write_text(report, encoding="utf-8")
    score = score_session(session, module, PROJECT_ROOT, selection=selection)
    write_survivors(score, out / f"{session.stem}-survivors.md")
    return score.line()


if __name__ == "__main__":
    sys.exit(main())
