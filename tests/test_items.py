"""Item analysis on constructed classes whose answers are known: pass rates, point-biserial discrimination, the top
and bottom 27 %, the flags, the named mistakes, and who is left out."""

import dataclasses
import math

import pytest

from grader.export import items, summary
from grader.results import Adjustment, ExerciseResult, GradeResult, Outcome, Status, StudentRow, Verdict
from grader.text import Text

SWAPPED = Text("swapped GRU convention", "GRU 约定弄反了")


def check(name: str, points: float, earned: float, *, exercise: str = "ex03", outcome=None, diagnosis=()) -> Verdict:
    outcome = outcome or (Outcome.PASSED if earned >= points else Outcome.FAILED)
    return Verdict(exercise, name, points, earned, Text(""), False, outcome, tuple(diagnosis))


def student(name: str, *verdicts: Verdict, status=Status.GRADED) -> StudentRow:
    by_exercise: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_exercise.setdefault(v.exercise, []).append(v)
    exercises = [ExerciseResult(e, e, sum(v.earned for v in vs), sum(v.points for v in vs), vs) for e, vs in by_exercise.items()]
    return StudentRow(name, status, GradeResult(name, "cpu", "en", exercises))


# Five students, check a (1 point) and check b (4 points, partial credit):
#   s1: a 1, b 4 (total 5)   s2: a 1, b 2 (3)   s3: a 0, b 4 (4)   s4: a 0, b 0 (0)   s5: a 1, b 3 (4)
FIVE = [student(f"s{n}", check("a", 1, a), check("b", 4, b)) for n, (a, b) in enumerate([(1, 4), (1, 2), (0, 4), (0, 0), (1, 3)], 1)]


def by_name(analysis: items.Analysis) -> dict[str, items.Item]:
    return {c.check: c for c in analysis.checks}


def test_pass_rate_share_and_point_biserial_match_the_hand_computation():
    """Do p, the mean share and D of a check match the textbook point-biserial, computed by hand?"""
    a, b = by_name(items.analyse(FIVE, ["ex03"])).values()
    # Check a against the rest of the total (total − a) = [4, 2, 4, 0, 3]: passers' mean M1 = 9/3 = 3, failers'
    # M0 = 4/2 = 2, population variance 45/5 − 2.6² = 2.24, p q = 0.6 · 0.4 = 0.24, so
    # r_pb = (M1 − M0) / σ · √(p q) = 1 / √2.24 · √0.24 = √(0.24 / 2.24).
    assert (a.n, a.p, a.mean_share) == (5, 0.6, 0.6)
    assert a.discrimination == pytest.approx(math.sqrt(0.24 / 2.24), abs=1e-4)
    # Check b: full points for s1 and s3 only; shares 1, 0.5, 1, 0, 0.75.
    assert (b.p, b.mean_share) == (0.4, 0.65)


def test_top_and_bottom_27_percent_are_taken_by_total():
    """With five students (one in each 27 % group), is the top the best total and the bottom the worst?"""
    a, b = by_name(items.analyse(FIVE, ["ex03"])).values()
    assert (a.top27_p, a.bottom27_p) == (1.0, 0.0)  # s1 (5 points) passed a; s4 (0 points) failed it
    assert (b.top27_p, b.bottom27_p) == (1.0, 0.0)


def ladder(n: int, passes) -> list[StudentRow]:
    """n students with rising ability (their check "rest" earns i/2 of 10), each passing "x" when passes(i)."""
    return [student(f"p{i:02}", check("x", 1, float(passes(i))), check("rest", 10, i / 2)) for i in range(n)]


def test_strong_students_failing_a_check_is_flagged_first():
    """When the weaker half passes a check and the stronger half fails it, is D negative and that flag first?"""
    x = by_name(items.analyse(ladder(20, lambda i: i < 10), ["ex03"]))["x"]
    assert x.discrimination is not None and x.discrimination < -0.5
    assert x.flags == ("strong students fail it: check the check",)
    assert (x.top27_p, x.bottom27_p) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("passes", "flag"),
    [
        (lambda i: True, "too easy or not testing"),
        (lambda i: i == 19, "too hard or broken"),  # p = 0.05, passed by the strongest: D positive
        (lambda i: i % 2 == 1, "does not tell strong from weak students"),  # the odd ones: D small, positive
    ],
)
def test_each_flag_needs_twenty_students(passes, flag):
    """Is a check flagged at 20 students graded on it, and never at 19?"""
    x = by_name(items.analyse(ladder(20, passes), ["ex03"]))["x"]
    assert flag in x.flags, x
    assert by_name(items.analyse(ladder(19, passes), ["ex03"]))["x"].flags == ()


def test_a_discriminating_check_of_middling_difficulty_is_not_flagged():
    """Is a check that the stronger half passes (p = 0.5, D high) left unflagged?"""
    x = by_name(items.analyse(ladder(20, lambda i: i >= 10), ["ex03"]))["x"]
    assert x.p == 0.5 and x.discrimination is not None and x.discrimination > 0.5 and x.flags == ()


