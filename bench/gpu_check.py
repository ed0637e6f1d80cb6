"""GPU check: on CUDA, every reference earns full marks, every stub zero, every ex05 mutant is caught.

    python bench/gpu_check.py            # exits 1 on any problem; prints one line per item

Run it whenever a GPU is available; its output goes into the closing note of the session.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> int:
    import torch

    from grader.course import load_course
    from grader.grading.pipeline import check_course, grade_submission, open_sandbox
    from test_ex05_mutants import MUTANTS, REFERENCE

    if not torch.cuda.is_available():
        print("CUDA is not available here; nothing checked")
        return 1
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    course = load_course(ROOT)
    start = time.perf_counter()
    (references, stubs), problems = check_course(course=course, device="cuda")
    print(f"references {references.score:g}/{references.max_score:g}, stubs {stubs.score:g}/{stubs.max_score:g} "
          f"on cuda ({time.perf_counter() - start:.1f} s)")

    ex05 = course.exercise("ex05")
    with open_sandbox(course, [ex05], "cuda") as sandbox, tempfile.TemporaryDirectory() as tmp:
        for name, (old, new, diagnosis) in MUTANTS.items():
            folder = Path(tmp) / name.replace(" ", "_") / ex05.folder
            folder.mkdir(parents=True)
            (folder / "gated.py").write_text(REFERENCE.replace(old, new))
            result = grade_submission(course=course, exercises=[ex05], submission=folder.parent, device="cuda", sandbox=sandbox)
            exercise = result.exercises[0]
            named = any(diagnosis in v.feedback for v in exercise.checks if not v.passed)
            caught = exercise.score < exercise.max_score and named and not result.internal_errors
            print(f"  mutant {name:32} {exercise.score:5g}/{exercise.max_score:g}  {'caught' if caught else 'MISSED'}")
            if not caught:
                problems.append(f"ex05 mutant {name!r} not caught and named on cuda")
    for problem in problems:
        print(f"problem: {problem}")
    print("all good on cuda" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
