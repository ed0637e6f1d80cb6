"""Shared fixtures: the course, one sandbox for the whole test session, and `grade` for ad-hoc submissions; `cli` runs
`grade` in this process, `venv_with_torch` starts a venv without installing torch again."""

import contextlib
import dataclasses
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from packaging.requirements import Requirement

from grader.cli import main
from grader.course import load_course
from grader.grading.pipeline import Grader
from grader.results import ExerciseResult
from mutants import mutate, with_answers  # noqa: F401  (the test modules import them from here)

ROOT = Path(__file__).resolve().parent.parent
TERM_TABLE = re.compile(r"^\[(deadlines|late)\]")


def course_toml() -> str:
    """The repository's course.toml without the TA's term ([deadlines], [late]): what the tests build their courses on,
    so that a term set for the live course changes no test (a test of the term adds its own)."""
    kept, skipping = [], False
    for line in (ROOT / "course.toml").read_text().splitlines(keepends=True):
        if line.startswith("["):
            skipping = bool(TERM_TABLE.match(line))
        if not skipping:
            kept.append(line)
    return "".join(kept)


def pytest_addoption(parser):
    parser.addoption(
        "--update-ledger",
        action="store_true",
        help="tests/test_mutants.py: write what the mutants graded earn, check by check, into tests/mutant_ledger.toml "
        "instead of comparing (after a deliberate change to a check or a bank)",
    )


@pytest.fixture(autouse=True)
def cold_runs(monkeypatch):
    """No test's grade run leaves a warm process behind (grader.warm) unless it asks for one."""
    monkeypatch.setenv("GRADE_WARM", "0")


@pytest.fixture(scope="session")
def course():
    """The repository's course, without the TA's live term (see course_toml)."""
    return dataclasses.replace(load_course(ROOT), policy=None)


@pytest.fixture(scope="session")
def grader(course):
    """One Grader for the whole test session: its sandbox, and a check session per selection of exercises."""
    with Grader(course, list(course.exercises), "cpu") as grader:
        yield grader


@pytest.fixture(scope="session")
def sandbox(grader):
    return grader.sandbox


def graded(sandbox, course, exercises, submission: Path, *, label: str | None = None):
    """`submission` graded on `exercises` of `course` (a variant of the course, say), on a running sandbox."""
    with Grader(course, exercises, "cpu", sandbox=sandbox) as grader:
        return grader.grade(submission, label=label)


@pytest.fixture
def grade(course, grader, tmp_path):
    """grade("ex05", {"gated.py": source}) -> the ExerciseResult of a submission holding just those files."""

    def grade(exercise_id: str, files: dict[str, str]) -> ExerciseResult:
        exercise = course.exercise(exercise_id)
        folder = tmp_path / "submission" / exercise.folder
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        result = grader.grade(folder.parent, exercises=[exercise])
        assert result.internal_errors == []
        return result.exercises[0]

    return grade


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`grade ARGS` run in `cwd`, in this process (the CLI is thin; a batch grades in warm graders or Dask tasks of
    its own, and course_code keys course modules by path); an exception the CLI did not turn into an exit code is
    raised here, as a traceback would have shown."""
    with contextlib.chdir(cwd):
        done = CliRunner().invoke(main, list(args))
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return subprocess.CompletedProcess(args, done.exit_code, done.stdout, done.stderr)


def venv_with_torch(venv: Path, python: Path | str) -> Path:
    """A fresh venv of `python` that holds this test run's torch and what torch requires, hard-linked (copied across file
    systems) where its Python is ours: a `pip install torch==...` in it then finds them satisfied instead of unpacking
    and compiling 800 MB again."""
    subprocess.run([str(python), "-m", "venv", str(venv)], check=True)
    ask = "import sysconfig; print(sysconfig.get_python_version()); print(sysconfig.get_paths()['purelib'])"
    version, site = subprocess.run([venv / "bin" / "python", "-c", ask], capture_output=True, text=True, check=True).stdout.split("\n")[:2]
    if version != f"{sys.version_info.major}.{sys.version_info.minor}":
        return venv  # another ABI: pip installs torch itself
    todo, seen = ["torch"], {p.name.split("-")[0].lower() for p in Path(site).glob("*.dist-info")}  # pip's own stay
    while todo:
        name = todo.pop()
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # pip installs it
        if (key := re.sub(r"[-.]", "_", dist.name).lower()) in seen:
            continue
        seen.add(key)
        needs = [Requirement(r) for r in dist.requires or []]
        todo += [r.name for r in needs if r.marker is None or r.marker.evaluate({"extra": ""})]
        for file in dist.files or []:
            source, target = Path(dist.locate_file(file)), Path(site) / file
            if file.parts[0] == ".." or not source.is_file():  # scripts in bin/ are not needed
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
    return venv


def earned(result: ExerciseResult) -> dict[str, float]:
    """{check name: points earned} for every check that earned something: a degenerate submission must get {}."""
    return {v.name: v.earned for v in result.checks if v.earned}


def assert_named(result: ExerciseResult, diagnosis: str) -> None:
    """The submission lost points, and a failed check's feedback names `diagnosis`."""
    assert result.score < result.max_score
    failed = [v.feedback for v in result.checks if not v.passed]
    assert any(diagnosis in feedback for feedback in failed), failed