def test_a_rest_that_differs_only_in_rounding_has_no_spread():
    """When every student earns the same on every other check (3 × 2/3, 0.5 × 5/6, 1.5 × 5/6 points), and half pass
    "x", is x's D left out as of no spread – not drawn from the last bits of the float sums (rest 3.666666666666666 for
    those who passed, 3.6666666666666665 for the others: D -0.71, "strong students fail it")?"""
    rows = [
        student(f"s{i:02}", check("x", 1, float(i % 2)), check("b", 3, 3 * (2 / 3)), check("c", 0.5, 0.5 * 5 / 6), check("d", 1.5, 1.5 * 5 / 6))
        for i in range(20)
    ]
    x = by_name(items.analyse(rows, ["ex03"]))["x"]
    assert (x.p, x.discrimination, x.flags) == (0.5, None, ())


def penalised(row: StudentRow, final: float, **adjustment) -> StudentRow:
    """`row` as the term's rules publish it: each exercise `final` points, its raw points kept in the adjustment."""
    exercises = [dataclasses.replace(e, score=final, adjustment=Adjustment(raw=e.score, **adjustment)) for e in row.result.exercises]
    return dataclasses.replace(row, result=dataclasses.replace(row.result, exercises=exercises))


def test_late_penalties_and_overrides_do_not_move_the_figures():
    """With the strongest student's work late past the last day (0 final points) and the weakest's overridden to full
    points, are every check's figures those of the raw points the checks gave?"""
    late = [penalised(FIVE[0], 0.0, days_late=5, penalty=5.0), *FIVE[1:3], penalised(FIVE[3], 5.0, override=5.0), FIVE[4]]
    assert items.analyse(late, ["ex03"]) == items.analyse(FIVE, ["ex03"])


def test_timeouts_crashes_and_unreadable_students_are_left_out_and_counted_apart():
    """Are students who timed out (in any exercise), crashed or could not be read left out of n, p and D, and counted?"""
    slow = student("slow", check("a", 1, 1), check("b", 4, 4), check("loop", 2, 0, exercise="ex05", outcome=Outcome.TIMED_OUT))
    crash = student("crash", check("a", 1, 0), check("b", 4, 0, outcome=Outcome.CRASHED))
    lost = StudentRow("lost", Status.UNREADABLE, GradeResult.of_unreadable("lost", [], Text("bad zip")))
    analysis = items.analyse([*FIVE, slow, crash, lost], ["ex03", "ex05"])
    assert by_name(analysis) == by_name(items.analyse(FIVE, ["ex03", "ex05"]))
    assert sorted(analysis.left_out) == ["crash", "lost", "slow"]
    assert analysis.to_dict()["left_out_of_checks"] == 3


def test_checks_worth_no_points_are_not_items():
    """Is a public form check (0 points) left out of the item analysis?"""
    rows = [student(f"s{n}", check("form", 0, 0), check("a", 1, n % 2)) for n in range(4)]
    assert [c.check for c in items.analyse(rows, ["ex03"]).checks] == ["a"]


def test_mistakes_are_counted_once_per_student_and_exercise_most_common_first():
    """Is a named mistake counted once per student even when two checks name it, apart per exercise, and ranked
    (most students first, ties alphabetical)?"""
    other = Text("forgot the tanh")
    rows = [
        student("ann", check("h", 2, 0, diagnosis=[SWAPPED]), check("z", 2, 0, diagnosis=[SWAPPED])),
        student("bob", check("h", 2, 0, diagnosis=[SWAPPED]), check("h5", 2, 1, exercise="ex05", diagnosis=[SWAPPED])),
        student("cyd", check("h", 2, 0, diagnosis=[other])),
        student("dan", check("h", 2, 2, outcome=Outcome.TIMED_OUT, diagnosis=[other]), check("z", 2, 0, diagnosis=[other])),
    ]
    assert items.analyse(rows, ["ex03", "ex05"]).to_dict()["mistakes"] == [
        {"exercise": "ex03", "diagnosis": "forgot the tanh", "students": 2, "outcome": "failed"},  # dan's counts: a diagnosis is a diagnosis
        {"exercise": "ex03", "diagnosis": "swapped GRU convention", "students": 2, "outcome": "failed"},  # a tie: alphabetical
        {"exercise": "ex03", "diagnosis": "hit a time limit", "students": 1, "outcome": "timed out"},
        {"exercise": "ex05", "diagnosis": "swapped GRU convention", "students": 1, "outcome": "failed"},
    ]


