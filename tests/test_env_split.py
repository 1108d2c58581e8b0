"""``env -S``'s own string splitting, against the real GNU env (PERM-17: ``env -S 'rm\\_x'`` runs ``rm x``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_impl.permissions._shell_forms import deny_forms
from reference_impl.permissions._wrapped_commands import env_split

ENV = shutil.which("env")
pytestmark = pytest.mark.skipif(ENV is None, reason="no env program on PATH")

# The characters env -S treats specially, and plain ones between them.
PIECES = st.sampled_from(
    ["a", "rm", "x", " ", "\t", "'", '"', "\\", "_", "c", "#", "n", "t", "$", "-", "=", "\\_"]
)


@pytest.fixture(scope="module")
def argv_printer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    script = tmp_path_factory.mktemp("env-split") / "argv.py"
    script.write_text("import json, sys\nprint(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    return script


def real_split(printer: Path, text: str) -> list[str] | None:
    """The words the real env makes of ``text``, or None when it refuses the string."""
    done = subprocess.run(
        [str(ENV), "-S", f"{sys.executable} {printer} {text}"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return None
    words: list[str] = json.loads(done.stdout)
    return words


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(PIECES, max_size=10).map("".join))
@example(text="rm\\_x")
@example(text="'a b'\\_\"c\\_d\"")
@example(text="a #b")
@example(text="a\\cb c")
@example(text="'it\\'s'")
def test_env_split_is_the_real_envs(argv_printer: Path, text: str) -> None:
    """Where the real env runs the string, env_split makes the same words of it."""
    if "${" in text:
        return  # the environment's values: env_split says None, the real env expands them
    real = real_split(argv_printer, text)
    ours = env_split(text)
    if real is not None:
        assert ours is not None, f"env runs {text!r} as {real}, env_split could not tell"
        assert list(ours) == real, (text, real, ours)


def test_run_time_and_refused_strings_are_unknown() -> None:
    assert env_split("${CMD} x") is None
    assert env_split("a\\qb") is None
    assert env_split("'unterminated") is None
    assert env_split("rm\\_x") == ("rm", "x")


@pytest.mark.parametrize(
    "command",
    [
        "env --split-string='rm x'",
        "env --split='rm x'",
        "env --s='rm x'",
        "env --spl 'rm x'",
        "env -iS 'rm x'",
        "env -vS'rm x'",
        "env -S 'rm\\_x'",
        "env -S '-i rm x'",
        "env -S '-S rm\\_x'",
        "env -u X -S 'FOO=1 rm x'",
    ],
)
def test_every_spelling_of_env_s_is_seen(command: str) -> None:
    """PERM-17: what env splits out of its -S string is judged: a deny rule for rm matches it."""
    forms = deny_forms(command)
    assert forms.opaque or any(form == "rm x" or form.startswith("rm x") for form in forms.forms), forms


@pytest.mark.parametrize(
    "command",
    [
        "cp /bin/rm ./del; ./del x",
        "ln -s /bin/rm del; ./del x",
        "install /bin/rm del; ./del x",
        "cp /usr/bin/rm /tmp/d && /tmp/d x",
        "sudo cp /bin/rm /tmp/d; /tmp/d x",
        "curl -o /tmp/d http://x; /tmp/d",
        "dd if=/bin/rm of=/tmp/d; /tmp/d x",
        "cp --target-directory=/tmp/t /bin/rm; mv /tmp/t/rm /tmp/t/d; /tmp/t/d x",
    ],
)
def test_a_program_the_line_makes_and_runs_is_unknown(command: str) -> None:
    """PERM-17: a file the same line copies, links, installs or downloads and then runs is opaque."""
    assert deny_forms(command).opaque, command


@pytest.mark.parametrize(
    "command", ["env FOO=1 ls", "env -i ls", "env --chdir=/ ls", "cp a b; ls", "cp a ./b; ./c", "env ls"]
)
def test_ordinary_env_and_copies_stay_ordinary(command: str) -> None:
    assert not deny_forms(command).opaque, command


@pytest.mark.parametrize("line", ["env -S 'rm \"x' y", "env -S 'ls \\' y", 'env -S"ls \'a"'])
def test_a_split_string_env_itself_refuses_is_opaque_not_an_internal_error(line: str) -> None:
    """``env -S`` with a string env can't split (an open quote, a trailing backslash) runs nothing the
    engine can name: every deny rule may apply (PERM-16: it asks), and the reading does not fail."""
    forms = deny_forms(line)
    assert forms.opaque is not None
    assert "only known when it runs" in forms.opaque


@pytest.mark.parametrize(
    ("wrapper", "args"),
    [("timeout", ("5", "!x", "ls")), ("nohup", ("+x", "ls")), ("env", ("#x", "ls")), ("nice", ("(", "ls"))],
)
def test_a_word_sorting_before_the_options_end_is_the_wrapped_program(
    wrapper: str, args: tuple[str, ...]
) -> None:
    """Only ``--`` ends a wrapper's options: a program named ``!x``, ``+x`` or ``(`` is what it runs (PERM-16)."""
    from reference_impl.permissions._wrapped_commands import unwrap

    assert unwrap(wrapper, args) == args[-2:]


@pytest.mark.skipif(
    shutil.which("flock") is None or shutil.which("script") is None, reason="util-linux judges"
)
@pytest.mark.parametrize(
    "argv",
    [
        ("flock", "-w", "1", "{lock}", "-c", "echo RAN"),
        ("flock", "{lock}", "-c", "echo RAN"),
        ("flock", "-n", "{lock}", "-c", "echo RAN"),
        ("script", "-q", "-c", "echo RAN", "/dev/null"),
        ("script", "-qc", "echo RAN", "/dev/null"),
        ("script", "-q", "-e", "-c", "echo RAN", "/dev/null"),
    ],
)
def test_the_script_a_wrapper_runs_from_its_c_option_is_the_one_it_runs(
    argv: tuple[str, ...], tmp_path: Path
) -> None:
    """``wrapper_scripts`` names the ``-c`` script wherever the option stands (PERM-17); the real program runs it."""
    from reference_impl.permissions._wrapped_commands import wrapper_scripts

    words = tuple(w.replace("{lock}", str(tmp_path / "l")) for w in argv)
    assert list(wrapper_scripts(words[0], words[1:], None)) == ["echo RAN"]
    done = subprocess.run(
        list(words), capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL
    )
    assert "RAN" in done.stdout, (words, done.stdout, done.stderr)
