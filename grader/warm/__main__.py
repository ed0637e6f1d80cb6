"""`python -m grader.warm ROOT` (a request on stdin): the detached warm process of a course folder (grader.warm.server.main) running
the `grade` command of grader.cli, under the module names that command knows (its `Warm` is grader.warm.server's)."""

from grader.cli import main as grade
from grader.warm.server import main

main(grade)
