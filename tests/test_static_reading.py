"""The static reading of a shell command fails closed by principle (PERM-16, PERM-17; issue 34).

Under a deny or ask rule a command runs unasked only when every program it runs is one the engine
reads; anything else asks (denies under dontAsk) with a reason naming the part it could not read,
unless an allow rule naming that program vouches for it. Plus the bugs of issue 34: words after a
redirection's target, rules written for wrapper commands, ``[ ... ]``, inline code named by a rule.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_toolharness import strategies as ths
from reference_impl import PermissionContext, PermissionDecision, decide_permission, parse_rule
from tests.test_rules import BASH


def _decide(command: str, *rules: tuple[str, str], mode: str = "default") -> PermissionDecision:
    parsed = tuple(parse_rule(text, behavior, "userSettings") for text, behavior in rules)  # type: ignore[arg-type]
    context = PermissionContext(mode=mode, rules=parsed, cwd=Path("/proj"))  # type: ignore[arg-type]
    return decide_permission(BASH, {"command": command}, context)


DENY_RM = ("Bash(rm:*)", "deny")


@pytest.mark.parametrize(
    "command",
    [
        "rm >/dev/null -rf d",
        "rm 2>&1 -rf d",
        "rm <&- -rf >/dev/null d",
        "true && rm >/dev/null -rf d",
        "ls | rm 2>/dev/null -rf d",
    ],
)
def test_words_after_a_redirection_target_are_the_commands_arguments(command: str) -> None:
    """PERM-17: bash runs ``rm -rf d`` for ``rm >/dev/null -rf d`` (the oracle says so), so ``Bash(rm -rf:*)`` denies it."""
    oracle = ths.bash_sandbox()
    if oracle is None:
        pytest.skip(f"bash oracle unavailable: {ths.bash_sandbox_problem()}")
    assert ("rm", "-rf", "d") in [tuple(run) for run in oracle.executed(command)]
    decision = _decide(command, ("Bash(rm -rf:*)", "deny"), mode="bypassPermissions")
    assert decision.behavior == "deny", f"{command!r}: {decision}"


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("sudo systemctl status nginx", "Bash(sudo systemctl *)"),
        ("sudo systemctl status nginx", "Bash(sudo systemctl:*)"),
        ("timeout 5 make", "Bash(timeout:*)"),
        ("sudo -u www-data ./manage.py check", "Bash(sudo -u www-data ./manage.py:*)"),
    ],
)
def test_rules_written_for_wrapper_commands_match_as_written(command: str, allow: str) -> None:
    """PERM-16: an allow rule naming the wrapper command allows it, with or without a deny rule beside it;
    a deny rule on the wrapped program still catches it."""
    assert _decide(command, (allow, "allow")).behavior == "allow"
    assert _decide(command, (allow, "allow"), DENY_RM).behavior == "allow"
    wrapped = command.split()[-2] if command.startswith("timeout") else command.split()[-3]
    assert _decide(command, (allow, "allow"), (f"Bash({wrapped}:*)", "deny")).behavior == "deny"


@pytest.mark.parametrize(
    "command",
    ["[ -d node_modules ] || npm ci", "[[ -d node_modules ]] || npm ci", "test -d node_modules || npm ci"],
)
def test_tests_are_modelled(command: str) -> None:
    """PERM-16: ``[ ]``, ``[[ ]]`` and ``test`` run nothing: the command is allowed by ``Bash(npm ci)``."""
    assert _decide(command, ("Bash(npm ci)", "allow")).behavior == "allow"
    assert _decide(command, ("Bash(npm ci)", "allow"), DENY_RM).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    ["[[ -d $(rm -rf x) ]] || npm ci", "[ -d `rm -rf x` ] || npm ci", 'test -v "a[$(rm x)]" || npm ci'],
)
def test_a_test_that_runs_a_command_is_not_allowed(command: str) -> None:
    """PERM-16: a substitution in a test's words runs: neither the allow rule nor bypass lets it past ``Bash(rm:*)``."""
    assert _decide(command, ("Bash(npm ci)", "allow")).behavior == "ask"
    assert _decide(command, DENY_RM, mode="bypassPermissions").behavior != "allow"


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("python3 -c 'import os; print(os.getcwd())'", "Bash(python3 -c:*)"),
        ('node -e \'require("fs").readdirSync(".")\'', "Bash(node -e:*)"),
        ("perl -ne 'print if /x/' f", "Bash(perl -ne:*)"),
    ],
)
def test_inline_code_is_allowed_only_by_a_rule_naming_the_interpreter(command: str, allow: str) -> None:
    """PERM-17: inline code is unread; an allow rule naming that interpreter form is the user's explicit trust,
    also beside a deny rule; without it (or with a rule that may match anything) a deny rule makes it ask."""
    assert _decide(command, (allow, "allow")).behavior == "allow"
    assert _decide(command, (allow, "allow"), DENY_RM, mode="dontAsk").behavior == "allow"
    asked = _decide(command, DENY_RM, mode="bypassPermissions")
    assert asked.behavior == "ask"
    assert "inline code" in asked.reason.detail
    assert _decide(command, ("Bash(*)", "allow"), DENY_RM).behavior == "ask"
    assert _decide(command, DENY_RM, mode="dontAsk").behavior == "deny"


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("debconf rm -rf x", "debconf"),
        ("debugfs -R '!rm -rf x'", "debugfs"),
        ("tclsh <<< 'exec rm -rf x'", "tclsh"),
        ("python3 - <<< 'print(1)'", "python3"),
        ("awk 'BEGIN{system(\"\\162\\155 -rf x\")}'", "awk"),
        ("git config core.sshCommand 'rm -rf x' && git ls-remote ssh://h/x", "core.sshCommand"),
        ("git -c alias.st='!sh' st", "sh"),
        ("git frobnicate", "frobnicate"),
        ("git -c core.hooksPath=.h commit -m x", ".h"),
        ("git clone -u 'rm -rf x' repo dir", "git clone -u"),
        ("make CC='rm -rf x'", "make"),
        ("rg --pre 'rm -rf' x", "--pre"),
        ("tar --to-comm='sh' -xf a.tar", "sh"),
        ("sudo --weird-option rm -rf x", "sudo"),
        ("declare -n r=PS4; r='$(rm -rf x)'; set -x; true", "name reference"),
        ("printf -v PROMPT_COMMAND %s 'rm -rf x'; bash -i <<< ''", "printf"),
    ],
)
def test_what_the_engine_does_not_read_asks_under_a_deny_rule(command: str, named: str) -> None:
    """PERM-17: a program, option, subcommand or inline code the engine does not read asks (even in
    bypassPermissions) when a deny rule exists, with a reason naming it; dontAsk denies."""
    decision = _decide(command, DENY_RM, mode="bypassPermissions")
    assert decision.behavior in ("ask", "deny"), f"{command!r}: {decision}"
    if decision.behavior == "ask":
        assert named in decision.reason.detail, decision.reason.detail
    assert _decide(command, DENY_RM, mode="dontAsk").behavior == "deny"