def test_a_file_that_does_not_import_is_one_failure_of_its_student():
    """Is a file that does not parse – every check of its exercise failed with the same outcome – counted once per
    student, beside each other way of failing and each named mistake, and never as a crash?"""
    broken = [check(f"c{n}", 1, 0, exercise="ex05", outcome=Outcome.NOT_IMPORTED) for n in range(16)]
    rows = [
        student("ann", *broken),
        student("bob", *broken[:3], check("c9", 1, 0, exercise="ex08", outcome=Outcome.REFUSED, diagnosis=[SWAPPED])),
        student("cyd", check("c1", 1, 0, exercise="ex05", diagnosis=[SWAPPED]), check("c2", 1, 0, exercise="ex05", outcome=Outcome.CRASHED)),
    ]
    got = [(m.exercise, m.outcome, m.diagnosis.en, m.students) for m in items.analyse(rows, ["ex05", "ex08"]).mistakes]
    assert got == [
        ("ex05", Outcome.NOT_IMPORTED, items.FAILURES[Outcome.NOT_IMPORTED].en, 2),
        ("ex05", Outcome.CRASHED, "crashed", 1),
        ("ex05", Outcome.FAILED, "swapped GRU convention", 1),
        ("ex08", Outcome.REFUSED, items.FAILURES[Outcome.REFUSED].en, 1),
        ("ex08", Outcome.FAILED, "swapped GRU convention", 1),
    ]
    figures = summary.summarize(rows, ["ex05", "ex08"])
    assert figures["crashed"] == 1 and figures["did_not_import"] == 2
    assert items.Analysis.from_dict(figures).mistakes[0].outcome is Outcome.NOT_IMPORTED


def test_summary_json_has_the_issue_s_shape():
    """Does summary.json give each check exactly the keys asked for, and each mistake exercise, diagnosis, students?"""
    figures = summary.summarize(FIVE, ["ex03"])
    assert [set(c) for c in figures["checks"]] == [{"exercise", "check", "n", "p", "mean_share", "discrimination", "top27_p", "bottom27_p", "flags"}] * 2
    assert figures["left_out_of_checks"] == 0 and figures["mistakes"] == []
    assert "| ex03 | a | 5 | 0.60 | 0.60 | 0.33 | 1.00 | 0.00 |  |" in summary.to_markdown(figures)


def test_the_tables_speak_the_course_language():
    """Rendered in zh, are the tables' fixed words, the flags and the diagnoses Chinese, with no English fixed word?"""
    rows = [*ladder(20, lambda i: True), student("ann", check("x", 1, 0, diagnosis=[SWAPPED]))]
    zh = "\n".join(items.to_markdown(items.analyse(rows, ["ex03"]), "zh"))
    en = "\n".join(items.to_markdown(items.analyse(rows, ["ex03"]), "en"))
    assert "题目分析" in zh and "太容易" in zh and "GRU 约定弄反了" in zh
    assert not any(word in zh for word in ("Checks", "exercise", "too easy", "swapped", "students"))
    assert "too easy or not testing" in en and "swapped GRU convention" in en


def test_flagged_checks_are_listed_first_to_look_at():
    """Does the rendering name the flagged checks, with their flags and figures, before the full table?"""
    lines = items.to_markdown(items.analyse(ladder(20, lambda i: i < 10), ["ex03"]), "en")
    first = lines.index("Checks to look at:")
    assert lines[first + 2] == "- ex03 x: strong students fail it: check the check (p 0.50, D -0.87)"
    assert first < next(n for n, line in enumerate(lines) if line.startswith("| exercise |"))


def test_code_mistakes_of_graded_submissions_are_counted(grade):
    """Graded for real, are ex05's detached gate and ex08's unseeded build named mistakes of the class, and ex05's
    SyntaxError one failure to import (not a crash, not a message per check)?"""
    from mutants import ex05, ex08, mutate, reference, submission

    def named(bank, name):
        return next(m for m in bank if m.name == name)

    gated = reference("ex05")["gated.py"]
    results = [
        grade("ex05", submission(named(ex05.MUTANTS, "detached gate"))),
        grade("ex08", submission(named(ex08.MUTANTS, "no seed before the build"))),
        grade("ex05", {"gated.py": mutate(gated, "def lstm_step(", "def lstm_step((")}),
    ]
    rows = [StudentRow(f"s{n}", Status.GRADED, GradeResult(f"s{n}", "cpu", "en", [e])) for n, e in enumerate(results)]
    got = {(m.exercise, m.outcome, m.diagnosis.en.split(":")[0], m.students) for m in items.analyse(rows, ["ex05", "ex08"]).mistakes}
    assert got == {
        ("ex05", Outcome.FAILED, "a cut graph", 1),
        ("ex08", Outcome.FAILED, "initial weights not built under torch.manual_seed(seed)", 1),
        ("ex05", Outcome.NOT_IMPORTED, items.FAILURES[Outcome.NOT_IMPORTED].en, 1),
    }
    assert {v.outcome for v in results[2].checks} == {Outcome.NOT_IMPORTED}
