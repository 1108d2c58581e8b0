"""The names a code reader must decode and the modules it does not model (PERM-17).

JavaScript's lexer decodes escapes in identifiers and string literals before a name is bound, so the
reader matches values, not spellings. A module whose functions start programs or evaluate code beside
the APIs the reader reads by name (node's inspector, repl, module; Perl's IPC::Open3, IO::Pipe, a
source filter) is not modelled: code that loads or names one may run anything.
"""

from __future__ import annotations

import re

__all__ = ["js_decoded", "node_module_unread", "perl_module_unread", "perl_module_writes"]

_JS_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\n": "",
    "\u2028": "",
}
_JS_STRING_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]+)\}|([0-3][0-7]{0,2}|[4-7][0-7]?)|(\r\n|[\s\S]))"
)


def js_decoded(text: str) -> str:
    r"""A string literal's body (or an identifier) decoded as JavaScript's lexer decodes it.

    ``\xHH``, ``\uHHHH``, ``\u{H...}``, legacy octal ``\NNN``, ``\n`` and the like, a line
    continuation; any other escaped character is itself. The value, not the spelling, is matched.
    """

    def one(match: re.Match[str]) -> str:
        hex2, hex4, braced, octal, other = match.groups()
        code = hex2 or hex4 or braced
        if code is not None:
            value = int(code, 16)
            return chr(value) if value <= 0x10FFFF else "\ufffd"
        if octal is not None:
            return chr(int(octal, 8))
        return _JS_SIMPLE_ESCAPES.get(other, "" if other == "\r\n" else other)

    return _JS_STRING_ESCAPE.sub(one, text) if "\\" in text else text


# node's built-in modules (``require("module").builtinModules``) the reader knows: those whose exports
# start no program, evaluate no code and load no binary (their names, ``node:`` or not), and those whose
# APIs that do are read by name above (child_process, fs, vm, worker_threads, process, timers). Any
# other built-in (inspector's ``Runtime.evaluate``, repl, module's loader hooks, cluster, v8's flags,
# wasi, test's runner, one added later) may run anything: the reader does not model it.
_NODE_READ_MODULES = frozenset(
    {
        *("assert", "assert/strict", "async_hooks", "buffer", "console", "constants", "crypto", "dgram"),
        *("diagnostics_channel", "dns", "dns/promises", "domain", "events", "http", "http2", "https"),
        *("net", "os", "path", "path/posix", "path/win32", "perf_hooks", "punycode", "querystring"),
        *("readline", "readline/promises", "stream", "stream/consumers", "stream/promises", "stream/web"),
        *("string_decoder", "sys", "timers/promises", "tls", "trace_events", "tty", "url", "util"),
        *("util/types", "zlib", "_http_agent", "_http_client", "_http_common", "_http_incoming"),
        *("_http_outgoing", "_http_server", "_stream_duplex", "_stream_passthrough", "_stream_readable"),
        *("_stream_transform", "_stream_wrap", "_stream_writable", "_tls_common", "_tls_wrap"),
        *("child_process", "fs", "fs/promises", "vm", "worker_threads", "process", "timers"),
    }
)
# Built-ins only reachable as ``node:NAME`` and those that run code the reader does not model.
_NODE_UNREAD_MODULES = frozenset(
    {"cluster", "inspector", "inspector/promises", "module", "repl", "v8", "wasi"}
)


def node_module_unread(name: str) -> str | None:
    """Why loading module ``name`` may run anything the reader does not see; None for a module it reads.

    A built-in it does not model, or code named by a URL (``data:``, ``http:``) rather than by a file.
    """
    builtin = name.removeprefix("node:")
    if (name.startswith("node:") or builtin in _NODE_UNREAD_MODULES) and builtin not in _NODE_READ_MODULES:
        return f"the module {name} may run code or programs the reader does not model"
    scheme = name.split("/", 1)[0]
    if ":" in scheme and not name.startswith(("node:", "file:")):
        return f"{name[:40]} is code named by a URL, which the reader does not read"
    return None


