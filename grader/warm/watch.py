"""`grade watch`: the checks of `grade run` again on every save, by one warm process in the foreground.

The files watched are what `grade run` reads of the submission – each student file, as the stub folder lists them
at that moment, and each place a notebook may be – polled by their stat every POLL seconds (a few dozen stat calls,
no dependency). Where the course has no hidden checks it is the folder's warm process meanwhile
(grader.warm.server): a detached one steps aside for it, and `grade run` in another terminal is answered by it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from grader.course import Course, Exercise, student_names
from grader.submissions import notebook
from grader.text import Text, shown_path
from grader.warm import enabled
from grader.warm.client import ask
from grader.warm.server import CLAIM_SECONDS, Listener, Stopped, Warm, claim, serve, stopped_by_signals

if TYPE_CHECKING:
    import click

POLL = 0.3  # seconds between looks at the files
Stat = tuple[int, int, int] | None  # mtime, size, inode; None for no file


def watch(*, course: Course, exercises: list[Exercise], submission: Path, argv: list[str], command: click.Command, report: Callable[[Text], None]) -> None:
    """Run `grade ARGV` (through `command`, grade's) now and after each save of the files of `exercises` in `submission`,
    printing what it prints, until Ctrl-C (or SIGTERM) or a change of the course's own files; the sandboxes stop with it."""
    warm = Warm(course.root, command, watching=True)
    listener: Listener | None = None
    ids, shown = ", ".join(e.id for e in exercises), shown_path(str(submission))
    watching = Text(
        f"watching your files of {ids} in {shown}: save one to check again, Ctrl-C to stop",
        f"正在监视 {shown} 中 {ids} 的文件：保存即重新检查，按 Ctrl-C 结束",
    )
    try:
        with stopped_by_signals():
            if not course.has_hidden_checks and enabled():
                listener = _take_over(course.root)
            seen = saved(exercises, submission)
            warm.run(argv, "grade")
            report(watching)

            def look() -> None:
                nonlocal seen
                now = saved(exercises, submission)
                if now != seen:
                    names = ", ".join(sorted(_shown(p, submission) for p in now.keys() | seen.keys() if now.get(p) != seen.get(p)))
                    seen = now  # a save during the check is seen at the next look
                    at = time.strftime("%H:%M:%S")
                    report(Text(f"{at} saved: {names}", f"{at} 已保存：{names}"))
                    warm.run(argv, "grade")
                    report(watching)

            why = serve(listener.socket if listener else None, warm, every=POLL, tick=look)
        changed = ", ".join(warm.stale())
        report(
            Text(f"the course's own files changed ({changed}): start grade watch again", f"课程自身的文件已更改（{changed}）：请重新运行 grade watch")
            if changed
            else Text(f"grade watch ended: {why}", f"grade watch 已结束：{why}")
        )
    except Stopped:
        pass
    finally:
        warm.close()
        if listener is not None:
            listener.close()


def saved(exercises: list[Exercise], submission: Path) -> dict[Path, Stat]:
    """What `grade run` reads of `submission` for `exercises`, as lstat gives it: each student file (as the stub folder
    lists them now) and each place a notebook may be; a zip as a whole."""
    if not submission.is_dir():
        return {submission: _stat(submission)}
    paths = [p for e in exercises for p in [*(submission / e.folder / n for n in student_names(e.stub_dir)), *notebook.places(submission, e)]]
    return {p: _stat(p) for p in paths}


def _stat(path: Path) -> Stat:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size, found.st_ino


def _shown(path: Path, submission: Path) -> str:
    return str(path.relative_to(submission)) if path.is_relative_to(submission) else str(path)


def _take_over(root: Path) -> Listener | None:
    """The folder's socket, from a detached warm process if one holds it (asked to stop: this one is as warm); None
    where another grade watch holds it (this one then answers no grade run)."""
    listener = claim(root)
    status = ask(root, "status") if listener is None else None
    if status is not None and not status.get("watch") and ask(root, "stop") is not None:
        listener = claim(root, wait=CLAIM_SECONDS)
    return listener
