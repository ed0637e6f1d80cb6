"""Per-student numbers (grader/variants.py): declared beside the statement, drawn reproducibly, answered by the hidden
checks' `expected` and `mistakes` computed from them."""

import json
import math
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ROOT, course_toml
from grader.checks import course_code
from grader.course import CourseError, load_course
from grader.grading.numbers import copied_from, reference_sheet
from grader.grading.pipeline import Grader
from grader.variants import Settings, draw, variant_of

COURSE = load_course(ROOT)
DECLARED = [e for e in COURSE.exercises if e.variant is not None]
ON = Settings(enabled=True, salt="test-salt")


def hidden(exercise):
    return course_code(exercise.hidden_checks)


def test_numeric_exercises_declare_their_numbers():
    """Does every exercise with numeric questions declare its parameters beside its statement?"""
    assert {e.id for e in DECLARED} >= {"ex01", "ex02", "ex03", "ex04", "ex07", "ex11"}


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_variant_file_is_not_a_student_file(exercise):
    """Is variant.toml course material, not a file the student edits, packs or hands in?"""
    assert "variant.toml" not in exercise.student_files


def test_the_sources_numbers_give_todays_answers():
    """Do the worked examples' numbers (the sources' own) give the answers the course had before variants?"""
    printed = {
        "ex01": {"c_t": 1.5, "h_t": 0.5 * math.tanh(1.5)},
        "ex03": {"h_t": 1.4, "direct_factor": 0.75, "h_t_other_convention": 0.2},
        "ex07": {"bias_for_gate": math.log(9), "retain_power": 0.9**20},
        "ex11": {"q2_gru": 246528, "q2_lstm": 328704, "output_shape": [2, 4, 10], "h_n_shape": [4, 2, 5]},
        "ex02": {
            "three_step_factor": 0.36,
            "w_up_power": 1.05**30,
            "w_down_power": 0.95**100,
            "sigma1_power": (1 / (1 + math.exp(-1))) ** 30,
            "f_near_power": 0.99**100,
            "ratio_bias1_bias0": (2 / (1 + math.exp(-1))) ** 30,
            "preact_value": math.log(1000),
            "bias_sim": (1 / (1 + math.exp(-2))) ** 10,
        },
        "ex04": {"gru_count": 120, "lstm_count": 82432, "lstm_count_torch": 82944, "grucell_count_torch": 150, "lstm_stack_count_torch": 1080},
    }
    for exercise_id, answers in printed.items():
        exercise = COURSE.exercise(exercise_id)
        got = hidden(exercise).expected(exercise.variant.example())
        assert got.keys() >= answers.keys()
        for key, value in answers.items():
            assert got[key] == value if isinstance(value, list) else math.isclose(got[key], value, rel_tol=1e-12), (exercise_id, key, got[key])


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_the_statement_asks_about_numbers_of_its_own(exercise):
    """Does the question ask about other numbers than the worked example (the sources' printed ones)?"""
    declared = exercise.variant
    assert declared.default() != declared.example()
    assert hidden(exercise).expected(declared.default()) != hidden(exercise).expected(declared.example())


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_reference_sheet_holds_the_statements_answers(exercise):
    """Are the numbers in solutions/<folder>/answers.toml the answers for the statement's own numbers?"""
    import tomllib

    sheet = tomllib.loads((exercise.solution_dir / "answers.toml").read_text(encoding="utf-8"))
    for key, value in hidden(exercise).expected(exercise.variant.default()).items():
        if isinstance(value, list):
            assert sheet[key] == value, key
        else:
            assert math.isclose(float(sheet[key]), value, rel_tol=1e-9), (key, sheet[key], value)


def test_draws_are_reproducible():
    """Do a fixed salt, id and variant number give these very numbers (a change of Python or platform would show)?"""
    ex01 = COURSE.exercise("ex01").variant
    assert draw(ex01, salt="test-salt", student="alice", number=0) == {"f": 0.95, "c_prev": 1.06, "i": 0.42, "g": -0.32, "o": 0.34}
    assert draw(ex01, salt="test-salt", student="alice", number=1) != draw(ex01, salt="test-salt", student="alice", number=0)


def test_a_stack_never_draws_d_x_twice_d_h():
    """Does student18, whose ex04 stack drew d_x = 6, d_h = 3 before (where "d_x used for every layer" gives the right
    count), now draw other sizes – and does an excluded pair of values make the draw try again?"""
    ex04 = COURSE.exercise("ex04").variant
    drawn = draw(ex04, salt="test-salt", student="student18", number=0)
    assert (drawn["stack_d_x"], drawn["stack_d_h"]) == (5, 7)
    assert not ex04.accepts(drawn | {"stack_d_x": 8, "stack_d_h": 5}) and ex04.accepts(drawn | {"stack_d_x": 9, "stack_d_h": 5})


