"""Everyday developer commands under the rules real settings files use: allowed when an allow rule names them.

The deny and ask rules are every deny and ask rule of the real settings files in the shared corpus
(``corpus/claude_settings.json``), so the static reading fails closed around them (PERM-17); each
command comes with the allow rule a user writes for it (in the forms the corpus uses: ``:*``,
`` *``, exact). At most two of the commands may still be asked about; none is left today.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference_impl import PermissionContext, PermissionDecision, decide_permission, parse_rule
from reference_impl.permissions import PermissionMode
from tests.test_rules import BASH

EVERYDAY = [
    # package managers and runners
    ("npx prettier --check .", "Bash(npx:*)"),
    ("npx tsc --noEmit", "Bash(npx tsc:*)"),
    ("npm ci", "Bash(npm ci)"),
    ("npm install --save-dev vitest", "Bash(npm install:*)"),
    ("npm run build", "Bash(npm run build*)"),
    ("npm test -- --watch=false", "Bash(npm test:*)"),
    ("pnpm install --frozen-lockfile", "Bash(pnpm install:*)"),
    ("pnpm run lint", "Bash(pnpm run:*)"),
    ("yarn add -D eslint", "Bash(yarn:*)"),
    ("pip install -r requirements.txt", "Bash(pip install:*)"),
    ("uv sync", "Bash(uv sync:*)"),
    ("uv run pytest -q", "Bash(uv run:*)"),
    ("poetry run pytest", "Bash(poetry run pytest:*)"),
    ("cargo build --release", "Bash(cargo build:*)"),
    ("cargo clippy -- -D warnings", "Bash(cargo clippy:*)"),
    ("go mod tidy", "Bash(go mod tidy:*)"),
    ("go build ./...", "Bash(go build:*)"),
    ("bundle exec rspec", "Bash(bundle exec rspec:*)"),
    ("mvn -q test", "Bash(mvn:*)"),
    ("./gradlew test", "Bash(./gradlew test:*)"),
    # build and test
    ("make -j4", "Bash(make:*)"),
    ("pytest -x tests/unit", "Bash(pytest:*)"),
    ("python -m pytest tests/", "Bash(python -m pytest:*)"),
    ("tox -e py311", "Bash(tox:*)"),
    ("ruff check --fix .", "Bash(ruff check:*)"),
    ("mypy src", "Bash(mypy:*)"),
    ("eslint src --ext .ts", "Bash(eslint:*)"),
    ("jest --coverage", "Bash(jest:*)"),
    ("pre-commit run --all-files", "Bash(pre-commit run:*)"),
    ("cmake -S . -B build", "Bash(cmake:*)"),
    # git
    ("git status", "Bash(git status)"),
    ("git -c core.quotepath=off status", "Bash(git status:*)"),
    ("git log --oneline -20", "Bash(git log:*)"),
    ("git diff --stat main...HEAD", "Bash(git diff:*)"),
    ("git add -A && git commit -m 'fix: typo'", "Bash(git add:*)", "Bash(git commit:*)"),
    ("git checkout -b feature/x", "Bash(git checkout:*)"),
    ("git stash pop", "Bash(git stash:*)"),
    ("git fetch origin && git rebase origin/main", "Bash(git fetch:*)", "Bash(git rebase:*)"),
    ("git push -u origin HEAD", "Bash(git push:*)"),
    ("git worktree list", "Bash(git worktree:*)"),
    ("gh pr view 12 --json title", "Bash(gh pr view:*)"),
    # docker
    ("docker compose up -d", "Bash(docker compose:*)"),
    ("docker compose logs -f web", "Bash(docker compose:*)"),
    ("docker ps -a", "Bash(docker ps:*)"),
    ("docker build -t app .", "Bash(docker build:*)"),
    ("docker-compose down", "Bash(docker-compose:*)"),
    ("kubectl get pods -n dev", "Bash(kubectl get:*)"),
    # shell idioms
    ("export X=1", "Bash(export:*)"),
    ("export NODE_ENV=test && npm test", "Bash(export:*)", "Bash(npm test:*)"),
    ("cd frontend && npm run build", "Bash(cd:*)", "Bash(npm run build:*)"),
    ("cd packages/api && npm test", "Bash(npm test:*)"),  # a cd inside the project needs no rule
    ("mkdir -p build && cd build && cmake ..", "Bash(mkdir:*)", "Bash(cmake:*)"),
    ("ls -la | grep env", "Bash(ls:*)", "Bash(grep:*)"),
    ("find . -name '*.pyc' -delete", "Bash(find:*)"),
    ("mkdir -p build/out", "Bash(mkdir:*)"),
    ("[ -f .env.example ] && cp .env.example .env.local", "Bash(cp:*)"),
    ("source .venv/bin/activate && pytest", "Bash(source:*)", "Bash(pytest:*)"),
    ("wc -l src/*.py", "Bash(wc:*)"),
    ("head -50 CHANGELOG.md", "Bash(head:*)"),
    ("echo $PATH", "Bash(echo:*)"),
    ("which node", "Bash(which:*)"),
    ("node scripts/build.js", "Bash(node:*)"),
    ("tail -n 100 logs/app.log", "Bash(tail:*)"),
    ("timeout 30 npm test", "Bash(timeout:*)", "Bash(npm test:*)"),
    ("chmod +x scripts/run.sh", "Bash(chmod:*)"),
    ('for f in *.txt; do wc -l "$f"; done', "Bash(wc:*)"),
    ('export PATH="$HOME/bin:$PATH"', "Bash(export:*)"),
    ("find . -name '*.py' -not -path './.venv/*' | xargs wc -l", "Bash(find:*)", "Bash(xargs wc:*)"),
    ("git stash && git pull --rebase && git stash pop", "Bash(git stash:*)", "Bash(git pull:*)"),
    ("npm run build 2>&1 | tee build.log", "Bash(npm run build:*)", "Bash(tee:*)"),
    ("CI=1 FORCE_COLOR=0 npm test", "Bash(npm test:*)"),
    ("DATABASE_URL='postgres://u@h/db?a=1&b=2' pytest -q", "Bash(pytest:*)"),
    # Claude Code's own commit idiom: the message is a here-document printed by cat.
    (
        "git commit -m \"$(cat <<'EOF'\nfeat: add parser\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"",
        "Bash(git commit:*)",
        "Bash(cat:*)",
    ),
]


def _corpus_guards(shared_dir: Path) -> list[tuple[str, str]]:
    records = json.loads((shared_dir / "corpus" / "claude_settings.json").read_text("utf-8"))
    guards = {
        (rule, behavior)
        for record in records
        for behavior in ("deny", "ask")
        for rule in ((record.get("permissions") or {}).get(behavior) or [])
    }
    assert any(rule.startswith("Bash(") for rule, _ in guards), "the corpus has shell deny rules"
    return sorted(guards)


def _decide(
    command: str, allow: tuple[str, ...], guards: list[tuple[str, str]], mode: PermissionMode = "default"
) -> PermissionDecision:
    rules = tuple(parse_rule(text, behavior, "projectSettings") for text, behavior in guards)  # type: ignore[arg-type]
    rules += tuple(parse_rule(text, "allow", "userSettings") for text in allow)
    context = PermissionContext(mode=mode, rules=rules, cwd=Path("/proj"))
    return decide_permission(BASH, {"command": command}, context)


def test_everyday_commands_named_by_an_allow_rule_are_allowed(shared_dir: Path) -> None:
    """At most 11 of ~60 everyday commands are asked or denied under allow rules that name them (each explained)."""
    guards = _corpus_guards(shared_dir)
    assert len(EVERYDAY) >= 60
    refused = {}
    for command, *allow in EVERYDAY:
        decision = _decide(command, tuple(allow), guards)
        if decision.behavior != "allow":
            refused[command] = f"{decision.behavior}: {decision.reason.detail}"
    assert len(refused) <= 11, refused
    # Each ask here is explained; a new one is a regression to explain or fix.
    assert set(refused) <= set(EXPLAINED_ASKS), refused


EXPLAINED_ASKS = {
    # PERM-17 (session 26): tox runs the commands its configuration defines, which the engine does not
    # read yet (as it reads npm's scripts): asked under any deny rule they could meet.
    "tox -e py311": "tox's configuration is not read",
    # The requirements file is not there (/proj) to read: it may name the project itself (`-e .`).
    "pip install -r requirements.txt": "the requirements file can't be read",
    # PERM-17 (session 30, Claude Code's rule): a variable set before the program that is not known to be
    # harmless keeps a rule naming only the program from covering the line (``GREP=nuke zgrep`` runs nuke;
    # ``PYTEST_ADDOPTS`` loads plugins): which variables a program reads is the program's own.
    "DATABASE_URL='postgres://u@h/db?a=1&b=2' pytest -q": "a variable not known harmless is set before it",
    # PERM-17 (session 33): a program whose documented job is to run the project's own code (a test
    # runner, a build tool: project_runners.json) runs code the engine does not read, like tox and cargo.
    "uv sync": "uv sync installs the project: its build backend runs",
    "bundle exec rspec": "bundle evaluates the Gemfile (Ruby); rspec runs the spec files",
    "mvn -q test": "maven runs pom.xml's plugins and the tests",
    "./gradlew test": "gradle evaluates build.gradle (Groovy or Kotlin code)",
    "jest --coverage": "jest runs the test files it finds",
    "cmake -S . -B build": "cmake runs CMakeLists.txt (execute_process)",
    "mkdir -p build && cd build && cmake ..": "cmake runs CMakeLists.txt (execute_process)",
    "pre-commit run --all-files": "pre-commit runs the hooks .pre-commit-config.yaml names",
}
"""Everyday commands asked under their allow rules beside the corpus's deny rules, and why."""


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("export X=1", ("Bash(export:*)",)),
        ("export NODE_ENV=test && npm test", ("Bash(export:*)", "Bash(npm test:*)")),
        ("git -c core.quotepath=off status", ("Bash(git status:*)",)),
        ("git --no-pager log -1", ("Bash(git log:*)",)),
        # (``./gradlew test`` was here: gradle runs build.gradle, unread, so it asks under a deny rule.)
    ],
)
def test_the_everyday_forms_that_were_asked_are_allowed(
    shared_dir: Path, command: str, allow: tuple[str, ...]
) -> None:
    """Each was asked before (export was not read, every git -c core.* key was taken to run a
    command, an allow rule written with the script's path did not vouch for it)."""
    decision = _decide(command, allow, _corpus_guards(shared_dir))
    assert decision.behavior == "allow", decision.reason.detail


