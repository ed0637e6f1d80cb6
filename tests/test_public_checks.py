"""The public checks tell the truth: the answer sheets' keys and forms, nothing more; ex05's worked examples show every convention its statement warns about."""

import dataclasses
import importlib.util
import shutil

import pytest

from conftest import ROOT, course_toml, graded, with_answers
from grader.checks import Number
from grader.course import load_course
from mutants import named, submission

SHEETS = ("ex01", "ex02", "ex03", "ex04", "ex07", "ex08", "ex10", "ex11")


def forms_of(course, exercise_id: str) -> dict:
    """FORMS of an exercise's test_public.py: the course's own keys and the form each asks for."""
    path = course.exercise(exercise_id).stub_dir / "test_public.py"
    spec = importlib.util.spec_from_file_location(f"_public_{exercise_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FORMS


def reference_sheet(course, exercise_id: str) -> str:
    return (course.exercise(exercise_id).solution_dir / "answers.toml").read_text(encoding="utf-8")


def sheet_check(result):
    """The public check of the answer sheet."""
    [check] = [v for v in result.checks if v.visible and "answers.toml" in v.name]
    return check


def public_run(course, exercise_ids, submission, sandbox):
    public = dataclasses.replace(course, public_only=True)
    return graded(sandbox, public, [public.exercise(i) for i in exercise_ids], submission)


@pytest.mark.parametrize("exercise_id", SHEETS)
def test_forms_are_the_course_keys(course, exercise_id):
    """Do the declared forms name exactly the keys of the stub and of the reference sheet, in the stub's order?"""
    import tomllib

    exercise = course.exercise(exercise_id)
    stub = tomllib.loads((exercise.stub_dir / "answers.toml").read_text(encoding="utf-8"))
    assert list(forms_of(course, exercise_id)) == list(stub)
    assert set(tomllib.loads(reference_sheet(course, exercise_id))) == set(stub)


def test_references_pass_and_stubs_fail_only_as_unanswered(course, sandbox):
    """Does every reference pass every public check, and every stub sheet fail its sheet check only as unanswered?"""
    ids = [e.id for e in course.exercises if e.available]
    references = public_run(course, ids, ROOT / "solutions", sandbox)
    failed = [(e.id, v.name, v.feedback.en) for e in references.exercises for v in e.checks if not v.passed]
    assert failed == []
    stubs = public_run(course, SHEETS, ROOT / "exercises", sandbox)
    for exercise in stubs.exercises:
        feedback = sheet_check(exercise).feedback.en
        keys = ", ".join(forms_of(course, exercise.id))
        assert feedback == f"{course.exercise(exercise.id).folder}/answers.toml: still unanswered: {keys}"


def test_a_key_typo_made_in_place_fails_the_public_check(course, tmp_path, sandbox):
    """Editing exercises/ in place (the stub IS the sheet), does a mistyped key fail the public check, naming both keys?"""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    (tmp_path / "course.toml").write_text(course_toml())
    bundle = load_course(tmp_path)  # no hidden checks: only the public checks run, as for a student
    sheet = tmp_path / "exercises" / "ex01_cell_state" / "answers.toml"
    sheet.write_text(reference_sheet(course, "ex01").replace("c_t = 1.065", "c_tt = 1.065"), encoding="utf-8")
    result = public_run(bundle, ["ex01"], tmp_path / "exercises", sandbox).exercises[0]
    check = sheet_check(result)
    assert not check.passed
    assert "missing key(s) c_t," in check.feedback.en and "unknown key(s) c_tt" in check.feedback.en


# exercise, key, the answer as TOML, words its message must hold (the grader's own message for that form)
MALFORMED = {
    "times as x": ("ex02", "three_step_factor", '"0.9 x 0.8 x 0.5"', "the name 'x'"),
    "symbol not allowed": ("ex02", "const_gate_factor", '"F^K"', "unknown symbol 'F'"),
    "an approximation sign": ("ex02", "w_up_power", '"1.05^30 ≈ 4.32"', "could not read your answer"),
    "an index expression": ("ex11", "fwd_last_layer_index", '"h_n[2]"', "could not read your answer"),
    "unclosed bracket": ("ex01", "h_t_formula", '"o*tanh(c_t"', "never closed"),
    "too few digits": ("ex11", "sigma_1", "0.73", "asks for at least 4"),
    "too few digits, as a string": ("ex07", "bias_for_gate", '"2.2"', "asks for at least 4"),
    "choice with a bracket (ex08)": ("ex08", "equal_width_shows", '"C)"', "is not one of the options: A, B, C, D"),
    "choice with a bracket (ex10)": ("ex10", "time_vs_length", '"C)"', "is not one of the options: A, B, C, D"),
    "choice not listed": ("ex11", "choice_greff_2015", '"E"', "is not one of the options: A, B, C, D"),
    "number for a formula": ("ex04", "N_rnn", "120", "is a number"),
    "constant formula": ("ex01", "c_t_formula", '"0.8*2 + 0.25*(-0.4)"', "is a number"),
    "not a whole number": ("ex04", "gru_count", "90.5", "not a whole number"),
    "not a boolean": ("ex02", "only_decays", '"yes"', "is not true or false"),
    "not a shape": ("ex11", "output_shape", '"2x4x10"', "is not a shape"),
    "number of the wrong kind": ("ex03", "h_t", "[1.4]", "expects a number"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_answer_fails_the_public_check_naming_the_key(course, grade, name):
    """Does each malformed form fail the public sheet check with the grader's message, naming the key?"""
    exercise_id, key, value, words = MALFORMED[name]
    sheet = with_answers(reference_sheet(course, exercise_id), **{key: value})
    check = sheet_check(grade(exercise_id, {"answers.toml": sheet}))
    assert not check.passed
    [line] = [line for line in check.feedback.en.splitlines() if f"answers.toml, {key}:" in line]
    assert words in line, line


def test_every_problem_of_a_sheet_is_listed_in_one_run(course, grade):
    """Does one failing check list every bad key of a sheet: a typo, malformed forms and the unanswered?"""
    sheet = with_answers(reference_sheet(course, "ex02"), three_step_factor='"0.9 x 0.8 x 0.5"', const_gate_factor='"F^K"', bias_sim='""')
    sheet = sheet.replace("w_up_power =", "w105_k3 =")
    check = sheet_check(grade("ex02", {"answers.toml": sheet}))
    lines = check.feedback.en.splitlines()
    assert len(lines) == 4, lines
    assert "missing key(s) w_up_power," in lines[0] and "unknown key(s) w105_k3;" in lines[0]
    assert "three_step_factor:" in lines[1] and "const_gate_factor:" in lines[2]
    assert lines[3].endswith("still unanswered: bias_sim")
    assert "尚未作答：bias_sim" in check.feedback.zh


@pytest.mark.parametrize("exercise_id", SHEETS)
def test_the_digits_asked_are_enough_for_the_hidden_checks(course, grade, exercise_id):
    """Does every number, rounded to the digits its form asks for, pass the public check and earn full marks?

    So a student who gives the digits asked never loses points for rounding (a float keeps its trailing zero: 3.660e-01).
    """
    import tomllib

    exercise = course.exercise(exercise_id)
    files = {name: (exercise.solution_dir / name).read_text(encoding="utf-8") for name in exercise.student_files}
    values = tomllib.loads(files["answers.toml"])
    rounded = {key: f"{values[key]:.{form.digits - 1}e}" for key, form in forms_of(course, exercise_id).items() if isinstance(form, Number) and form.digits}
    result = grade(exercise_id, files | {"answers.toml": with_answers(files["answers.toml"], **rounded)})
    assert sheet_check(result).passed, sheet_check(result).feedback.en
    assert result.score == result.max_score, [v.feedback.en for v in result.checks if not v.passed]


def test_exact_expressions_and_trailing_zeros_pass_the_digits_asked(course, grade):
    """Is an exact expression ("sigma(1)") or 0.3660 (4 digits, typed as a float) accepted where 4 digits are asked?"""
    sheet = with_answers(reference_sheet(course, "ex02"), sigma1_power='"sigma(1)^30"', f_near_power="0.3660")
    assert sheet_check(grade("ex02", {"answers.toml": sheet})).passed


def test_form_messages_are_in_chinese_too(course, grade):
    """Does the form check speak Chinese, naming the key, as the graded check does?"""
    sheet = with_answers(reference_sheet(course, "ex11"), sigma_1="0.73")
    feedback = sheet_check(grade("ex11", {"answers.toml": sheet})).feedback.zh
    assert "sigma_1：" in feedback and "本题要求至少 4 位" in feedback


# ex05's mistakes of convention the statement warns about (course/ex05/mutants.py): each must show in the public
# worked examples, so that a student sees it before hand-in.
EX05_CONVENTIONS = (
    "lstm sigmoid on the candidate",
    "missing tanh on c in h",
    "[h, x] order",
    "coupled gates",
    "swapped GRU convention",
    "reset gate after the matmul",
    "gru sigmoid on the candidate",
    "batch reduction",
    "square U_z untransposed",
    "square U_h untransposed",
    "W instead of W.T",
)


@pytest.mark.parametrize("name", EX05_CONVENTIONS)
def test_each_ex05_convention_the_statement_warns_about_fails_a_public_check(course, tmp_path, sandbox, name):
    """Does each of ex05's named mistakes of convention (the swapped GRU update, [h, x] order, U untransposed, ...)
    fail one of ex05's public checks – its worked examples separating every convention the statement names?"""
    folder = tmp_path / course.exercise("ex05").folder
    folder.mkdir()
    for file, text in submission(named("ex05", name)).items():
        (folder / file).write_text(text, encoding="utf-8")
    [result] = public_run(course, ["ex05"], tmp_path, sandbox).exercises
    assert any(not v.passed for v in result.checks), [(v.name, v.passed) for v in result.checks]
