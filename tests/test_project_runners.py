"""A program that runs the project's own code runs code the engine does not read (PERM-17).

Test runners (``rspec``, ``go test``, ``npx jest``), task runners (``rake``, ``just``, ``task``), build
tools of any ecosystem (``mvn``, ``gradle``, ``ctest``, ``meson``): under a deny or ask rule the
project's code could meet, the line asks, whatever allow rule names the tool. ``poetry run X``, ``uv run X``,
``bundle exec X``, ``npx X`` are judged as ``X`` would be. ``project_runners.json`` says, for each, which
files its own documentation says it runs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from reference_impl.permissions._program_model import PLAIN_PROGRAMS
from reference_impl.permissions._project_files import project_commands, reads_project_files
from reference_impl.permissions._project_runners import RUNNERS_FILE, runner_name
from tests.test_rules import BASH

_RM = "import os\nos.system('rm -rf x')\n"

# (line, allow rule, project files): each runs project code that runs ``rm`` (the probe of session 33).
_RUNS_RM = [
    ("go test ./...", "go test:*", {"a_test.go": 'package a\nfunc init(){ exec.Command("rm").Run() }\n'}),
    ("rspec", "rspec:*", {"spec/a_spec.rb": "system('rm -rf x')\n"}),
    ("rake test", "rake:*", {"Rakefile": "sh 'rm -rf x'\n"}),
    ("npx vitest run", "npx vitest:*", {"a.test.js": "require('child_process').execSync('rm x')\n"}),
    ("npx jest", "npx jest:*", {"a.test.js": "require('child_process').execSync('rm x')\n"}),
    ("npx mocha", "npx mocha:*", {"test/a.js": "require('child_process').execSync('rm x')\n"}),
    ("bun test", "bun test:*", {"a.test.ts": "Bun.spawnSync(['rm','x'])\n"}),
    ("phpunit", "phpunit:*", {"tests/ATest.php": "<?php system('rm -rf x');\n"}),
    ("mvn test", "mvn:*", {"pom.xml": "<project/>"}),
    ("gradle test", "gradle:*", {"build.gradle": "exec { commandLine 'rm', 'x' }\n"}),
    ("ctest", "ctest:*", {"CTestTestfile.cmake": "add_test(a rm -rf x)\n"}),
    ("meson test", "meson:*", {"meson.build": "run_command('rm','x')\n"}),
    ("bundle exec rake", "bundle exec:*", {"Rakefile": "sh 'rm -rf x'\n"}),
    ("just test", "just:*", {"justfile": "test:\n\trm -rf x\n"}),
    ("task test", "task:*", {"Taskfile.yml": "version: '3'\ntasks:\n  test:\n    cmds: [rm -rf x]\n"}),
    (
        "hatch run test",
        "hatch:*",
        {"pyproject.toml": "[tool.hatch.envs.default.scripts]\ntest = 'rm -rf x'\n"},
    ),
    ("poetry run pytest", "poetry run:*", {"test_a.py": _RM}),
    ("uv run pytest", "uv run:*", {"test_a.py": _RM}),
    # Nobody listed these: other ecosystems, versioned names, aliases, runners reached through wrappers.
    (
        "dotnet test",
        "dotnet test:*",
        {"a.csproj": '<Project><Target Name="T"><Exec Command="rm x"/></Target></Project>'},
    ),
    ("swift test", "swift:*", {"Package.swift": 'import Foundation\nsystem("rm x")\n'}),
    ("sbt test", "sbt:*", {"build.sbt": 'import scala.sys.process._\n"rm x".!\n'}),
    ("mix test", "mix:*", {"mix.exs": 'System.cmd("rm", ["x"])\n'}),
    ("prove", "prove:*", {"t/a.t": "system('rm -rf x');\n"}),
    ("pdm run pytest", "pdm run:*", {"test_a.py": _RM}),
    ("pipenv run pytest", "pipenv run:*", {"test_a.py": _RM}),
    ("invoke test", "invoke:*", {"tasks.py": _RM}),
    ("inv test", "inv:*", {"tasks.py": _RM}),
    ("python3 -m invoke test", "python3 -m invoke:*", {"tasks.py": _RM}),
    ("pnpm exec jest", "pnpm exec:*", {"a.test.js": "require('child_process').execSync('rm x')\n"}),
    ("npm exec -- vitest", "npm exec:*", {"a.test.js": "require('child_process').execSync('rm x')\n"}),
    ("bunx vitest", "bunx vitest:*", {"a.test.js": "require('child_process').execSync('rm x')\n"}),
    ("nice poetry run pytest", "poetry run:*", {"test_a.py": _RM}),
    ("uv run --frozen pytest -q", "uv run:*", {"test_a.py": _RM}),
    ("gradle-8 test", "gradle-8:*", {"build.gradle": "exec { commandLine 'rm', 'x' }\n"}),
    ("go1.22 test ./...", "go1.22:*", {"a_test.go": "package a\n"}),
    ("ninja", "ninja:*", {"build.ninja": "rule r\n  command = rm x\nbuild a: r\n"}),
    ("ninja -v", "ninja:*", {"build.ninja": "rule r\n  command = rm x\nbuild a: r\n"}),
    ("rake help", "rake:*", {"Rakefile": "task(:help) { sh 'rm -rf x' }\n"}),
    ("cmake -S . -B build", "cmake:*", {"CMakeLists.txt": "execute_process(COMMAND rm x)\n"}),
    ("composer test", "composer:*", {"composer.json": '{"scripts": {"test": "rm x"}}'}),
    ("deno task test", "deno task:*", {"deno.json": '{"tasks": {"test": "rm x"}}'}),
    ("bazel test //...", "bazel:*", {"BUILD": 'genrule(name="a", cmd="rm x")\n'}),
    (
        "pre-commit run --all-files",
        "pre-commit run:*",
        {
            ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - {id: a, name: a, entry: rm x, language: system}\n"
        },
    ),
    ("eslint src", "eslint:*", {"eslint.config.js": "require('child_process').execSync('rm x')\n"}),
    ("npx prettier --check .", "npx:*", {".prettierrc.cjs": "require('child_process').execSync('rm x')\n"}),
    ("mypy src", "mypy:*", {"mypy.ini": "[mypy]\nplugins = plug\n", "plug.py": _RM}),
    ("flake8", "flake8:*", {"setup.cfg": "[flake8:local-plugins]\npaths = .\n"}),
    ("nx run-many -t test", "nx:*", {"project.json": '{"targets": {"test": {"command": "rm x"}}}'}),
]


def _decide(line: str, allow: str, deny: str, files: dict[str, str], tmp_path: Path) -> tuple[str, str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    rules = tuple(
        parse_rule(f"Bash({pattern})", behavior, "userSettings")
        for pattern, behavior in ((allow, "allow"), *(((deny, "deny"),) if deny else ()))
    )
    decision = decide_permission(BASH, {"command": line}, PermissionContext(rules=rules, cwd=tmp_path))
    return decision.behavior, str(decision.reason.detail)


@pytest.mark.parametrize(("line", "allow", "files"), _RUNS_RM, ids=[case[0] for case in _RUNS_RM])
def test_a_runner_of_project_code_asks_under_a_deny_rule_it_could_meet(
    line: str, allow: str, files: dict[str, str], tmp_path: Path
) -> None:
    """Allowed by name, the runner still runs the project's code, which may run ``rm``: asked, never allowed."""
    behavior, why = _decide(line, allow, "rm:*", files, tmp_path)
    assert behavior == "ask", (line, why)


