"""Python code read against the standard library's own source: what may start a program or run code (PERM-17).

The red team's cases (``pydoc.pipepager``, an event loop's ``subprocess_shell``, a multiprocessing
context's ``set_executable``, a ``logging.config`` factory, ``import antigravity``, ``trace.Trace().run``,
``doctest.run_docstring_examples``) and ones nobody listed, found by the same principle: a member the
mined catalogue can't prove pure, given a value the reader can't read literally, may run anything.
"""

from __future__ import annotations

import pytest

from reference_impl.permissions._python_targets import python_targets

# Each: code that reaches a standard-library way to start a program or run code no list names, with
# a value built when the code runs.
_STARTS_PROGRAMS = [
    "import pydoc\npydoc.pipepager('x', 'nu'+'ke')",
    "from pydoc import pipepager\npipepager('x', c)",
    "import webbrowser\nwebbrowser.get(c).open('http://x')",
    "import asyncio\nasync def m():\n    await asyncio.get_running_loop().subprocess_shell(P, 'nu'+'ke')",
    "import asyncio\nasync def m(loop):\n    await loop.subprocess_exec(P, c)",
    "import pipes\nt = pipes.Template()\nt.append(c, '--')",
    "import imaplib\nimaplib.IMAP4_stream('nu'+'ke')",
    "import multiprocessing as mp\nctx = mp.get_context('spawn')\nctx.set_executable(e)",
    "import multiprocessing\nmultiprocessing.set_executable(e)",
    "import logging.config\nlogging.config.dictConfig({'handlers': {'h': {'()': 'subprocess.call', 'args': 'nu'+'ke'}}})",
    "import antigravity",
    "from antigravity import geohash",
    "import http.server\nh = http.server.CGIHTTPRequestHandler",
    "import os, pydoc\nos.environ['PAGER'] = 'nu' + 'ke'\npydoc.pager('x')",
    # What another file of the program starts reads: a conftest setting BROWSER for a test's browser.
    "import os\nos.environ['BROWSER'] = 'nu' + 'ke'",
    "import os\nos.environ.update(BROWSER=c)",
    # Modules then imported from where the engine does not look (a zip the code wrote, say).
    "import sys\nsys.path.insert(0, 'deps.zip')\nimport helper",
    "import sys\nsys.path[:0] = ['deps.zip']",
    "import sys\nsys.meta_path.append(finder)",
]
# Each: code that evaluates code it is given (a string, a docstring) through an API no list names.
_EVALUATES = [
    "import trace\nt = trace.Trace(count=0, trace=0)\nt.run(\"import os; os.system('nu'+'ke')\")",
    "import trace\ntrace.Trace().runctx(code, {}, {})",
    "import doctest\ndef f():\n    '''\n    >>> 1\n    '''\ndoctest.run_docstring_examples(f, {})",
    "import code\ncode.InteractiveInterpreter().runsource(s)",
    "import bdb\nbdb.Bdb().run(s)",
    "import pdb\nwith pdb.Pdb() as p:\n    p.run(s)",
    "import pickle\npickle.Unpickler(f).load()",
    "import unittest\nunittest.TestLoader().loadTestsFromName(n)",
    # A string annotation is code typing.get_type_hints evaluates.
    "import typing\ndef f(x: \"__import__('os').system('nu'+'ke')\"): pass\ntyping.get_type_hints(f)",
]


@pytest.mark.parametrize("code", _STARTS_PROGRAMS + _EVALUATES)
def test_a_standard_member_not_proven_pure_given_a_built_value_may_run_anything(code: str) -> None:
    """PERM-17: a member the catalogue mined from the standard library can't prove pure, given a built value."""
    assert python_targets(code).built is not None


@pytest.mark.parametrize(
    ("code", "command"),
    [
        ("import pydoc\npydoc.pipepager('x', 'nuke --all')", "nuke --all"),
        ("import trace\ntrace.Trace().run(\"import os; os.system('nuke')\")", "nuke"),
        ("import os, webbrowser\nos.environ['BROWSER'] = 'nuke'\nwebbrowser.open('http://x')", "nuke"),
        ("import os\nos.environ['PAGER'] = 'nuke'", "nuke"),
        ("def f(x: \"os.system('nuke')\"): pass", "nuke"),
    ],
)
def test_literal_values_of_a_capable_member_are_read_as_commands_and_code(code: str, command: str) -> None:
    """PERM-17: a literal given to such a member is read the stricter way: a command, and Python code."""
    found = python_targets(code)
    assert found.built is None
    assert command in found.runs


# Test code as everyday projects write it: nothing the catalogue can't prove pure is given a built value.
_EVERYDAY = [
    "import logging\nlog = logging.getLogger(__name__)\nlog.info('x %s', value)",
    "import asyncio\nasync def main(x):\n    await asyncio.sleep(x)\nasyncio.run(main(1))",
    "import subprocess\nsubprocess.run(['git', 'status'], check=True, cwd=path)",
    "import tempfile, shutil, pathlib\nd = tempfile.mkdtemp()\np = pathlib.Path(d) / name\nshutil.rmtree(d)",
    "import json\ndef test_a(tmp_path):\n    assert json.loads(text) == {'a': 1}",
    "import threading\nt = threading.Thread(target=work, args=(1,))\nt.start()\nt.join()",
    "import dataclasses\n@dataclasses.dataclass\nclass A:\n    x: int = dataclasses.field(default_factory=int)",
    "import collections\nP = collections.namedtuple('P', 'x y')\nc = collections.Counter(words)",
    "import subprocess\ndef f(p: subprocess.CompletedProcess[str]) -> None:\n    assert p.returncode == 0",
    "import os\npath = os.path.join(base, name)\nos.environ.get('HOME', default)",
    "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(x), 1)",
]


@pytest.mark.parametrize("code", _EVERYDAY)
def test_everyday_test_code_stays_read(code: str) -> None:
    """PERM-17: ordinary test code calls nothing the catalogue finds may run a program: no new unknowns."""
    assert python_targets(code).built is None
