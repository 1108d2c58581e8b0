"""``python -m reference_impl -p PROMPT``: see :mod:`reference_impl.agent._cli`."""

from __future__ import annotations

import sys

from reference_impl.agent import main

if __name__ == "__main__":
    sys.exit(main())
