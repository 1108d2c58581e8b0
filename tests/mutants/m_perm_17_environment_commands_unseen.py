"""PERM-17 mutant: a command other programs take from their environment is not seen."""

from __future__ import annotations

import re

from tests.mutants._base import Patch, make_factory
from tests.mutants._permission_rules import TRUST_UNREAD

__all__ = ["DESCRIPTION", "TARGET", "adapter"]

TARGET = "PERM-17"
DESCRIPTION = (
    "GIT_SSH_COMMAND='rm x' git fetch, GIT_CONFIG_VALUE_0='!rm x' git z, TAR_OPTIONS=--checkpoint-action=exec=...:"
    " only bash's own code variables are seen, and Bash(rm:*) deny misses the rm the program starts"
)

# The variables of bash itself only: as before other programs' command variables were known.
_BASH_ONLY = re.compile(
    r"^(BASH_ENV|ENV|PROMPT_COMMAND|PS[0-4]|SHELLOPTS|BASHOPTS|BASH_FUNC_[^=]*|BASH_CMDS|BASH_ALIASES)"
    r"(\[[^\]]*\])?\+?="
)

adapter = make_factory(
    TRUST_UNREAD,
    Patch("reference_impl.permissions._evaluated", "_CODE_VARIABLES", lambda _original: _BASH_ONLY),
)
