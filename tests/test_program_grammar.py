"""The program grammar deny and ask rules are read by: mined from the programs, and read as they read (PERM-17).

The catalogue (``reference_impl/permissions/program_grammar.json``) is checked against the programs
it describes where they are installed, so a stale catalogue fails here rather than misreading a
command; the readings are checked on spellings each program takes alike.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from reference_impl import parse_rule
from reference_impl.permissions import shell_deny_match
from reference_impl.permissions._grammar_mining import dumps, help_options, usage_options
from reference_impl.permissions._program_grammar import (
    GRAMMAR_FILE,
    grammar_match,
    rule_shape,
    started_by_options,
)

CATALOGUE = json.loads(GRAMMAR_FILE.read_text(encoding="utf-8"))["programs"]


def _live(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    return done.stdout + done.stderr


@pytest.mark.parametrize("program", ["rm", "cp", "mv", "chmod", "ln", "head", "sort", "diff"])
def test_the_catalogue_says_what_the_programs_help_says(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    assert CATALOGUE[program]["options"] == help_options(_live(program, "--help"))


def test_gits_global_options_and_commands_are_gits_own() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git = CATALOGUE["git"]
    assert git["global"] == usage_options(_live("git", "--help").split("\n\n", 1)[0])
    assert {"push", "commit", "clean", "reset", "status"} <= set(git["subcommands"])
    assert git["sub_options"]["push"] == help_options(_live("git", "push", "-h"))


def test_npms_aliases_are_npms_own() -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm is not installed")
    aliases = json.loads(
        _live("node", "-e", "console.log(JSON.stringify(require(process.argv[1]).aliases))", _npm_cmd_list())
    )
    assert CATALOGUE["npm"]["aliases"] == dict(sorted(aliases.items()))


def _npm_cmd_list() -> str:
    for root in ("/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm"):
        path = f"{root}/lib/utils/cmd-list.js"
        if os.path.exists(path):
            return path
    pytest.skip("npm's command table is not where npm keeps it")


def test_the_catalogue_bytes_are_stable() -> None:
    """Written by :func:`dumps` (sorted, one program a line): mining again on this machine changes nothing else."""
    data = json.loads(GRAMMAR_FILE.read_text(encoding="utf-8"))
    assert GRAMMAR_FILE.read_text(encoding="utf-8") == dumps(data)


@pytest.mark.parametrize(
    ("rule", "command", "verdict"),
    [
        ("rm -rf:*", "rm -fr d", "certain"),
        ("rm -rf:*", "rm -r -f d", "certain"),
        ("rm -rf:*", "rm --recursive --force d", "certain"),
        ("rm -rf:*", "rm --rec --for d", "certain"),  # unambiguous prefixes, as getopt_long reads them
        ("rm -rf:*", "rm -R -f -- d", "certain"),
        ("rm -rf:*", "rm d -rfv", "certain"),  # GNU permutes options after operands
        ("rm -rf:*", "rm -f -- -r", None),  # after --, -r is a file
        ("rm -rf:*", "rm -f d", None),
        ("git push:*", "git -C . push o main", "certain"),
        ("git push:*", "git --git-dir=.git --work-tree=. push", "certain"),
        ("git push:*", "git -c a.b=c --no-pager push", "certain"),
        ("git push --force:*", "git push -f o main", "certain"),
        ("git push --force:*", "git push o main --force", "certain"),
        ("git push --force:*", "git push o main", None),
        ("git push:*", "git psuh o main", "possible"),  # an alias or an autocorrected typo
        ("git push:*", "git -C x status", None),
        ("npm run deploy:*", "npm rum deploy", "certain"),
        ("npm run deploy:*", "npm run-script deploy", "certain"),
        ("npm run deploy:*", "npm --prefix x run deploy", "certain"),
        ("npm run deploy:*", "npm run build", None),
        ("npm run deploy", "npm run deploy --silent", "certain"),
        ("npm run deploy", "npm run deploy now", None),
        # PERM-17: the values the program reads alike: a mode, a path, a forced refspec.
        # git-push(1): a + refspec "is the same as --force" for that ref; --mirror force-updates.
        ("git push --force:*", "git push o +main", "certain"),
        ("git push --force:*", "git push o main +refs/tags/v1:refs/tags/v1", "certain"),
        ("git push --force:*", "git -C . push --mirror o", "certain"),
        ("git push o main:*", "git push o +main", "certain"),
        ("git push --force:*", "git push o main:+main", None),  # a + only leads a refspec
        (
            "git push --force:*",
            "git push --force-with-lease",
            None,
        ),  # another option: it refuses where --force wouldn't
        ("git push --force:*", "git push --forc", None),  # ambiguous to git itself: it pushes nothing
        # chmod's mode by the permission bits it leaves, whatever the file had.
        ("chmod 777:*", "chmod 0777 f", "certain"),
        ("chmod 777:*", "chmod 00777 f", "certain"),
        ("chmod 777:*", "chmod a+rwx f", "certain"),
        ("chmod 777:*", "chmod ugo=rwx f", "certain"),
        ("chmod 777:*", "chmod -R o+rwx,ug=rwx d", "certain"),
        ("chmod a=rwx:*", "chmod 777 f", "certain"),
        ("chmod 644:*", "chmod u=rw,go=r f", "certain"),
        ("chmod 777:*", "chmod +rwx f", "possible"),  # the umask decides: the line may have cleared it
        ("chmod 777:*", "chmod a+rwX f", "possible"),  # X: x on a directory
        ("chmod 777:*", "chmod 755 f", None),
        ("chmod 777:*", "chmod a+rwx,o-w f", None),
        ("chmod 777:*", "chmod u+x f", None),
        # A path operand as the kernel looks it up; a glob may expand to the rule's word.
        ("rm -rf /:*", "rm -rf //", "certain"),
        ("rm -rf /:*", "rm -rf /.", "certain"),
        ("rm -rf /:*", "rm -r --force /tmp/..", "certain"),
        ("rm -rf /:*", "rm -rf /*", "possible"),
        ("rm -rf /:*", "rm -rf /tmp", None),
        ("cat /etc/shadow:*", "cat //etc/./shadow", "certain"),
    ],
)
def test_a_rule_is_met_by_every_spelling_the_program_reads_alike(
    rule: str, command: str, verdict: str | None
) -> None:
    shape = rule_shape(rule)
    assert shape is not None
    assert grammar_match(shape, command.split()) == verdict


def test_rules_outside_the_reading_are_matched_as_written_only() -> None:
    assert rule_shape("rm *.key") is None  # a wildcard inside: as written
    assert rule_shape("rm") is None  # the program alone: as written says it all
    assert rule_shape("rm 'a b':*") is None


def test_a_deny_rule_refuses_and_names_how_it_read_the_command() -> None:
    deny = [parse_rule("Bash(git push:*)", "deny", "localSettings")]
    found = shell_deny_match(deny, ("Bash",), "cd repo && git -C . push origin main")
    assert found is not None
    assert found.certain
    assert "as the program reads its arguments" in found.detail
    possible = shell_deny_match(deny, ("Bash",), "git -c alias.p=push p origin")
    assert possible is not None
    assert not possible.certain


@pytest.mark.parametrize(
    ("argv", "commands", "helpers"),
    [
        ("tar cIf CMD out.tar f", [("-I", "CMD")], []),  # the old style: a dashless first cluster
        ("tar -cf out.tar --to-command=CMD f", [("--to-command", "CMD")], []),
        ("tar czf out.tgz f", [], ["gzip"]),
        ("tar -c --gunzip -f out.tgz f", [], ["gzip"]),
        ("tar -xJf a.txz", [], ["xz"]),
        ("git grep -OCMD x", [("-O", "CMD")], []),
        ("git -C . grep --open-files-in-pager=CMD x", [("-O", "CMD")], []),
        ("node --import=URL app.js", [("--import", "URL")], []),
        ("sort --compress-program=P f", [("--compress-program", "P")], []),
        ("tar -cf out.tar f", [], []),
        ("git grep -n x", [], []),
        # diff's help: "-l, --paginate  pass output through 'pr' to paginate it".
        ("diff -l a b", [], ["pr"]),
        ("diff --pag a b", [], ["pr"]),
        ("diff -u a b", [], []),
    ],
)
def test_options_that_start_a_program_are_read_in_the_programs_grammar(
    argv: str, commands: list[tuple[str, str]], helpers: list[str]
) -> None:
    """PERM-17: what a command's options start, as its program's own help says, in every spelling it reads."""
    program = argv.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    started = started_by_options(argv.split())
    assert list(started.commands) == commands
    assert list(started.helpers) == helpers


def test_an_option_that_may_take_the_next_word_is_read_both_ways_once() -> None:
    """``as -mtune x f.s``: the catalogue can't tell if ``-mtune`` takes ``x``, so both readings, and no more."""
    from reference_impl.permissions._program_grammar import _catalogue, _readings

    opts = _catalogue()["as"].options
    found = list(_readings(("-mtune", "x", "f.s"), opts, stop_at_operand=False))
    assert None not in found
    assert sorted(r.operands for r in found if r is not None) == [("f.s",), ("x", "f.s")]


def test_an_option_given_last_is_read_with_no_value() -> None:
    """``tar -cf`` ends with an option that takes a value: given, its value missing (None), not a failure."""
    from reference_impl.permissions._program_grammar import options_given

    given = options_given(("tar", "-c", "-v"))
    assert given is not None
    assert "-c" in given
    assert "-v" in given
    assert options_given(("tar", "-cf")) == {"-c": [None], "-f": [None]}