def test_an_exclusion_naming_no_parameter_is_an_error(tmp_path):
    """Is an `exclude` entry that names an unknown parameter, or holds no number, an error naming the file?"""
    from grader.variants import declaration

    text = (COURSE.exercise("ex04").stub_dir / "variant.toml").read_text()
    for bad in ("{stack_d_x = 4, stack_size = 6}", '{stack_d_x = "4"}', "{}"):
        (tmp_path / "variant.toml").write_text(text.replace("{stack_d_x = 4, stack_d_h = 6}", bad))
        with pytest.raises(CourseError, match="variant.toml: exclude must be"):
            declaration(tmp_path, "ex04")
    (tmp_path / "variant.toml").write_text(text.replace("{stack_d_x = 4, stack_d_h = 6}", "{stack_d_x = 5, stack_d_h = 8}"))
    with pytest.raises(CourseError, match="default values break a distinct group or are excluded"):
        declaration(tmp_path, "ex04")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("range = [0.70, 0.95]", "range = [0.70, inf]"),
        ("range = [0.70, 0.95]", "range = [-1e308, 1e308]"),
        ("step = 0.01", "step = 5e-324"),
        ("step = 0.01", "step = inf"),
        ("example = 0.8", "example = nan"),
        ('distinct = [["f", "i", "o"]]', 'distinct = [[["f"], "i"]]'),
    ],
)
def test_a_number_no_draw_can_use_is_an_error_naming_the_file(tmp_path, old, new):
    """Is a declaration whose range, step or example is infinite or NaN, whose range no float counts in steps, or whose
    distinct group holds something other than a name, a course error naming the file and parameter (not an
    OverflowError or TypeError from every command that loads the course, or from the draw)?"""
    from grader.variants import declaration

    text = (COURSE.exercise("ex01").stub_dir / "variant.toml").read_text()
    assert old in text
    (tmp_path / "variant.toml").write_text(text.replace(old, new, 1))
    with pytest.raises(CourseError, match=r"ex01: variant.toml(, params.f: .*finite|: distinct must be)"):
        declaration(tmp_path, "ex01")


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_two_students_have_different_numbers(exercise):
    """Do two students get different numbers, and a student without an id (or variants off) the statement's?"""
    alice, bob = (variant_of(ON, exercise.variant, s) for s in ("alice", "bob"))
    assert alice.params != bob.params
    assert variant_of(ON, exercise.variant, None).params == exercise.variant.default()
    assert variant_of(Settings(), exercise.variant, "alice").params == exercise.variant.default()


@pytest.mark.slow  # 5,000 draws an exercise: 3 to 5 s in all
@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_every_variant_keeps_its_answers_apart(exercise):
    """For 5,000 students (a mistake that meets the key at 1 draw in 200 shows), is every named mistake more than three
    tolerances from the right answer (a count: not equal to it), and every right answer finite and non-zero, so that no
    answer within tolerance of one is also within tolerance of the other?"""
    module = hidden(exercise)
    for n in range(5000):
        params = variant_of(ON, exercise.variant, f"student{n}").params
        right, wrong = module.expected(params), module.mistakes(params)
        for key, value in right.items():
            if isinstance(value, list):  # a shape is judged exactly
                assert all(list(mistake) != value for mistake in wrong.get(key, {})), (params, key)
                continue
            assert math.isfinite(value) and value != 0, (params, key)
            rtol = module.ANSWERS.rtol.get(key)  # a key with a wider tolerance of its own: outside it
            for mistake in wrong.get(key, {}):
                if isinstance(value, int):  # a count is judged exactly
                    assert mistake != value, (params, key, mistake)
                else:
                    assert abs(mistake - value) > (rtol or 3 * COURSE.rtol) * abs(value), (params, key, mistake)


def test_checks_without_their_answers_are_a_course_error(monkeypatch):
    """Does an exercise whose checks do not declare its numbers' answers as ANSWERS (an expected() and mistakes()
    alone, or an ANSWERS that is no Answers record) give a course error naming the file and what to declare?"""
    from types import SimpleNamespace

    from grader.grading import numbers

    exercise, module = COURSE.exercise("ex03"), hidden(COURSE.exercise("ex03"))
    assert numbers.answers_of(exercise) is module.ANSWERS
    for declared in ({}, {"ANSWERS": {"expected": module.expected, "mistakes": module.mistakes}}):
        monkeypatch.setattr(numbers.course_modules, "load", lambda path, d=declared: SimpleNamespace(expected=module.expected, mistakes=module.mistakes, **d))
        with pytest.raises(CourseError, match=r"course/ex03/checks.py must declare ANSWERS = Answers\(expected, mistakes\)"):
            numbers.answers_of(exercise)