@pytest.mark.parametrize(
    ("line", "allow"),
    [("go test ./...", "go test:*"), ("rspec", "rspec:*"), ("poetry run pytest", "poetry run:*"),
     ("npx jest", "npx jest:*"), ("mvn -q test", "mvn:*")],
)  # fmt: skip
def test_with_no_deny_or_ask_rule_the_allow_rule_keeps_allowing(
    line: str, allow: str, tmp_path: Path
) -> None:
    """No rule the project code could meet: the runner stays allowed (no false ask)."""
    (tmp_path / "a_test.go").write_text("package a\n", encoding="utf-8")
    assert _decide(line, allow, "", {}, tmp_path)[0] == "allow"


@pytest.mark.parametrize(
    ("line", "files"),
    [("eslint src", {".eslintrc.json": "{}"}), ("mypy src", {"mypy.ini": "[mypy]\nstrict = True\n"}),
     ("flake8", {"setup.cfg": "[flake8]\nmax-line-length = 99\n"}), ("prettier --check .", {".prettierrc": "{}"})],
)  # fmt: skip
def test_a_linter_configured_with_data_alone_keeps_its_allow_rule(
    line: str, files: dict[str, str], tmp_path: Path
) -> None:
    """A linter runs project code only from a configuration that is code or names plugins: JSON or INI alone runs none."""
    assert _decide(line, f"{line.split()[0]}:*", "rm:*", files, tmp_path)[0] == "allow"


