"""Running the suite's processes: Python command lines through a fork server, socket servers in threads, scratch removal.

Everything that starts or serves something for a run lives here: the commands of the suite's own
Python processes (the reference harness, the MCP tool server, hook programs), the fork server that
starts them quickly, the thread that serves a socket server, and the removal of scratch directories.
"""

from __future__ import annotations

from pytest_toolharness.processes._launch import (
    FORK_SERVER_ENV,
    HOOK_PYTHON,
    SOCKET_ENV,
    fork_server_running,
    prestart_fork_server,
    python_interpreter_command,
    python_module_command,
    release_prestarted_fork_server,
    share_fork_server,
)
from pytest_toolharness.processes._scratch import (
    defer_removal_under,
    remove_at_exit,
    remove_in_background,
    remove_tree,
)
from pytest_toolharness.processes._serving import ServingThread

__all__ = [
    "FORK_SERVER_ENV",
    "HOOK_PYTHON",
    "SOCKET_ENV",
    "ServingThread",
    "defer_removal_under",
    "fork_server_running",
    "prestart_fork_server",
    "python_interpreter_command",
    "python_module_command",
    "release_prestarted_fork_server",
    "remove_at_exit",
    "remove_in_background",
    "remove_tree",
    "share_fork_server",
]