EVERYDAY = [
    "git status",
    "git log --oneline -10",
    "git diff HEAD~1 -- src",
    "git -C sub fetch origin && git merge --ff-only origin/main",
    "ls -la src",
    "cat README.md | head -20",
    "grep -rn 'TODO' src",
    "npm test",
    "npm run build",
    "[ -d node_modules ] || npm ci",
    "pytest -q tests",
    "python3 -m pytest -x",
    "python3 manage.py migrate",
    "make -j4",
    "cargo test",  # (no Cargo.toml in /proj: nothing compiles)
    # (``go test ./...`` was here: it runs the package's tests, unread: tests/test_project_runners.py.)
    "find . -name '*.py' -exec wc -l {} +",
    "tar -xzf dist.tar.gz -C out",
    "curl -fsSL https://example.com/x.json | jq .name",
    "sed -n '1,10p' file.txt",
    "awk -F, '{ print $1 }' data.csv",
    "echo done > /dev/null",
    "mkdir -p build && cd build",
    "timeout 60 npm test",
    "sudo systemctl status nginx",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_are_not_asked_because_of_a_deny_rule(command: str) -> None:
    """PERM-17: everyday programs are modelled well, so a deny rule does not make them ask in bypassPermissions."""
    decision = _decide(command, DENY_RM, ("Bash(curl:*)", "ask"), mode="bypassPermissions")
    if command.startswith("curl"):
        assert decision.behavior == "ask"
        assert "Bash(curl:*)" in decision.reason.detail
        return
    assert decision.behavior == "allow", f"{command!r}: {decision.reason.detail}"


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("https://faß.de/x", "fass.de"),  # IDNA 2003: fass.de; UTS 46 (curl, browsers): xn--fa-hia.de
        ("https://straße.de/", "strasse.de"),
        ("https://ς.com/", "xn--4xa.com"),
        ("https://git\u200dhub.com/", "github.com"),  # a joiner IDNA 2003 drops and UTS 46 refuses
        ("http://github.com:80:90/", "github.com"),
    ],
)
def test_hosts_that_url_parsers_read_differently_are_never_allowed(url: str, rule: str) -> None:
    """PERM-11: a host IDNA 2003 (Python) and UTS 46 (curl's libidn2, browsers) map differently, or with
    stray colons, is never allowed by a domain rule, and every domain deny rule matches it."""
    from reference_impl.permissions._url_hosts import host_matches

    assert not host_matches(f"domain:{rule}", url, "allow")
    assert host_matches("domain:unrelated.example", url, "deny")


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f.1./", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("https://github.com@evil.com/", "evil.com"),
        ("https://EVIL.com./", "evil.com"),
        ("https://%65vil.com/", "evil.com"),
        ("https://bücher.de/", "xn--bcher-kva.de"),
        ("https://ＥＶＩＬ.com/", "evil.com"),
    ],
)
def test_domain_deny_rules_match_every_spelling_of_the_host(url: str, host: str) -> None:
    """PERM-11: decimal, octal and hex IPs, trailing dots, userinfo, percent-encoding and IDNA are read as
    curl and Python's urllib read them, so a deny rule on the host catches each."""
    from reference_impl.permissions._url_hosts import host_matches

    assert host_matches(f"domain:{host}", url, "deny")
    assert host_matches(f"domain:{host}", url, "allow")


