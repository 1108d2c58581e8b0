"""Mutant: what a project file runs is read one file deep only."""

from __future__ import annotations

from typing import Any

from tests.mutants._base import Patch, make_factory

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "the project's files are read one level deep: a package.json script that runs `npm run inner`, or a "
    "script that runs another script, hides the denied program of the second from every rule"
)


def _mutate(original: Any) -> Any:
    from reference_impl.permissions import _rules
    from reference_impl.permissions._project_files import project_commands, script_commands
    from reference_impl.permissions._rule_matches import RuleMatch

    def _by_project_files(index: Any, command: str, cwd: Any) -> Any:
        if not index.content:
            return None
        for argv, script, environment in _rules._project_readers(command):
            found = project_commands(argv, str(cwd), environment) + (
                script_commands(script, str(cwd)) if script else []
            )
            for where, text in found:
                rule = _rules._named_rule(index, text)
                if rule is not None:
                    return RuleMatch(rule, False, f"{argv[0]} may run {text!r} ({where})")
        return None

    return _by_project_files


adapter = make_factory(Patch("reference_impl.permissions._rules", "_by_project_files", _mutate))
