"""GPU check: on CUDA, every reference earns full marks, every stub zero, every bank's known mistake is caught and earns
on each check what it earns on the CPU (the ledger, tests/mutant_ledger.toml).

    python bench/gpu_check.py            # exits 1 on any problem; prints one line per item

Run it whenever a GPU is available; its output goes into the closing note of the session.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_mutants():
    """tests/mutants.py (the banks' machinery, which imports each bank's data from course/<id>/mutants.py), imported from
    its path: no test module, no test folder on sys.path."""
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "tests" / "mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutants"] = module
    spec.loader.exec_module(module)
    return module


def check_mutants(course, device: str) -> list[str]:
    """Grade every bank's mutants on `device`, one sandbox per exercise; print caught/MISSED for each."""
    from grader.grading.pipeline import Grader

    mutants = load_mutants()
    ledger = mutants.read_ledger()  # what each mutant earns on the CPU, check by check (tests/mutant_ledger.toml)
    problems = []
    for exercise in course.exercises:
        bank = [m for m in mutants.ALL if m.exercise == exercise.id]
        start = time.perf_counter()
        with Grader(course, [exercise], device) as grader, tempfile.TemporaryDirectory() as tmp:
            for n, mutant in enumerate(bank):
                folder = Path(tmp) / str(n) / exercise.folder
                folder.mkdir(parents=True)
                for name, text in mutants.submission(mutant).items():
                    (folder / name).write_text(text, encoding="utf-8")
                result = grader.grade(folder.parent)
                graded = result.exercises[0]
                named = any(mutant.diagnosis in v.feedback for v in graded.checks if not v.passed)
                caught = graded.score < graded.max_score and named and not result.internal_errors
                print(f"  mutant {mutant.id:56} {graded.score:5g}/{graded.max_score:g}  {'caught' if caught else 'MISSED'}")
                if not caught:
                    problems.append(f"mutant {mutant.id!r} not caught and named on {device}" + "".join(f"; {error}" for error in result.internal_errors))
                elif lines := mutants.moved(ledger.get(mutant.id, {}), mutants.costs(graded)):
                    print("\n".join(lines))
                    problems.append(f"mutant {mutant.id!r} earns on {device} what it does not on the CPU ({mutants.LEDGER_PATH})")
        print(f"{exercise.id}: {len(bank)} mutants on {device} ({time.perf_counter() - start:.1f} s)")
    return problems


def main() -> int:
    import torch

    from grader.course import load_course
    from grader.grading.pipeline import check_course

    if not torch.cuda.is_available():
        print("CUDA is not available here; nothing checked")
        return 1
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
    course = load_course(ROOT)
    start = time.perf_counter()
    (references, stubs), problems = check_course(course=course, device="cuda")
    print(f"references {references.score:g}/{references.max_score:g}, stubs {stubs.score:g}/{stubs.max_score:g} on cuda ({time.perf_counter() - start:.1f} s)")
    problems += check_mutants(course, "cuda")
    for problem in problems:
        print(f"problem: {problem}")
    print("all good on cuda" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