def test_disable_auto_mode_loads_and_means_what_it_says() -> None:
    """PERM-12: ``disableAutoMode: "disable"`` (which loaded and did nothing) keeps the session out of auto
    mode; any other value is refused, naming the file and the key."""
    from reference_impl import SettingsError, context_from_settings, load_settings

    settings = load_settings(
        '{"permissions": {"disableAutoMode": "disable"}}', "userSettings", name="user.json"
    )
    assert context_from_settings([settings], cwd=Path("/proj"), mode="auto").mode == "default"
    with pytest.raises(SettingsError, match=r"user\.json.*disableAutoMode"):
        load_settings('{"permissions": {"disableAutoMode": true}}', "userSettings", name="user.json")


@pytest.mark.parametrize(
    "command",
    [
        "cd .git && echo x > config",
        "(cd .git/hooks; echo 'rm -rf x' > pre-commit)",
        "pushd ~ && echo x >> .profile",
    ],
)
def test_a_protected_path_written_after_cd_is_asked_about(command: str) -> None:
    """PERM-15: a relative path written after the line changes directory may be a protected one: asked in bypassPermissions."""
    decision = _decide(command, mode="bypassPermissions")
    assert decision.behavior == "ask", decision
    assert decision.reason.stage == "safety"


def test_a_hard_link_to_a_protected_file_is_asked_about(tmp_path: Path) -> None:
    """PERM-15: ``hard`` is ``.git/config`` under another name: writing it (file tool or redirection) asks in bypassPermissions."""
    from reference_impl.permissions._protected_paths import protected_reason

    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    os.link(tmp_path / ".git" / "config", tmp_path / "hard")
    (tmp_path / "plain.txt").write_text("x")
    assert protected_reason("hard", tmp_path) is not None
    assert protected_reason("plain.txt", tmp_path) is None
    context = PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    decision = decide_permission(BASH, {"command": "echo x >> hard"}, context)
    assert decision.behavior == "ask"
    assert "hard link" in decision.reason.detail


