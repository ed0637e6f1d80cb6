"""The course folder's layout (grader/inside/layout.py): where each part lives, what a bundle ships, what decides a grade."""

import shutil
from pathlib import Path

from conftest import ROOT, course_toml
from grader.batch.keys import course_hash
from grader.course import load_course
from grader.inside import layout


def test_every_exercise_has_its_folder_in_the_course_tree(course):
    """Does every exercise of course.toml have hidden checks and a bank in course/<id>/, and no folder there name an
    exercise course.toml lacks?"""
    assert sorted(p.name for p in (ROOT / layout.TREE).iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(course.ids)
    for exercise in course.exercises:
        assert exercise.hidden_checks == ROOT / "course" / exercise.id / "checks.py" and exercise.hidden_checks.is_file()
        assert layout.part(ROOT, exercise.id, layout.MUTANTS).is_file()


def test_a_bundle_ships_the_given_code_and_the_training_loop_alone():
    """Are the course tree's public files each exercise's given.py and ex08's training.py – never checks, hidden given
    code, the policy or a bank?"""
    public = {str(p.relative_to(ROOT)) for p in layout.public_files(ROOT)}
    assert public == {f"course/{i}/given.py" for i in ("ex05", "ex06", "ex07", "ex08", "ex10")} | {"course/ex08/training.py"}


def test_only_a_mutant_bank_is_for_the_developers():
    """Is a bank (course/<id>/mutants.py) the one file of the course folder that neither grades nor travels?"""
    assert layout.for_developers(Path("course/ex05/mutants.py"))
    for kept in ("course/ex05/checks.py", "course/ex07/given_hidden.py", "tests/mutants.py", "grader/mutants.py", "course/mutants.py"):
        assert not layout.for_developers(Path(kept)), kept


def test_a_bank_changes_no_grade_and_a_hidden_check_regrades(tmp_path):
    """Is a batch's course key the same after a mutant bank is edited, and another after a hidden check is?"""
    for part in (layout.EXERCISES, layout.SOLUTIONS, layout.TREE):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / layout.COURSE_FILE).write_text(course_toml())
    before = course_hash(load_course(tmp_path))
    with open(layout.part(tmp_path, "ex05", layout.MUTANTS), "a") as bank:
        bank.write("\n# a new mistake, one day\n")
    assert course_hash(load_course(tmp_path)) == before
    with open(layout.checks(tmp_path, "ex05"), "a") as checks:
        checks.write("\n# a changed check\n")
    assert course_hash(load_course(tmp_path)) != before


def test_without_hidden_checks_a_course_is_a_student_bundle(tmp_path):
    """Is a course folder whose tree holds only public files (a bundle) told from a TA's, which has hidden checks?"""
    assert layout.has_hidden_checks(ROOT)
    for path in layout.public_files(ROOT):
        (tmp_path / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, tmp_path / path.relative_to(ROOT))
    assert not layout.has_hidden_checks(tmp_path) and layout.given(tmp_path, "ex07", hidden=True) == [tmp_path / "course/ex07/given.py"]


def test_a_git_checkouts_history_is_guarded_as_the_references_are(tmp_path):
    """Is a TA course's git history (a checkout's .git, or the repository a worktree's .git file names) among what no
    student process may read – every version of solutions/ and the hidden checks is in it, so chmod 700 of solutions/
    and course/ alone left them readable – and a student bundle's not?"""
    repository, worktree = tmp_path / "course", tmp_path / "worktree"
    for folder in (repository, worktree):
        (folder / "course" / "ex05").mkdir(parents=True)
        (folder / "course" / "ex05" / "checks.py").write_text("")
    (repository / ".git" / "worktrees" / "worktree").mkdir(parents=True)
    (repository / ".git" / "worktrees" / "worktree" / "commondir").write_text("../..\n")
    (worktree / ".git").write_text(f"gitdir: {repository / '.git' / 'worktrees' / 'worktree'}\n")
    assert layout.guarded(repository)[2:] == [repository / ".git"]
    assert layout.guarded(worktree)[2:] == [repository / ".git"]
    (repository / "course" / "ex05" / "checks.py").unlink()
    assert layout.guarded(repository) == []


def test_two_course_folders_graded_in_one_process_each_run_their_own_checks(tmp_path):
    """pytest names a check by its path below the course folder (`course.ex01.checks`) and reuses a module of that name:
    are a second course folder's checks (here, ones that fail to import) run in a process that graded the first, rather
    than the first's under its name?"""
    from grader.grading.pipeline import Grader

    results = {}
    for name in ("intact", "broken"):
        root = tmp_path / name
        for part in (layout.EXERCISES, layout.SOLUTIONS, layout.TREE):
            shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        (root / layout.COURSE_FILE).write_text(course_toml())
        if name == "broken":
            checks = layout.checks(root, "ex01")
            checks.write_text(checks.read_text() + "\nraise ImportError('the broken course')\n")
        course = load_course(root)
        with Grader(course, [course.exercise("ex01")], "cpu") as grader:
            results[name] = grader.grade(ROOT / layout.SOLUTIONS)
    assert results["intact"].exercises[0].score == 6 and not results["intact"].internal_errors
    assert any("the broken course" in e for e in results["broken"].internal_errors), results["broken"].internal_errors
