"""The student's side: the release bundle (nothing that grades leaks into it, it installs and runs alone) and grade pack."""

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, course_toml, venv_with_torch
from grader import api
from grader.cli import main
from grader.course import load_course
from grader.errors import SubmissionError
from grader.inside import layout

pytestmark = pytest.mark.slow  # a fresh venv


def nontrivial_lines(paths) -> set[str]:
    lines = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if len(line) >= 25 and not line.startswith(("#", "import ", "from ", '"""')):
                lines.add(line)
    return lines


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "bundle"
    result = CliRunner().invoke(main, ["release", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_a_stub_that_earns_points_refuses_the_release(tmp_path):
    """With a reference left over ex05's stub and the reference answers over ex01's (a TA who ran grade run in the course
    folder), does the release refuse, naming both and what they earn, before it writes anything?"""
    root = tmp_path / "course"
    for part in (layout.EXERCISES, layout.SOLUTIONS, layout.TREE):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / layout.COURSE_FILE).write_text(course_toml())
    for folder, name in (("ex05_gated_steps", "gated.py"), ("ex01_cell_state", "answers.toml")):
        shutil.copy(root / layout.SOLUTIONS / folder / name, root / layout.EXERCISES / folder / name)
    with pytest.raises(SubmissionError, match=r"not released: .*ex01: 6 of 6 points .*ex05: 14 of 14 points") as refused:
        api.release(course=load_course(root), out=tmp_path / "bundle")
    assert "git checkout -- exercises/" in str(refused.value)
    assert not (tmp_path / "bundle").exists()


def test_a_hidden_check_that_does_not_import_refuses_the_release_naming_it(tmp_path):
    """With ex01's hidden checks broken (a syntax error) and its stub as shipped, does `grade release` refuse (exit 1)
    naming the check's file and its error, as the course's failure – not "stubs hold answers, put the stubs back", which
    sent the TA to a git checkout that changes nothing? (In a process of its own: pytest's importlib mode keeps the
    first course/ex01/checks.py a process imports under its name, whichever course folder asks again.)"""
    root = tmp_path / "course"
    for part in (layout.EXERCISES, layout.SOLUTIONS, layout.TREE):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    text = course_toml()
    (root / layout.COURSE_FILE).write_text(text[: text.index("[[exercises]]", text.index('id = "ex01"'))])  # ex01 alone
    with open(root / layout.TREE / "ex01" / "checks.py", "a") as f:
        f.write("\ndef broken(:\n")
    done = subprocess.run([sys.executable, "-m", "grader.cli", "release", "--out", str(tmp_path / "bundle")], cwd=root, capture_output=True, text=True)
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and "not released: the stubs could not be graded on the hidden checks" in said, done.stderr
    assert "course/ex01/checks.py" in said and "SyntaxError" in said and "git checkout" not in said and "Traceback" not in said
    assert not (tmp_path / "bundle").exists()


def test_without_a_sandbox_a_release_refuses_a_stub_that_is_its_references_copy(tmp_path, monkeypatch):
    """Where no stub code may run (root without a uid of its own), does the release still refuse a reference copied
    over ex05's stub, which only the answer sheets' grading would have missed?"""
    from grader.errors import IsolationUnavailable
    from grader.grading import pipeline

    root = tmp_path / "course"
    for part in (layout.EXERCISES, layout.SOLUTIONS, layout.TREE):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / layout.COURSE_FILE).write_text(course_toml())
    shutil.copy(root / layout.SOLUTIONS / "ex05_gated_steps" / "gated.py", root / layout.EXERCISES / "ex05_gated_steps" / "gated.py")
    grader = pipeline.Grader

    def no_code(course, exercises, *args, **kwargs):
        if any(e.runs_code for e in exercises):
            raise IsolationUnavailable("refused: student code would run as root here")
        return grader(course, exercises, *args, **kwargs)

    monkeypatch.setattr(pipeline, "Grader", no_code)
    with pytest.raises(SubmissionError, match="ex05: gated.py is its reference's copy"):
        api.release(course=load_course(root), out=tmp_path / "bundle")