# Written by principle for issue 34's red-team check (not from a corpus): each runs ``rm`` in bash
# (the oracle, with the programs the line names run for real, confirms it) by a different way.
RED_TEAM = [
    "bash <(echo rm -rf x)",
    "bash /dev/fd/3 3<<<'rm -rf x'",
    "bash <&3 3<<<'rm -rf x'",
    "sh -s <<< 'rm -rf x'",
    "echo 'rm -rf x' | sh",
    "printf 'rm -rf x' | xargs -0 sh -c",
    "x=$'\\x72\\x6d'; $x -rf x",
    "declare -n r=PS4; r='$(rm -rf x)'; set -x; true",
    "read -r PROMPT_COMMAND <<< 'rm -rf x'; bash -i </dev/null",
    "mapfile -t a <<< 'rm'; ${a[0]} -rf x",
    'f=rm; eval "$f -rf x"',
    "echo 'rm -rf x' > s; . ./s",
    "echo 'rm -rf x' > s; source s",
    "cp /bin/rm ./t; ./t -rf x",
    "ln -s /bin/rm ./t && ./t -rf x",
    "env -S 'rm -rf x'",
    "command -p rm -rf x",
    "builtin exec rm -rf x",
    "nice -n 1 timeout 5 rm -rf x",
    "git -c alias.q='!rm -rf x' q",
    "git -c core.fsmonitor='rm -rf x' status",
    'awk \'BEGIN { c="r" "m -rf x"; system(c) }\'',
    'perl -e \'system("rm","-rf","x")\'',
    "python3 -c \"__import__('os').system('rm -rf x')\"",
    "find . -maxdepth 0 -exec rm -rf x \\;",
    "xargs -a /dev/null -r rm -rf x; rm${IFS}-rf x",
    "trap 'rm -rf x' EXIT",
    "alias q=rm; q -rf x",
    "r\\\nm -rf x",
    "{ rm; } -rf x 2>/dev/null || rm -rf x",
    "time -p rm -rf x",
    "coproc rm -rf x",
    "exec 3<<<'rm -rf x'; bash <&3",
    "busybox rm -rf x",
    "sed -n '1e rm -rf x' /etc/hostname",
    "printf '%s\\n' 'all:' '\\trm -rf x' > mk; make -f mk",
    "echo 'rm -rf x' > s; sh < s",
    "echo 'rm -rf x' | tee s >/dev/null; bash s",
    "cat <<'E' > s.py\nimport os; os.system('rm -rf x')\nE\npython3 s.py",
    "python3 <<'E'\nimport os; os.system('rm -rf x')\nE",
    "perl -e 'exec q(rm), q(-rf), q(x)'",
    'awk \'BEGIN { print "x" | "rm -rf x" }\'',
    "sed 's/.*/rm -rf x/e' <<< a",
    "find . -maxdepth 0 -execdir rm -rf x \\;",
    "echo x | xargs -I{} rm -rf {}",
    "sort --compress-prog='rm -rf x' -S 1 /etc/hostname",
    "split --filt='rm -rf x' /etc/hostname",
    "tar -cf /dev/null --checkpoint=1 --checkpoint-act=exec='rm -rf x' /etc/hostname",
    "git init -q r && git -C r -c core.pager='rm -rf x' -p log",
    "git init -q r && cd r && git config alias.zz '!rm -rf x' && git zz",
    "GIT_PAGER='rm -rf x' git -p help",
    "env PAGER='rm -rf x' man ls",
    "timeout -s KILL 5 rm -rf x",
    "nohup rm -rf x >/dev/null",
    "exec rm -rf x",
    "{ rm -rf x; }",
    "(rm -rf x)",
    "if true; then rm -rf x; fi",
    "for i in 1; do rm -rf x; done",
    "case a in a) rm -rf x;; esac",
    "while false; do :; done; rm -rf x",
    'f() { "$@"; }; f rm -rf x',
    'set -- rm -rf x; "$@"',
    'a=(rm -rf x); "${a[@]}"',
    "IFS=,; c='rm,-rf,x'; $c",
    "eval $'\\x72\\x6d -rf x'",
    "bash -c \"$(printf 'rm -rf x')\"",
    "x=$(echo rm); command $x -rf x",
    "exec 3<<'E'\nrm -rf x\nE\nsource /dev/fd/3",
]


