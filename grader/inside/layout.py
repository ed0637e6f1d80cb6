"""Where a course folder keeps each part of the course: spelled here once, for both sides of the trust boundary.

A course folder holds `course.toml`; `exercises/<folder>/` (what students get: statement, stub, public checks);
`solutions/<folder>/` (the references, file for file); the engine `grader/`; and the course tree `course/<id>/`,
one folder per exercise id holding the rest of that exercise's material, each file named by the part it plays:
`checks.py` (the hidden checks), `given.py` (the course code the exercise's student process receives),
`given_hidden.py` (the course code only the hidden checks inject), `mutants.py` (the bank of known mistakes and
tables of built submissions, which the tests and bench/ grade; grading never reads it), and the modules an
exercise's checks share with a later exercise's, in the folder of the exercise that owns them (ex05's `policy.py`,
which ex06's checks apply too; ex08's `training.py`, which ex10's checks run too).

A student bundle ships the course tree's public files alone (`PUBLIC`), so a course folder without hidden checks
is a student bundle. Standard library only: the zygote imports this module (grader/inside may import no more).
"""

from __future__ import annotations

from pathlib import Path

COURSE_FILE = "course.toml"
EXERCISES = "exercises"
SOLUTIONS = "solutions"
TREE = "course"
ENGINE = "grader"
STUBS = "stubs.sha256"  # a student bundle's record of its stubs as handed out (grader.handout.release)
WARM_FOLDER = ".grade"  # a warm process's socket, lock and log (grader.warm)

CHECKS = "checks.py"
GIVEN = "given.py"
GIVEN_HIDDEN = "given_hidden.py"
MUTANTS = "mutants.py"
# The course tree's files a student may read, which a student bundle ships: the code a student process receives,
# and ex08's real training loop (run by the grader alone, shown so that a student reads how the real runs train).
PUBLIC = (GIVEN, "training.py")
# What decides a grade besides the submission, as paths in the course folder (the course tree but its mutant banks,
# see `for_developers`): a batch's course key hashes it, the Gradescope autograder carries it.
GRADING = (COURSE_FILE, TREE, SOLUTIONS, EXERCISES, ENGINE)


def part(root: Path, exercise_id: str, name: str) -> Path:
    """The file `name` of an exercise's folder in the course tree (`course/<id>/<name>`)."""
    return root / TREE / exercise_id / name


def root_of(path: Path) -> Path:
    """The course folder holding `path`, a file of the course tree (`course/<id>/<name>`)."""
    return path.resolve().parents[2]


def checks(root: Path, exercise_id: str) -> Path:
    """An exercise's hidden checks, named by its id; absent in a student bundle."""
    return part(root, exercise_id, CHECKS)


def all_checks(root: Path) -> list[Path]:
    """Every exercise's hidden checks that the course folder holds (none in a student bundle)."""
    return sorted((root / TREE).glob(f"*/{CHECKS}"))


def has_hidden_checks(root: Path) -> bool:
    """Whether the course folder holds hidden checks: a TA's course, not a student bundle."""
    return bool(all_checks(root))


def given(root: Path, exercise_id: str, *, hidden: bool) -> list[Path]:
    """An exercise's given code that exists: the public module, and the hidden checks' own where `hidden` (grading)."""
    found = [part(root, exercise_id, GIVEN), *([part(root, exercise_id, GIVEN_HIDDEN)] if hidden else [])]
    return [p for p in found if p.is_file()]


def public_files(root: Path) -> list[Path]:
    """The course tree's files a student bundle ships (`PUBLIC`)."""
    return sorted(p for name in PUBLIC for p in (root / TREE).glob(f"*/{name}"))


def tree_files(root: Path) -> list[Path]:
    """Every file of the course tree's exercise folders (what a warm process watches: a new one, hidden checks say,
    is a change too). Files only: a folder's time changes with a bytecode cache written in it."""
    return sorted(p for p in (root / TREE).glob("*/*") if p.is_file())


def secrets(root: Path) -> list[Path]:
    """What no student process may see: the references and the whole course tree. Its public files need no view:
    a student process is sent its given code, compiled by the grading process (grader.inside.given)."""
    return [root / SOLUTIONS, root / TREE]


def guarded(root: Path) -> list[Path]:
    """The secrets a student process here must not read: none in a student bundle, whose course tree holds public files
    alone (`grade release` keeps everything else out of it); in a git checkout, its history too, which holds every
    version of them (a worktree's `.git` is a file naming its repository's)."""
    if not has_hidden_checks(root):
        return []
    history = root / ".git"
    if history.is_file():  # "gitdir: <repository>/.git/worktrees/<name>", whose commondir is the repository's .git
        worktree = root / history.read_text(encoding="utf-8", errors="replace").removeprefix("gitdir:").strip()
        common = worktree / "commondir"
        history = worktree / common.read_text(encoding="utf-8", errors="replace").strip() if common.is_file() else worktree
    return [*secrets(root), *([history.resolve()] if history.is_dir() else [])]


def for_developers(relative: Path) -> bool:
    """Whether a file of the course folder (a path relative to it) is read by the tests and benchmarks alone: a
    mutant bank, which neither decides a grade nor travels with the autograder."""
    return len(relative.parts) == 3 and relative.parts[0] == TREE and relative.name == MUTANTS