# Perl modules whose functions start a program the caller names (IPC::Open3's ``open3``, IPC::Cmd's
# ``run``, IO::Pipe's ``reader``, Git's ``command``, a test harness running scripts), evaluate code the
# caller gives (Benchmark's timed strings, Safe, Module::Load's ``load``), load binary code (DynaLoader,
# XSLoader, Inline) or rewrite the source the reader sees (source filters): mined from the installed
# perl's modules that call ``exec``/``system``/``fork``/a piped ``open`` with their arguments. The reader
# does not model them: naming one (``use``, ``require``, ``IPC::Open3::open3``) may run anything.
# Whole namespaces are such by their documented purpose: IPC (inter-process), Proc (processes), Filter.
_PERL_UNREAD_NAMESPACES = ("IPC::", "Proc::", "Filter::", "Inline::")
_PERL_UNREAD_MODULES = frozenset(
    {
        *("IO::Pipe", "Git", "Dpkg::IPC", "Shell", "Expect", "Inline", "Net::OpenSSH", "Capture::Tiny"),
        *("TAP::Harness", "TAP::Parser", "Test::Harness", "App::Prove", "App::Cpan", "CPAN", "CPAN::Shell"),
        *("ExtUtils::CBuilder", "ExtUtils::Command::MM", "Benchmark", "Safe", "Module::Load"),
        *("Module::Load::Conditional", "Module::Runtime", "DynaLoader", "XSLoader", "SelfLoader"),
    }
)


def _perl_module_of(name: str, modules: frozenset[str], namespaces: tuple[str, ...]) -> str | None:
    """``name`` (a module, a function in one, a ``Module/Path.pm``) as a module, if it is one of ``modules``/``namespaces``."""
    if name.endswith(".pm"):
        name = name.removesuffix(".pm").replace("/", "::")
    parts = name.removeprefix("::").split("::")
    for count in range(len(parts), 0, -1):
        module = "::".join(parts[:count])
        if module in modules or (module + "::").startswith(namespaces):
            return name
    return None


def perl_module_unread(name: str) -> str | None:
    """Why naming ``name`` (a module, a function in one, a ``Module/Path.pm``) may run anything unread."""
    if _perl_module_of(name, _PERL_UNREAD_MODULES, _PERL_UNREAD_NAMESPACES) is None:
        return None
    return f"{name} starts programs or runs code the reader does not model"


# Perl modules whose functions write files named by an archive's members, by a handle's options or by
# arguments the reader does not follow (perl's core library, by each module's documented purpose):
# archives extracted (Archive::Tar's ``extract``), streams (de)compressed to a named file
# (IO::Uncompress::Gunzip's ``gunzip IN => OUT``), tied and DBM files, trees made or removed, temporary
# files in a named directory, a URL mirrored to a file.
_PERL_WRITING_NAMESPACES = ("Archive::", "IO::Compress::", "IO::Uncompress::", "Compress::")
_PERL_WRITING_MODULES = frozenset(
    {
        *("Tie::File", "DB_File", "SDBM_File", "GDBM_File", "NDBM_File", "ODBM_File", "AnyDBM_File"),
        *("File::Path", "File::Temp", "File::Fetch", "HTTP::Tiny", "Storable", "ExtUtils::Install"),
        *("ExtUtils::Command", "Pod::Man", "Pod::Text", "Pod::Html", "Pod::Checker", "File::Copy::Recursive"),
    }
)


def perl_module_writes(name: str) -> str | None:
    """Why naming ``name`` (a module, a function in one, a ``Module/Path.pm``) may write files the reader does not list."""
    if _perl_module_of(name, _PERL_WRITING_MODULES, _PERL_WRITING_NAMESPACES) is None:
        return None
    return f"{name} writes files the reader does not list (an archive's members, a named output)"