@pytest.mark.parametrize("command", RED_TEAM)
def test_red_team_attempts_never_run_a_denied_program_unasked(command: str) -> None:
    """PERM-17: under ``Bash(rm:*)`` in bypassPermissions, a line the bash oracle sees run ``rm`` is never allowed."""
    oracle = ths.bash_sandbox()
    if oracle is None:
        pytest.skip(f"bash oracle unavailable: {ths.bash_sandbox_problem()}")
    decision = _decide(command, DENY_RM, mode="bypassPermissions")
    if decision.behavior != "allow":
        return
    real = oracle.running_for_real(
        ["git", "python3", "perl", "awk", "sed", "find", "xargs", "env", "tar", "make"]
    )
    ran = [run for run in real.executed(command) if run[0].rsplit("/", 1)[-1] == "rm"]
    assert not ran, f"{command!r} was allowed and bash ran {ran!r}"


@pytest.mark.parametrize(
    ("command", "program_rule", "form_rule"),
    [
        ("zip -q out.zip f -T -TT 'unzip -tqq'", "Bash(zip:*)", "Bash(zip -q out.zip f -T -TT:*)"),
        ("wget -e 'x' -q https://example.com/f", "Bash(wget:*)", "Bash(wget -e:*)"),
    ],
)
def test_an_option_that_starts_a_program_is_vouched_for_only_by_a_rule_naming_it(
    command: str, program_rule: str, form_rule: str
) -> None:
    """PERM-17: beside a deny rule that may apply, an allow rule naming only the program does not vouch for an
    option of it that starts a program (vouching never outranks a deny that may apply); one naming the form does."""
    assert _decide(command, (program_rule, "allow"), DENY_RM).behavior == "ask"
    assert _decide(command, (program_rule, "allow"), DENY_RM, mode="dontAsk").behavior == "deny"
    assert _decide(command, (form_rule, "allow"), DENY_RM).behavior == "allow"


@pytest.mark.parametrize(
    ("command", "allow_rule"),
    [
        ("zip -q out.zip f -T -TT 'rm -f victim #'", "Bash(zip -q out.zip f -T -TT:*)"),
        ("python3 -c 'import os; os.system(\"rm -rf d\")'", "Bash(python3 -c:*)"),
        ("perl -e 'system q(/bin/rm), q(-rf), q(d)'", "Bash(perl -e:*)"),
        ("tmux new -d 'rm -rf d'", "Bash(tmux:*)"),
        ("prlimit --nofile=10 rm -rf d", "Bash(prlimit:*)"),
        ("expect -c 'spawn rm -rf d'", "Bash(expect:*)"),
        ("tclsh <<< 'exec rm -rf d'", "Bash(tclsh:*)"),
    ],
)
def test_an_allow_rule_never_vouches_for_a_line_naming_what_a_deny_rule_guards(
    command: str, allow_rule: str
) -> None:
    """PERM-17: an allow rule trusts an unread program (or inline-code form) with what the engine can't read,
    but not a way around a deny rule written on the same line: when the line names the guarded program, it
    asks (denies under dontAsk), or denies when it reads the code's literal command (``os.system("rm -rf d")``);
    the same rule still vouches for a line that names none of it."""
    assert _decide(command, (allow_rule, "allow"), DENY_RM).behavior in ("ask", "deny")
    assert _decide(command, (allow_rule, "allow"), DENY_RM, mode="dontAsk").behavior == "deny"
    assert _decide(command, (allow_rule, "allow"), ("Bash(git push:*)", "deny")).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "declare -i n; n='a[$(rm -f victim)]'",
        "typeset -i n; read n <<< 'a[$(rm x)]'",
        "declare -xi n; printf -v n %s 'a[$(rm x)]'",
        "declare -il n; for n in 'a[$(rm x)]'; do :; done",
        "bash -c \"declare -i n; n+='a[\\$(rm x)]'\"",
    ],
)
def test_a_value_written_to_an_integer_variable_is_evaluated(command: str) -> None:
    """PERM-17: bash evaluates every value written to a variable with the integer attribute as arithmetic,
    whoever writes it, and an array subscript in it runs a command: never allowed beside ``Bash(rm:*)``."""
    assert _decide(command, DENY_RM, mode="bypassPermissions").behavior != "allow"
    assert _decide("declare -i n; n=3; echo $n", DENY_RM, mode="bypassPermissions").behavior == "allow"