@pytest.mark.parametrize(
    "line",
    ["go version", "go env GOPATH", "go fmt ./...", "poetry run ls", "uv run ls", "npx prettier --check ."],
)
def test_a_form_that_runs_no_project_code_reads_none(line: str, tmp_path: Path) -> None:
    """``go version``, ``poetry run ls`` run none of the project's code: nothing unread is found."""
    argv = line.split()
    assert project_commands(argv, str(tmp_path)) == []


def test_the_catalogue_names_where_each_entry_comes_from() -> None:
    """Every runner says which files it runs and cites its own documentation; names and aliases are unique."""
    data = json.loads(RUNNERS_FILE.read_text(encoding="utf-8"))
    seen: set[str] = set()
    for name, entry in data["runners"].items():
        assert re.fullmatch(r"https://\S+", entry["source"]), name
        assert entry["runs"].strip(), name
        assert set(entry) <= {"runs", "source", "only", "aliases", "wraps", "when", "when_text"}, name
        assert "when_text" not in entry or ("when" in entry and re.compile(entry["when_text"])), name
        for spelled in (name, *entry.get("aliases", ())):
            assert spelled not in seen, spelled
            assert spelled not in PLAIN_PROGRAMS, spelled
            seen.add(spelled)
            assert runner_name(spelled) == name
            assert reads_project_files([spelled, "x"])


@pytest.mark.parametrize(
    ("program", "words", "commands"),
    [
        ("uv", ["--quiet", "run", "pytest", "-x"], [["pytest", "-x"]]),
        ("uv", ["run", "pytest"], [["pytest"]]),
        ("poetry", ["-q", "run", "pytest"], [["pytest"]]),
    ],
)
def test_a_launcher_runs_the_command_after_its_subcommand(
    program: str, words: list[str], commands: list[list[str]]
) -> None:
    """PERM-17: ``uv --quiet run pytest -x`` runs ``pytest -x``: what follows the subcommand, wherever it stands."""
    from reference_impl.permissions._project_runners import wrapped_commands

    assert list(wrapped_commands(program, words)) == commands


def test_a_configuration_file_that_can_not_be_read_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERM-17: a runner's configuration the engine can't read is named as unreadable (the engine asks), not skipped."""
    from reference_impl.permissions import _project_runners

    (tmp_path / "conf.cfg").write_text("x\n")

    def unreadable(*_args: object, **_kwargs: object) -> object:
        raise PermissionError("denied")

    monkeypatch.setattr(_project_runners, "open", unreadable, raising=False)
    found = _project_runners._configuration(["conf.cfg"], "pattern", str(tmp_path))
    assert found == f"{tmp_path}/conf.cfg could not be read"
