"""Substitutions bash runs where the grammar shows none: the reader fails closed (PERM-16, PERM-17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._bash_reader import split_command
from reference_impl.permissions._rule_syntax import parse_rule
from tests.test_rules import BASH

# Each runs ``rm`` under a real bash 5.2 (a red team's PATH shim, session 25); tree-sitter-bash gives
# the ``$(``/backquote as part of a plain word, a pattern, a here-document's text, or an escaped piece.
_UNSEEN = [
    "echo ${a:-`rm x`}",
    "echo ${a:=`rm x`}",
    "echo ${a:?`rm x`}",
    "echo ${a:-${b:-`rm x`}}",
    "ls ${a:-`rm x`}",
    "for f in ${a:-`rm x`}; do echo; done",
    "cat <<< ${a:-`rm x`}",
    "a=1; echo ${a#$(rm x)}",
    "a=1; echo ${a%%`rm x`}",
    "a=1; echo ${a^$(rm x)}",
    "a=1; echo ${a,,$(rm x)}",
    "a=1; echo ${a/#x/$(rm x)}",
    "echo ${a:-<(rm x)}",
    "a=1; echo \"${a:+'$(rm x)'}\"",
    'echo "${a-\'"`rm x`"\'}"',
    "echo `echo \\`rm x\\``",
    'echo `echo "\\$(rm x)"`',
]
# Arithmetic bash evaluates inside another expansion's word (session 32): the grammar shows ``$[y]`` as
# text and ``$((y))`` as a subshell running ``y``; a value of y holding ``a[$(rm x)]`` runs rm.
_UNSEEN += [
    "for y in 'a[$(rm x)]'; do echo ${a:-$[y]}; done",
    "for y in 'a[$(rm x)]'; do echo \"${a:-$[ y ]}\"; done",
    "read y <<< 'a[$(rm x)]'; echo ${a:-${b:-$[y]}}",
    "for ls in 'a[$(rm x)]'; do ls ${a:-$((ls))}; done",
    "echo ${a:=$[y]}",
]

# Backquotes in an unquoted here-document's body: the grammar shows text, the reader reads them (session 36).
_READ_IN_BODIES = {
    "cat <<EOF\n`rm x`\nEOF": ("cat", "rm"),
    "cat <<-EOF\n`rm x`\n\tEOF": ("cat", "rm"),
    "cat << EOF\n`rm x`\nEOF": ("cat", "rm"),
    "cat <<EOF\na `rm x` $(b) `c`\nEOF": ("cat", "b", "rm", "c"),
}

# Substitution characters bash keeps literal, and substitutions the grammar shows: read as before.
_READABLE = {
    "echo '$(rm x)' '`rm x`'": ("echo",),
    "echo \\`rm x\\`": ("echo",),
    'echo "a \\`b \\$(c)"': ("echo",),
    "cat <<'EOF'\n`rm x` $(rm x)\nEOF": ("cat",),
    "cat <<\\EOF\n`rm x`\nEOF": ("cat",),
    "echo $'`x` $(y)'": ("echo",),
    "echo hi # `rm x`": ("echo",),
    "echo $(date) `whoami`": ("date", "whoami", "echo"),
    "diff <(ls a) <(ls b)": ("ls", "ls", "diff"),
    "echo $((1 + 2)) ${HOME:-/tmp}": ("echo",),
    "echo $[1] \"$((2))\" '${a:-$[y]}' \\$[y]": ("echo",),
    "grep -n 'f(' src": ("grep",),
}


def _context(tmp_path: Path, allow: str) -> PermissionContext:
    rules = (parse_rule("Bash(rm:*)", "deny", "session"), parse_rule(allow, "allow", "session"))
    return PermissionContext(mode="default", rules=rules, cwd=tmp_path)


@pytest.mark.parametrize("allow", ["Bash", "Bash(echo:*)", "Bash(cat:*)", "Bash(ls:*)"])
@pytest.mark.parametrize("line", _UNSEEN + list(_READ_IN_BODIES))
def test_a_substitution_the_grammar_does_not_show_is_never_allowed_past_a_deny(
    line: str, allow: str, tmp_path: Path
) -> None:
    """PERM-17: with ``Bash(rm:*)`` denied, a line bash runs ``rm`` from is asked or denied, never allowed."""
    decision = decide_permission(BASH, {"command": line}, _context(tmp_path, allow))
    assert decision.behavior != "allow", (line, allow, decision)


@pytest.mark.parametrize("line", _UNSEEN)
def test_a_substitution_the_grammar_does_not_show_is_a_command_only_known_when_it_runs(line: str) -> None:
    """PERM-16: the reader is not confident of such a line, and lists a command it can't name."""
    command = split_command(line)
    assert not command.confident, line
    assert any(part.argv[0] is None or part.argv[0] == "rm" for part in command.parts), (line, command.parts)


@pytest.mark.parametrize(("line", "names"), [*_READABLE.items(), *_READ_IN_BODIES.items()])
def test_substitution_characters_bash_keeps_literal_leave_the_line_readable(
    line: str, names: tuple[str, ...]
) -> None:
    """Quoted, escaped or commented ``$(`` and backquotes, and substitutions the grammar shows, stay read."""
    command = split_command(line)
    assert tuple(part.argv[0] for part in command.parts) == names, (line, command.parts)
    assert all(part.argv[0] is not None for part in command.parts), line