OPTION_LINE = re.compile(r"#\s+([A-D])\)\s*(.*)")
BULLET_OPTION = re.compile(r"\s+- ([A-D])\)\s*(.*)")


def sheet_choices(stub: str) -> dict[str, tuple[str, dict[str, str]]]:
    """{key: (stem, {letter: option})} of every multiple-choice question in a stub sheet's comments: the comment
    lines above `key = ""`, options as `#   A) ...` with indented continuation lines."""
    found, block = {}, []
    for line in stub.splitlines():
        if line.startswith("#"):
            block.append(line)
            continue
        key = re.fullmatch(r'(\w+) = ""', line.strip())
        stem, options, letter = [], {}, None
        for comment in block:
            option = OPTION_LINE.fullmatch(comment)
            if option:
                letter = option.group(1)
                options[letter] = option.group(2)
            elif letter and re.match(r"#\s{4,}\S", comment):
                options[letter] += " " + comment.lstrip("#").strip()
            elif not letter:
                stem.append(comment.lstrip("#").strip())
        if key and options:
            found[key.group(1)] = (" ".join(stem), {k: " ".join(v.split()) for k, v in options.items()})
        block = []
    return found


def statement_choices(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    """{key: (stem, {letter: option})} of every multiple-choice question of a statement (one language): a bullet
    "- `key` – stem" with sub-bullets "  - A) option" and indented continuation lines."""
    found, key, stem, options, letter = {}, None, [], {}, None
    for line in text.splitlines() + [""]:
        bullet = re.match(r"- `(\w+)`(.*)", line)
        option = BULLET_OPTION.fullmatch(line)
        if key and option:
            letter = option.group(1)
            options[letter] = option.group(2)
        elif key and line.startswith("    ") and letter:
            options[letter] += " " + line.strip()
        elif key and line.startswith("  ") and not letter:
            stem.append(line.strip())
        else:
            if key and options:
                found[key] = (" ".join(stem), {k: " ".join(v.split()) for k, v in options.items()})
            key, stem, options, letter = (bullet.group(1), [bullet.group(2)], {}, None) if bullet else (None, [], {}, None)
    return found


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A class graded on ex01 with ex08's rubric and written answer: ada and bob answered, cyd and dan did not
    (test_marks.graded_class); one per test module."""
    from test_marks import graded_class

    return graded_class(tmp_path_factory.mktemp("written"))


@pytest.fixture
def written_copy(written, tmp_path):
    """A copy of `written`'s course and output, for a test that marks, edits and publishes."""
    from test_marks import copied

    return copied(written, tmp_path)
