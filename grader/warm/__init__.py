"""A course folder's warm process: `grade run` answered without starting Python, torch and a sandbox again.

After a `grade run` in a student bundle (a course without hidden checks) the CLI leaves a detached server
(`grader.warm.server`) for that course folder; `grade watch` is the same server in the foreground. The next
`grade run` there (`grader.warm.client`, the `grade` entry point) sends its arguments over a unix socket in
`.grade/`, a folder of the user's alone, and prints the output and exit code the command would have given.
Where no server answers, or it steps aside (the course's own files changed since it started), the command
runs as it always did. Standard library only: the client imports this before anything heavy.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from grader.inside.layout import WARM_FOLDER

FOLDER = WARM_FOLDER  # in the course folder: the socket, its lock and the server's log
SOCKET = "server.sock"
LOCK = "lock"
LOG = "server.log"
IDLE_SECONDS = 15 * 60  # a server with no request for this long ends
SWITCH = "GRADE_WARM"  # "0": every grade run cold, and none leaves a process behind
# What the command reads from the environment as it runs (click's --student, rich's terminal): each request brings the
# client's own.
PER_CALL = ("GRADE_STUDENT", "COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
# What shaped the warm process when it started (its torch, its sandbox, its temporary files): a client whose own differ
# is refused and runs cold.
_SHARED = ("PATH", "TMPDIR")
_SHARED_PREFIXES = ("GRADE_", "PYTHON", "TORCH", "CUDA", "OMP_", "MKL_", "LD_")


def enabled() -> bool:
    """Whether grade run may use or leave a warm process (GRADE_WARM=0 says no)."""
    return os.environ.get(SWITCH, "") != "0"


def interpreter() -> str:
    """This Python as a warm process and its client must share it: its environment (a venv) and its executable."""
    return f"{sys.prefix}:{os.path.realpath(sys.executable)}"


def shared_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of `environ` that a warm process and its client must agree on."""
    return {k: v for k, v in environ.items() if k not in PER_CALL and k != SWITCH and (k in _SHARED or k.startswith(_SHARED_PREFIXES))}


def private(folder: Path) -> bool:
    """Whether `folder` is a directory (not a link to one) of this user's that no one else may enter."""
    try:
        found = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077