_SED_ADDRESSES = ("", "1", "$", "/x/", "/X/I", "\\,x,", "\\|x|I", "1,$", "/x/,+1", "0~1", "1!", "2!")
_SED_RUNNERS = (" e touch M", "e touch M", "s/x/touch M/e", "s,x,touch M,ge", "{e touch M\n}")


@pytest.mark.parametrize("script", [a + r for a in _SED_ADDRESSES for r in _SED_RUNNERS])
def test_a_sed_script_that_runs_a_command_is_never_read_as_data(tmp_path: Path, script: str) -> None:
    """PERM-17: GNU sed is the judge: every address (flags, custom delimiters, ranges, steps, ``!``)
    before ``e`` or ``s///e`` that makes sed run the command is seen by the engine's reading of sed's grammar."""
    sed = shutil.which("sed")
    if sed is None:
        pytest.skip("sed is not installed")
    subprocess.run([sed, "-n", script], input="x\n", text=True, cwd=tmp_path, capture_output=True, timeout=10)
    if (tmp_path / "M").exists():
        command = f"sed -n {shlex.quote(script)} victim"
        assert _decide(command, DENY_RM, mode="bypassPermissions").behavior != "allow", script


@pytest.mark.parametrize("name", ["tool", "r\uff4d", "bin/helper"])
def test_a_link_to_a_denied_program_is_that_program(tmp_path: Path, name: str) -> None:
    """PERM-17: a name that is a symbolic link to a denied program (made before the line, a look-alike
    name too) is that program: its deny rule holds over an allow rule naming the link."""
    rm = shutil.which("rm")
    if rm is None:
        pytest.skip("rm is not installed")
    link = tmp_path / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(rm)
    rules = (
        parse_rule("Bash(rm:*)", "deny", "localSettings"),
        parse_rule(f"Bash(./{name}:*)", "allow", "userSettings"),
    )
    decision = decide_permission(
        BASH, {"command": f"./{name} -f victim"}, PermissionContext(rules=rules, cwd=tmp_path)
    )
    assert decision.behavior == "deny", decision.reason.detail
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    rules = (rules[0], parse_rule("Bash(./plain:*)", "allow", "userSettings"))
    assert (
        decide_permission(
            BASH, {"command": "./plain x"}, PermissionContext(rules=rules, cwd=tmp_path)
        ).behavior
        == "allow"
    )


@pytest.mark.parametrize(
    ("command", "helper", "allow"),
    [
        ("git push origin main", "ssh", "Bash(git push:*)"),
        ("git -C . fetch", "ssh", "Bash(git:*)"),
        ("git commit -m fix", "gpg", "Bash(git commit:*)"),
        ("tar xf a.tgz", "gzip", "Bash(tar:*)"),
        ("tar -tvf a.tar.xz", "xz", "Bash(tar:*)"),
    ],
)
def test_a_helper_started_by_configuration_the_line_does_not_show_may_apply(
    command: str, helper: str, allow: str
) -> None:
    """PERM-17: deny is broad: a program a command may start by default, decided by what the line does not
    show (a remote's URL, signing settings, an archive's compression), asks under a deny rule naming it,
    whatever allow rule names the command; and only under such a rule."""
    deny = (f"Bash({helper}:*)", "deny")
    assert _decide(command, (allow, "allow"), deny).behavior == "ask"
    assert _decide(command, (allow, "allow"), deny, mode="dontAsk").behavior == "deny"
    assert _decide(command, (allow, "allow"), DENY_RM).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "echo rm | xargs nice",
        "echo rm | xargs env",
        "ls bin | xargs -n1 timeout 5",
        "echo rm | xargs -I{} env {} x",
    ],
)
def test_xargs_handing_its_input_to_a_wrapper_runs_an_unknown_program(command: str) -> None:
    """PERM-17: xargs appends (or, with ``-I``, places) words read from its input; given to a wrapper, or where
    a command's name is, they are the program run: never allowed beside ``Bash(rm:*)``."""
    assert _decide(command, ("Bash(xargs:*)", "allow"), ("Bash(echo:*)", "allow"), DENY_RM).behavior == "ask"
    assert (
        _decide(
            "find . -name '*.py' | xargs wc -l",
            ("Bash(find:*)", "allow"),
            ("Bash(xargs:*)", "allow"),
            DENY_RM,
        ).behavior
        == "allow"
    )


