"""The `grade` entry point: a `grade run` answered by its course folder's warm process where one is there
(grader.warm.client), else grader.cli as always. Until it knows, it imports the standard library and grader.location
alone: a warm answer costs no import of click, rich or torch."""

from __future__ import annotations

import sys

from grader.warm.client import answered


def main() -> None:
    """`grade ...`: answered warm where it can be, else by grader.cli."""
    code = answered(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from grader.cli import main as cold

    cold()