def test_variants_table_is_validated(tmp_path):
    """Is an unknown key in [variants], variants enabled without a salt, or one student reseeded twice in other capitals
    (their variant number was whichever line came first), an error naming it?"""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    text = course_toml()
    (tmp_path / "course.toml").write_text(text.replace("enabled = false", "enabled = false\nsalty = 1"))
    with pytest.raises(CourseError, match="unknown key.*salty"):
        load_course(tmp_path)
    (tmp_path / "course.toml").write_text(text.replace("enabled = false", "enabled = true"))
    with pytest.raises(CourseError, match="salt"):
        load_course(tmp_path)
    (tmp_path / "course.toml").write_text(text + '\n[variants.reseed]\nalice = 1\n" ALICE" = 2\n')
    with pytest.raises(CourseError, match=r"\[variants\]\.reseed: 'alice' and ' ALICE' are one student"):
        load_course(tmp_path)


# -- grading with a student's numbers -------------------------------------------------------------------------------

VARIANTS_ON = replace(COURSE, variants=ON)


def grade_sheet(tmp_path, exercise, sheet: str, student: str | None, classmates=(), *, sandbox=None):
    """`sheet` (and the reference's code files) graded as `student`'s hand-in of `exercise`, with variants on, and its
    numbers judged against `classmates` as a batch judges them when it publishes."""
    folder = tmp_path / f"{student}-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(exercise.solution_dir, folder / exercise.folder)
    (folder / exercise.folder / "answers.toml").write_text(sheet, encoding="utf-8")
    with Grader(VARIANTS_ON, [exercise], "cpu", sandbox=sandbox) as grader:
        result = grader.grade(folder, student=student)
    assert result.internal_errors == []
    return replace(result, copied_from=copied_from(VARIANTS_ON, [exercise], result.answered, student, tuple(classmates)))


def sheet_of(exercise, student: str) -> str:
    return reference_sheet(exercise, variant_of(ON, exercise.variant, student).params)


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
@pytest.mark.slow
def test_own_answers_score_full_and_anothers_less(tmp_path, exercise, sandbox):
    """Does alice's right sheet earn full marks for alice, and less for bob (whose numbers differ)?"""
    alice = sheet_of(exercise, "alice")
    mine = grade_sheet(tmp_path, exercise, alice, "alice", sandbox=sandbox)
    assert mine.score == mine.max_score, [v.feedback.en for e in mine.exercises for v in e.checks if not v.passed]
    assert mine.variants == {exercise.id: 0} and mine.student == "alice"
    theirs = grade_sheet(tmp_path, exercise, alice, "bob", sandbox=sandbox)
    assert theirs.score < theirs.max_score


@pytest.mark.parametrize("exercise", DECLARED, ids=lambda e: e.id)
def test_a_copied_sheet_is_flagged(tmp_path, exercise, sandbox):
    """Is bob's hand-in holding alice's right answers named as answers of alice's variant (and alice's own not)?"""
    class_ = ["alice", "bob", "carol"]
    copied = grade_sheet(tmp_path, exercise, sheet_of(exercise, "alice"), "bob", class_, sandbox=sandbox)
    assert copied.copied_from == {exercise.id: "alice"}
    own = grade_sheet(tmp_path, exercise, sheet_of(exercise, "alice"), "alice", class_, sandbox=sandbox)
    assert own.copied_from == {}


def test_an_id_gets_the_same_numbers_however_it_is_typed():
    """Do `Alice`, ` alice `, `ALICE` and josé in NFD get the numbers of `alice` and NFC josé (and their reseed)?"""
    reseeded = replace(ON, reseed={"Alice": 1})
    for exercise in DECLARED:
        for typed, plain in (("Alice", "alice"), (" alice ", "alice"), ("ALICE", "alice"), ("jose\u0301", "jos\u00e9")):
            assert variant_of(ON, exercise.variant, typed).params == variant_of(ON, exercise.variant, plain).params
        assert reseeded.number("alice") == reseeded.number(" ALICE") == 1


def test_the_statements_numbers_are_no_classmates_answers(tmp_path, sandbox):
    """Is a student who answered the statement's numbers (having forgotten their id) never named as holding the
    answers of a classmate whose numbers happen to give some of the same answers?"""
    exercise = COURSE.exercise("ex02")
    module = hidden(exercise)
    statement = module.expected(exercise.variant.default())

    def shared(who):  # how many of the statement's answers are right for `who` too
        right = module.expected(variant_of(ON, exercise.variant, who).params)
        return sum(math.isclose(right[k], v, rel_tol=COURSE.rtol) for k, v in statement.items())

    twin = next(f"s{n}" for n in range(2000) if shared(f"s{n}") >= 2)  # about one student in eleven (ex02's k_short)
    answered = grade_sheet(tmp_path, exercise, (exercise.solution_dir / "answers.toml").read_text(), "honest", ["honest", twin, "alice"], sandbox=sandbox)
    assert answered.copied_from == {}