@pytest.mark.parametrize(
    "command", ["cp bin/tool bin/ls && ls", "ln -s tool bin/ls && ls", "mv bin/tool bin/ls; ls"]
)
def test_a_bare_name_the_line_writes_a_file_of_may_be_that_file(command: str) -> None:
    """PERM-17: a bare command name is looked up on PATH, where the same line may have put a file of that
    name: under a deny rule it is not read as the program it usually is."""
    rules = (
        ("Bash(cp:*)", "allow"),
        ("Bash(ln:*)", "allow"),
        ("Bash(mv:*)", "allow"),
        ("Bash(ls:*)", "allow"),
    )
    assert _decide(command, *rules, DENY_RM, mode="acceptEdits").behavior == "ask"
    assert (
        _decide(
            "mkdir -p build && ls build", ("Bash(mkdir:*)", "allow"), ("Bash(ls:*)", "allow"), DENY_RM
        ).behavior
        == "allow"
    )


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ('git commit -m "$MSG"', True),  # the message: data
        ('git -C . commit -q -m "$(date)"', True),
        ('git commit "$X" -m hi', False),  # may be any option
        ("git commit $X", False),
        ('tar -I "$X" -cf a.tar f', False),  # the value of an option that runs a program
        ('git grep -O "$X" foo', False),
    ],
)
def test_a_run_time_word_is_data_only_where_its_program_reads_a_value(command: str, read: bool) -> None:
    """PERM-17: a word only known at run time, where the program's grammar reads the value of an option
    (``git commit -m "$(...)"``), is data; elsewhere, or as the value of an option that runs a command,
    it may be an option that starts a program: asked beside a deny rule."""
    decision = _decide(command, DENY_RM, mode="bypassPermissions")
    assert (decision.behavior == "allow") == read, decision.reason.detail


@pytest.mark.parametrize(
    "command",
    [
        "sh bin/nuke",
        "bash -e bin/nuke x",
        ". bin/nuke",
        "source ./bin/nuke",
        "python3 bin/nuke",
        "bash nuke",  # a file in the working directory
    ],
)
def test_a_script_a_shell_or_interpreter_runs_is_that_program(command: str) -> None:
    """PERM-17: ``sh bin/nuke`` runs the program ``nuke`` (a script): a deny rule naming it denies."""
    assert _decide(command, ("Bash(nuke:*)", "deny"), mode="bypassPermissions").behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "PATH=tools:$PATH ls",
        "ZIPOPT='-T -TT nuke' zip -q o.zip f",
        "MAKEFLAGS='--eval=x:;nuke' make x",
        "GREP_OPTIONS='-P' grep x f",
        "LESSOPEN='|nuke %s' less f",
    ],
)
def test_a_variable_set_for_one_command_that_may_change_what_it_runs_is_unread(command: str) -> None:
    """PERM-17: a variable set for one command that changes where its name is looked up, or that the
    program may read as options or a command (its name says so, or its value reads as options or
    shell syntax), makes the command unread: asked beside a deny rule, denied under dontAsk."""
    assert _decide(command, ("Bash(nuke:*)", "deny"), mode="bypassPermissions").behavior != "allow"