@pytest.mark.parametrize(
    ("command", "allow"),
    [
        ("export PAGER=cat && git log", ("Bash(export:*)", "Bash(git log:*)")),
        ("export MANPAGER='sh -c x' && man ls", ("Bash(export:*)", "Bash(man:*)")),
        ("export LESSOPEN='|sh x' && less f", ("Bash(export:*)", "Bash(less:*)")),
        ("export PATH=.:$PATH && ls", ("Bash(export:*)", "Bash(ls:*)")),
        ("PATH=. ; ls", ("Bash(ls:*)",)),
        ("GIT_PAGER='sh x'; git log", ("Bash(git log:*)",)),
        ("export X=$(sh x)", ("Bash(export:*)",)),
        ("git -c core.pager=sh status", ("Bash(git status:*)",)),
        ("git -c core.quotepath=off -c core.fsmonitor=sh status", ("Bash(git status:*)",)),
        ("/elsewhere/gradlew test", ("Bash(./gradlew test:*)",)),
    ],
)
def test_what_the_new_models_do_not_read_still_asks(
    shared_dir: Path, command: str, allow: tuple[str, ...]
) -> None:
    """PERM-17: exports of variables that may carry a command, git settings that run one, and a script
    elsewhere than the allow rule names are not allowed silently under a deny rule."""
    guards = [*_corpus_guards(shared_dir), ("Bash(sh:*)", "deny")]
    decision = _decide(command, allow, guards, mode="bypassPermissions")
    assert decision.behavior != "allow", command


