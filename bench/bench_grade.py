"""How long grading a full correct submission takes, side by side with one fresh `import torch`.

    python bench/bench_grade.py [--repeat N]

Prints three figures measured in this run and their ratios to the baseline:
  baseline   a fresh `python -c "import torch"` (what any torch-using grader pays at least once)
  cold       the whole `grade run --submission solutions --json` command (zygote start included)
  warm       grading solutions/ again with the sandbox already running (the cost per submission
             that batch grading pays)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    n = parser.parse_args().repeat

    from grader.course import load_course
    from grader.grading.pipeline import Grader

    baseline = statistics.median(wall([sys.executable, "-c", "import torch"]) for _ in range(n))
    grade = [sys.executable, "-m", "grader.cli", "run", "--submission", "solutions", "--json"]
    cold = statistics.median(wall(grade) for _ in range(n))

    course = load_course(ROOT)
    exercises = [e for e in course.exercises if e.available]
    with Grader(course, exercises, "cpu") as grader:

        def once() -> tuple[float, int, float]:
            start = time.perf_counter()
            result = grader.grade(ROOT / "solutions")
            return time.perf_counter() - start, sum(len(e.checks) for e in result.exercises), result.score

        once()  # first run pays for importing the hidden checks and the references
        runs = [once() for _ in range(n)]
    warm = statistics.median(r[0] for r in runs)
    checks, score = runs[0][1], runs[0][2]

    print(f"exercises graded: {', '.join(e.id for e in exercises)}  ({checks} checks, score {score:g})")
    print(f"{'':28}{'seconds':>10}{'× import torch':>16}")
    print(f"{'baseline: import torch':28}{baseline:10.3f}{1.0:16.2f}")
    print(f"{'cold: grade run (CLI)':28}{cold:10.3f}{cold / baseline:16.2f}")
    print(f"{'warm: grade one submission':28}{warm:10.3f}{warm / baseline:16.2f}")
    print(f"warm cost per check: {1000 * warm / checks:.1f} ms")


if __name__ == "__main__":
    main()
