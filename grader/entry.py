"""The processes `grade` starts from, the top of the house (nothing imports this module):

- `main`, the `grade` console script: a `grade run` answered by its course folder's warm process where one is there
  (grader.warm.client), else grader.cli as always. Until it knows, it imports the standard library and
  grader.location alone: a warm answer costs no import of click, rich or torch.
- `python -m grader.entry ROOT` (a request on stdin): the detached warm process of a course folder
  (grader.warm.server.main) running the `grade` command of grader.cli, under the module names that command knows
  (its `Warm` is grader.warm.server's).
"""

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


def warm_process() -> None:
    """A course folder's warm process, as grader.warm.client.leave starts it."""
    from grader.cli import main as grade
    from grader.warm.server import main as serve

    serve(grade)


if __name__ == "__main__":
    warm_process()
