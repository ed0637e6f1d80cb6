"""The submission loader copies only the files students edit, and refuses what it must not follow."""

import os

from grader.submissions.workspace import default_submission, load_submission, looks_like_submission


def test_copies_student_files_only(course, tmp_path):
    """Are only gated.py copied – not the submission's own tests or extra files?"""
    ex05 = course.exercise("ex05")
    folder = tmp_path / ex05.folder
    folder.mkdir()
    (folder / "gated.py").write_text("# mine")
    (folder / "test_public.py").write_text("# a tampered public test")
    (folder / "notes.txt").write_text("extra")
    workspace = load_submission(tmp_path, [ex05])
    try:
        assert sorted(os.listdir(workspace.folder(ex05))) == ["gated.py"]
        assert workspace.problems == {}
    finally:
        workspace.remove()


def test_missing_symlinked_and_oversized_files_are_problems(course, tmp_path):
    """Is each refused file recorded with a message that says why?"""
    ex05 = course.exercise("ex05")
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 1")
    submission = tmp_path / "alice"
    (submission / ex05.folder).mkdir(parents=True)
    (submission / ex05.folder / "gated.py").symlink_to(secret)
    workspace = load_submission(submission, [ex05])
    try:
        assert "symbolic link" in workspace.problem(ex05, "gated.py")
        assert not (workspace.folder(ex05) / "gated.py").exists()
    finally:
        workspace.remove()

    (submission / ex05.folder / "gated.py").unlink()
    (submission / ex05.folder / "gated.py").write_bytes(b"#" * (2 << 20))
    workspace = load_submission(submission, [ex05])
    try:
        assert "limit" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()

    (submission / ex05.folder / "gated.py").unlink()
    workspace = load_submission(submission, [ex05])
    try:
        assert "missing" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()


def test_symlinked_exercise_folder_is_refused(course, tmp_path):
    """Is an exercise folder that links elsewhere (e.g. to solutions/) refused?"""
    ex05 = course.exercise("ex05")
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / ex05.folder).symlink_to(ex05.solution_dir)
    workspace = load_submission(tmp_path / "alice", [ex05])
    try:
        assert "symbolic link" in workspace.problem(ex05, "gated.py")
    finally:
        workspace.remove()


def test_default_submission(course, tmp_path):
    """Is the current folder the default when it holds exercise folders (or is one), else ./exercises?"""
    assert default_submission(tmp_path, course) == tmp_path / "exercises"
    (tmp_path / "ex05_gated_steps").mkdir()
    assert looks_like_submission(tmp_path, course)
    assert default_submission(tmp_path, course) == tmp_path
    assert default_submission(tmp_path / "ex05_gated_steps", course) == tmp_path