def test_bundle_holds_the_student_material_only(bundle):
    """Does the bundle hold statements, stubs, public checks, the engine, the course tree's public files (the given code
    a student process receives) and a student README – no solutions, hidden checks, mutant banks, tests or examples?"""
    top = sorted(p.name for p in bundle.iterdir())
    assert top == [".gitignore", "README.md", "course", "course.toml", "exercises", "grader", "pyproject.toml", "stubs.sha256"]
    shipped = sorted(p.relative_to(bundle) for p in files(bundle / layout.TREE))
    assert shipped == [p.relative_to(ROOT) for p in layout.public_files(ROOT)] and Path("course/ex05/given.py") in shipped, shipped
    assert not layout.has_hidden_checks(bundle)
    pyproject = tomllib.loads((bundle / "pyproject.toml").read_text(encoding="utf-8"))
    assert list(pyproject["tool"]) == ["setuptools"] and "optional-dependencies" not in pyproject["project"], pyproject
    readme = (bundle / "README.md").read_text()
    assert "grade pack" in readme and "grade batch" not in readme and "solutions" not in readme


def files(root: Path):
    return [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def secret_lines() -> set[str]:
    """Every non-trivial line of solutions/ and of the course tree's secret files (the hidden checks, their given code,
    the policy and the mutant banks) that no student may see.

    References count whole, bar the lines the stubs share with them (signatures, docstrings); a line of the course
    tree is allowed where the engine or a public file of the course tree itself holds it (the check-author API's
    example, a shared signature), never a reference's line.
    """
    public = nontrivial_lines(files(ROOT / "exercises"))
    shown = [*files(ROOT / "grader"), *layout.public_files(ROOT)]
    engine = "\n".join(p.read_text(encoding="utf-8") for p in shown if p.suffix == ".py")
    secret = nontrivial_lines(files(ROOT / "solutions")) - public
    hidden = nontrivial_lines([p for p in files(ROOT / layout.TREE) if p not in layout.public_files(ROOT)]) - public
    return secret | {line for line in hidden if line not in engine}


def test_no_line_of_a_reference_or_hidden_check_reaches_the_bundle(bundle):
    """Is every non-trivial line of solutions/ and the course tree's secret files absent from the bundle (bar the stubs' own)?"""
    secret = secret_lines()
    assert secret, "the scan found nothing to look for"
    leaks = []
    for path in bundle.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            leaks += [f"{path.relative_to(bundle)}: {line}" for line in secret if line in text]
    assert not leaks, leaks[:10]


def test_bundle_installs_and_runs_public_checks_alone(bundle, tmp_path):
    """Installed into a fresh venv (the student's base install: no TA or test packages), does `grade run ex05` in the
    bundle run the public checks and say what is graded at hand-in?"""
    venv = venv_with_torch(tmp_path / "venv", sys.executable)
    install = subprocess.run([venv / "bin" / "pip", "install", "-q", "torch==2.13.0", str(bundle)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    installed = subprocess.run([venv / "bin" / "pip", "list", "--format=freeze"], capture_output=True, text=True).stdout
    names = {line.split("==")[0].lower() for line in installed.splitlines()}
    assert not names & {"nbgrader", "distributed", "hypothesis", "jupyterlab", "notebook"}, sorted(names)
    work = tmp_path / "work"
    subprocess.run(["cp", "-r", str(bundle), str(work)], check=True)
    run = subprocess.run(
        [venv / "bin" / "grade", "run", "ex05"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "COLUMNS": "200", "GRADE_WARM": "0"},  # cold, and no warm process left
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "14 points are graded at hand-in" in run.stdout and "NotImplementedError" in run.stdout
    helped = subprocess.run([venv / "bin" / "grade", "--help"], cwd=work, capture_output=True, text=True)
    assert "pack" in helped.stdout and "status" in helped.stdout
    assert not any(f"  {c} " in helped.stdout for c in ("batch", "check", "release")), helped.stdout


def test_grade_status_in_the_installed_bundle_tells_edited_stubs_from_untouched_ones(bundle, tmp_path):
    """Installed into a fresh venv, with the student editing the bundle's exercises/ in place, does `grade status` say
    "not started" for an untouched ex05, "in progress" for one whose public checks fail and "public checks pass" for
    one whose checks pass – never "not started" for edited files, compared with themselves?"""
    venv = venv_with_torch(tmp_path / "venv", sys.executable)
    install = subprocess.run([venv / "bin" / "pip", "install", "-q", "torch==2.13.0", str(bundle)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    work = tmp_path / "work"
    subprocess.run(["cp", "-r", str(bundle), str(work)], check=True)
    gated = work / "exercises" / "ex05_gated_steps" / "gated.py"
    reference = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")

    def ex05_state() -> str:
        shown = subprocess.run(
            [venv / "bin" / "grade", "status"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
            env={"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "COLUMNS": "200"},
        )
        assert shown.returncode == 0, shown.stdout + shown.stderr
        [line] = [line for line in shown.stdout.splitlines() if line.startswith("ex05 ")]
        return line.split("ex05_gated_steps", 1)[1].strip()

    assert ex05_state() == "not started"
    gated.write_text(reference.replace("h_new = z * h + (1.0 - z) * candidate", "h_new = (1.0 - z) * h + z * candidate"), encoding="utf-8")
    assert ex05_state() == "in progress"  # the swapped convention fails the public worked example
    gated.write_text(reference, encoding="utf-8")
    assert ex05_state() == "public checks pass"


def test_pack_zips_exactly_the_edited_files_and_batch_accepts_it(tmp_path):
    """Does grade pack zip the student files in their folders – the written answers too, never the rubric – and does
    that zip grade like the folder?"""
    out = tmp_path / "handin.zip"
    result = CliRunner().invoke(main, ["pack", "-s", str(ROOT / "solutions"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    names = sorted(zipfile.ZipFile(out).namelist())
    assert "ex05_gated_steps/gated.py" in names and "ex01_cell_state/answers.toml" in names
    assert not any(n.endswith(("README.md", "test_public.py", "rubric.toml")) for n in names)
    assert {"ex08_delayed_copy/interpretation.md", "ex10_length_sweep/interpretation.md"} <= set(names)  # the written answers
    graded = CliRunner().invoke(main, ["run", "ex05", "-s", str(out), "--json"])
    assert graded.exit_code == 0 and '"score": 14' in graded.output


def test_pack_refuses_what_grading_would_refuse(tmp_path):
    """Is a symbolic link or an oversized file refused by grade pack, naming the file, with nothing written?"""
    folder = tmp_path / "mine" / "ex05_gated_steps"
    folder.mkdir(parents=True)
    (folder / "gated.py").symlink_to(ROOT / "solutions" / "ex05_gated_steps" / "gated.py")
    result = CliRunner().invoke(main, ["pack", "-s", str(tmp_path / "mine"), "--out", str(tmp_path / "h.zip")])
    assert result.exit_code == 2 and "ex05_gated_steps/gated.py is (or is in) a symbolic link" in result.output
    assert not (tmp_path / "h.zip").exists()


def test_the_student_readme_is_in_both_languages():
    """Does the student README say everything twice, in English and then in Chinese: the same sections, the same
    commands, and the same commands, options, keys and files named in its text?"""
    text = (ROOT / "grader" / "handout" / "STUDENT_README.md").read_text(encoding="utf-8")
    english, chinese = text.split("\n## 中文\n", 1)
    assert re.search(r"[\u4e00-\u9fff]", chinese) and not re.search(r"[\u4e00-\u9fff]", english.split("\n", 3)[-1])
    sections = [len(re.findall(r"^## ", part, re.MULTILINE)) for part in (english, chinese)]
    blocks = [re.findall(r"```bash\n(.*?)```", part, re.DOTALL) for part in (english, chinese)]
    assert sections[0] == sections[1] and blocks[0] == blocks[1] and blocks[0]
    named = [set(re.findall(r"`([^`\n]+)`", part)) for part in (english, chinese)]
    assert named[0] == named[1], (named[0] - named[1], named[1] - named[0])


def test_a_file_a_student_adds_beside_a_stub_is_neither_run_nor_packed(bundle, tmp_path, monkeypatch):
    """In a student bundle, is a helper module or a note that the student adds beside a stub left out as the course
    staff's grading leaves it out – the public checks report the failed import grading would, grade pack packs the
    stubs' files alone and grade status counts an untouched exercise as not started?"""
    work = tmp_path / "work"
    subprocess.run(["cp", "-r", str(bundle), str(work)], check=True)
    folder = work / "exercises" / "ex05_gated_steps"
    (folder / "helpers.py").write_text("import torch\n\nsigmoid = torch.sigmoid\n", encoding="utf-8")
    reference = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")
    (folder / "gated.py").write_text("from helpers import sigmoid  # noqa\n" + reference, encoding="utf-8")
    (work / "exercises" / "ex01_cell_state" / "notes.txt").write_text("to do\n", encoding="utf-8")
    monkeypatch.chdir(work)
    monkeypatch.setenv("GRADE_WARM", "0")
    run = CliRunner().invoke(main, ["run", "ex05", "--json"])
    assert run.exit_code == 0, run.output
    assert all("No module named 'helpers'" in t["output"] for t in json.loads(run.output)["tests"]), run.output
    packed = CliRunner().invoke(main, ["pack", "--out", str(tmp_path / "h.zip")])
    assert packed.exit_code == 0, packed.output
    names = zipfile.ZipFile(tmp_path / "h.zip").namelist()
    assert "ex05_gated_steps/gated.py" in names and not any(n.endswith(("helpers.py", "notes.txt")) for n in names), names
    shown = CliRunner().invoke(main, ["status"], env={"COLUMNS": "200"})
    [line] = [line for line in shown.output.splitlines() if line.startswith("ex01 ")]
    assert line.split("ex01_cell_state", 1)[1].strip() == "not started", shown.output


def test_pack_hands_in_a_notebook_where_grading_reads_one(tmp_path):
    """Is an exercise's notebook packed where grading reads it from (it is the exercise's work then), so that the zip
    grades as the folder does, and counted by grade status – and are two notebooks for one exercise refused, naming both?"""
    import nbformat

    folder = tmp_path / "mine" / "ex05_gated_steps"
    folder.mkdir(parents=True)
    (folder / "gated.py").write_text((ROOT / "exercises" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8"), encoding="utf-8")
    reference = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(reference)]), folder / "ex05.ipynb")
    out = tmp_path / "handin.zip"
    result = CliRunner().invoke(main, ["pack", "-s", str(tmp_path / "mine"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(zipfile.ZipFile(out).namelist()) == ["ex05_gated_steps/ex05.ipynb", "ex05_gated_steps/gated.py"]
    for graded in (tmp_path / "mine", out):
        run = CliRunner().invoke(main, ["run", "ex05", "-s", str(graded), "--json"])
        assert run.exit_code == 0 and json.loads(run.output)["score"] == 14, run.output
    shown = CliRunner().invoke(main, ["status", "-s", str(tmp_path / "mine")], env={"COLUMNS": "200"})
    assert "ex05  ex05_gated_steps         public checks pass" in shown.output, shown.output  # its stub beside it: not "not started"
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "mine" / "ex05.ipynb")
    result = CliRunner().invoke(main, ["pack", "-s", str(tmp_path / "mine"), "--out", str(tmp_path / "h.zip")])
    assert result.exit_code == 2 and "ex05_gated_steps/ex05.ipynb and ex05.ipynb are both notebooks for ex05" in result.output
    assert not (tmp_path / "h.zip").exists()
