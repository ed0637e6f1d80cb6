"""What naming a sheet as another student's variant (`grader.grading.numbers.copied_from`, run for every student of a batch) costs
as the class grows: the class's answers indexed once per worker, against a scan of every classmate per student
(how it was done before, kept here as the baseline), side by side on the same sheets.

    python bench/bench_copied_from.py [--sizes 100,1000,10000] [--students 20]

Each measured student hands in the sheet of a classmate (ex01 and ex02 with [variants] on); both ways must name the
same classmate. A batch grades every student, so a class of n costs n times the per-student figure, plus the index
once per worker.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import api, variants  # noqa: E402
from grader.grading import numbers  # noqa: E402
from grader.grading.answers import load_sheet  # noqa: E402


def right(exercise, answered: dict[str, float], rtol: dict[str, float], params) -> int:
    """How many of `answered` are right for the numbers `params`."""
    expected = numbers.answers_of(exercise).expected(params)
    return sum(key in expected and numbers._within(got, expected[key], rtol[key]) for key, got in answered.items())


def scanned(course, exercises, sheets, student: str, classmates: tuple[str, ...]) -> dict[str, str]:
    """The baseline: each classmate's answers computed and compared with the sheet, for every student."""
    found = {}
    for exercise in exercises:
        answered = dict(sheets.get(exercise.id, {}))
        rtol = {k: 0.0 if k in numbers._counts(exercise) else numbers.tolerances(exercise).get(k, course.rtol) for k in answered}
        own = max(numbers._explained(exercise, answered, rtol, numbers._params(course, exercise, who)) for who in (student, None))
        best = max(((right(exercise, answered, rtol, numbers._params(course, exercise, who)), who) for who in classmates if who != student), default=(0, ""))
        if best[0] >= 2 and best[0] > own:
            found[exercise.id] = best[1]
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--students", type=int, default=20, help="students measured per class size")
    args = parser.parse_args()
    course = api.course(root=ROOT)
    course = dataclasses.replace(course, variants=dataclasses.replace(course.variants, enabled=True, salt="bench"))
    exercises = api.select(course, ["ex01", "ex02"])
    print(f"{'class':>7} {'index once':>10} {'indexed/student':>15} {'scan/student':>12} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            klass = tuple(f"s{i}" for i in range(n))
            sheets = []
            for i in range(args.students):  # student i hands in the sheet of classmate i + 1
                root = Path(tmp) / f"{n}-{i}"
                for e in exercises:
                    (root / e.folder).mkdir(parents=True)
                    params = variants.variant_of(course.variants, e.variant, klass[i + 1]).params
                    (root / e.folder / "answers.toml").write_text(numbers.reference_sheet(e, params))
                read = {e.id: load_sheet(root / e.folder / "answers.toml", root=root, rtol=course.rtol) for e in exercises}
                sheets.append((klass[i], numbers.answered(course, exercises, read)))
            numbers._CLASS.clear()
            start = time.perf_counter()
            numbers.copied_from(course, exercises, sheets[0][1], sheets[0][0], klass)
            once = time.perf_counter() - start
            start = time.perf_counter()
            indexed = [numbers.copied_from(course, exercises, w, s, klass) for s, w in sheets[1:]]
            per_indexed = (time.perf_counter() - start) / (len(sheets) - 1)
            start = time.perf_counter()
            baseline = [scanned(course, exercises, w, s, klass) for s, w in sheets[1:]]
            per_scan = (time.perf_counter() - start) / (len(sheets) - 1)
            if indexed != baseline:
                print(f"the two ways disagree at {n}: {indexed} against {baseline}", file=sys.stderr)
                return 1
            print(f"{n:>7} {once:>9.2f}s {per_indexed * 1e3:>13.1f}ms {per_scan * 1e3:>10.1f}ms {per_scan / per_indexed:>6.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
