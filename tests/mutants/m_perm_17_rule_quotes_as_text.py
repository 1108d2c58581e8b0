"""PERM-17 mutant: a shell deny rule's double quotes are read as text (``Bash("rm":*)`` names a program ``"rm"``)."""

from __future__ import annotations

from tests.mutants._base import Patch, make_factory
from tests.mutants._source import rewrite

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    'a deny rule\'s quoted words keep their quotes: Bash("rm":*), Bash(r"m" -rf:*) load and deny no rm line'
)

adapter = make_factory(
    Patch(
        "reference_impl.permissions._rule_words",
        "_words",
        rewrite(
            'word.add(body[index : end + 1], unquote_double(inner).replace("\\\\*", "*"))',
            "word.add(body[index : end + 1], body[index : end + 1])",
        ),
    )
)
