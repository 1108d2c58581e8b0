"""PERM-17 mutant: JavaScript names are matched as spelled, not as node's lexer decodes them."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "cp.exe\\u0063Sync('nu'+'ke') under Bash(nuke:*): an identifier's \\uXXXX and \\u{X} escapes are kept "
    "as text, so the member node binds as execSync is a name the reader does not know, and the command "
    "built when the code runs is not asked about"
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._code_targets",
        "_js_tokens",
        rewrite('tokens.append(("id", js_decoded(text)))', 'tokens.append(("id", text))'),
    )
)
