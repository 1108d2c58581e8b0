"""Python code that runs a denied program through the standard library, or from a zip pytest imports (PERM-17).

Drawn for :mod:`conformance.test_python_resolution`: each carrier is a way the standard library starts
a program or evaluates code that no list of "functions that run a program" names (a pager, a browser,
an event loop's shell, a multiprocessing executable, a logging factory, a tracer or doctest running a
string), or a zip on pytest's ``pythonpath`` holding the module a test imports. The real ``python3``
running the files is the judge of whether the denied program ran.
"""

from __future__ import annotations

import io
import zipfile

from hypothesis import strategies as st

__all__ = ["SET_UP", "pythonpath_zip", "standard_library_carrier"]

# Each: the code of a test function's body running the program ``{cmd}`` (a Python expression).
_CARRIERS = {
    "pydoc.pipepager": "import pydoc\n    pydoc.pipepager('x', {cmd})\n",
    "webbrowser.get": "import webbrowser\n    webbrowser.get({cmd} + ' %s').open('http://example.invalid/')\n",
    "BROWSER and import antigravity": "import os\n    os.environ['BROWSER'] = {cmd}\n    import antigravity\n",
    "an event loop's subprocess_shell": (
        "import asyncio\n    async def m():\n"
        "        await asyncio.get_running_loop().subprocess_shell(asyncio.SubprocessProtocol, {cmd})\n"
        "        await asyncio.sleep(0.5)\n    asyncio.run(m())\n"
    ),
    "multiprocessing's executable": (
        "import multiprocessing, shutil\n    ctx = multiprocessing.get_context('spawn')\n"
        "    ctx.set_executable(shutil.which({cmd}))\n    p = ctx.Process(target=print)\n"
        "    try:\n        p.start(); p.join(5)\n    except Exception:\n        pass\n"
    ),
    "a logging.config factory": (
        "import logging.config\n    try:\n        logging.config.dictConfig({{'version': 1, 'handlers': "
        "{{'h': {{'()': 'subprocess.call', 'args': {cmd}}}}}}})\n    except Exception:\n        pass\n"
    ),
    "imaplib.IMAP4_stream": (
        "import imaplib\n    try:\n        imaplib.IMAP4_stream({cmd})\n    except Exception:\n        pass\n"
    ),
    "a string annotation typing evaluates": (
        "import typing\n    def f(x: {annotation}):\n        pass\n    typing.get_type_hints(f)\n"
    ),
    "sys.path then a zip the code wrote": (
        "import sys, zipfile\n    with zipfile.ZipFile('deps.zip', 'w') as z:\n"
        "        z.writestr('helper_z.py', 'import os; os.system(' + repr({cmd}) + ')')\n"
        "    sys.path.insert(0, 'deps.zip')\n    import helper_z\n"
    ),
    "BROWSER set in another file": "import webbrowser\n    webbrowser.open('http://example.invalid/')\n",
    "trace.Trace().run": "import trace\n    t = trace.Trace(count=0, trace=0)\n    t.run({code})\n",
    "doctest.run_docstring_examples": (
        "import doctest\n    def f():\n        pass\n"
        "    f.__doc__ = '>>> import os; os.system(' + repr({cmd}) + ')\\n0\\n'\n"
        "    doctest.run_docstring_examples(f, {{}})\n"
    ),
}


# Carriers whose way in is what the program's code sets up, not the API it calls: the environment set
# in another file, sys.path pointed at a zip, an annotation's string.
SET_UP = (
    "BROWSER set in another file",
    "sys.path then a zip the code wrote",
    "a string annotation typing evaluates",
)


def standard_library_carrier(
    data: st.DataObject, program: str, *, set_up: bool = False
) -> tuple[dict[str, str], str, str]:
    """A test module or script running ``program`` through a drawn standard-library API: (files, line, how).

    ``set_up``: one of :data:`SET_UP`; otherwise a carrier that calls the API itself.
    """
    carriers = SET_UP if set_up else sorted(set(_CARRIERS) - set(SET_UP))
    carrier = data.draw(st.sampled_from(carriers), label="standard-library carrier")
    cmd = data.draw(
        st.sampled_from([repr(program), f"{program[:-2]!r} + {program[-2:]!r}", "NAME"]),
        label="how the code spells it",
    )
    prelude = f"NAME = {''.join(reversed(program))!r}[::-1]\n\n" if cmd == "NAME" else ""
    # Code given as a string: literal (its own code builds the name, ``'nu' + 'ke'``) or built from NAME.
    code = (
        repr(f"import os; os.system({cmd})")
        if cmd != "NAME"
        else "'import os; os.system(' + repr(NAME) + ')'"
    )
    annotation = repr(f"__import__('os').system({cmd})")
    body = _CARRIERS[carrier].format(cmd=cmd, code=code, annotation=annotation)
    # The environment another file of the program sets: a conftest, or a module the script imports.
    other = (
        f"{prelude}import os\nos.environ['BROWSER'] = {cmd}\n" if carrier.startswith("BROWSER set") else ""
    )
    extra = {"setup_env.py": other} if other else {}
    how = data.draw(st.sampled_from(["pytest test module", "script"]), label="how it runs")
    if how == "script":
        script = (
            f"{'import setup_env' + chr(10) if other else ''}{prelude}def main():\n    {body}\n\nmain()\n"
        )
        return {"t.py": script, **extra}, "python3 t.py", f"{carrier}, {cmd}, script"
    line = data.draw(st.sampled_from(["python3 -m pytest -q -p no:cacheprovider", "pytest -q"]), label="line")
    files = {
        "test_a.py": f"{prelude}def test_a():\n    {body}\n",
        **({"conftest.py": other} if other else {}),
    }
    return files, line, f"{carrier}, {cmd}, under pytest"


# pytest's ini files and how each spells its ``pythonpath`` setting for ``{entry}``.
_INI = {
    "pytest.ini": "[pytest]\npythonpath = {entry}\n",
    "pytest.ini, continued": "[pytest]\npythonpath =\n    .\n    {entry}\n",
    "tox.ini": "[pytest]\npythonpath = {entry}\n",
    "setup.cfg": "[tool:pytest]\npythonpath = {entry}\n",
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = [".", "{entry}"]\n',
    "addopts": "[pytest]\naddopts = -o pythonpath={entry}\n",
}


def pythonpath_zip(data: st.DataObject, evil: str) -> tuple[dict[str, str | bytes], str, str]:
    """A zip (or egg) on pytest's ``pythonpath`` holding the module a test imports, whose code is ``evil``."""
    ini = data.draw(st.sampled_from(sorted(_INI)), label="ini file")
    entry = data.draw(st.sampled_from(["deps.zip", "vendor/deps.egg", "deps.whl"]), label="archive")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as handle:
        package = data.draw(st.booleans(), label="a package")
        handle.writestr("helper/__init__.py" if package else "helper.py", evil)
    file = ini.split(",")[0] if ini != "addopts" else "pytest.ini"
    files: dict[str, str | bytes] = {
        file: _INI[ini].format(entry=entry),
        entry: archive.getvalue(),
        "test_a.py": "import helper\n\n\ndef test_a():\n    pass\n",
    }
    line = data.draw(st.sampled_from(["python3 -m pytest -q -p no:cacheprovider", "pytest -q"]), label="line")
    return files, line, f"{entry} on pytest's pythonpath ({ini})"