def test_a_reseed_is_written_once_per_student_whatever_their_id_holds():
    """Is a second reseed of an id holding `=`, quotes or capitals written over its first (course.toml still loads)?"""
    import tomllib

    from grader.variants import with_reseed

    text = '[variants]\nenabled = true\nsalt = "s"\n'
    for student in ("a=b", 'q"uote', "Alice"):
        text = with_reseed(text, student, 1)
        text = with_reseed(text, student.lower() if student == "Alice" else student, 2)
    reseed = tomllib.loads(text)["variants"]["reseed"]
    assert reseed == {"a=b": 2, 'q"uote': 2, "alice": 2}, reseed


def test_a_reseed_of_an_id_holding_a_line_separator_is_written_over_its_first():
    """Is a second reseed of an id holding U+2028 or NEL (line ends to Python, not to TOML) written over its first,
    and course.toml's own lines holding them kept as they are?"""
    import tomllib

    from grader.variants import with_reseed

    text = '[variants]  # the TA\u2028s note\nenabled = true\nsalt = "s\x85"\n'
    for student in ("a\u2028b", "c\x85d", "e\u2029f"):
        text = with_reseed(text, student, 1)
        text = with_reseed(text, student, 2)
    variants = tomllib.loads(text)["variants"]
    assert variants["reseed"] == {"a\u2028b": 2, "c\x85d": 2, "e\u2029f": 2} and variants["salt"] == "s\x85", variants


@pytest.mark.parametrize("student", ["", "  ", "bob\udcff"])
def test_a_reseed_of_no_id_or_one_no_file_can_hold_is_refused_before_the_audit(variant_course, tmp_path, student):
    """Is a reseed of an empty id, or of one that is no text (a byte of a non-UTF-8 command line), refused saying why,
    with neither an audit row nor a change to course.toml?"""
    before = (variant_course / "course.toml").read_bytes()
    from grader import api

    with pytest.raises(CourseError, match="grade reseed: "):
        api.reseed(course=load_course(variant_course), out=tmp_path / "out", student=student, reason="sheet shared in a chat")
    assert (variant_course / "course.toml").read_bytes() == before and not (tmp_path / "out").exists()


def test_a_reseed_changes_one_student_only():
    """Does a new variant number for alice change her numbers, and nobody else's?"""
    reseeded = replace(ON, reseed={"alice": 1})
    for exercise in DECLARED:
        assert variant_of(reseeded, exercise.variant, "alice").params != variant_of(ON, exercise.variant, "alice").params
        for other in ("bob", "carol", "alice2"):
            assert variant_of(reseeded, exercise.variant, other) == variant_of(ON, exercise.variant, other)


@pytest.fixture
def course_with_variants(tmp_path, monkeypatch):
    """A copy of the course's statements with [variants] on, as the working directory."""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    text = course_toml().replace('enabled = false\nsalt = ""', 'enabled = true\nsalt = "test-salt"')
    (tmp_path / "course.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADE_STUDENT", raising=False)
    return tmp_path