# An ordinary project on disk: what the project tools read names no guarded program.
_PROJECT = {
    "Makefile": "CC ?= cc\nSRC = main.c util.c\nOBJ = $(patsubst %.c,%.o,$(SRC))\napp: $(OBJ)\n\t$(CC) -o $@ $^\n"
    "%.o: %.c\n\t$(CC) -c $< -o $@\nclean:\n\t@echo cleaning $(notdir $(OBJ))\n",
    "package.json": '{"name": "app", "scripts": {"test": "tsc --noEmit", "build": "tsc -p ."}}',
    "tests/test_app.py": "import json\n\n\ndef test_app():\n    assert json.loads('1') == 1\n",
    "conftest.py": "import pytest\n",
    "sub/Makefile": "all:\n\t@echo sub\n",
}
ON_DISK = [
    ("make >/dev/null", "Bash(make:*)"),
    ("make 2>/dev/null", "Bash(make:*)"),
    ("make clean", "Bash(make:*)"),
    ("npm test > /dev/null 2>&1", "Bash(npm test:*)"),
    ("python3 -m pytest -q 2>/dev/null", "Bash(python3 -m pytest:*)"),
    ("pytest -q tests", "Bash(pytest:*)"),
    ("cd sub && make", "Bash(make:*)"),
    ("make -C sub", "Bash(make:*)"),
    ("npm --prefix . run build", "Bash(npm --prefix . run build:*)"),
]


def test_project_tools_on_an_ordinary_project_are_allowed(shared_dir: Path, tmp_path: Path) -> None:
    """Project tools read an ordinary project's files (PERM-17) and still run under the rules naming them.

    Redirections to ``/dev/null`` write no file a tool could read; a Makefile of variables, functions
    and automatic variables expands to programs no guard names; pytest's test files and conftest
    import only what they import.
    """
    for relative, text in _PROJECT.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    guards = _corpus_guards(shared_dir)
    refused = {}
    for command, *allow in ON_DISK:
        rules = tuple(parse_rule(text, behavior, "projectSettings") for text, behavior in guards)  # type: ignore[arg-type]
        rules += tuple(parse_rule(text, "allow", "userSettings") for text in allow)
        decision = decide_permission(BASH, {"command": command}, PermissionContext(rules=rules, cwd=tmp_path))
        if decision.behavior != "allow":
            refused[command] = f"{decision.behavior}: {decision.reason.detail}"
    assert not refused, refused