def show(*args, env=None):
    from click.testing import CliRunner

    from grader.cli import main

    result = CliRunner().invoke(main, ["show", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_two_students_grade_show_differs(course_with_variants):
    """Do alice and bob see different numbers in `grade show --json`, named as the statement names them, and the
    same ones again (from --student or GRADE_STUDENT)?"""
    alice = json.loads(show("ex01", "--student", "alice", "--json"))
    bob = json.loads(show("ex01", "--json", env={"GRADE_STUDENT": "bob"}))
    assert alice["params"] != bob["params"]
    assert set(alice["params"]) == {"f", "c_prev", "i", "g", "o"}
    assert alice == {
        "exercise": "ex01",
        "student": "alice",
        "variant": 0,
        "params": draw(COURSE.exercise("ex01").variant, salt="test-salt", student="alice", number=0),
    }
    assert "f = " in show("ex01", "--student", "alice") and "alice" in show("ex01", "--student", "alice")


def test_grade_show_without_an_id_says_whose_numbers(course_with_variants):
    """Without an id, does `grade show` print the statement's numbers and say so?"""
    out = show("ex01")
    assert "no student id" in out and "f = 0.75" in out


# -- a class ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def variant_course(tmp_path):
    """A copy of the course on disk with [variants] on (batch workers load the course from its folder)."""
    root = tmp_path / "course"
    for part in ("exercises", "solutions", "course"):
        shutil.copytree(ROOT / part, root / part)
    text = course_toml().replace('enabled = false\nsalt = ""', 'enabled = true\nsalt = "test-salt"')
    (root / "course.toml").write_text(text)
    return root


def hand_in(klass, student: str, sheets: dict) -> None:
    for exercise, sheet in sheets.items():
        (klass / student / exercise.folder).mkdir(parents=True, exist_ok=True)
        (klass / student / exercise.folder / "answers.toml").write_text(sheet)


@pytest.mark.slow
def test_a_sheet_copied_from_a_later_hand_in_is_named_when_that_classmate_arrives(variant_course, tmp_path):
    """When bob copies alice's numbers and hands in before her, is his sheet named as answers of alice's variant in the
    run that first holds alice's hand-in, without regrading bob (his journal key is his own work, not the class)?"""
    from grader import api

    course = load_course(variant_course)
    exercises = [course.exercise("ex01"), course.exercise("ex03")]  # answer sheets only: no student process
    klass, out = tmp_path / "class", tmp_path / "out"
    hand_in(klass, "bob", {e: sheet_of(e, "alice") for e in exercises})
    hand_in(klass, "carol", {e: sheet_of(e, "carol") for e in exercises})
    first = api.batch(course=course, exercises=exercises, submissions=klass, out=out, workers=1, strict=False)
    assert first.graded == 2 and json.loads((out / "summary.json").read_text())["answers_of_other_variants"] == []
    hand_in(klass, "alice", {e: sheet_of(e, "alice") for e in exercises})
    second = api.batch(course=course, exercises=exercises, submissions=klass, out=out, workers=1, strict=False)
    assert second.graded == 1 and second.skipped == 2  # alice alone is graded
    summary = json.loads((out / "summary.json").read_text())
    assert summary["answers_of_other_variants"] == [{"student": "bob", "exercise": e.id, "variant_of": "alice"} for e in exercises]


@pytest.mark.slow
def test_a_class_with_a_copied_sheet_and_a_reseed(variant_course, tmp_path):
    """In a batch, does each student score on their own numbers (the entry's name is the id), bob's copy of alice's
    sheet show in the summary as answers of alice's variant, dave's zip packed under alice's id show too, the journal
    keep each student's variant, and a reseed of carol regrade carol alone (her old answers now wrong), audited with
    its reason?"""
    import csv

    from grader import api
    from grader.store import audit
    from grader.store.journal import Journal

    course = load_course(variant_course)
    exercises = [course.exercise("ex01"), course.exercise("ex03")]  # answer sheets only: no student process
    klass, out = tmp_path / "class", tmp_path / "out"
    for student in ("alice", "carol"):
        hand_in(klass, student, {e: sheet_of(e, student) for e in exercises})
    hand_in(klass, "bob", {e: sheet_of(e, "alice") for e in exercises})
    hand_in(tmp_path / "dave-work", "dave", {e: sheet_of(e, "dave") for e in exercises})
    assert api.pack(course=course, submission=tmp_path / "dave-work" / "dave", out=klass / "dave.zip", student="alice")
    run = api.batch(course=course, exercises=exercises, submissions=klass, out=out, workers=1, strict=False)
    assert run.graded == 4
    totals = {row["student"]: float(row["total"]) for row in csv.DictReader((out / "grades.csv").open())}
    assert totals["alice"] == totals["carol"] == 12 and totals["bob"] < 12
    summary = json.loads((out / "summary.json").read_text())
    assert summary["answers_of_other_variants"] == [{"student": "bob", "exercise": e.id, "variant_of": "alice"} for e in exercises]
    assert summary["packed_as_another_student"] == [{"student": "dave", "packed_as": "alice"}]
    assert "answers of alice's variant" in (out / "summary.md").read_text()
    journal = Journal(out)
    assert {r.student: r.result.variants for r in journal.rows(["alice", "bob", "carol"])} == {s: {"ex01": 0, "ex03": 0} for s in ("alice", "bob", "carol")}
    journal.close()

    number, again = api.reseed(course=course, out=out, student="carol", reason="sheet shared in a chat", submissions=klass, workers=1, strict=False)
    assert number == 1 and again.graded == 1 and again.skipped == 3
    totals = {row["student"]: float(row["total"]) for row in csv.DictReader((out / "grades.csv").open())}
    assert totals["alice"] == 12 and totals["carol"] < 12
    reseeded = load_course(variant_course)
    assert reseeded.variants.reseed == {"carol": 1}
    journal = Journal(out)
    [entry] = [e for e in audit.history(journal) if e.cause == "reseed"]
    assert (entry.student, entry.old, entry.new, entry.reason) == ("carol", 0, 1, "sheet shared in a chat")
    regrades = [e for e in audit.history(journal) if e.cause == "regrade"]
    assert regrades and all(e.student == "carol" and e.new < e.old and e.reason == "a new variant of the student's numbers (grade reseed)" for e in regrades)
    assert {r.student: r.result.variants["ex01"] for r in journal.rows(["alice", "carol"])} == {"alice": 0, "carol": 1}
    journal.close()


def test_a_reseed_without_its_audit_row_leaves_course_toml_as_it_was(variant_course, tmp_path, monkeypatch):
    """Does a reseed whose audit row cannot be written (the journal locked) leave course.toml as it was – never a new
    variant number that the audit trail does not record?"""
    import sqlite3

    from grader import api
    from grader.store import audit

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    before = (variant_course / "course.toml").read_text()
    monkeypatch.setattr(audit, "record", locked)
    with pytest.raises(sqlite3.OperationalError):
        api.reseed(course=load_course(variant_course), out=tmp_path / "out", student="carol", reason="sheet shared in a chat")
    assert (variant_course / "course.toml").read_text() == before


def test_a_reseed_records_its_audit_row_before_course_toml_changes(variant_course, tmp_path, monkeypatch):
    """Is course.toml still as it was when the reseed's audit row is recorded, and replaced whole after it (its mode
    kept), so that a reseed killed at any point leaves no new variant number the audit trail lacks?"""
    import os

    from grader import api
    from grader.store import audit

    course_file = variant_course / "course.toml"
    before = course_file.read_text()
    course_file.chmod(0o640)
    seen = []
    record = audit.record

    def recorded(*args, **kwargs):
        seen.append(course_file.read_text())
        return record(*args, **kwargs)

    monkeypatch.setattr(audit, "record", recorded)
    api.reseed(course=load_course(variant_course), out=tmp_path / "out", student="carol", reason="sheet shared in a chat")
    assert seen == [before]
    assert load_course(variant_course).variants.reseed == {"carol": 1}
    assert os.stat(course_file).st_mode & 0o777 == 0o640
    assert not [p.name for p in variant_course.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_grade_check_proves_the_references_right_for_50_variants(variant_course):
    """Does grade check's variant proof find nothing wrong in the course, and catch a check that still compares a
    numeric key with the reference sheet's own number (right for the statement's numbers only), and ranges that let
    a named mistake equal the right answer (the other GRU convention at z = 0.5; ex04's "d_x used for every layer" at
    a stack's d_x = 2·d_h, about 1 student in 20 of the old range)?"""
    from grader.grading.pipeline import check_variants

    def edit(path, old, new):
        text = (variant_course / path).read_text()
        assert old in text, old
        (variant_course / path).write_text(text.replace(old, new))

    assert check_variants(course=COURSE, device="cpu") == []
    edit("course/ex01/checks.py", 'answers.number, (expected(variant)["c_t"]', "answers.number, (1.065")
    edit("exercises/ex03_gru_arithmetic/variant.toml", "range = [0.60, 0.80]", "range = [0.50, 0.51]")
    edit("exercises/ex03_gru_arithmetic/variant.toml", "default = 0.7\n", "default = 0.51\n")
    edit("exercises/ex04_param_counts/variant.toml", "range = [5, 12]", "range = [2, 9]")  # d_x = 2·d_h drawn again
    code = (
        "import json, sys; from pathlib import Path; from grader.course import load_course; "
        "from grader.grading.pipeline import check_variants; "
        "print(json.dumps(check_variants(course=load_course(Path(sys.argv[1])), device='cpu', count=8)))"
    )
    # a process of its own: the check session imports hidden modules by their path in the course, which this one has
    done = subprocess.run([sys.executable, "-c", code, str(variant_course)], capture_output=True, text=True, check=True)
    problems = json.loads(done.stdout.splitlines()[-1])
    assert any(p.startswith("ex01: the reference sheet for grade-check-") for p in problems), problems
    assert any(p.startswith("ex03: at {'z': 0.5") and "h_t" in p for p in problems), problems
    assert any(p.startswith("ex04: at {") and "lstm_stack_count_torch" in p for p in problems), problems
    assert all(p.startswith(("ex01: ", "ex03: ", "ex04: ")) for p in problems), problems


# -- Gradescope and nbgrader -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_gradescope_grades_the_submitter_on_their_numbers(variant_course, tmp_path):
    """On Gradescope with variants on, is the upload graded on the numbers of submission_metadata.json's user
    (email by default, sid when course.toml says so), and alice's sheet wrong for bob?"""
    from grader.integrations.gradescope.runner import metadata, metadata_students, run

    root = gradescope_upload(variant_course, tmp_path, sheet_of(COURSE.exercise("ex01"), "alice@example.edu"))
    course = load_course(root / "source")
    meta = root / "submission_metadata.json"
    for email, expected in (("alice@example.edu", 6.0), ("bob@example.edu", None)):
        meta.write_text(json.dumps({"users": [{"email": email, "sid": "s-1", "name": "A"}]}))
        doc = run(root)
        score = sum(t["score"] for t in doc["tests"] if t["name"].startswith("ex01"))
        assert score == expected if expected is not None else score < 6, doc["output"]
    assert metadata_students(metadata(root), course) == ["bob@example.edu"]
    sid = replace(course, variants=replace(course.variants, gradescope_id="sid"))
    assert metadata_students(metadata(root), sid) == ["s-1"]
    meta.write_text("not json")
    assert metadata_students(metadata(root), course) == []


def gradescope_upload(variant_course: Path, tmp_path: Path, sheet: str) -> Path:
    """An /autograder layout of the variant course with `sheet` uploaded as ex01's answers.toml."""
    root = tmp_path / "autograder"
    shutil.copytree(variant_course, root / "source")
    folder = root / "submission" / COURSE.exercise("ex01").folder
    folder.mkdir(parents=True)
    (folder / "answers.toml").write_text(sheet)
    return root


@pytest.mark.slow
def test_a_group_upload_with_variants_on_is_refused_for_every_member(variant_course, tmp_path):
    """Is a group upload – alice lists bob first and hands in bob's right answers for bob's numbers – refused with 0
    points and a message naming both, where it was graded 6/6 on bob's numbers; and the same students listed twice
    (Bob and bob) one student, graded?"""
    from grader.integrations.gradescope.runner import run

    root = gradescope_upload(variant_course, tmp_path, sheet_of(COURSE.exercise("ex01"), "bob@example.edu"))
    meta = root / "submission_metadata.json"
    meta.write_text(json.dumps({"users": [{"email": "bob@example.edu", "name": "B"}, {"email": "alice@example.edu", "name": "A"}]}))
    doc = run(root)
    assert doc["score"] == 0 and doc["tests"] == [], doc["output"]
    assert doc["output"].startswith("the autograder failed: this upload is a group's (bob@example.edu, alice@example.edu)")
    meta.write_text(json.dumps({"users": [{"email": "Bob@example.edu", "name": "B"}, {"email": "bob@example.edu", "name": "B"}]}))
    doc = run(root)
    assert sum(t["score"] for t in doc["tests"] if t["name"].startswith("ex01")) == 6.0, doc["output"]


def test_nbgrader_names_the_student_by_their_folder(tmp_path):
    """Is the student whose notebook nbgrader grades the folder above the assignment in submitted/ or autograded/?"""
    from grader.integrations.nbgrader.autograder import student_of

    for where in ("submitted", "autograded"):
        folder = tmp_path / "course" / where / "alice" / "ex01"
        folder.mkdir(parents=True)
        assert student_of(folder) == "alice"
    assert student_of(tmp_path) is None


def test_the_student_bundle_shows_numbers_but_holds_no_answer(tmp_path, monkeypatch):
    """Does the release bundle carry each exercise's variant.toml, so that `grade show` works there with variants on,
    while no code that computes an answer (the hidden `expected`/`mistakes`) reaches it?"""
    from grader import api

    bundle = tmp_path / "bundle"
    api.release(course=COURSE, out=bundle)
    for exercise in DECLARED:
        assert (bundle / "exercises" / exercise.folder / "variant.toml").is_file()
    text = "\n".join(p.read_text(errors="replace") for p in bundle.rglob("*") if p.is_file())
    assert "def expected(p: dict)" not in text and "def mistakes(p: dict)" not in text
    course_file = bundle / "course.toml"
    course_file.write_text(course_file.read_text().replace('enabled = false\nsalt = ""', 'enabled = true\nsalt = "test-salt"'))
    monkeypatch.chdir(bundle)
    monkeypatch.delenv("GRADE_STUDENT", raising=False)
    shown = json.loads(show("ex04", "--student", "alice", "--json"))
    assert shown["params"] == draw(COURSE.exercise("ex04").variant, salt="test-salt", student="alice", number=0)


def test_grade_run_without_an_id_says_whose_numbers(course_with_variants):
    """With variants on, does `grade run` without an id say that the statement's numbers are graded, and with one not?"""
    from click.testing import CliRunner

    from grader.cli import main

    bare = CliRunner().invoke(main, ["run", "ex01", "--submission", "exercises"])
    assert bare.exit_code == 0 and "no student id" in bare.stderr, bare.output
    given = CliRunner().invoke(main, ["run", "ex01", "--submission", "exercises", "--student", "alice"])
    assert given.exit_code == 0 and "no student id" not in given.stderr, given.output


def test_a_classmates_answers_are_found_as_a_scan_of_the_class_finds_them(tmp_path):
    """Over a class of 300, does copied_from (values indexed once per class) name, for sheets holding one classmate's
    answers rounded within each key's own tolerance (ex02's 2 % keys to 2 digits), the classmate a scan of every
    classmate with the hidden checks' tolerances names – also when only the 2 % keys are a classmate's?"""
    from grader.grading.answers import load_sheet
    from grader.grading.numbers import answered, tolerances

    course, exercise = VARIANTS_ON, COURSE.exercise("ex02")
    module, own_rtol = hidden(exercise), tolerances(exercise)
    klass = tuple(f"s{n:03}" for n in range(300))
    assert own_rtol and set(own_rtol) < set(module.expected(exercise.variant.default()))  # some keys have their own

    def answers(who):
        return module.expected(variant_of(ON, exercise.variant, who).params)

    def scan(sheet: dict, student: str) -> str | None:
        def right(who):
            return sum(abs(sheet[k] - v) <= own_rtol.get(k, course.rtol) * abs(v) + 1e-12 for k, v in answers(who).items())

        mine = max(
            right(student),
            right(None),
            sum(abs(sheet[k] - v) <= own_rtol.get(k, course.rtol) * abs(v) + 1e-12 for k, v in module.expected(exercise.variant.example()).items()),
        )
        best = max((right(who), who) for who in klass if who != student)
        return best[1] if best[0] >= 2 and best[0] > mine else None

    named = []
    for n, (student, source) in enumerate([(f"s{n:03}", f"s{(7 * n + 3) % 300:03}") for n in range(0, 300, 15)]):
        # the source's answers, its 2 % keys to 2 digits; then those two alone (wrong elsewhere): the 2 % decides
        rounded = {k: float(f"{v:.2g}") if k in own_rtol else v for k, v in answers(source).items()}
        for m, sheet in enumerate((rounded, {k: v if k in own_rtol else 0.5 for k, v in rounded.items()})):
            folder = tmp_path / f"{n}-{m}" / exercise.folder
            folder.mkdir(parents=True)
            (folder / "answers.toml").write_text("".join(f"{k} = {v!r}\n" for k, v in sheet.items()))
            read = load_sheet(folder / "answers.toml", root=folder.parent, rtol=course.rtol)
            found = copied_from(course, [exercise], answered(course, [exercise], {"ex02": read}), student, klass).get("ex02")
            assert found == scan(sheet, student), (student, source, m)
            named.append(found == source if m == 0 else found is not None)
    whole, two_keys = named[0::2], named[1::2]
    assert sum(whole) >= len(whole) - 2, whole  # a classmate whose numbers give the same answers may take a few
    assert sum(two_keys) >= len(two_keys) / 2, two_keys  # two keys within 2 % fit several, or one's own numbers


def test_a_count_near_a_classmates_is_no_copy_of_theirs():
    """Is a parameter count judged exactly, as the hidden checks judge it (answers.integer), when copied_from looks for
    a classmate's numbers: ex11's counts one more than a classmate's (within 1e-3 of theirs, but not theirs) name no
    one, while the classmate's very counts name them?"""
    course, exercise = VARIANTS_ON, COURSE.exercise("ex11")
    module, klass = hidden(exercise), tuple(f"s{n:03}" for n in range(300))
    theirs = module.expected(variant_of(ON, exercise.variant, "s001").params)
    counts = {key: theirs[key] for key in ("q2_gru", "q2_lstm")}
    assert all(isinstance(v, int) and v > 1000 for v in counts.values())  # one more is within 1e-3 of theirs
    assert copied_from(course, [exercise], {"ex11": {k: float(v) for k, v in counts.items()}}, "s000", klass) == {"ex11": "s001"}
    assert copied_from(course, [exercise], {"ex11": {k: float(v + 1) for k, v in counts.items()}}, "s000", klass) == {}


def test_a_sheet_of_ones_own_named_mistakes_is_no_classmates():
    """Is a sheet that the student's own numbers explain with a named mistake never named as a classmate's, even where
    the mistake's value is that classmate's right answer: student s047 of a class of 300 leaves out ex11's biases (the
    course's most common Q2 mistake), which gives exactly s188's counts – while s188's counts still name s188 for
    another student?"""
    course, exercise = VARIANTS_ON, COURSE.exercise("ex11")
    module, klass = hidden(exercise), tuple(f"s{n:03}" for n in range(300))
    mine, theirs = (variant_of(ON, exercise.variant, who).params for who in ("s047", "s188"))
    no_bias = {key: next(v for v, (en, _) in module.mistakes(mine)[key].items() if en.startswith("the bias is missing")) for key in ("q2_gru", "q2_lstm")}
    assert no_bias == {key: module.expected(theirs)[key] for key in no_bias}  # the coincidence this test is about
    sheet = {"ex11": {k: float(v) for k, v in no_bias.items()}}
    assert copied_from(course, [exercise], sheet, "s047", klass) == {}
    assert copied_from(course, [exercise], sheet, "s000", klass) == {"ex11": "s188"}
